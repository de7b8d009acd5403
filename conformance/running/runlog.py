"""Writing a results file so that it never lies about its run.

A results file names its run (`RunInfo`: id, start, command) on the meta line, and its end
line says how the run ended (`status`, `exit_status`, `end`). Readers
(`conformance.reports.results.load_results`) take only a `complete` run as results; anything else is
refused with the reason.

- **Atomic.** Every write goes to a temporary file beside the target, is flushed to disk and
  renamed over it (`write_atomic`): a reader sees the old file or the new one, never half.
- **Started, then finished.** When the run starts, the results path is replaced by a file
  holding only the meta line (`RunLog.start`): a run that is killed, or crashes before its
  end, leaves a file that says it never finished, not the previous run's results. When the
  session ends, the whole file is written with its end line (`RunLog.finish`); a run stopped
  by Ctrl-C, by a target raising `KeyboardInterrupt`, by `-x`/`--maxfail`, or by an internal
  error is marked `interrupted`, `incomplete` or `crashed`, never `complete`.
- **One run per file.** A run holds an exclusive lock (`<results>.lock`, `flock`) from its
  start to its end; a second run on the same results path stops before it runs, naming the
  holder. The operating system drops the lock of a killed process, so no stale lock remains.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import platform
import secrets
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from conformance.judging import guard
from conformance.paths import check_folder, check_output_file, check_results_path, write_atomic
from conformance.running.config import ini_problem
from conformance.running.status import RunStatus

if TYPE_CHECKING:
    import pytest

__all__ = [
    "DETAIL_LIMIT",
    "RESULT_FIELDS",
    "RunBusy",
    "RunLog",
    "RunStatus",
    "begin",
    "configure",
    "end",
    "meta_line",
    "new_run_id",
    "run_status",
    "write_atomic",
]


DETAIL_LIMIT: Final = 4000
"""Characters of a result's detail kept in the file (a hostile target can raise an exception
whose message is gigabytes); the cut says how long it was."""

RESULT_FIELDS: Final = (
    "kind",
    "target",
    "target_version",
    "cell",
    "row",
    "api",
    "model",
    "content_type",
    "source",
    "style",
    "expect",
    "known",
    "cite",
    "check",
    "level",
    "verdict",
    "outcome",
    "detail",
    "reason",
    "link",
)
"""The fields of a result line, in the order they are written (then `url`, `notes`, `live`
and `na`, where the record has them)."""
OPTIONAL_FIELDS: Final = ("url", "notes", "live", "na")


class RunBusy(RuntimeError):
    """Another run holds the results file's lock."""


def new_run_id(now: datetime) -> str:
    """`20261201T112233Z-<pid>-<random>`: sortable by start, unique across machines."""
    return f"{now:%Y%m%dT%H%M%SZ}-{os.getpid()}-{secrets.token_hex(3)}"


def run_status(exit_status: int, *, ran: int, selected: int | None, stopped: bool) -> RunStatus:
    """How a pytest session ended, from its exit status and how many tests ran.

    Exit 0 (passed), 1 (tests failed) and 5 (no tests) finish normally; 2 is an interruption
    (Ctrl-C, a `KeyboardInterrupt`, `pytest.exit`), 3 an internal error, anything else a stop.
    A normal exit is still `incomplete` when the session stopped early (`-x`) or fewer
    conformance tests reported than were selected.
    """
    if exit_status == 2:
        return "interrupted"
    if exit_status == 3:
        return "crashed"
    if exit_status not in (0, 1, 5):
        return "incomplete"
    if stopped or (selected is not None and ran < selected):
        return "incomplete"
    return "complete"


def _lines(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def _cut(detail: str) -> str:
    if len(detail) <= DETAIL_LIMIT:
        return detail
    return detail[:DETAIL_LIMIT] + f"\n... (cut: {len(detail):,} characters in all)"


def _unicode(value: Any) -> Any:
    """A string that UTF-8 can hold: a lone surrogate (from a target's exception message)
    is written as its escape, not left to fail the whole file."""
    if isinstance(value, str) and not value.isascii():
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value


def result_line(record: dict[str, Any]) -> dict[str, Any]:
    """A record as the results file holds it: the fields in order, the detail cut short."""
    line = {name: _unicode(record.get(name)) for name in RESULT_FIELDS}
    line["detail"] = _cut(str(line["detail"] or ""))
    for name in OPTIONAL_FIELDS:
        if record.get(name) is not None:
            line[name] = record[name]
    return line


@dataclass
class RunLog:
    """The results file of one run: locked, started, and finished atomically."""

    path: Path
    command: list[str]
    start_time: datetime = field(default_factory=lambda: datetime.now(UTC))
    run_id: str = ""
    _lock: IO[str] | None = None

    def __post_init__(self) -> None:
        if not self.run_id:
            self.run_id = new_run_id(self.start_time)

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def run_info(self) -> dict[str, Any]:
        return {
            "id": self.run_id,
            "start": self.start_time.isoformat(timespec="seconds"),
            "command": self.command,
        }

    def acquire(self) -> None:
        """Take the results file's lock, or raise `RunBusy` naming the run that holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = self.lock_path.open("a+", encoding="utf-8")
        try:
            import fcntl
        except ImportError:  # pragma: no cover - no flock on this platform: per-run temp files only
            self._lock = lock
            return
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            holder = lock.read().strip() or "another run"
            lock.close()
            raise RunBusy(
                f"{self.path}: {holder} is writing this results file; wait for it to end, or"
                " give this run its own --conformance-results path"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(f"run {self.run_id} (pid {os.getpid()}, started {self.run_info()['start']})")
        lock.flush()
        self._lock = lock

    def release(self) -> None:
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.seek(0)
                self._lock.truncate()
            self._lock.close()  # closing drops the flock
            self._lock = None

    def start(self, meta: dict[str, Any]) -> None:
        """Replace the results file with the meta line alone: until `finish`, readers see a
        run that has not finished (and never the previous run's results)."""
        write_atomic(self.path, _lines([meta | {"run": self.run_info()}]))

    def finish(
        self,
        meta: dict[str, Any],
        records: list[dict[str, Any]],
        *,
        status: RunStatus,
        exit_status: int,
        golden: Sequence[str] = (),
    ) -> None:
        """Write the whole file, ending with an end line that says how the run ended, and
        (`golden`) what is wrong with the golden data that no line of the file names."""
        end: dict[str, Any] = {
            "kind": "end",
            "results": len(records),
            "status": status,
            "exit_status": exit_status,
            "run": self.run_id,
            "end": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if golden:
            end["golden"] = [_cut(str(_unicode(line))) for line in golden]
        from conformance.running.property_gate import property_lines

        cells = [result_line(r) for r in records if "property" not in r]
        properties = [
            {k: _unicode(v) for k, v in line.items()} | {"detail": _cut(str(line["detail"]))}
            for line in property_lines(records)
        ]  # after every cell line (conformance.reports.results)
        lines = [meta | {"run": self.run_info()}, *cells, *properties, end]
        write_atomic(self.path, _lines(lines))


# --- the pytest plugin's hooks ----------------------------------------------------------------


def _time_limit(config: pytest.Config) -> float | None:
    given: object = config.getoption("conformance_cell_timeout", None)
    if given is None:
        ini = str(config.getini("conformance_cell_timeout")).strip()
        try:
            given = float(ini) if ini else guard.DEFAULT_TIME_LIMIT
        except ValueError:
            problem = "give a number of seconds (0: no limit)"
            raise ValueError(
                ini_problem(config.inipath, "conformance_cell_timeout", ini, problem)
            ) from None
    seconds = float(given)  # pyright: ignore[reportArgumentType]
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(
            f"--conformance-cell-timeout {seconds:g}: give 0 (no limit) or more seconds"
        )
    return seconds or None


def configure(
    config: pytest.Config,
    results: Path | None,
    matrix: Path,
    snapshots: Path | None,
    cassettes: Path | None,
    *,
    recording: bool,
    inputs: Sequence[Path] = (),
) -> None:
    """Check every path option before the run, and set the cell time limit.

    The results file and its lock (`<results>.lock`, truncated when the run starts) are
    outputs: neither may be the matrix or another of the run's `inputs` (the config file, the
    deviations files). Raises `PathProblem` (or `ValueError`) with the option, the path and
    what to give instead.
    """
    guard.set_time_limit(_time_limit(config))
    if results is not None:
        given = [matrix, *inputs]
        check_results_path(results, inputs=given)
        lock = results.with_name(results.name + ".lock")
        check_output_file(lock, f"--conformance-results {results}: its lock file", given)
    updating = bool(getattr(config.option, "update_snapshots", False))
    if snapshots is not None:
        check_folder(snapshots, "conformance_snapshots", writable=updating)
    if cassettes is not None:
        check_folder(cassettes, "--conformance-cassettes", writable=recording)


@functools.cache
def suite_commit() -> str | None:
    """The suite's git commit: `CONFORMANCE_SUITE_COMMIT` or `GITHUB_SHA` where set (CI), else
    `git rev-parse HEAD` of the checkout the package runs from; None for an installed wheel
    (the folder above the package is no checkout) or where git is missing."""
    given = os.environ.get("CONFORMANCE_SUITE_COMMIT") or os.environ.get("GITHUB_SHA")
    if given:
        return given
    root = Path(__file__).resolve().parent.parent.parent
    if not (root / ".git").exists():  # a worktree's .git is a file: exists() holds for both
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def meta_line(
    suite_version: str,
    matrix: Path | str,
    digest: str,
    targets: dict[str, str],
    **extra: Any,
) -> dict[str, Any]:
    """The first line of a results file; `extra` fields (the matrix's `as_of` and lifecycle)
    follow the fixed ones."""
    commit = suite_commit()
    return {
        "kind": "meta",
        "suite_version": suite_version,
        **({"suite_commit": commit} if commit else {}),
        "matrix": str(matrix),
        "matrix_digest": digest,
        "targets": targets,
        "python": platform.python_version(),
        "hypothesis": version("hypothesis"),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        **extra,
    }


def begin(config: pytest.Config, path: Path, meta: dict[str, Any]) -> RunLog:
    """Lock the results file and mark the run started (`RunBusy` if another run holds it)."""
    log = RunLog(path, ["pytest", *config.invocation_params.args])
    log.acquire()
    try:
        log.start(meta)
    except BaseException:
        log.release()
        raise
    return log


def in_collection_order(
    records: Sequence[dict[str, Any]], nodeids: Sequence[str], collected: Sequence[str]
) -> list[dict[str, Any]]:
    """`records` (`nodeids[i]` the test of `records[i]`; a cell test writes one per check, in
    their order) in the order their tests were collected: pytest-xdist's workers report in the
    order they finish, and a run split over workers writes the same file as a serial run. A
    record whose test is not among `collected` keeps its place after the others."""
    index = {nodeid: number for number, nodeid in enumerate(collected)}
    last = len(index)
    order = sorted(range(len(records)), key=lambda i: (index.get(nodeids[i], last), i))
    return [records[i] for i in order]


def end(
    session: pytest.Session,
    log: RunLog,
    meta: dict[str, Any],
    records: list[dict[str, Any]],
    selected: int | None,
    exit_status: int,
    *,
    golden: Sequence[str] = (),
    ran: int | None = None,
) -> None:
    """Write the finished file, saying how the run ended, and drop the lock. `ran`: how many
    of the `selected` tests reported (default one per record; a cell test writes several)."""
    stopped = bool(session.shouldstop or session.shouldfail)
    ran = len(records) if ran is None else ran
    status = run_status(exit_status, ran=ran, selected=selected, stopped=stopped)
    try:
        log.finish(meta, records, status=status, exit_status=exit_status, golden=golden)
    finally:
        log.release()
