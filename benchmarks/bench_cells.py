"""Per-cell cost of the generated conformance suite against a bare parametrized pytest test.

Both run in the same invocation of this script, alternating, as `python -m pytest` in a
subprocess, with the same number of tests and no path arguments (so syrupy's unused-snapshot
check takes its fast path). The suite runs as the main job does (`nox -s conformance`: only
the module holding the generated test collected, bytecode written). Two costs per test are
reported, each from wall time and from CPU seconds (user + system, steadier on a shared
machine):

- run: the time minus the same command with every test deselected (so imports, plugin
  set-up and collection are left out), divided by the number of tests;
- whole: the time minus pytest in an empty project (so collection, matrix loading and test
  generation count), divided by the number of tests.

The ratios of the suite to the bare test are what the README quotes.

With `--select EXPR` the suite runs only the tests `-k EXPR` selects, and the bare test has as
many: `--select "not cassette and not property"` leaves out the checks that import and drive
the provider SDKs and the property searches, so what is left is what a plain cell costs over
pytest's own per-test floor.

    python benchmarks/bench_cells.py [--rounds 5] [--select EXPR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from _bench import ROOT, Run, pytest_args, run, table


def _count(cwd: Path, args: list[str]) -> int:
    done = subprocess.run(
        [*pytest_args("--co", *args)], cwd=cwd, capture_output=True, text=True, check=True
    )
    return sum(1 for line in done.stdout.splitlines() if "::" in line)


def _checked(done: Run, cwd: Path) -> Run:
    if done.returncode not in (0, 5):  # 5: everything deselected, on purpose
        raise SystemExit(f"pytest failed in {cwd}:\n{done.output[-3000:]}")
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description="Per-cell cost of the conformance suite.")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--select", help="run only the suite's tests `-k SELECT` selects")
    options = parser.parse_args()
    rounds = options.rounds

    # The main job's own selection: only the module holding the generated test is collected.
    suite_args = ["-o", "python_files=test_matrix.py", "-m", "conformance"]
    if options.select:
        suite_args += ["-k", options.select]
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
        # Bytecode written, as by default and in `nox -s conformance`, into a folder of its own.
        env = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": f"{tmp}/pycache"}
        commands = {
            "empty": (pytest_args(), empty),
            "suite": (pytest_args(*suite_args), ROOT),
            "bare": (pytest_args(), bare),
            "suite0": (pytest_args(*suite_args, "-k", "no_such_test"), ROOT),
            "bare0": (pytest_args("-k", "no_such_test"), bare),
        }
        for args, cwd in commands.values():  # warm the bytecode folder
            _checked(run(args, cwd=cwd, env=env), cwd)
        runs: dict[str, list[Run]] = {k: [] for k in commands}
        for _ in range(rounds):
            for name, (args, cwd) in commands.items():
                runs[name].append(_checked(run(args, cwd=cwd, env=env), cwd))
    wall = {k: statistics.median(r.seconds for r in v) for k, v in runs.items()}
    cpu = {k: statistics.median(r.cpu for r in v) for k, v in runs.items()}

    def per(values: dict[str, float], name: str, base: str) -> float:
        return (values[name] - values[base]) / n * 1000

    chosen = f", `-k {options.select}`" if options.select else ""
    print(f"tests per run: {n} (the conformance matrix on the reference target{chosen})")
    print(
        f"rounds: {rounds}, medians; empty project: {wall['empty']:.2f} s, {cpu['empty']:.2f} s CPU"
    )
    rows = [
        (
            label,
            f"{wall[name]:.2f} s / {cpu[name]:.2f} s",
            f"{wall[name + '0']:.2f} s / {cpu[name + '0']:.2f} s",
            f"{per(wall, name, name + '0'):.2f} ms / {per(cpu, name, name + '0'):.2f} ms",
            f"{per(wall, name, 'empty'):.2f} ms / {per(cpu, name, 'empty'):.2f} ms",
        )
        for name, label in (("suite", "conformance suite"), ("bare", "bare parametrized test"))
    ]
    headers = (
        "run (wall / CPU)",
        "all tests",
        "all deselected",
        "per test, run",
        "per test, whole",
    )
    print(table(headers, rows))
    for kind, base in (("run", "0"), ("whole", "")):
        ratios = [
            per(values, "suite", "suite" + base if base else "empty")
            / per(values, "bare", "bare" + base if base else "empty")
            for values in (wall, cpu)
        ]
        print(f"ratio, per test {kind}: {ratios[0]:.1f}x wall, {ratios[1]:.1f}x CPU")


if __name__ == "__main__":
    main()
