"""The Strands Agents target: a Strands `Agent` with real `@tool` functions and each api's
Strands model provider class, observed on the wire.

How a cell is rendered, the way a Strands user gets there:

1. The history up to its last tool-call turn becomes Strands `Messages` (`_messages.py`): the
   user prompt, then the assistant message whose `toolUse` blocks are the parallel calls.
2. One `@tool(context=True)` function per tool name returns, for the call it is given
   (`tool_context.tool_use["toolUseId"]`), the history's result as a Strands `ToolResult` dict
   (`{"status": "success" | "error", "content": [content blocks]}`), as Strands' tool docs
   show for a tool that returns images or documents.
3. `Agent(model=<the row's provider class>, messages=..., tools=..., callback_handler=None)`
   is called without a prompt, `agent()`. Strands' event loop finds the latest message holding
   `toolUse` blocks (`event_loop.py`, `_has_tool_use_in_latest_message`), runs the tools, appends
   their results as one user message of `toolResult` blocks, and sends the next request through
   the provider class (`_models.py`), whose SDK client points at the toolkit's loopback recorder.
   The recorder answers 400, so exactly one request is made; the payload is that request
   (`conformance.targets.kit.body_or_raise`).
4. A history whose tail no tool can produce (hypothesis histories: tool-produced user content,
   a result without its call) is sent as stored messages instead: `Agent(messages=
   to_messages(history))` and `agent()`, whose latest message then holds no `toolUse`, so the
   event loop calls the model with the messages as they are.
5. What Strands raises before a request arrives is the outcome: its provider classes' content
   formatters raise `TypeError` for a content block their api has no form for
   (`refusal_types`). Strands wraps what a cycle after the tool run raises in its
   `EventLoopException` (`event_loop.py`, `event_loop_cycle`), keeping the error it wraps as
   `original_exception`; the target reports that original error, the one the formatter raised.

Cells Strands has no form for are declared n/a with the reason (`not_applicable`, counted
apart): URL media (Strands' media blocks take bytes or an S3 location, no URL) and the `prompt`
style (a Strands tool returns a `ToolResult` only; it produces no user content).

Storage round trip (`render_stored`): the agent's messages after the run above (with the
`toolResult` message the event loop appended), stored in Strands' session format
(`SessionMessage.to_dict`, JSON), loaded (`SessionMessage.from_dict(...).to_message()`), and
sent again by a new agent with those messages and no prompt.

The module imports without Strands; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import copy
import gc
import importlib
import logging
import threading
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, ClassVar

from conformance.history import History, ToolCall, ToolResult
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, environment
from conformance.targets.strands._messages import (
    NoStrandsForm,
    dump_messages,
    load_messages,
    system_prompt,
    to_messages,
    tool_result,
)
from conformance.targets.strands._models import MODELS, ModelSpec, import_error

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "NoStrandsForm",
    "StrandsTarget",
    "dump_messages",
    "load_messages",
    "to_messages",
]

DISTRIBUTION = "strands-agents"
EXTRAS = "openai,anthropic,gemini,mistral"
INSTALL_HINT = f'pip install "strands-agents[{EXTRAS}]"  (or: nox -s "target(strands)")'
SDKS = ("openai", "anthropic", "google-genai", "boto3", "botocore", "mistralai", "httpx")
"""The provider SDKs the model classes drive: `sdk_versions`."""
TOOL_DOC = "Return what the scenario's tool returned for this call."

_RENDER_LOCK = threading.Lock()


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    try:
        importlib.import_module("strands")
    except ImportError as error:
        return f"strands-agents is not installed ({error}): {INSTALL_HINT}"
    return None


# --- the last turn, produced by running the tools -----------------------------------------------


@dataclass
class Plan:
    """A history split into the stored messages up to its last tool-call turn and what each
    pending call's tool returns (a `ToolResult` dict, by call id)."""

    head: History
    results: dict[str, dict[str, Any]] = field(default_factory=dict[str, dict[str, Any]])


def plan(history: History) -> Plan | None:
    """The split, or None where the tail after the last tool-call turn is anything but one
    result per call of that turn (tool-produced user content, a stray or repeated result)."""
    last = max((i for i, item in enumerate(history) if isinstance(item, ToolCall)), default=None)
    if last is None:
        return None
    start = last
    while start > 0 and isinstance(history[start - 1], ToolCall):
        start -= 1
    names: dict[str, str] = {}
    for item in history[start : last + 1]:
        assert isinstance(item, ToolCall)
        if item.tool_call_id in names:
            return None
        names[item.tool_call_id] = item.name
    found = Plan(history[: last + 1])
    for item in history[last + 1 :]:
        if not isinstance(item, ToolResult) or names.get(item.tool_call_id) != item.name:
            return None
        if item.tool_call_id in found.results:
            return None
        found.results[item.tool_call_id] = tool_result(item)
    return found if set(found.results) == set(names) else None


def _tools(history: History, results: dict[str, dict[str, Any]]) -> list[Any]:
    """One `@tool` per tool name of the history; for a call it returns that call's result
    (`results`), for a call the history left unanswered an empty success."""
    strands: Any = importlib.import_module("strands")
    tool: Any = strands.tool

    def make(name: str) -> Any:
        def returns(tool_context: Any) -> dict[str, Any]:
            call_id = tool_context.tool_use["toolUseId"]
            return copy.deepcopy(results.get(call_id, {"status": "success", "content": []}))

        returns.__doc__ = TOOL_DOC
        returns.__name__ = name
        return tool(name=name, description=TOOL_DOC, context=True)(returns)

    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [make(name) for name in names]


# --- the run -------------------------------------------------------------------------------------


def _original(error: BaseException) -> BaseException:
    """What Strands' `EventLoopException` wraps (`original_exception`), else the error."""
    from strands.types.exceptions import EventLoopException

    while isinstance(error, EventLoopException):
        error = error.original_exception
    return error


def _run(
    spec: ModelSpec,
    row: RowRef,
    history: History,
    messages: list[dict[str, Any]],
    results: dict[str, Any],
) -> tuple[Payload, list[dict[str, Any]]]:
    """`agent()` on `spec`'s model with these stored messages and tools; the payload and the
    agent's messages."""
    strands: Any = importlib.import_module("strands")
    agent_class: Any = strands.Agent
    held: list[list[dict[str, Any]]] = []

    def send(base: str) -> None:
        agent: Any = agent_class(
            model=spec.build(row, base),
            messages=copy.deepcopy(messages),
            tools=_tools(history, results),
            system_prompt=system_prompt(history),
            callback_handler=None,
        )
        held.append(agent.messages)
        try:
            with environment(spec.env(base) if spec.env is not None else {}):
                agent()
        except Exception as error:  # judged by body_or_raise: sent or not
            raise _original(error) from error

    with _RENDER_LOCK, warnings.catch_warnings(), _quiet():
        warnings.simplefilter("ignore")  # the suite runs with warnings as errors
        try:
            payload = body_or_raise(row.api, send)
        finally:
            if spec.leaves_sessions:
                gc.collect()
    return payload, [dict(m) for m in held[0]] if held else []


class _quiet:
    """Strands logs a warning where it changes what it sends (e.g. OpenAI's moved images); the
    suite observes the request itself, so its log stays out of the test output."""

    def __enter__(self) -> None:
        self._logger = logging.getLogger("strands")
        self._level = self._logger.level
        self._logger.setLevel(logging.ERROR + 10)

    def __exit__(self, *args: object) -> None:
        self._logger.setLevel(self._level)


def _refusal_types() -> tuple[type[BaseException], ...]:
    """What the installed release's provider classes raise, before sending, for content their
    api cannot carry (docs/strands.md#refusals reads each one):

    - `TypeError`, in every release run: every content formatter's `content_type=<...> |
      unsupported type` (`format_request_message_content` in `models/openai.py`,
      `_format_request_message_content` in `models/anthropic.py`, `models/bedrock.py` and
      `models/mistral.py`, `_format_request_content_part` in `models/gemini.py`), and
      Anthropic's and Mistral's `unsupported format`;
    - `ValueError`, where `models/openai_responses.py` has its media size limit
      (`_MAX_MEDIA_SIZE_BYTES`: a tool-result image or document over 20 MB)."""
    found: list[type[BaseException]] = [TypeError]
    try:
        responses = importlib.import_module("strands.models.openai_responses")
    except ImportError:
        responses = None
    if responses is not None and hasattr(responses, "_MAX_MEDIA_SIZE_BYTES"):
        found.append(ValueError)
    return tuple(found)


class StrandsTarget:
    """A Strands `Agent` with the scenario's `@tool` functions and each api's provider class."""

    name = "strands"
    models: ClassVar[dict[str, ModelSpec]] = MODELS
    """The provider class of each api this target drives."""
    not_applicable: ClassVar[dict[str, str]] = {
        "source:url": (
            "Strands has no URL source for media: its image, document, audio and video blocks"
            " take bytes or an S3 location (strands/types/media.py)"
        ),
        "style:prompt": (
            "Strands has no tool-produced user content: a tool returns a ToolResult, whose"
            " content goes into the toolResult block (strands/types/tools.py)"
        ),
    }
    """Features Strands does not have: their cells are n/a with the reason, counted apart."""

    def __init__(self) -> None:
        self.unavailable: str | None = _missing()
        self.version = _version(DISTRIBUTION) or "not installed"
        self.sdk_versions = {n: v for n in SDKS if (v := _version(n)) is not None}
        self.refusal_types: tuple[type[BaseException], ...] = ()
        if self.unavailable is None:
            self.refusal_types = _refusal_types()

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        spec = self.models.get(row.api)
        if spec is None:
            return f"Strands has no model provider class for api {row.api!r}"
        error = import_error(spec)
        if error is not None:
            extra = f"[{spec.extra}]" if spec.extra else ""
            return (
                f"strands-agents {self.version} cannot load {spec.module}.{spec.cls} "
                f'({error}); pip install "strands-agents{extra}"'
            )
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history)[0]

    def render_stored(self, row: RowRef, history: History) -> Payload:
        _, messages = self._send(row, history)
        spec = self.models[row.api]
        return _run(spec, row, history, load_messages(dump_messages(messages)), {})[0]

    def _send(self, row: RowRef, history: History) -> tuple[Payload, list[dict[str, Any]]]:
        spec = self.models[row.api]
        steps = plan(history)
        if steps is None:
            return _run(spec, row, history, to_messages(history), {})
        return _run(spec, row, history, to_messages(steps.head), steps.results)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (Strands and the standard library) that sends this cell's
        request to a recorder on 127.0.0.1 and prints the payload as indented JSON."""
        from conformance.targets.strands._repro import repro_script

        return repro_script(self.models[row.api], row, history, plan(history) is not None)
