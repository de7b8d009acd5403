"""What every benchmark script shares: timed subprocess runs with their peak memory, a
project folder outside the repository that runs the suite as a user's project does, and
Markdown tables.

Timings are wall-clock seconds of whole commands, so they include interpreter start-up,
imports and collection unless a script subtracts a run that deselects everything. Memory is
the child's peak resident set (`ru_maxrss` from `wait4`). Scripts quote medians of several
rounds and, for ratios, runs made alternately in the same invocation.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ROOT", "Run", "median_run", "passed", "pytest_args", "run", "table", "user_project"]

ROOT = Path(__file__).resolve().parent.parent

_LAUNCH = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status))
"""
"""A small process that starts the command and writes its peak RSS (KiB) and CPU seconds (user
and system): measured from a parent of its own, since a child's ru_maxrss starts from its
parent's size at the fork."""


@dataclass(frozen=True)
class Run:
    seconds: float
    max_rss_mib: float
    returncode: int
    output: str
    cpu: float = float("nan")
    """CPU seconds of the command (user and system): on a shared, loaded machine a steadier
    figure than wall time, which includes waiting for a core."""


def run(
    args: Sequence[str], *, cwd: Path = ROOT, env: dict[str, str] | None = None, cores: int = 0
) -> Run:
    """Run a command, timing it and reading its peak memory; `cores=1` pins it to one core."""
    command = list(args)
    if cores:
        command = ["taskset", "-c", ",".join(str(c) for c in range(cores)), *command]
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as out,
        tempfile.TemporaryDirectory() as tmp,
    ):
        usage = Path(tmp) / "rusage"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCH, str(usage), *command],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdout=out,
            stderr=out,
            check=False,
        )
        elapsed = time.perf_counter() - start
        out.seek(0)
        output = out.read()
        rss, cpu = float("nan"), float("nan")
        if usage.exists():
            kib, seconds = usage.read_text().split()
            rss, cpu = int(kib) / 1024, float(seconds)
    return Run(elapsed, rss, done.returncode, output, cpu)


def median_run(runs: Sequence[Run]) -> Run:
    """The run of median wall time (its memory and output go with it)."""
    ordered = sorted(runs, key=lambda r: r.seconds)
    middle = ordered[len(ordered) // 2]
    return Run(
        statistics.median(r.seconds for r in runs),
        middle.max_rss_mib,
        middle.returncode,
        middle.output,
        statistics.median(r.cpu for r in runs),
    )


def passed(done: Run) -> bool:
    """Every test passed. syrupy's report of unused snapshots (exit 1 with nothing failed) is
    let through: after a merge the golden data lags the matrix until it is regenerated, and the
    cost measured is the same."""
    last = done.output.strip().splitlines()[-1] if done.output.strip() else ""
    stale = "snapshots unused" in done.output and "failed" not in last and "error" not in last
    return done.returncode == 0 or (done.returncode == 1 and stale)


def pytest_args(*extra: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]


def user_project(
    folder: Path,
    *,
    matrix: Path | None = None,
    snapshots: Path | None = None,
    cassettes: Path | None = None,
    deviations: Path | None = None,
) -> Path:
    """A folder set up as a user's project: one test module importing the generated test, and
    a pytest.ini naming the matrix, snapshot and cassette folders (absolute paths), with
    pytest-recording's plugin off as `conformance init` writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_conformance.py").write_text(
        "from conformance.suite import test_conformance as test_conformance\n", encoding="utf-8"
    )
    lines = ["[pytest]", "addopts = -p no:recording"]  # as `conformance init` writes it
    lines.append(f"conformance_matrix = {matrix or ROOT / 'matrix.yaml'}")
    lines.append(f"conformance_snapshots = {snapshots or ROOT / 'snapshots'}")
    if cassettes is not None:
        lines.append(f"conformance_cassettes = {cassettes}")
    if deviations is not None:
        lines.append(f"conformance_deviations = {deviations}")
    (folder / "pytest.ini").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)
