"""The pydantic-ai target: the framework's own agent and model classes, observed on the wire.

How a cell is rendered, the way a pydantic-ai user gets there:

1. The history up to its last tool-call turn becomes pydantic-ai messages (`to_messages`):
   `ModelRequest` (`UserPromptPart`, `SystemPromptPart`, tool returns of earlier turns) and
   `ModelResponse` (`ToolCallPart`, `TextPart`). Media is `BinaryContent` (bytes) or
   `ImageUrl` / `DocumentUrl` / `AudioUrl` / `VideoUrl`.
2. The last turn's tool results are produced by running the tools: `Agent(model,
   tools=[...]).run(None, message_history=...)` finds the pending tool calls and calls each
   tool, which returns what the history says its call returned (a media item is the return
   value itself; tool-produced user content is `ToolReturn(return_value=..., content=[...])`),
   or fails the way a tool fails in the installed version: `ToolFailed` in 2.x (a
   `ToolReturnPart` with `outcome='failed'`), `ModelRetry` in 1.x (the `RetryPromptPart` a
   user's failing tool produces there). The agent then sends the next request through the
   row's real model class (`OpenAIChatModel`, `AnthropicModel`, `GoogleModel`, ...), whose
   client points at the toolkit's loopback recorder; the payload is that request
   (`conformance.targets.kit.body_or_raise`). A history whose last turn cannot be produced by
   tools (for example an error result holding media, which no exception carries) is sent as
   stored messages instead: `run(None, message_history=to_messages(history))`.
3. If pydantic-ai raises before a request is sent, that exception is the outcome. What it raises
   for content a model cannot take is `refusal_types` (read from its source, see below).
4. URL media is served by the suite's fixture host on 127.0.0.1. pydantic-ai downloads a URL
   itself where the provider takes no URL, through its SSRF guard, which blocks private and
   loopback addresses unless the item says `force_download='allow-local'` (which would also make
   it download URLs the provider takes). A user's URL is public, so the guard lets it through:
   the target lets pydantic-ai's guard treat the fixture host's origin (that origin only) as
   allowed, and everything else in the download (client, size limits, media type from the
   response) is pydantic-ai's own. No fixture download is refused or faked by the target. A URL
   off the fixture host (hypothesis histories have their own) is refused with `OffMachineUrl`,
   a `SuiteError` (never a target's refusal), so that nothing ever reaches the network.

Storage round trip (`render_stored`): the messages of the run above (`capture_run_messages`,
as an application stores them), dumped with `ModelMessagesTypeAdapter`, loaded, and sent again
with `run(None, message_history=...)`.

The module imports without pydantic-ai; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib
import threading
import warnings
from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from importlib import metadata
from typing import Any

from conformance.errors import NoRequestSent, SuiteError
from conformance.history import (
    History,
    ToolCall,
    ToolResult,
    dump,
)
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import FixtureHost, body_or_raise, fixture_host, thread_token
from conformance.targets.pydantic_ai._messages import (
    TOOL_DOC,
    Call,
    content_of,
    dump_messages,
    load_messages,
    plan,
    text_of,
    to_messages,
    value_of,
)
from conformance.targets.pydantic_ai._models import EXTRAS, MODELS, SESSION, model_for

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "SDKS",
    "NoRequestSent",
    "OffMachineUrl",
    "PydanticAITarget",
    "dump_messages",
    "load_messages",
    "to_messages",
]

DISTRIBUTION = "pydantic-ai-slim"
_EXTRAS_ALL = "openai,anthropic,google,bedrock,mistral,cohere,groq,huggingface"
INSTALL_HINT = f'pip install "pydantic-ai-slim[{_EXTRAS_ALL}]"'

SDKS = (
    "openai",
    "anthropic",
    "google-genai",
    "boto3",
    "botocore",
    "mistralai",
    "cohere",
    "groq",
    "huggingface-hub",
    "httpx",
)
"""The provider SDKs (and the HTTP client) the model classes drive: `sdk_versions`."""

_RENDER_LOCK = threading.Lock()


class _LastRun(threading.local):
    """Per rendering thread: the key and messages of the last successful `render`."""

    messages: tuple[bytes, list[Any]] | None = None


_LAST_RUN = _LastRun()


def _run_key(row: RowRef, history: History) -> bytes:
    return hashlib.sha256(repr(row).encode() + b"\0" + dump(history)).digest()


_CALLS: ContextVar[dict[str, Call] | None] = ContextVar("_CALLS", default=None)
"""The pending calls of the render under way, and what each one's tool returns: set around the
agent run, read by the tools (the run's task, and a thread that runs a tool, copy it)."""


@functools.cache
def _tool_functions() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The tools' two functions, without and with arguments; a pending call returns (or fails
    with) what its result says (`_CALLS`)."""
    from pydantic_ai import RunContext, exceptions
    from pydantic_ai.messages import ToolReturn

    failed: Any = getattr(exceptions, "ToolFailed", None) or exceptions.ModelRetry

    def result(ctx: Any) -> Any:
        call = (_CALLS.get() or {}).get(ctx.tool_call_id)
        if call is None:  # a call the history left unanswered
            return ""
        if call.status == "error":
            raise failed(text_of(call.value))
        value = value_of(call.value) if call.value else ""
        if call.produced:
            return ToolReturn(return_value=value, content=[content_of(p) for p in call.produced])
        return value

    def with_arguments(ctx: Any, **arguments: Any) -> Any:
        return result(ctx)

    result.__doc__ = with_arguments.__doc__ = TOOL_DOC
    result.__annotations__ = {"ctx": RunContext[None], "return": Any}
    return result, with_arguments


@functools.cache
def _tool(name: str, takes_arguments: bool) -> Any:
    """One tool, built once per name and kind: building it infers its schema from the function
    (7% of a render in the profile), and an agent only reads it."""
    from pydantic_ai import Tool

    result, with_arguments = _tool_functions()
    if not takes_arguments:
        return Tool(result, name=name, takes_ctx=True)
    schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}
    return Tool.from_schema(
        with_arguments, name=name, description=TOOL_DOC, json_schema=schema, takes_ctx=True
    )


def _tools(history: History) -> list[Any]:
    """One tool per tool name of the history, returning what `_CALLS` says. Without arguments
    in the history, a tool has no parameters, as users write."""
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    takes_arguments = any(i.arguments for i in history if isinstance(i, ToolCall))
    return [_tool(name, takes_arguments) for name in names]


# --- the run -----------------------------------------------------------------------------------


class OffMachineUrl(SuiteError):
    """A download of a URL the suite does not serve (hypothesis histories use their own URLs):
    refused before any connection. The suite's own exception, never a target's refusal;
    scenario URLs are all on the fixture host, so no cell meets it."""


@contextmanager
def _fixture_host_is_public(host: FixtureHost) -> Generator[None]:
    """pydantic-ai's SSRF guard lets the fixture host's origin through, as it lets a public
    host through for a user: `allow_local` for URLs on that origin only, nothing else changed."""
    ssrf: Any = importlib.import_module("pydantic_ai._ssrf")
    original: Any = getattr(ssrf, "validate_and_resolve_url", None)
    if original is None:  # a release without the guard: nothing to open
        yield
        return
    prefix = host.origin + "/"

    async def validate(url: str, allow_local: bool) -> Any:
        if not url.startswith(prefix):
            raise OffMachineUrl(
                f"pydantic-ai tried to download {url}, which is not on the suite's fixture host "
                f"({host.origin}); the suite never reaches the network"
            )
        return await original(url, True)

    ssrf.validate_and_resolve_url = validate
    try:
        yield
    finally:
        ssrf.validate_and_resolve_url = original


def _run(agent: Any, messages: list[Any]) -> None:
    """`Agent.run(None, message_history=...)` on the rendering thread's event loop; what the
    run left running is cancelled and awaited before the next (as `asyncio.run` does)."""

    async def main() -> None:
        await agent.run(None, message_history=messages)

    loop = SESSION.event_loop()
    try:
        loop.run_until_complete(main())
    finally:
        leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))


def _installed_version() -> str | None:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    try:
        importlib.import_module("pydantic_ai")
    except ImportError:
        return f"pydantic-ai is not installed: {INSTALL_HINT}"
    return None


def _refusal_types() -> tuple[type[BaseException], ...]:
    """What the model classes raise, before sending, for content the api cannot take.

    Read from the source of both releases run (the same three in each):
    - `UserError` (a `RuntimeError`): e.g. Bedrock's `Unsupported document format`, Google's
      file checks, `Downloading YouTube videos is not supported`;
    - `NotImplementedError`: `AudioUrl is not supported in Bedrock tool returns`, `... in Mistral
      user prompts`, `... for Hugging Face`, Anthropic's and OpenAI Responses' unsupported
      binary content (2.68 `models/anthropic/__init__.py`, `models/openai/_responses_model.py`);
    - bare `RuntimeError`: 2.68 `CohereModel` (`Cohere does not yet support multi-modal inputs`)
      and OpenAI Responses (`Unsupported binary content type`); 1.85 also Anthropic
      (`Unsupported binary content media type for Anthropic`) and OpenAI chat.
    A `RuntimeError` raised before sending therefore counts as pydantic-ai's refusal; its
    message, in the snapshot, says which.
    """
    from pydantic_ai.exceptions import UserError

    return (UserError, NotImplementedError, RuntimeError)


def _sdk_versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in SDKS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


class PydanticAITarget:
    """pydantic-ai's agent and real model classes, its tools producing the last turn."""

    name = "pydantic-ai"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _installed_version() or "not installed"
        self.refusal_types: tuple[type[BaseException], ...] = ()
        self.sdk_versions: dict[str, str] = {}
        if self.unavailable is None:
            self.refusal_types = _refusal_types()
            self.sdk_versions = _sdk_versions()

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in MODELS:
            return f"the pydantic-ai target has no model class for api {row.api!r}"
        module, _ = MODELS[row.api]
        try:
            importlib.import_module(module)
        except ImportError as error:
            extra = EXTRAS.get(row.api, row.api)
            return (
                f"pydantic-ai {self.version} cannot load {module} ({error}); "
                f'pip install "pydantic-ai-slim[{extra}]"'
            )
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        _LAST_RUN.messages = None
        payload, messages = self._send(row, history)
        _LAST_RUN.messages = (_run_key(row, history), messages)
        return payload

    def render_stored(self, row: RowRef, history: History) -> Payload:
        """The request after a storage round trip: the messages of a run of this history are
        dumped and loaded with pydantic-ai's own adapter, then run again. The run is the one
        `render` just made for the same row and history on this thread, as a user stores the
        run they had (a cell renders direct, then stored: two agent runs, not three); with no
        such run, a run of its own."""
        last, _LAST_RUN.messages = _LAST_RUN.messages, None
        if last is not None and last[0] == _run_key(row, history):
            messages = last[1]
        else:
            _, messages = self._send(row, history)
        stored = load_messages(dump_messages(messages))
        return self._send_messages(row, history, {}, stored)[0]

    def _send(self, row: RowRef, history: History) -> tuple[Payload, list[Any]]:
        """The request the agent sends for this history, and the messages of that run."""
        steps = plan(history)
        if steps is None:
            return self._send_messages(row, history, {}, to_messages(history))
        return self._send_messages(row, history, steps.calls, to_messages(steps.head))

    def _send_messages(
        self, row: RowRef, history: History, calls: dict[str, Call], messages: list[Any]
    ) -> tuple[Payload, list[Any]]:
        """Run the agent with the history's tools, `calls` saying what the pending ones return."""
        from pydantic_ai import Agent, capture_run_messages

        tools = _tools(history)
        run_messages: list[Any] = []
        token = thread_token()

        def send(base: str) -> None:
            agent: Any = Agent(model_for(row, base), tools=tools)
            with capture_run_messages() as captured:
                try:
                    _run(agent, messages)
                finally:
                    run_messages.extend(captured)

        with _RENDER_LOCK, warnings.catch_warnings(), _fixture_host_is_public(fixture_host()):
            warnings.simplefilter("ignore")
            pending = _CALLS.set(calls)
            try:
                payload = body_or_raise(row.api, send, token=token)
            finally:
                _CALLS.reset(pending)
        return payload, run_messages

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (pydantic-ai and the standard library) that sends this cell's
        request to a recorder on 127.0.0.1 and prints the payload as indented JSON."""
        from conformance.targets.pydantic_ai._repro import repro_script

        return repro_script(row, history, self.version)
