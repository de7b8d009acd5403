"""The reference matrix with every check, as a user's project runs it: wall time on one core
(collection included), start-up, and peak memory.

Three commands, alternated over the rounds, in a folder outside the repository that holds
only the generated test (as `conformance init` sets up a project), pinned to one core:

- full: every cell and check, the cassette and sdk-schema checks included;
- start-up: the same command with every test deselected (imports, matrix load, collection and
  test generation, nothing run);
- empty: pytest in an empty folder (the interpreter and pytest's own start).

The repository's own main job (`nox -s conformance`'s pytest command) is quoted beside it: it
also reads the repository's conftest and settings.

Each command runs twice per round, under the two bytecode regimes a run meets:

- written: Python's default, bytecode written once and reused (into a fresh `PYTHONPYCACHEPREFIX`
  folder, warmed by one run first, so nothing is written into the venv or the repository); what
  a user's machine does, and what `nox -s conformance` does;
- not written: `PYTHONDONTWRITEBYTECODE=1`, as this machine's environment sets it. pytest's
  assertion rewriter then parses and compiles every module of each package that registers a
  pytest plugin (hypothesis, anyio, syrupy, this one) at every start.

    python benchmarks/bench_reference.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from _bench import ROOT, Run, median_run, passed, pytest_args, run, table, user_project


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    checks = ["--conformance-sdk-schema", "-m", "conformance"]
    with tempfile.TemporaryDirectory() as tmp:
        project = user_project(Path(tmp) / "project", cassettes=ROOT / "cassettes")
        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        regimes = {
            "written": {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": f"{tmp}/pycache"},
            "not written": {"PYTHONDONTWRITEBYTECODE": "1"},
        }
        commands = {
            "empty": (pytest_args(), empty),
            "startup": (pytest_args(*checks, "-k", "no_such_test"), project),
            "full": (pytest_args(*checks), project),
            "repo": (pytest_args(*checks, "-o", "python_files=test_matrix.py"), ROOT),
        }
        for args, cwd in (commands["full"], commands["repo"]):  # warm the bytecode folder
            run(args, cwd=cwd, env=regimes["written"], cores=1)
        runs: dict[tuple[str, str], list[Run]] = {}
        for _ in range(rounds):
            for name, (args, cwd) in commands.items():
                for regime, env in regimes.items():
                    runs.setdefault((name, regime), []).append(run(args, cwd=cwd, env=env, cores=1))
    med = {key: median_run(r) for key, r in runs.items()}
    for key in (("full", "written"), ("repo", "written")):
        if not passed(med[key]):
            raise SystemExit(f"the {key} run failed:\n{med[key].output[-3000:]}")
    found = re.findall(r"(\d+) passed", med["full", "written"].output.splitlines()[-1])
    tests = found[0] if found else "?"
    print(f"tests: {tests}; rounds: {rounds}; one core (taskset -c 0); medians")
    labels = {
        "full": "reference matrix, all checks, collection included",
        "startup": "start-up: imports, matrix load, collection (all deselected)",
        "empty": "pytest in an empty folder",
        "repo": "the repository's main job (`nox -s conformance`'s pytest, no results file)",
    }
    rows = [
        (
            labels[name],
            regime,
            f"{r.seconds:.2f} s",
            f"{r.cpu:.2f} s",
            f"{r.max_rss_mib:.0f} MiB",
        )
        for (name, regime), r in med.items()
    ]
    print(table(("run", "bytecode", "wall", "CPU", "peak RSS"), rows))


if __name__ == "__main__":
    main()
