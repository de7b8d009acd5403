"""Move a `deviations:` block out of an old matrix.yaml (one-off migration, e.g. after a merge).

    python tools/deviations_from_matrix.py matrix.yaml pydantic-ai \
        --rules deviations/pydantic-ai.reasons.yaml -o /tmp/pydantic-ai.rules.yaml --strip

Writes a reasons file for `conformance deviations`: one rule per old entry (its cell and
outcome, its reason; a `docs/...` link becomes `notes`), followed by the rules of `--rules`
as the fallback for cells the block did not name. `--strip` removes the block from the matrix.
Then run the target without a deviations file and generate it:

    conformance deviations report/results-pydantic-ai-<version>.jsonl --target pydantic-ai \
        --reasons /tmp/pydantic-ai.rules.yaml -o deviations/pydantic-ai.yaml
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("matrix")
    parser.add_argument("target")
    parser.add_argument("--rules", help="a reasons file whose rules follow, as the fallback")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--strip", action="store_true", help="remove the block from the matrix")
    args = parser.parse_args()
    path = Path(args.matrix)
    text = path.read_text(encoding="utf-8")
    start = text.index("\ndeviations:")
    block: Any = YAML(typ="safe").load(text[start:])
    lines = ["rules:"]
    for entry in block["deviations"].get(args.target, []):
        cell = json.dumps("^" + re.escape(entry["cell"]) + "$")
        lines.append(f"  - when: {{cell: {cell}, outcome: {entry['outcome']}}}")
        lines.append(f"    reason: {json.dumps(entry['reason'], ensure_ascii=False)}")
        link = str(entry.get("link") or "")
        if link:
            key = "link" if link.startswith(("https://", "http://")) else "notes"
            lines.append(f"    {key}: {json.dumps(link)}")
    if args.rules:
        fallback = Path(args.rules).read_text(encoding="utf-8").split("\nrules:\n", 1)[1]
        lines.append(fallback.rstrip("\n"))
    Path(args.output).write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.strip:
        path.write_text(text[: start + 1], encoding="utf-8")


if __name__ == "__main__":
    main()
