"""A hard time limit: a target's renders in a worker process, killed when one overruns.

A render on the suite's worker thread (`conformance.judging.guard`) is abandoned after the cell
time limit, but only if the interpreter gets to run the thread that waits for it: a render that
holds the GIL in C code (a catastrophic regular expression) stops the whole process, and a
thread cannot be killed. So a target that asks for isolation (`isolate = True` on the target,
or `--conformance-isolate` for every target), and any target once one of its renders has timed
out, renders in a worker process of its own (`Isolated`): the run waits for the answer on a
pipe, and a render that does not answer within the limit has its process killed (SIGKILL,
which no handler can ignore) and gets a `CellTimeout`; the next render starts a new process.

The worker resolves the target from its spec (`--conformance-target`) with the run's
`sys.path`; the row and history go to it pickled, the payload or the exception comes back
pickled. An exception that cannot be pickled comes back as `WorkerError` with its class name
and message; a worker that dies (a segfault, `os._exit`) is a `WorkerError` naming its exit
code. A history a render changes in place is changed in the worker's copy only.

The worker leads a process group of its own, and the whole group is killed: what its target
started (the bridge process a bridge target makes anew in the worker) ends with it instead of
hanging on, an orphan, after the run.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Final

from conformance.errors import SuiteError
from conformance.history import History
from conformance.judging import guard
from conformance.targets.base import Payload, RowRef, Target

__all__ = ["Isolated", "WorkerError", "isolate", "wants_isolation"]

_START_LIMIT: Final = 120.0
"""Seconds a new worker may take to import and make its target before the first render."""


class WorkerError(SuiteError):
    """A render in the worker process raised what cannot be sent back, or the worker died."""


def wants_isolation(target: object) -> bool:
    """Whether a target asks to render in a worker process (`isolate = True`)."""
    return getattr(target, "isolate", False) is True


def _serve(conn: Connection, spec: str, path: list[str]) -> None:  # pragma: no cover - a child
    """The worker: make the target, then answer `(method, row, history)` requests in turn.

    It leads a process group of its own first, so that the processes its target starts (a
    bridge, a language server) are in it and are killed with it (`Isolated.close`)."""
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)
    sys.path[:] = path
    from conformance.targets import resolve_target

    try:
        target: Any = resolve_target(spec)
    except BaseException as error:  # every class: the parent reports it for each render
        conn.send((False, WorkerError(f"the worker could not make target {spec!r}: {error}")))
        return
    conn.send((True, None))
    while True:
        try:
            request: tuple[str, RowRef, History] = conn.recv()
        except EOFError:
            return
        method, row, history = request
        try:
            answer: tuple[bool, Any] = (True, getattr(target, method)(row, history))
        except BaseException as error:  # every class is the rendering's outcome
            answer = (False, error)
        conn.send_bytes(_packed(answer))


def _packed(answer: tuple[bool, Any]) -> bytes:  # pragma: no cover - in the worker
    """The answer pickled, so that it unpickles in the run: an exception that does not comes
    back as its class with its message (`_Raised`), or as a `WorkerError` saying what it was."""
    try:
        data = pickle.dumps(answer)
        pickle.loads(data)
        return data
    except Exception as problem:
        if answer[0]:
            error = WorkerError(f"the render returned a value that cannot be sent back: {problem}")
            return pickle.dumps((False, error))
    raised: BaseException = answer[1]
    try:
        message = str(raised)
    except BaseException:  # a hostile __str__
        message = f"(a {type(raised).__name__} whose message cannot be read)"
    try:
        return pickle.dumps((False, _Raised(type(raised), message[:4000])))
    except Exception:  # a class that cannot be named (defined in a function)
        described = WorkerError(f"raised {type(raised).__name__}: {message}"[:4000])
        return pickle.dumps((False, described))


@dataclass(frozen=True)
class _Raised:
    """An exception that cannot be pickled, sent back as its class and message."""

    kind: type[BaseException]
    message: str

    def rebuilt(self) -> BaseException:
        """An instance of the class with the message, made without calling its `__init__`."""
        try:
            error = self.kind.__new__(self.kind)
            error.args = (self.message,)
            str(error)  # a class whose __str__ needs its own fields
        except Exception:
            return WorkerError(f"raised {self.kind.__name__}: {self.message}")
        return error


_workers: set[BaseProcess] = set()
"""The workers started and not yet closed, killed with their groups when the run's process
ends (before `multiprocessing` ends daemonic workers alone, with SIGTERM)."""


def _kill_group(process: BaseProcess) -> None:
    """SIGKILL the worker's process group (it leads one once it has started, `_serve`), else
    the worker alone."""
    pid = process.pid
    if pid is not None and hasattr(os, "killpg"):
        with contextlib.suppress(OSError):  # not yet a leader, or already gone
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
    process.kill()


@atexit.register
def _kill_all() -> None:  # pyright: ignore[reportUnusedFunction]
    for process in list(_workers):
        _kill_group(process)
        process.join(5)
    _workers.clear()


class Isolated:
    """A target whose `render` and `render_stored` run in a worker process with a hard time
    limit; every other attribute is the target's own (read in this process)."""

    isolated: Final = True
    """Read by `conformance.judging.guard.attempt`: the limit is enforced here, not there."""

    def __init__(self, spec: str, target: Target) -> None:
        self.spec = spec
        self.target = target
        self.name: str = target.name
        self.version: str = target.version
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)

    def supports(self, row: RowRef) -> str | None:
        return self.target.supports(row)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._call("render", row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._call("render_stored", row, history)

    def close(self) -> None:
        """Kill the worker and every process its target started (renders after this start a
        new one). A worker killed alone would leave them running: a hung bridge process, whose
        own parent was the worker, never reads the end of its input."""
        if self._conn is not None:
            self._conn.close()
        if self._process is not None:
            _kill_group(self._process)
            self._process.join(5)
            _workers.discard(self._process)
        self._process, self._conn = None, None

    def _start(self) -> Connection:
        context = multiprocessing.get_context("spawn")  # no fork of a threaded process
        parent, child = context.Pipe()
        process = context.Process(
            target=_serve, args=(child, self.spec, list(sys.path)), daemon=True
        )
        process.start()
        _workers.add(process)
        child.close()
        self._process, self._conn = process, parent
        ok, value = self._answer(parent, _START_LIMIT, "start")
        if not ok:
            self.close()
            raise value
        return parent

    def _answer(self, conn: Connection, limit: float | None, what: str) -> tuple[bool, Any]:
        if not conn.poll(limit):
            self.close()
            seconds = f"{limit:g} s" if limit is not None else "its limit"
            return False, guard.CellTimeout(
                f"the render did not return within {seconds} (the cell time limit,"
                " --conformance-cell-timeout); its worker process was killed and the run"
                " went on"
                if what == "render"
                else f"the worker process did not start within {seconds}"
            )
        try:
            ok, value = pickle.loads(conn.recv_bytes())
            return ok, value.rebuilt() if isinstance(value, _Raised) else value
        except (EOFError, OSError):
            code = self._process.exitcode if self._process is not None else None
            self.close()
            return False, WorkerError(f"the worker process died during the render (exit {code})")

    def _call(self, method: str, row: RowRef, history: History) -> Payload:
        conn = self._conn if self._conn is not None else self._start()
        try:
            conn.send((method, row, history))
        except (OSError, pickle.PicklingError) as error:
            self.close()
            raise WorkerError(f"the history could not be sent to the worker: {error}") from None
        ok, value = self._answer(conn, guard.time_limit(), "render")
        if not ok:
            raise value
        return value


def isolate(spec: str, target: Target) -> Target:
    """`target` rendering in a worker process (the same object if it already does)."""
    return target if isinstance(target, Isolated) else Isolated(spec, target)
