"""A framework target's gate, split by who spends it: the framework's share of the run.

`bench_framework.py` holds a cell's cost against `_floor.py`, one text-only request of the
framework's public API. A cell's renders cost the framework more than that (its media
mapping, a download per URL cell, the SDK's request serialization), so that floor is low. This
script measures the framework's own part of the very run instead: it runs the target's
matrix and properties (as `bench_framework.py` does, in a user's project folder outside the
repository) under py-spy, sampling every thread, and sorts each sample that is not waiting by
its stack:

- the framework: a stack that entered the framework (a module from a distribution outside the
  suite's own stack) from the target's code, a thread the framework runs alone (framework
  frames and none of the suite's stack: anyio's worker thread sending a boto3 request), and the
  import of such a module;
- the provider SDKs: a stack that entered an official SDK (importing or running it), or
  pydantic validating its request types, from the `sdk-schema` and `cassette` checks
  (`conformance/recording/`): importing the SDKs, building their clients and validators, their
  request and response code.
  This is those checks' floor as designed (provider-facts §3.7: the SDK's own types and
  clients), whoever the target is; on the reference it is most of a run;
- the suite's: the rest (pytest, hypothesis drawing histories, the judging, the suite's
  servers, vcrpy and the recipes around the SDKs, imports of its own stack).

The framework's work runs on the suite's render thread and waits for its requests, so the
threads rarely run at once: the busy samples add up to about the run's CPU time. The ratio
printed is busy samples over the framework's, the run's cost against the framework's own for
the renders the cells needed (issue 27's per-cell goal: at most 1.5).

    python benchmarks/bench_share.py --target pydantic-ai \
        --python .nox/target-pydantic-ai/bin/python [--rate 200] [--py-spy PATH]
    python benchmarks/bench_share.py --target reference --python .venv/bin/python \
        --sdk-schema --cassettes cassettes      # the main job's checks

The run is one pytest test per cell (`--items cell`), as the main job and the framework
sessions run; `--items check` gives one per check.

The run writes and reuses bytecode, as Python does by default and as the target's nox session
runs (its `BYTECODE`), after one run unsampled that writes it: on a machine that sets
PYTHONDONTWRITEBYTECODE=1, pytest's assertion rewriter would otherwise parse and compile the
modules of every package that registers a pytest plugin (this one, hypothesis, syrupy) in every
run, and count it as the suite's.

py-spy must be able to attach (`ptrace`); it is the only tool the script needs beside the
target's venv (`pip install py-spy`).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

from _bench import table, user_project

_FRAME = re.compile(r"^(?P<function>.*?) \((?P<file>.*?)(?::\d+)?\)$")

OURS = frozenset(
    {
        "conformance",
        "_pytest",
        "pytest",
        "pluggy",
        "hypothesis",
        "_hypothesis_ftz_detector",
        "syrupy",
        "vcr",
        "pytest_recording",
        "iniconfig",
        "sortedcontainers",
        "attr",
        "ruamel",
        "yaml",
        "pydantic",
        "pydantic_core",
        "typing_extensions",
        "annotated_types",
        "typing_inspection",
    }
)
"""The top-level packages of the suite's own stack: the package and what it runs on. pydantic
is the suite's too, though frameworks run it: a sample of pydantic's code under a framework's
frames is the framework's."""

WAITING = frozenset(
    {
        "wait",  # threading.Condition.wait, Event.wait
        "_worker",  # concurrent.futures' idle workers
        "select",  # selectors
        "get",  # queue.Queue.get, SimpleQueue.get
        "readinto",  # a socket read
        "accept",
        "_loop",  # the suite's render thread between renders (guard._Worker._loop)
        "_run",  # guard._run waiting for its render
        "join",
        "sleep",
    }
)
"""A leaf function (its name's last part) that waits rather than works, in the standard
library or the suite."""


def _frames(stack: str) -> list[tuple[str, str]]:
    """(function, top-level package) per frame, outermost first; py-spy names a file by its
    path below its package root (`pydantic_ai/models/bedrock.py`, `threading.py`)."""
    found: list[tuple[str, str]] = []
    for frame in stack.split(";"):
        match = _FRAME.match(frame)
        if match is None:
            found.append((frame, ""))
            continue
        path = match["file"]
        top = "<frozen>" if path.startswith("<") else path.split("/", 1)[0].removesuffix(".py")
        found.append((match["function"], top))
    return found


def _standard(top: str) -> bool:
    return top in sys.stdlib_module_names or top in {"<frozen>", ""}


SDKS: Final = "the provider SDKs: imports, clients, request and response types"
"""Under the sdk-schema and cassette checks: the floor of those checks as designed."""
MACHINERY: Final = "the suite: vcrpy and the recipes around the SDKs"
_RECORDING: Final = re.compile(r"\(conformance/recording/")


def classify(stack: str) -> str | None:
    """The part of the run a sample belongs to, or None for a sample that waits."""
    frames = _frames(stack)
    leaf, leaf_top = frames[-1]
    if leaf.rsplit(".", 1)[-1] in WAITING and (_standard(leaf_top) or leaf_top == "conformance"):
        return None
    framework = [i for i, (_, top) in enumerate(frames) if not _standard(top) and top not in OURS]
    functions = [function for function, _ in frames]
    checks = [i for i, frame in enumerate(stack.split(";")) if _RECORDING.search(frame)]
    if checks:
        below = frames[checks[0] + 1 :]
        modules = [top for function, top in below if function == "<module>"]
        if modules and modules[0] in OURS:  # importing the suite's own stack (vcrpy)
            return MACHINERY
        sdk_types = "sdk_schema/" in stack and any(top == "pydantic" for _, top in below)
        if sdk_types or any(i > checks[0] for i in framework):
            return SDKS
        return MACHINERY
    if "_find_and_load" in functions and any(frames[i][0] == "<module>" for i in framework):
        return "the framework: importing it and its SDKs"
    target = [i for i, f in enumerate(functions) if re.match(r"\w*Target\.", f)]
    # Entered from the target's code, or a thread the framework runs alone (anyio's worker
    # thread sending a boto3 request for its render: no frame of the suite's stack).
    alone = not any(top in OURS for _, top in frames)
    if framework and (alone or (target and framework[-1] > target[0])):
        return "the framework: called by the target (its renders)"
    tops = {top for _, top in frames}
    if "hypothesis" in tops:
        return "the suite: hypothesis drawing and shrinking histories"
    if any(f == "_find_and_load" for f in functions):  # importlib._bootstrap: an import
        return "the suite: imports of its own stack"
    if "socketserver" in tops or "http" in tops:
        return "the suite: its recorder and fixture host"
    if target:
        return "the suite: the target's own code"
    if "conformance" in tops:
        return "the suite: judging, results, the plugin"
    return "the suite: pytest, its plugins, the rest"


def sample(
    py_spy: str, command: list[str], *, cwd: Path, env: dict[str, str], raw: Path, rate: int = 200
) -> tuple[collections.Counter[str], subprocess.CompletedProcess[str]]:
    """Run `command` under py-spy (every thread, `rate` Hz, raw stacks into `raw`): its busy
    samples counted by `classify`'s parts, and the finished command."""
    spy = [py_spy, "record", "-r", str(rate), "-f", "raw", "-o", str(raw), "--", *command]
    done = subprocess.run(spy, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    if not raw.exists():
        raise SystemExit(f"py-spy wrote no samples:\n{done.stdout[-2000:]}{done.stderr}")
    parts: collections.Counter[str] = collections.Counter()
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit() and (part := classify(stack)) is not None:
            parts[part] += int(count)
    if not parts:
        raise SystemExit("no busy samples")
    return parts, done


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--target", required=True)
    parser.add_argument("--python", required=True, help="the Python of a venv with the framework")
    parser.add_argument("--rate", type=int, default=200, help="samples per second")
    parser.add_argument("--py-spy", default=shutil.which("py-spy"), help="the py-spy command")
    parser.add_argument("--raw", help="keep py-spy's raw stacks in this file")
    parser.add_argument("--items", choices=("cell", "check"), default="cell")
    parser.add_argument("--sdk-schema", action="store_true", help="judge sdk-schema too")
    parser.add_argument("--cassettes", type=Path, help="a cassette folder: judge cassette too")
    options = parser.parse_args()
    if not options.py_spy:
        raise SystemExit("py-spy is not installed: pip install py-spy (or give --py-spy PATH)")
    python = str(Path(options.python).absolute())
    with tempfile.TemporaryDirectory() as tmp:
        cassettes = options.cassettes.absolute() if options.cassettes else None
        folder = user_project(Path(tmp) / "project", cassettes=cassettes)
        raw = Path(options.raw).absolute() if options.raw else Path(tmp) / "stacks.txt"
        command = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "conformance"]
        command += ["--conformance-target", options.target]
        command += ["--conformance-results", str(folder / "results.jsonl")]
        command += [f"--conformance-items={options.items}"]
        command += ["--conformance-sdk-schema"] if options.sdk_schema else []
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
        subprocess.run(command, cwd=folder, capture_output=True, check=False, env=env)
        (folder / "results.jsonl").unlink(missing_ok=True)
        parts, done = sample(
            options.py_spy, command, cwd=folder, env=env, raw=raw, rate=options.rate
        )
    busy = sum(parts.values())
    framework = sum(n for part, n in parts.items() if part.startswith("the framework"))
    tests = [x for x in done.stdout.splitlines() if " passed" in x or " failed" in x]
    summary = tests[-1].strip("= ") if tests else "?"
    print(f"target {options.target}: {summary}; {busy} busy samples at {options.rate} Hz")
    rows = [
        (part, f"{n / busy:.1%}", f"{n / options.rate:.1f} s") for part, n in parts.most_common()
    ]
    print(table(("part of the run", "share of busy samples", "sampled time"), rows))
    renders = parts["the framework: called by the target (its renders)"]
    ratio = busy / framework if framework else float("inf")
    without = busy / renders if renders else float("inf")
    sdks = parts[SDKS]
    own = busy - framework - sdks
    print(
        f"\nthe suite's own part: {own / busy:.1%} of the busy samples, {own / options.rate:.1f} s"
    )
    if options.target == "reference" or not framework:
        # No framework runs: a "framework" import is another package of the venv (a pytest
        # plugin such as anyio's, which the dev venv has and the main job's venv has not).
        return
    print(f"the run against the framework's own part: {ratio:.2f}x")
    print(f"the run against the framework's renders alone (its imports as ours): {without:.2f}x")


if __name__ == "__main__":
    main()
