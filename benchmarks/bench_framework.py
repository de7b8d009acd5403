"""A framework target, per cell with all its checks, after start-up.

Runs the matrix on a framework target (pydantic-ai, langchain, litellm, or any `module:attr`)
with the Python of a venv that has the framework, in a project folder outside the repository:
once with every test, once with every test deselected, alternated over the rounds. The per-cell
cost is the difference divided by the number of cells that ran (skipped rows left out).

Then the framework's own floor (`_floor.py`, in the same venv): CPU per call of its public API
with nothing of the suite around it, e.g. one bare `Agent.run` with a `FunctionModel`, one
`litellm.completion` to the loopback recorder. A cell renders twice (directly and after the
storage round trip), so twice the floor of one request is what a cell cannot go below.

Last, one untimed run of the cells alone (no properties) with `_count_renders.py` loaded: how
many times each cell was run, rendered directly and after storage, and how many requests the
framework sent to the recorder for it. A cell needs one run, two renders, and one request per
render that reaches the wire (none where the framework refuses before sending).

    python benchmarks/bench_framework.py --target pydantic-ai \
        --python .nox/target-pydantic-ai/bin/python
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import tempfile
from pathlib import Path

from _bench import ROOT, Run, run, table, user_project


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--python", required=True, help="the Python of a venv with the framework")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--without-deviations",
        action="store_true",
        help="judge without the target's deviations file (when it lags the matrix after a merge)",
    )
    options = parser.parse_args()
    python = str(Path(options.python).absolute())
    with tempfile.TemporaryDirectory() as tmp:
        none = Path(tmp) / "no-deviations"  # an empty file, else the packaged one is found
        none.mkdir()
        (none / f"{options.target}.yaml").write_text(
            f"target: {options.target}\ndeviations: []\n", encoding="utf-8"
        )
        folder = user_project(
            Path(tmp) / "project", deviations=none if options.without_deviations else None
        )
        results = folder / "results.jsonl"
        base = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "conformance"]
        base += ["--conformance-target", options.target]
        runs: dict[str, list[Run]] = {"all": [], "none": []}
        for _ in range(options.rounds):
            runs["none"].append(run([*base, "-k", "no_such_test"], cwd=folder))
            done = run([*base, "--conformance-results", str(results)], cwd=folder)
            if done.returncode not in (0, 1):  # failing cells are findings, not errors here
                raise SystemExit(f"pytest failed:\n{done.output[-3000:]}")
            runs["all"].append(done)
        lines = [json.loads(x) for x in results.read_text("utf-8").splitlines()]
        ran = {x["cell"] for x in lines if x.get("kind") == "result" and x["verdict"] != "skip"}
        version = lines[0].get("targets", {}).get(options.target, "?")
        counts = _count(base, folder)
    wall = {name: statistics.median(r.seconds for r in rs) for name, rs in runs.items()}
    per_cell = (wall["all"] - wall["none"]) / max(1, len(ran)) * 1000
    cpu = {name: statistics.median(r.cpu for r in rs) for name, rs in runs.items()}
    cpu_per_cell = (cpu["all"] - cpu["none"]) / max(1, len(ran)) * 1000
    peak = max(r.max_rss_mib for r in runs["all"])
    print(f"target {options.target} {version}; {len(ran)} cells ran; medians of {options.rounds}")
    print(
        table(
            (
                "all cells",
                "start-up (all deselected)",
                "per cell, after start-up",
                "CPU per cell, after start-up",
                "peak RSS",
            ),
            [
                (
                    f"{wall['all']:.2f} s",
                    f"{wall['none']:.2f} s",
                    f"{per_cell:.1f} ms",
                    f"{cpu_per_cell:.1f} ms",
                    f"{peak:.0f} MiB",
                )
            ],
        )
    )

    print("\nper cell, counted (`_count_renders.py`; cells alone, no properties):")
    print(counts)

    floor = run([python, str(ROOT / "benchmarks" / "_floor.py"), options.target])
    lines_out = floor.output.strip().splitlines()
    if floor.returncode != 0 or not lines_out:
        print(f"\nno floor measured for {options.target}:\n{floor.output[-2000:]}")
        return
    floors: dict[str, float] = json.loads(lines_out[-1])
    if floors:
        print(f"\n{options.target}'s own floor (CPU per call, median of 5 batches of 20):")
        print(table(("call", "CPU per call"), [(k, f"{v:.1f} ms") for k, v in floors.items()]))


def _count(base: list[str], folder: Path) -> str:
    """The counts of one run of the cells with `_count_renders.py`, as a table: how many cells
    had each combination of runs, direct and stored renders, and requests."""
    out = folder / "counts.json"
    env = {
        "PYTHONPATH": str(ROOT / "benchmarks"),
        "CONFORMANCE_BENCH_COUNTS": str(out),
    }
    done = run(
        [*base, "-p", "_count_renders", "--conformance-property-examples", "0"], cwd=folder, env=env
    )
    if done.returncode not in (0, 1) or not out.exists():
        raise SystemExit(f"the counting run failed:\n{done.output[-3000:]}")
    counted: dict[str, dict[str, int]] = json.loads(out.read_text(encoding="utf-8"))
    kinds = ("runs", "direct", "stored", "requests")
    combos = collections.Counter(tuple(c.get(k, 0) for k in kinds) for c in counted.values())
    rows = [(*combo, n) for combo, n in sorted(combos.items(), key=lambda x: -x[1])]
    headers = ("run_cell calls", "direct renders", "stored renders", "requests sent", "cells")
    return table(headers, rows)


if __name__ == "__main__":
    main()
