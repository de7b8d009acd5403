"""`BridgeTarget`: a target in any language, a process speaking the bridge protocol.

The protocol is in `conformance.targets.bridge.protocol` (published as `bridge.schema.json`).
The target starts the process, reads its handshake (name, version, SDK versions, refusal
kinds, rows), and for each render writes one request and reads its answer:

- a payload is returned (bytes decoded from `{"$bytes": base64}`); the suite judges it like any
  target's, a body JSON cannot hold included;
- a refusal of a declared kind raises that kind's exception class, a subclass of
  `BridgeRefusal`; these classes are the target's `refusal_types`, so the cell is `raised`;
- everything else raises a `BridgeError`, which is in no target's `refusal_types`, so the cell
  is `crashed`, as for a Python target that raises: an `error` answer (its class is named after
  the error's type), a refusal of an undeclared kind (`UndeclaredRefusal`), a process that dies
  (`BridgeDied`), no answer within the time limit (`BridgeTimeout`), a line that is not a JSON
  object or not an answer, or an answer to another request (`BridgeProtocolError`).

After a death, a hang or garbage the process is killed; the next render starts a new one (and
reads its handshake again). The time limit per render is the suite's cell time limit
(`--conformance-cell-timeout`) plus `GRACE`, so under the suite a hang ends in the suite's own
`CellTimeout` for the cell, exactly as a Python target's; the process is killed when the bridge's
own limit passes, or when the next render finds the abandoned request unanswered.
"""

from __future__ import annotations

import atexit
import base64
import itertools
import json
import shlex
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.history import History, Media, Message, Text, ToolResult, dump
from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes
from conformance.targets.base import Payload, RowRef
from conformance.targets.bridge._process import (
    Process,
    ProcessDied,
    ProcessGarbage,
    ProcessTimeout,
)
from conformance.targets.bridge.protocol import (
    ErrorAnswer,
    Handshake,
    PayloadAnswer,
    RefusalAnswer,
    ReproAnswer,
    decode_payload,
    parse_answer,
)
from conformance.targets.kit import time_limit

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "GRACE",
    "HANDSHAKE_TIME_LIMIT",
    "BridgeDied",
    "BridgeError",
    "BridgeProtocolError",
    "BridgeRefusal",
    "BridgeStartError",
    "BridgeTarget",
    "BridgeTimeout",
    "UndeclaredRefusal",
]

DEFAULT_TIME_LIMIT = 60.0
"""Seconds per render where the suite sets no cell time limit (renders run inline)."""
GRACE = 0.5
"""Seconds the bridge waits past the suite's cell time limit, so the suite's own timeout
judges a hang first, as it does for a Python target."""
HANDSHAKE_TIME_LIMIT = 60.0
"""Seconds a new process has to write its handshake (Node loading an SDK takes about one)."""


class BridgeError(Exception):
    """A bridge failed in a way that is not a declared refusal: the cell is `crashed`."""


class BridgeDied(BridgeError):
    """The process ended before it answered."""


class BridgeTimeout(BridgeError):
    """The process did not answer within the render time limit."""


class BridgeProtocolError(BridgeError):
    """A line that is not a protocol answer, or the answer to another request."""


class UndeclaredRefusal(BridgeError):
    """A refusal of a kind the handshake does not declare: not a typed refusal."""


class BridgeStartError(Exception):
    """The process could not be started, or its handshake is not a protocol handshake."""


class BridgeRefusal(Exception):
    """Base of the refusal classes, one per declared kind (`BridgeTarget.refusal_types`)."""

    kind: str = ""


def _exception_class(base: type[Exception], name: str, module: str) -> type[Exception]:
    """A class named `name` in `module`, so snapshots and details show the bridge's own type
    (`{"raised": "bridge.ai-sdk.UnsupportedFunctionalityError", ...}`)."""
    cls = type(name, (base,), {"__module__": module, "kind": name})
    cls.__qualname__ = name
    return cls


_live: weakref.WeakSet[BridgeTarget] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:  # pyright: ignore[reportUnusedFunction]
    for target in list(_live):
        target.close()


class BridgeTarget:
    """A target behind a process that speaks the bridge protocol.

    `command` is the argument list (or a shell-quoted string) that starts it; `cwd` and `env`
    (added to the environment) are given to the process. `time_limit` fixes the seconds per
    render; by default it follows the suite's cell time limit (plus `GRACE`).
    """

    def __init__(
        self,
        command: Sequence[str] | str,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        time_limit: float | None = None,
        handshake_time_limit: float = HANDSHAKE_TIME_LIMIT,
    ) -> None:
        self.command = tuple(shlex.split(command) if isinstance(command, str) else command)
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.fixed_time_limit = time_limit
        self.handshake_time_limit = handshake_time_limit
        self._lock = threading.Lock()
        self._process: Process | None = None
        self._ids = itertools.count(1)
        self.restarts = 0
        """Processes started after the first (after a death, a hang or garbage)."""
        process, handshake = self._start()
        self._process = process
        self.handshake = handshake
        self.name = handshake.name
        self.version = handshake.version
        self.sdk_versions = dict(handshake.sdk_versions)
        module = f"bridge.{handshake.name}"
        self._refusals: dict[str, type[Exception]] = {
            kind: _exception_class(BridgeRefusal, kind, module) for kind in handshake.refusal_kinds
        }
        self.refusal_types: tuple[type[BaseException], ...] = tuple(self._refusals.values())
        self._module = module
        self._errors: dict[str, type[Exception]] = {}
        _live.add(self)

    # --- the process -----------------------------------------------------------------------

    def _start(self) -> tuple[Process, Handshake]:
        shown = shlex.join(self.command)
        try:
            process = Process(self.command, cwd=self.cwd, env=self.env)
        except OSError as error:
            raise BridgeStartError(f"cannot start the bridge `{shown}`: {error}") from None
        deadline = time.monotonic() + self.handshake_time_limit
        try:
            line = process.receive(deadline)
            handshake = Handshake.model_validate(line)
        except ProcessTimeout:
            process.kill()
            raise BridgeStartError(
                f"the bridge `{shown}` wrote no handshake within {self.handshake_time_limit:g} s"
            ) from None
        except ProcessDied as error:
            process.kill()
            raise BridgeStartError(
                f"the bridge `{shown}` ended before its handshake: {error}"
            ) from None
        except (ProcessGarbage, ValueError) as error:
            process.kill()
            raise BridgeStartError(
                f"the bridge `{shown}` did not start with a protocol handshake"
                f" (bridge.schema.json, $defs/Handshake): {_first_lines(error)}"
            ) from None
        return process, handshake

    def _fresh(self) -> Process:
        """The running process, or a new one where it died, hung or was left mid-request."""
        process = self._process
        if process is not None and not process.busy and process.popen.poll() is None:
            return process
        if process is not None:
            process.kill()
        self._process = None
        process, handshake = self._start()
        if (handshake.name, handshake.version) != (self.name, self.version):
            process.kill()
            raise BridgeProtocolError(
                f"the restarted bridge says it is {handshake.name} {handshake.version},"
                f" not {self.name} {self.version}"
            )
        self.restarts += 1
        self._process = process
        return process

    def close(self) -> None:
        """End the process (the bridge ends at the end of its input)."""
        with self._lock:
            if self._process is not None:
                self._process.close()
                self._process = None

    def _time_limit(self) -> float:
        if self.fixed_time_limit is not None:
            return self.fixed_time_limit
        suite = time_limit()
        return DEFAULT_TIME_LIMIT if suite is None else suite + GRACE

    def _ask(self, request: dict[str, Any]) -> PayloadAnswer | RefusalAnswer | ReproAnswer:
        with self._lock:
            try:
                process = self._fresh()
            except BridgeStartError as error:
                raise BridgeDied(f"the bridge could not be restarted: {error}") from None
            request = {"id": f"r{next(self._ids)}", **request}
            process.busy = True
        limit = self._time_limit()
        try:
            try:
                process.send(request)
            except ProcessDied as error:
                raise BridgeDied(f"the bridge process died: {error}") from None
            answer = self._receive(process, request["id"], time.monotonic() + limit, limit)
        except BaseException:
            process.kill()  # its state is unknown: the next render starts a new one
            raise
        process.busy = False
        if isinstance(answer, ErrorAnswer):
            raise self._error_class(answer.error.type)(answer.error.message)
        return answer

    def _receive(
        self, process: Process, wanted: str, deadline: float, limit: float
    ) -> PayloadAnswer | RefusalAnswer | ErrorAnswer | ReproAnswer:
        try:
            line = process.receive(deadline)
        except ProcessDied as error:
            raise BridgeDied(f"the bridge process died: {error}") from None
        except ProcessTimeout:
            raise BridgeTimeout(
                f"the bridge did not answer within {limit:g} s; its process was killed"
            ) from None
        except ProcessGarbage as error:
            raise BridgeProtocolError(f"the bridge wrote {error}") from None
        try:
            answer = parse_answer(line)
        except ValueError as error:
            raise BridgeProtocolError(
                f"the bridge wrote a line that is not an answer (bridge.schema.json,"
                f" $defs/Answer): {_first_lines(error)}"
            ) from None
        if answer.id != wanted:
            raise BridgeProtocolError(
                f"the bridge answered request {answer.id!r:.60} when {wanted!r} was asked"
            )
        return answer

    def _error_class(self, name: str) -> type[Exception]:
        safe = name if name.isidentifier() else "BridgeReportedError"
        if safe not in self._errors:
            self._errors[safe] = _exception_class(BridgeError, safe, self._module)
        return self._errors[safe]

    # --- the target --------------------------------------------------------------------------

    def supports(self, row: RowRef) -> str | None:
        served = self.handshake.rows
        if row.api not in served and row.id not in served:
            return f"the {self.name} bridge does not serve {row.id} (its handshake's rows)"
        return self.handshake.unsupported.get(row.id) or self.handshake.unsupported.get(row.api)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._render("render", row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._render("render_stored", row, history)

    def _render(self, op: str, row: RowRef, history: History) -> Payload:
        answer = self._ask(_request(op, row, history))
        if isinstance(answer, RefusalAnswer):
            refusal = self._refusals.get(answer.refusal.kind)
            if refusal is None:
                raise UndeclaredRefusal(
                    f"a refusal of kind {answer.refusal.kind!r}, which the handshake does not"
                    f" declare (refusal_kinds: {', '.join(self._refusals) or 'none'}):"
                    f" {answer.refusal.message}"
                )
            raise refusal(answer.refusal.message)
        if not isinstance(answer, PayloadAnswer):
            raise BridgeProtocolError("the bridge answered a render with a script")
        try:
            payload: Payload = decode_payload(answer.payload)
        except ValueError as error:
            raise BridgeProtocolError(f"the bridge's payload: {error}") from None
        return payload

    @property
    def repro_comment(self) -> str:
        """The comment prefix of the reproducer's language (`conformance repro`'s header)."""
        return self.handshake.repro.comment if self.handshake.repro else "#"

    @property
    def repro_run(self) -> str:
        """How to run the reproducer, `{file}` for its path."""
        return self.handshake.repro.run if self.handshake.repro else "{file}"

    @property
    def repro_suffix(self) -> str:
        return self.handshake.repro.suffix if self.handshake.repro else ".py"

    def repro(self, row: RowRef, history: History) -> str:
        """The bridge's standalone reproducer (the handshake's `repro` declares one)."""
        if self.handshake.repro is None:
            raise BridgeProtocolError(f"the {self.name} bridge writes no reproducers")
        answer = self._ask({**_request("repro", row, history), "media": _fixture_media(history)})
        if not isinstance(answer, ReproAnswer):
            kind = "a refusal" if isinstance(answer, RefusalAnswer) else "a payload"
            raise BridgeProtocolError(f"the bridge answered a repro request with {kind}")
        return answer.script


def _request(op: str, row: RowRef, history: History) -> dict[str, Any]:
    return {
        "op": op,
        "row": {"id": row.id, "api": row.api, "family": row.family, "model": row.model},
        "history": json.loads(dump(history)),
    }


def _media_parts(history: History) -> list[Media]:
    found: list[Media] = []
    for item in history:
        if isinstance(item, ToolResult | Message) and not isinstance(item.content, str):
            found += [p for p in item.content if not isinstance(p, Text)]
    return found


def _fixture_media(history: History) -> dict[str, dict[str, str]]:
    """Fixture URL -> its media type and base64 bytes, for every URL part of the history."""
    media: dict[str, dict[str, str]] = {}
    for part in _media_parts(history):
        url = part.url
        if url is None:
            continue
        name = url.split("?", 1)[0].rsplit("/", 1)[-1]
        if name in FIXTURE_TYPES:
            data = base64.b64encode(fixture_bytes(name)).decode("ascii")
            media[url] = {"media_type": FIXTURE_TYPES[name], "data": data}
    return media


def _first_lines(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text[:600]
