"""The reference matrix with every check, as a user's project runs it: wall time on one core
(collection included), start-up, and peak memory.

Three commands, alternated over the rounds, in a folder outside the repository that holds
only the generated test (as `conformance init` sets up a project), pinned to one core:

- full: every cell and check, the cassette and sdk-schema checks included;
- start-up: the same command with every test deselected (imports, matrix load, collection and
  test generation, nothing run);
- empty: pytest in an empty folder (the interpreter and pytest's own start).

The repository's own main job (`nox -s conformance`) also collects the self-tests; its time is
quoted beside it for comparison.

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
        runs: dict[str, list[Run]] = {"full": [], "startup": [], "empty": [], "repo": []}
        for _ in range(rounds):
            runs["empty"].append(run(pytest_args(), cwd=empty, cores=1))
            runs["startup"].append(
                run(pytest_args(*checks, "-k", "no_such_test"), cwd=project, cores=1)
            )
            runs["full"].append(run(pytest_args(*checks), cwd=project, cores=1))
            runs["repo"].append(run(pytest_args(*checks), cores=1))
    med = {name: median_run(r) for name, r in runs.items()}
    for name in ("full", "repo"):
        if not passed(med[name]):
            raise SystemExit(f"the {name} run failed:\n{med[name].output[-3000:]}")
    found = re.findall(r"(\d+) passed", med["full"].output.splitlines()[-1])
    tests = found[0] if found else "?"
    print(f"tests: {tests}; rounds: {rounds}; one core (taskset -c 0); medians")
    labels = {
        "full": "reference matrix, all checks, collection included",
        "startup": "start-up: imports, matrix load, collection (all deselected)",
        "empty": "pytest in an empty folder",
        "repo": "the repository's `pytest -m conformance` (also collects the self-tests)",
    }
    rows = [
        (labels[k], f"{r.seconds:.2f} s", f"{r.cpu:.2f} s", f"{r.max_rss_mib:.0f} MiB")
        for k, r in med.items()
    ]
    print(table(("run", "wall", "CPU", "peak RSS"), rows))


if __name__ == "__main__":
    main()
