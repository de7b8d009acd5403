"""`conformance report`, `merge` and `diff` on 100,000 result lines.

The lines are a real results file of the reference target (made once by running the matrix
into a temporary folder), repeated under target names `t000`, `t001`, ... until there are
about as many lines as asked for: every line is one the suite really writes. `merge` joins
two shards (the first and second half of the targets); `diff` compares the file with a copy
in which one cell in twenty of every target got worse.

    python benchmarks/bench_results.py [--lines 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _bench import ROOT, passed, pytest_args, run, table, user_project

_CLI = [sys.executable, "-c", "import sys; from conformance.cli import main; sys.exit(main())"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _copies(
    source: list[dict[str, Any]], names: list[str], worse: bool = False
) -> list[dict[str, Any]]:
    """The source file's lines, once per target name, with the meta and end lines to match."""
    meta, *results, end = source
    cells = sorted({line["cell"] for line in results})
    worse_cells: set[str] = set(cells[::20]) if worse else set()
    out: list[dict[str, Any]] = [{**meta, "targets": dict.fromkeys(names, "1.0.0")}]
    # A results file holds every cell line before the property lines (results.py checks it).
    cell_lines = [line for line in results if "property" not in line]
    properties = [line for line in results if "property" in line]
    for part in (cell_lines, properties):
        for name in names:
            for line in part:
                copy = {**line, "target": name, "target_version": "1.0.0"}
                if copy["cell"] in worse_cells and copy["verdict"] != "skip":
                    copy["verdict"] = "fail"
                    copy["outcome"] = "dropped"
                    copy["detail"] = copy["detail"] or "made worse for the benchmark"
                out.append(copy)
    out.append({**end, "results": len(out) - 1})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = user_project(Path(tmp) / "project", cassettes=ROOT / "cassettes")
        seed = folder / "results.jsonl"
        done = run(pytest_args("-m", "conformance", "--conformance-results", str(seed)), cwd=folder)
        if not passed(done):
            raise SystemExit(f"the reference run failed:\n{done.output[-3000:]}")
        source = _lines(seed)
        per_target = len(source) - 2
        names = [f"t{i:03d}" for i in range(max(2, round(options.lines / per_target)))]
        big, worse = Path(tmp) / "big.jsonl", Path(tmp) / "worse.jsonl"
        shards = [Path(tmp) / "shard-0.jsonl", Path(tmp) / "shard-1.jsonl"]
        _write(big, _copies(source, names))
        _write(worse, _copies(source, names, worse=True))
        half = len(names) // 2
        _write(shards[0], _copies(source, names[:half]))
        _write(shards[1], _copies(source, names[half:]))
        for shard in shards:
            lines = _lines(shard)
            lines[0]["targets"] = dict.fromkeys(names, "1.0.0")  # one run, split by target
            _write(shard, lines)
        total = len(_lines(big)) - 2
        out = Path(tmp) / "out"  # the commands refuse to write anything but a regular file
        commands = {
            "report --format md": [*_CLI, "report", str(big), "--format", "md", "-o", str(out)],
            "report --format json": [
                *_CLI,
                "report",
                str(big),
                "--format",
                "json",
                "-o",
                str(out),
            ],
            "merge (2 shards)": [*_CLI, "merge", *map(str, shards), "-o", str(out)],
            "diff": [*_CLI, "diff", str(big), str(worse), "-o", str(out)],
            "python start-up and import": [*_CLI[:2], "import conformance.cli"],
        }
        rows: list[tuple[str, str, str, str]] = []
        for label, command in commands.items():
            runs = [run(command, cwd=ROOT) for _ in range(options.rounds)]
            codes = {r.returncode for r in runs}
            expected = {1} if label == "diff" else {0}  # the diff finds the regressions
            if codes != expected:
                raise SystemExit(f"{label}: exit {codes}:\n{runs[0].output[-2000:]}")
            peak = max(r.max_rss_mib for r in runs)
            rows.append(
                (
                    label,
                    f"{statistics.median(r.seconds for r in runs):.2f} s",
                    f"{statistics.median(r.cpu for r in runs):.2f} s",
                    f"{peak:.0f} MiB",
                )
            )
    print(
        f"{total:,} result lines ({len(names)} targets x {per_target} lines); medians of "
        f"{options.rounds}"
    )
    print(table(("command", "wall", "CPU", "peak RSS"), rows))


if __name__ == "__main__":
    main()
