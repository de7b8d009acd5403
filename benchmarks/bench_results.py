"""`conformance report`, `merge` and `diff` on 100,000 result lines.

The lines are a real results file of the reference target (made once by running the matrix
into a temporary folder), repeated under target names `t000`, `t001`, ... until there are
about as many lines as asked for: every line is one the suite really writes. `merge` joins
two shards (the first and second half of the targets); `diff` compares the file with a copy
in which one cell in twenty of every target got worse.

    python benchmarks/bench_results.py [--lines 100000] [--rounds 3] [--inputs DIR]
                                       [--against DIR]

`--against DIR` runs every command also with another version's package (main's, say), the
two alternated in one run so that both see the same load, and refuses outputs that differ
by a byte.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _bench import ROOT, Run, passed, pytest_args, run, table, user_project

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
    # Cells of the matrix only: a property line has no outcome to make worse (the matrix grew
    # enough that one in twenty now falls on a `property/...` cell).
    cells = sorted({line["cell"] for line in results if "property" not in line})
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


def _same_output(label: str, this: Path, against: Path) -> bool:
    """The two versions' outputs are the same: byte for byte, or for `merge`, line by line as
    records (a merged line may keep the field order it was read in)."""
    if this.read_bytes() == against.read_bytes():
        return True
    if not label.startswith("merge"):
        return False
    return _lines(this) == _lines(against)


def _inputs(folder: Path, lines: int) -> tuple[int, int]:
    """Write big.jsonl, worse.jsonl and two shards into `folder` (kept if there already):
    the number of result lines per target and of targets."""
    sizes = folder / "sizes"
    if sizes.exists():
        per_target, targets = map(int, sizes.read_text().split())
        return per_target, targets
    project = user_project(folder / "project", cassettes=ROOT / "cassettes")
    seed = project / "results.jsonl"
    done = run(pytest_args("-m", "conformance", "--conformance-results", str(seed)), cwd=project)
    if not passed(done):
        raise SystemExit(f"the reference run failed:\n{done.output[-3000:]}")
    source = _lines(seed)
    per_target = len(source) - 2
    names = [f"t{i:03d}" for i in range(max(2, round(lines / per_target)))]
    _write(folder / "big.jsonl", _copies(source, names))
    _write(folder / "worse.jsonl", _copies(source, names, worse=True))
    half = len(names) // 2
    for index, part in enumerate((names[:half], names[half:])):
        shard = _copies(source, part)
        shard[0]["targets"] = dict.fromkeys(names, "1.0.0")  # one run, split by target
        _write(folder / f"shard-{index}.jsonl", shard)
    sizes.write_text(f"{per_target} {len(names)}")
    return per_target, len(names)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--inputs",
        type=Path,
        help="keep the generated results files in this folder, and reuse them if there",
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="a folder holding another version's `conformance` package (e.g. `git archive main"
        " conformance | tar -x -C DIR`): every command runs with both, alternately, and their"
        " outputs must be byte-identical",
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = (options.inputs or Path(tmp)).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        per_target, targets = _inputs(folder, options.lines)
        big, worse = folder / "big.jsonl", folder / "worse.jsonl"
        shards = [folder / "shard-0.jsonl", folder / "shard-1.jsonl"]
        commands = {
            "report --format md": ["report", str(big), "--format", "md"],
            "report --format json": ["report", str(big), "--format", "json"],
            "merge (2 shards)": ["merge", *map(str, shards)],
            "diff": ["diff", str(big), str(worse)],
            "python start-up and import": None,
        }
        # Each side imports its own package: PYTHONPATH, from a folder that holds none.
        sides = {"this": ROOT, **({"against": options.against} if options.against else {})}
        runs: dict[tuple[str, str], list[Run]] = {}
        # Bytecode written and reused, as Python does by default (this machine sets
        # PYTHONDONTWRITEBYTECODE=1, which made every command compile the modules it imports):
        # into a folder of the script's own, warmed by the first round, which is not counted.
        bytecode = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": f"{tmp}/pycache"}
        for round_ in range(options.rounds + 1):
            for label, args in commands.items():
                for side, package in sides.items():
                    out = Path(tmp) / f"out-{side}"  # the commands write only a regular file
                    command = [*_CLI, *args, "-o", str(out)] if args else [*_CLI[:2], _IMPORT]
                    env = {"PYTHONPATH": str(package), **bytecode}
                    done = run(command, cwd=Path(tmp), env=env)
                    expected = 1 if label == "diff" else 0  # the diff finds the regressions
                    if done.returncode != expected:
                        raise SystemExit(f"{label}, {side}: exit {done.returncode}:\n{done.output}")
                    if round_:  # the first round writes the bytecode
                        runs.setdefault((label, side), []).append(done)
                this, against = Path(tmp) / "out-this", Path(tmp) / "out-against"
                if args and options.against and not _same_output(label, this, against):
                    raise SystemExit(f"{label}: the outputs of the two versions differ")
        rows = [_row(label, runs, sides) for label in commands]
    heads = ["command", "wall", "CPU", "peak RSS"]
    if options.against:
        heads += ["CPU against", "peak RSS against", "CPU ratio"]
    print(
        f"{per_target * targets:,} result lines ({targets} targets x {per_target} lines);"
        f" medians of {options.rounds}"
        + (
            f"; against {options.against}, alternated, outputs identical (merge: as records)"
            if options.against
            else ""
        )
    )
    print(table(heads, rows))


_IMPORT = "import conformance.cli"


def _row(label: str, runs: dict[tuple[str, str], list[Run]], sides: dict[str, Path]) -> list[str]:
    def cpu(side: str) -> float:
        return statistics.median(r.cpu for r in runs[(label, side)])

    def rss(side: str) -> str:
        return f"{max(r.max_rss_mib for r in runs[(label, side)]):.0f} MiB"

    this = runs[(label, "this")]
    row = [label, f"{statistics.median(r.seconds for r in this):.2f} s", f"{cpu('this'):.2f} s"]
    row.append(rss("this"))
    if "against" in sides:
        row += [f"{cpu('against'):.2f} s", rss("against"), f"{cpu('against') / cpu('this'):.1f}x"]
    return row


if __name__ == "__main__":
    main()
