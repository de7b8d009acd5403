"""Hostile targets: each misbehaves in one way the suite must turn into a verdict or a stop.

Every one is a real target (`name`, `version`, `supports`, `render`, `render_stored`) run by
the plugin in `tests/test_hostile_targets.py`. None of them touches anything but loopback.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import threading
from pathlib import Path
from typing import Any, ClassVar

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget


class _Hostile:
    version = "0.0.1"

    @property
    def name(self) -> str:
        """Its class name, so that several hostile targets can run side by side."""
        return type(self).__name__.lower()

    def supports(self, row: RowRef) -> str | None:
        return None

    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise NotImplementedError

    def render(self, row: RowRef, history: History) -> Payload:
        return self.misbehave(row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self.misbehave(row, history)


class Weird(BaseException):
    """A BaseException subclass of the target's own."""


class RaisesSystemExit(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise SystemExit(3)


class RaisesBaseException(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise Weird("not an Exception")


class RaisesGeneratorExit(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise GeneratorExit


class RaisesKeyboardInterrupt(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise KeyboardInterrupt


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


class RaisesUnprintable(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise _Unprintable


class RaisesHugeMessage(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise ValueError("x" * 3_000_000)


_NEVER = threading.Event()


class Hangs(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        _NEVER.wait()
        raise AssertionError("unreachable")


class WaitsOnASilentSocket(_Hostile):
    """Connects to a loopback server that accepts and never answers, and waits for it."""

    def misbehave(self, row: RowRef, history: History) -> Payload:
        server = socket.create_server(("127.0.0.1", 0))
        client = socket.create_connection(server.getsockname())
        client.recv(1)  # never answered
        raise AssertionError("unreachable")


class _Returns(_Hostile):
    value: ClassVar[Any] = None

    def misbehave(self, row: RowRef, history: History) -> Payload:
        return self.value


class ReturnsNaN(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", "temperature": math.nan, "messages": []}


class ReturnsInfinity(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", "messages": [{"role": "user", "max": math.inf}]}


class ReturnsASet(_Returns):
    value: ClassVar[Any] = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": {"a", "b"}}],
    }


class ReturnsBytes(_Returns):
    value: ClassVar[Any] = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": b"\x89PNG"}],
    }


class ReturnsAnIntKey(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", 1: "one"}


class ReturnsAnObject(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", "messages": [object()]}


class ReturnsALoneSurrogate(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": "\ud800"}]}


class ReturnsAList(_Returns):
    value: ClassVar[Any] = [{"role": "user", "content": "hi"}]


def _deep(depth: int) -> Any:
    node: Any = "bottom"
    for _ in range(depth):
        node = [node]
    return node


class ReturnsDeepNesting(_Returns):
    value: ClassVar[Any] = {"model": "gpt-4o", "messages": _deep(100_000)}


def _cycle() -> Any:
    payload: dict[str, Any] = {"model": "gpt-4o"}
    payload["messages"] = [payload]
    return payload


class ReturnsACycle(_Returns):
    value: ClassVar[Any] = _cycle()


class _LikeReference:
    """Renders what the reference renders, after doing something noisy."""

    version = "0.0.1"

    @property
    def name(self) -> str:
        return type(self).__name__.lower()

    def __init__(self) -> None:
        self.reference = ReferenceTarget()

    def supports(self, row: RowRef) -> str | None:
        return self.reference.supports(row)

    def noise(self) -> None:
        raise NotImplementedError

    def render(self, row: RowRef, history: History) -> Payload:
        self.noise()
        return self.reference.render(row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        self.noise()
        return self.reference.render_stored(row, history)


class Prints(_LikeReference):
    def noise(self) -> None:
        print("chatty target " * 1000)


class WritesOverTheResults(_LikeReference):
    """Writes garbage where the run's results file is (`out/r.jsonl` in the tests)."""

    def noise(self) -> None:
        path = Path("out/r.jsonl")
        path.parent.mkdir(exist_ok=True)
        path.write_text("garbage from the target\n", encoding="utf-8")


class FailsToConstruct:
    name = "fails-to-construct"
    version = "0.0.1"

    def __init__(self) -> None:
        raise SystemExit("constructor says no")


class EscapingName(_Hostile):
    @property
    def name(self) -> str:
        return "../../escape"


class NotAStringName(_Hostile):
    @property
    def name(self) -> str:
        return 42  # pyright: ignore[reportReturnType]


class KillsItself(_LikeReference):
    """Ends its own process with SIGKILL on the first render: a killed run."""

    def noise(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class RaisesALoneSurrogate(_Hostile):
    def misbehave(self, row: RowRef, history: History) -> Payload:
        raise ValueError("half a character: \ud800")


_CATASTROPHIC = "(a+)+$"
"""A regular expression that backtracks exponentially on `a...ab`: `re` holds the GIL all
the while, so no other thread of the process runs until it gives up (years for 64 a's)."""


class HoldsTheGil(_Hostile):
    """A render that never returns and never lets another thread run; it asks for isolation,
    the only limit that can cut it."""

    isolate = True

    def misbehave(self, row: RowRef, history: History) -> Payload:
        import re

        re.match(_CATASTROPHIC, "a" * 64 + "b")
        raise AssertionError("unreachable")


class HoldsTheGilAndIgnoresSignals(HoldsTheGil):
    """The same, with SIGTERM and SIGINT ignored first."""

    def misbehave(self, row: RowRef, history: History) -> Payload:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return super().misbehave(row, history)


class HangsOnSomeHistories(ReferenceTarget):
    """The reference, except that a render of a history with a tool result holding an image
    never returns: the property searches meet it on some histories, not all."""

    name = "hangs-on-some-histories"

    def render(self, row: RowRef, history: History) -> Payload:
        if '"image"' in repr(history) or "image/" in repr(history):
            _NEVER.wait()
        return super().render(row, history)
