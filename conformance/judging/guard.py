"""Calling a target's `render` so that nothing it does can stop the run or pass a cell.

`attempt(render, api)` is what `checks.run_cell` calls for each rendering. It returns the
payload or the exception that stands for the rendering, and:

- catches every exception class, `BaseException` subclasses included (`SystemExit`,
  `GeneratorExit`, pytest's own outcomes, a class of the target's own), as the rendering's
  error: a verdict for the cell, never an INTERNALERROR. `KeyboardInterrupt` alone is
  re-raised: it is Ctrl-C, or indistinguishable from it, and stops the run (the results file
  then says the run was interrupted, see `conformance.running.runlog`);
- gives up on a render that does not return within the cell time limit (`set_time_limit`,
  `--conformance-cell-timeout`, 60 s by default): the cell gets a `CellTimeout` and the run
  goes on. Renders run on a daemon worker thread; a hung one is left behind (it cannot be
  killed) and a new worker takes the next cell. A render that holds the GIL cannot be cut
  from a thread: a target that asks for isolation, and every target after a first timeout,
  renders in a worker process that is killed instead (`conformance.judging.isolation`);
- refuses a payload JSON cannot hold (`UnserializablePayload`: NaN or infinity, a set, a
  non-string key, an object, a string that is not Unicode, nesting deeper than `MAX_DEPTH`,
  or bytes anywhere but the one api whose SDK takes raw bytes), with its JSON path;
- replaces an exception whose message cannot be read (its `__str__` raises or returns a
  non-string) by `UnreadableError`, so that describing it cannot crash the suite.

Printing, writing files and opening sockets are the target's business: pytest captures the
output, the results file is written atomically at the end (so a target writing over it is
overwritten), and a socket that never answers ends in the time limit.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable
from typing import Any, Final, cast

from conformance.errors import SuiteError
from conformance.targets.kit import DEFAULT_TIME_LIMIT, set_time_limit, time_limit

__all__ = [
    "BYTES_APIS",
    "DEFAULT_TIME_LIMIT",
    "MAX_DEPTH",
    "CellTimeout",
    "UnreadableError",
    "UnserializablePayload",
    "attempt",
    "json_problem",
    "set_time_limit",
    "time_limit",
    "timeouts",
]

MAX_DEPTH: Final = 64
"""Containers nested deeper than this are refused (real payloads nest about ten deep)."""
BYTES_APIS: Final = frozenset({"bedrock-converse"})
"""Apis whose official client takes raw bytes in the request (botocore's blobs)."""


class CellTimeout(SuiteError):
    """A render did not return within the cell time limit."""


class UnserializablePayload(SuiteError):
    """A render returned a value that is not a JSON request body."""


class UnreadableError(SuiteError):
    """A render raised an exception whose message cannot be read."""


# --- the worker -------------------------------------------------------------------------------

_Job = tuple[Callable[[], Any], "queue.SimpleQueue[tuple[bool, Any]]"]


class _Worker:
    """One daemon thread that runs renders in turn (so a target's per-thread state, such as an
    event loop, lives as long as it would on the main thread)."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="conformance-render", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            call, answer = job
            try:
                answer.put((True, call()))
            except BaseException as error:  # every class is the rendering's outcome
                answer.put((False, error))


_workers: list[_Worker] = []
_workers_lock = threading.Lock()
_timeouts = [0]


def timeouts() -> int:
    """How many renders this process has abandoned on a thread so far."""
    return _timeouts[0]


def _run(call: Callable[[], Any], limit: float) -> tuple[bool, Any]:
    with _workers_lock:
        if not _workers:
            _workers.append(_Worker())
        worker = _workers[0]
    answer: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    worker.jobs.put((call, answer))
    try:
        return answer.get(timeout=limit)
    except queue.Empty:
        with _workers_lock:
            _timeouts[0] += 1
            if _workers and _workers[0] is worker:
                _workers.pop()  # abandoned: it is still inside the render
        return False, CellTimeout(
            f"the render did not return within {limit:g} s (the cell time limit,"
            " --conformance-cell-timeout); it was abandoned and the run went on"
        )


def _inline(call: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, call()
    except BaseException as error:  # every class is the rendering's outcome
        return False, error


# --- the attempt ------------------------------------------------------------------------------


def attempt(
    render: Callable[[], Any], api: str, *, limited: bool = False
) -> tuple[Any, BaseException | None]:
    """`(payload, None)`, or `(None, error)` for a render that raised, hung or returned
    something that is not a JSON body; `KeyboardInterrupt` stops the run. `limited`: the
    render enforces the time limit itself (in a worker process, `conformance.judging.isolation`)
    and runs inline."""
    limit = time_limit()
    ok, value = _inline(render) if limit is None or limited else _run(render, limit)
    if not ok:
        error: BaseException = value
        if isinstance(error, KeyboardInterrupt):
            raise error
        return None, _readable(error)
    problem = json_problem(value, api)
    if problem is not None:
        return None, UnserializablePayload(f"the render returned {problem}")
    return value, None


def _readable(error: BaseException) -> BaseException:
    try:
        text = str(error)
    except BaseException as inner:  # a hostile __str__ can raise anything
        return UnreadableError(
            f"raised {type(error).__name__}, whose message cannot be read ({type(inner).__name__})"
        )
    if not isinstance(text, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        return UnreadableError(f"raised {type(error).__name__}, whose message is not a string")
    return error


def json_problem(value: Any, api: str) -> str | None:
    """None when `value` is a JSON object (bytes allowed where the api's client takes them),
    else what is wrong and where (`$.messages[0].content`)."""
    if not isinstance(value, dict):
        return f"a {type(value).__name__}, not a JSON object"
    todo: list[tuple[object, str, int]] = [(value, "$", 0)]
    while todo:
        node, where, depth = todo.pop()
        if depth > MAX_DEPTH:
            return f"nesting deeper than {MAX_DEPTH} at {where} (or a value that contains itself)"
        if isinstance(node, dict):
            mapping = cast("dict[object, object]", node)
            for key, item in mapping.items():
                if not isinstance(key, str):
                    return (
                        f"a {type(key).__name__} key {key!r:.40} at {where}; JSON keys are strings"
                    )
                todo.append((item, f"{where}.{key}", depth + 1))
        elif isinstance(node, list | tuple):
            items = cast("list[object] | tuple[object, ...]", node)
            todo += [(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(items)]
        elif isinstance(node, str):
            if not node.isascii():
                try:
                    node.encode("utf-8")
                except UnicodeEncodeError:
                    return f"a string that is not valid Unicode (a lone surrogate) at {where}"
        elif isinstance(node, float):
            if not math.isfinite(node):
                return f"{node!r} at {where}, which JSON cannot hold"
        elif node is None or isinstance(node, bool | int):
            continue
        elif isinstance(node, bytes | bytearray):
            if api not in BYTES_APIS:
                return (
                    f"bytes at {where}; the {api} request body is JSON, which has no bytes"
                    " (encode them as the api says, e.g. base64)"
                )
        else:
            return f"a {type(node).__name__} at {where}, which JSON cannot hold"
    return None
