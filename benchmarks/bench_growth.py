"""Growth: time and peak memory of the suite as the matrix grows to 10,000 synthetic cells.

The synthetic matrices copy every row of matrix.yaml under new family names
(`<family>-s<N>`), with the citations, until they hold about the number of cells asked for.
They are run on `SyntheticTarget` (below), which renders a copied row with the reference
profile of the family it was copied from, so each synthetic cell costs what a real one does.
The snapshot and cassette checks are left out (no golden files exist for synthetic rows);
every other check runs, the property searches included, and the results file is written.
CPU is user + system seconds of the whole command (start-up and collection included), the
figure to compare across sizes on a shared machine; "per test" divides it by the tests run.

    python benchmarks/bench_growth.py [--sizes 1000,2500,5000,10000]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from _bench import ROOT, passed, pytest_args, run, table, user_project
from ruamel.yaml import YAML

sys.path.insert(0, str(ROOT))

from conformance.history import History
from conformance.matrix import load_matrix
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget

_COPY = re.compile(r"-s\d+$")


class SyntheticTarget:
    """The reference, for rows copied under a new family name."""

    name = "synthetic"
    version = "0"

    def __init__(self) -> None:
        self._reference = ReferenceTarget()

    def _row(self, row: RowRef) -> RowRef:
        family = _COPY.sub("", row.family)
        return RowRef(id=f"{row.api}/{family}", api=row.api, family=family, model=row.model)

    def supports(self, row: RowRef) -> str | None:
        return self._reference.supports(self._row(row))

    def render(self, row: RowRef, history: History) -> Payload:
        return self._reference.render(self._row(row), history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._reference.render_stored(self._row(row), history)


def _plain(node: Any) -> Any:
    """ruamel's round-trip nodes as plain dicts and lists (aliases expanded)."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}  # pyright: ignore[reportUnknownVariableType,reportUnknownArgumentType]
    if isinstance(node, list):
        return [_plain(v) for v in node]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(node, str):
        return str(node)  # ruamel's folded and quoted strings are str subclasses
    return node


def synthetic_matrix(cells: int, out: Path) -> int:
    """Write a matrix of about `cells` cells; return the exact count."""
    yaml = YAML(typ="rt")
    source = _plain(yaml.load(ROOT / "matrix.yaml"))  # pyright: ignore[reportUnknownMemberType]
    per_copy = len(load_matrix(ROOT / "matrix.yaml").all_cells())
    copies = max(1, round(cells / per_copy))
    rows = source["rows"]
    source["rows"] = {f"{row_id}-s{n}": row for n in range(copies) for row_id, row in rows.items()}
    source.pop("deviations", None)
    safe = YAML(typ="safe", pure=True)
    safe.default_flow_style = False
    with out.open("w", encoding="utf-8") as stream:
        safe.dump(source, stream)  # pyright: ignore[reportUnknownMemberType]
    return len(load_matrix(out).all_cells())


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,2500,5000,10000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    rows: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            folder = Path(tmp) / f"m{size}"
            folder.mkdir()
            count = synthetic_matrix(size, folder / "matrix.yaml")
            user_project(folder, matrix=folder / "matrix.yaml")
            args = pytest_args(
                "-m",
                "conformance",
                "--conformance-target",
                "bench_growth:SyntheticTarget",
                "-k",
                "not :snapshot]",
                "--conformance-results",
                str(folder / "results.jsonl"),
            )
            env = {"PYTHONPATH": f"{ROOT / 'benchmarks'}:{ROOT}"}
            done = run(args, cwd=folder, env=env, cores=1)
            found = re.findall(r"(\d+) passed", done.output.splitlines()[-1])
            if not passed(done) or not found:
                raise SystemExit(f"{size} cells: pytest failed:\n{done.output[-3000:]}")
            tests = int(found[0])
            rows.append(
                (
                    f"{count:,}",
                    f"{tests:,}",
                    f"{done.cpu:.1f} s",
                    f"{done.cpu / tests * 1000:.2f} ms",
                    f"{done.seconds:.1f} s",
                    f"{done.max_rss_mib:.0f} MiB",
                    f"{done.max_rss_mib / count * 1024:.0f} KiB",
                )
            )
            print(" | ".join(rows[-1]), flush=True)
    print("synthetic matrices on one core (taskset -c 0), snapshot and cassette checks left out")
    headers = ("cells", "tests", "CPU", "CPU per test", "wall", "peak RSS", "peak RSS per cell")
    print(table(headers, rows))


if __name__ == "__main__":
    main()
