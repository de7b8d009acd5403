"""Per-cell cost of the generated conformance suite against a bare parametrized pytest test.

Both run in the same invocation of this script, alternating, as `python -m pytest` in a
subprocess, with the same number of tests and no path arguments (so syrupy's unused-snapshot
check takes its fast path, as in `nox -s tests`). Two costs per test are reported:

- run: wall time minus the same command with every test deselected (so imports, plugin
  set-up and collection are left out), divided by the number of tests;
- whole: wall time minus pytest in an empty project (so collection, matrix loading and test
  generation count), divided by the number of tests.

The ratios of the suite to the bare test are what the README quotes.

    python benchmarks/bench_cells.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _wall(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 5):  # 5: everything deselected, on purpose
        raise SystemExit(f"pytest failed in {cwd}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def _count(cwd: Path, args: list[str]) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return sum(1 for line in done.stdout.splitlines() if "::" in line)


def main() -> None:
    parser = argparse.ArgumentParser(description="Per-cell cost of the conformance suite.")
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds

    suite_args = ["-m", "conformance"]
    n = _count(ROOT, suite_args)
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp)
        (bare / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        (bare / "test_bare.py").write_text(
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('i', range({n}))\n"
            "def test_bare(i):\n    assert i >= 0\n",
            encoding="utf-8",
        )
        empty = bare / "empty"
        empty.mkdir()
        (empty / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        keys = ("suite", "suite0", "bare", "bare0", "empty")
        runs: dict[str, list[float]] = {k: [] for k in keys}
        for _ in range(rounds):
            runs["empty"].append(_wall([], empty))
            runs["suite"].append(_wall(suite_args, ROOT))
            runs["bare"].append(_wall([], bare))
            runs["suite0"].append(_wall([*suite_args, "-k", "no_such_test"], ROOT))
            runs["bare0"].append(_wall(["-k", "no_such_test"], bare))
    med = {k: statistics.median(v) for k, v in runs.items()}
    per = {
        (name, kind): (med[name] - med[base]) / n * 1000
        for name in ("suite", "bare")
        for kind, base in (("run", name + "0"), ("whole", "empty"))
    }
    print(f"tests per run: {n} (the conformance matrix on the reference target)")
    print(f"rounds: {rounds}, medians of wall time; empty project: {med['empty']:.2f} s")
    print("| run | all tests | all deselected | per test, run | per test, whole |")
    print("|---|---|---|---|---|")
    for name, label in (("suite", "conformance suite"), ("bare", "bare parametrized test")):
        print(
            f"| {label} | {med[name]:.2f} s | {med[name + '0']:.2f} s "
            f"| {per[name, 'run']:.2f} ms | {per[name, 'whole']:.2f} ms |"
        )
    for kind in ("run", "whole"):
        print(f"ratio, per test {kind}: {per['suite', kind] / per['bare', kind]:.1f}x")


if __name__ == "__main__":
    main()
