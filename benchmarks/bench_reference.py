"""The reference matrix with every check, as a user's project runs it: wall time on one core
(collection included), start-up, and peak memory.

These commands, alternated over the rounds, pinned to one core, the pytest ones in a folder
outside the repository that holds only the generated test (as `conformance init` sets up a
project):

- full: every cell and check, the cassette and sdk-schema checks included;
- full, one test per cell: the same with `--conformance-items cell` (the same results lines);
- start-up: the same command with every test deselected (imports, matrix load, collection and
  test generation, nothing run);
- empty: pytest in an empty folder (the interpreter and pytest's own start);
- imports: an interpreter that imports pytest, the suite's plugin, vcrpy and the provider
  SDKs the `sdk-schema` and `cassette` checks use (their modules and client classes), and
  runs nothing: the floor, in CPU and memory, of any run that judges both checks on every api.

The repository's own main job (`nox -s conformance`'s pytest command) is quoted beside it: it
also reads the repository's conftest and settings.

Bytecode is written and reused, as Python does by default and `nox -s conformance` does: into
a `PYTHONPYCACHEPREFIX` folder of the script's own, warmed by one run of each command first, so
nothing is written into the venv or the repository and the figures do not depend on what
earlier runs left there. (This machine sets `PYTHONDONTWRITEBYTECODE=1`; with nothing cached,
pytest's assertion rewriter parses and compiles every module of each package that registers a
pytest plugin at every start: docs/performance.md has that figure, side by side.)

With `--without-sdks PYTHON` (the interpreter of a venv holding the suite and pytest but no
provider SDK, vcrpy or pytest-recording), three more commands: a run selecting one api
(`--conformance-api anthropic`) with everything deselected, the same in that venv, and the
one api's whole run. The SDKs load on first use, so the first two should cost the same.

    python benchmarks/bench_reference.py [--rounds 3] [--without-sdks /tmp/no-sdks/bin/python]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from _bench import ROOT, Run, median_run, passed, pytest_args, run, table, user_project

IMPORTS = """\
import importlib
import pytest, vcr, conformance.plugin
from conformance.recording.sdk_schema import SDK_REQUIREMENTS
for module in SDK_REQUIREMENTS:
    importlib.import_module(module)
importlib.import_module("boto3")  # the Bedrock client (botocore's types are above)
importlib.import_module("mistralai.client").Mistral  # its client module, imported on use
importlib.import_module("cohere").ClientV2  # cohere's package loads its client lazily
"""
"""What the two SDK checks import before they judge anything (`conformance.recording.send`
builds these clients, `conformance.recording.sdk_schema` imports these request types)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--without-sdks", help="a venv's Python with the suite and no SDK")
    options = parser.parse_args()
    rounds = options.rounds
    checks = ["--conformance-sdk-schema", "-m", "conformance"]
    with tempfile.TemporaryDirectory() as tmp:
        project = user_project(Path(tmp) / "project", cassettes=ROOT / "cassettes")
        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        env = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": f"{tmp}/pycache"}
        main_job = [*checks, "-o", "python_files=test_matrix.py", "--conformance-items=cell"]
        commands = {
            "empty": (pytest_args(), empty),
            "imports": ([sys.executable, "-c", IMPORTS], empty),
            "startup": (pytest_args(*checks, "-k", "no_such_test"), project),
            "full": (pytest_args(*checks), project),
            "full-cell": (pytest_args(*checks, "--conformance-items=cell"), project),
            "repo-startup": (pytest_args(*main_job, "-k", "no_such_test"), ROOT),
            "repo": (pytest_args(*main_job), ROOT),
        }
        if options.without_sdks:
            one = [*checks, "--conformance-api", "anthropic"]
            bare = [options.without_sdks, *pytest_args(*one, "-k", "no_such_test")[1:]]
            commands["one-api-startup"] = (pytest_args(*one, "-k", "no_such_test"), project)
            commands["one-api-startup-bare"] = (bare, project)
            commands["one-api"] = (pytest_args(*one), project)
        for args, cwd in commands.values():  # warm the bytecode folder
            run(args, cwd=cwd, env=env, cores=1)
        runs: dict[str, list[Run]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, (args, cwd) in commands.items():
                runs[name].append(run(args, cwd=cwd, env=env, cores=1))
    med = {name: median_run(r) for name, r in runs.items()}
    for name in ("full", "full-cell", "repo"):
        if not passed(med[name]):
            raise SystemExit(f"the {name} run failed:\n{med[name].output[-3000:]}")
    found = re.findall(r"(\d+) passed", med["full"].output.splitlines()[-1])
    tests = found[0] if found else "?"
    print(f"tests: {tests}; rounds: {rounds}; one core (taskset -c 0); bytecode written; medians")
    labels = {
        "empty": "pytest in an empty folder",
        "imports": "imports only: pytest, the suite, vcrpy, the SDKs' modules and clients",
        "startup": "start-up: imports, matrix load, collection (all deselected)",
        "full": "reference matrix, all checks, collection included",
        "full-cell": "the same, one test per cell (`--conformance-items cell`)",
        "repo-startup": "the repository's main job, start-up (all deselected)",
        "repo": "the repository's main job (`nox -s conformance`'s pytest, no results file)",
        "one-api-startup": "one api (anthropic) selected, start-up (all deselected)",
        "one-api-startup-bare": "the same start-up in a venv without any provider SDK",
        "one-api": "one api (anthropic), all its checks",
    }
    rows = [
        (labels[name], f"{r.seconds:.2f} s", f"{r.cpu:.2f} s", f"{r.max_rss_mib:.0f} MiB")
        for name, r in med.items()
    ]
    print(table(("run", "wall", "CPU", "peak RSS"), rows))


if __name__ == "__main__":
    main()
