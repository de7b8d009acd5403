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
   (`conformance.toolkit.body_or_raise`). A history whose last turn cannot be produced by
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
import importlib
import os
import threading
import warnings
from collections.abc import Callable, Generator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from conformance.errors import NoRequestSent, SuiteError
from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)
from conformance.targets.base import Payload, RowRef
from conformance.toolkit import FixtureHost, body_or_raise, fixture_host, thread_token

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
_API_KEY = "conformance-not-a-key"

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


# --- history -> pydantic-ai messages ---------------------------------------------------------


def _media(part: Image | Document | Audio | Video) -> Any:
    from pydantic_ai import messages as m

    if part.data is not None:
        return m.BinaryContent(part.data, media_type=part.media_type, identifier=part.identifier)
    assert part.url is not None
    url_type: type[Any] = {
        "image": m.ImageUrl,
        "document": m.DocumentUrl,
        "audio": m.AudioUrl,
        "video": m.VideoUrl,
    }[part.type]
    return url_type(part.url, media_type=part.media_type, identifier=part.identifier)


def _content(part: Part) -> Any:
    return part.text if isinstance(part, Text) else _media(part)


def _value(parts: list[Part]) -> Any:
    """A tool's return value: the one item itself, else the list."""
    values = [_content(p) for p in parts]
    return values[0] if len(values) == 1 else values


def _text_of(content: str | list[Part]) -> str:
    return (
        content
        if isinstance(content, str)
        else "".join(p.text for p in content if isinstance(p, Text))
    )


def _has_outcome() -> bool:
    from pydantic_ai import messages as m

    return "outcome" in getattr(m.ToolReturnPart, "__dataclass_fields__", {})


def _tool_return(item: ToolResult) -> Any:
    """A stored tool result: `ToolReturnPart`, failed as the version stores a failed call."""
    from pydantic_ai import messages as m

    if item.status == "error":
        text = _text_of(list(item.content))
        if _has_outcome():
            return m.ToolReturnPart(
                tool_name=item.name, content=text, tool_call_id=item.tool_call_id, outcome="failed"
            )
        retry: Any = getattr(m, "RetryPromptPart")  # noqa: B009 (deprecated in 2.x)
        return retry(content=text, tool_name=item.name, tool_call_id=item.tool_call_id)
    return m.ToolReturnPart(
        tool_name=item.name, content=_value(list(item.content)), tool_call_id=item.tool_call_id
    )


def to_messages(history: History) -> list[Any]:
    """The canonical history as stored pydantic-ai `ModelMessage`s.

    Consecutive request-side items (user and system messages, tool results, tool-produced user
    content) share one `ModelRequest`; consecutive tool calls and assistant text share one
    `ModelResponse`, as pydantic-ai itself stores a turn. Tool-produced user content is a
    `UserPromptPart` (pydantic-ai keeps no provenance on it).
    """
    from pydantic_ai import messages as m

    out: list[Any] = []
    request: list[Any] = []
    response: list[Any] = []

    def flush(parts: list[Any], kind: Any) -> None:
        if parts:
            out.append(kind(parts=list(parts)))
            parts.clear()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # RetryPromptPart in 2.x
        for item in history:
            if isinstance(item, ToolCall):
                flush(request, m.ModelRequest)
                response.append(
                    m.ToolCallPart(
                        tool_name=item.name,
                        args=dict(item.arguments),
                        tool_call_id=item.tool_call_id,
                    )
                )
            elif isinstance(item, ToolResult):
                flush(response, m.ModelResponse)
                request.append(_tool_return(item))
            elif item.role == "assistant":
                flush(request, m.ModelRequest)
                response.append(m.TextPart(content=_text_of(item.content)))
            else:
                flush(response, m.ModelResponse)
                if item.role == "system":
                    request.append(m.SystemPromptPart(content=_text_of(item.content)))
                else:
                    content = item.content
                    value = content if isinstance(content, str) else [_content(p) for p in content]
                    request.append(m.UserPromptPart(content=value))
    flush(request, m.ModelRequest)
    flush(response, m.ModelResponse)
    return out


def dump_messages(messages: list[Any]) -> bytes:
    """pydantic-ai's own storage format for a message history."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(messages)


def load_messages(data: bytes) -> list[Any]:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return list(ModelMessagesTypeAdapter.validate_json(data))


# --- the last turn, produced by running the tools --------------------------------------------


@dataclass
class _Call:
    """What one pending call's tool does when the agent runs it."""

    name: str
    arguments: dict[str, Any]
    status: str = "success"
    value: list[Part] = field(default_factory=list[Part])
    produced: list[Part] = field(default_factory=list[Part])


@dataclass
class _Plan:
    head: History
    """The history up to and including the last tool-call turn: stored messages."""
    calls: dict[str, _Call]
    """The pending calls of that turn, in call order, and what each tool returns."""


def plan(history: History) -> _Plan | None:
    """Split a history whose tail is the results of its last tool-call turn (and content those
    tools produced) into stored messages and the tools' behaviour; None if it has no such tail
    or a result no tool can produce (an error carrying anything but text)."""
    last = max((i for i, item in enumerate(history) if isinstance(item, ToolCall)), default=None)
    if last is None:
        return None
    start = last
    while start > 0 and isinstance(history[start - 1], ToolCall):
        start -= 1
    calls: dict[str, _Call] = {}
    for item in history[start : last + 1]:
        assert isinstance(item, ToolCall)
        calls[item.tool_call_id] = _Call(item.name, dict(item.arguments))
    answered: set[str] = set()
    for item in history[last + 1 :]:
        if isinstance(item, ToolResult) and item.tool_call_id in calls:
            call = calls[item.tool_call_id]
            if item.tool_call_id in answered or item.name != call.name:
                return None
            if item.status == "error" and not all(isinstance(p, Text) for p in item.content):
                return None
            answered.add(item.tool_call_id)
            call.status, call.value = item.status, list(item.content)
        elif (
            isinstance(item, Message)
            and item.role == "user"
            and item.source is not None
            and item.source.tool_call_id in calls
            and item.source.tool_call_id in answered
            and not isinstance(item.content, str)
        ):
            calls[item.source.tool_call_id].produced += item.content
        else:
            return None
    if answered != set(calls):
        return None
    return _Plan(history[: last + 1], calls)


TOOL_DOC = "Return what the scenario's tool returned for this call."
"""Every tool's description (a user's tool has one)."""


_CALLS: ContextVar[dict[str, _Call] | None] = ContextVar("_CALLS", default=None)
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
            raise failed(_text_of(call.value))
        value = _value(call.value) if call.value else ""
        if call.produced:
            return ToolReturn(return_value=value, content=[_content(p) for p in call.produced])
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


# --- models, one per api -----------------------------------------------------------------------


def _openai_chat_class() -> Any:
    module = importlib.import_module("pydantic_ai.models.openai")
    return getattr(module, "OpenAIChatModel", None) or module.OpenAIModel


# --- what one rendering thread keeps: an event loop and the providers' HTTP clients -----------


class _Session(threading.local):
    """Per rendering thread (renders run on one worker thread, `conformance.guard`): one event
    loop for every agent run, and the HTTP clients the providers would each build for
    themselves, built once here by the same factories with the same settings and handed to each
    provider as its `http_client`. A provider never closes a client it was given, and every
    client stays on the one loop it was first used on. The recorder closes every connection
    after its answer, so no connection outlives a render; nothing a request carries depends on
    the client being new (the profile in docs/performance.md: building a client per render,
    with a fresh SSL context loading the CA bundle, cost more than the run itself)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: dict[str, Any] = {}
        self.models: dict[tuple[str, str, str], Any] = {}

    def event_loop(self) -> asyncio.AbstractEventLoop:
        if self.loop is None or self.loop.is_closed():
            self.loop = asyncio.new_event_loop()
        return self.loop

    def client(self, kind: str, make: Callable[[], Any]) -> Any:
        found = self.clients.get(kind)
        if found is None or getattr(found, "is_closed", False):
            found = self.clients[kind] = make()
        return found


_SESSION = _Session()


def _factory(name: str) -> Callable[[], Any] | None:
    """One of pydantic-ai's client factories, in a release whose providers build a client per
    provider (2.x, with `create_async_httpx2_client`); None in 1.x, whose providers share a
    cached client of their own already: they are then left to do so."""
    models = importlib.import_module("pydantic_ai.models")
    if not hasattr(models, "create_async_httpx2_client"):
        return None
    return getattr(models, name, None)


def _shared_client(factory: str) -> Any:
    """The client a provider builds when given none, built once per rendering thread by
    pydantic-ai's own factory (its timeouts, pool limits, user agent and timeout hook): either
    `create_async_httpx2_client` or, for an SDK that still takes a legacy `httpx.AsyncClient`
    (Groq), `create_async_http_client`. None where the release shares its own (1.x)."""
    make = _factory(factory)
    return None if make is None else _SESSION.client(factory, make)


def _openai_provider(base: str) -> Any:
    from pydantic_ai.providers.openai import OpenAIProvider

    client = _shared_client("create_async_httpx2_client")
    return OpenAIProvider(base_url=base + "/v1", api_key=_API_KEY, http_client=client)


def _openai_chat(row: RowRef, base: str) -> Any:
    return _openai_chat_class()(row.model, provider=_openai_provider(base))


def _openai_responses(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.openai import OpenAIResponsesModel

    return OpenAIResponsesModel(row.model, provider=_openai_provider(base))


def _xai(row: RowRef, base: str) -> Any:
    """xAI's chat completions api through the OpenAI chat model with pydantic-ai's grok profile
    (its native `XaiModel` speaks gRPC through xai-sdk, not the JSON api of the matrix row)."""
    from pydantic_ai.profiles.grok import grok_model_profile
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer, OpenAIModelProfile

    openai_profile: Any = OpenAIModelProfile(json_schema_transformer=OpenAIJsonSchemaTransformer)
    profile = openai_profile.update(grok_model_profile(row.model))
    return _openai_chat_class()(row.model, provider=_openai_provider(base), profile=profile)


def _anthropic(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = _shared_client("create_async_httpx2_client")
    provider = AnthropicProvider(base_url=base, api_key=_API_KEY, http_client=client)
    return AnthropicModel(row.model, provider=provider)


def _gemini(row: RowRef, base: str) -> Any:
    from google.genai import Client
    from google.genai.types import HttpOptions
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    client = Client(api_key=_API_KEY, http_options=HttpOptions(base_url=base, **_google_ssl()))
    return GoogleModel(row.model, provider=GoogleProvider(client=client))


def _google_ssl() -> dict[str, Any]:
    """google-genai's `client_args` / `async_client_args` holding the SSL context it would
    make for each new `Client` (certifi's CA bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR`, as
    it reads them), made once per rendering thread: `verify` for its httpx clients, `ssl` for
    its websocket one. Its clients are still its own, built per render."""

    def make() -> Any:
        import ssl

        certifi: Any = importlib.import_module("certifi")
        return ssl.create_default_context(
            cafile=os.environ.get("SSL_CERT_FILE", certifi.where()),
            capath=os.environ.get("SSL_CERT_DIR"),
        )

    context = _SESSION.client("google-ssl", make)
    return {
        "client_args": {"verify": context},
        "async_client_args": {"verify": context, "ssl": context},
    }


def _bedrock(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    boto3: Any = importlib.import_module("boto3")
    client: Any = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=base,
        aws_access_key_id="conformance",
        aws_secret_access_key=_API_KEY,
    )
    return BedrockConverseModel(row.model, provider=BedrockProvider(bedrock_client=client))


def _mistral(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.mistral import MistralModel
    from pydantic_ai.providers.mistral import MistralProvider

    client = _shared_client("create_async_httpx2_client")
    provider = MistralProvider(base_url=base, api_key=_API_KEY, http_client=client)
    return MistralModel(row.model, provider=provider)


def _cohere(row: RowRef, base: str) -> Any:
    from cohere import AsyncClientV2
    from pydantic_ai.models.cohere import CohereModel
    from pydantic_ai.providers.cohere import CohereProvider

    client = AsyncClientV2(api_key=_API_KEY, base_url=base, **_cohere_http())
    return CohereModel(row.model, provider=CohereProvider(cohere_client=client))


_COHERE_TIMEOUT = 300
"""cohere's default request timeout for a client it builds itself (`base_client.py`)."""


def _cohere_http() -> dict[str, Any]:
    """The `httpx_client` cohere's `AsyncClientV2` builds when given none (its own
    `_make_default_async_client`: the keep-alive transports, redirects followed, its default
    timeout), made once per rendering thread, and that same timeout, which the client applies
    per request only when it built the client itself. Nothing where the SDK has no such
    factory: it then builds its own, as before."""
    base_client: Any = importlib.import_module("cohere.base_client")
    make: Any = getattr(base_client, "_make_default_async_client", None)
    if make is None:
        return {}
    client = _SESSION.client("cohere", lambda: make(timeout=_COHERE_TIMEOUT, follow_redirects=True))
    return {"httpx_client": client, "timeout": _COHERE_TIMEOUT}


def _groq(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.groq import GroqModel
    from pydantic_ai.providers.groq import GroqProvider

    client = _shared_client("create_async_http_client")
    return GroqModel(
        row.model, provider=GroqProvider(base_url=base, api_key=_API_KEY, http_client=client)
    )


def _huggingface(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.huggingface import HuggingFaceModel
    from pydantic_ai.providers.huggingface import HuggingFaceProvider

    return HuggingFaceModel(
        row.model, provider=HuggingFaceProvider(base_url=base, api_key=_API_KEY)
    )


_MODELS: dict[str, tuple[str, Callable[[RowRef, str], Any]]] = {
    "openai-chat": ("pydantic_ai.models.openai", _openai_chat),
    "openai-responses": ("pydantic_ai.models.openai", _openai_responses),
    "anthropic": ("pydantic_ai.models.anthropic", _anthropic),
    "gemini": ("pydantic_ai.models.google", _gemini),
    "bedrock-converse": ("pydantic_ai.models.bedrock", _bedrock),
    "mistral": ("pydantic_ai.models.mistral", _mistral),
    "cohere": ("pydantic_ai.models.cohere", _cohere),
    "groq": ("pydantic_ai.models.groq", _groq),
    "xai": ("pydantic_ai.models.openai", _xai),
    "huggingface": ("pydantic_ai.models.huggingface", _huggingface),
}
_EXTRAS = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "xai": "openai",
    "gemini": "google",
    "bedrock-converse": "bedrock",
}


def _model(row: RowRef, base: str) -> Any:
    """The row's model class for `base`, built once per rendering thread, api and model: the
    base URL is the thread's own recorder channel (`toolkit.thread_token`), the same for every
    render, so the model built for one render is the one the next would build (a model is its
    provider and settings; the agent, built per render, holds the run). Building the provider's
    SDK client per render (google-genai's and boto3's above all) cost more than the run."""
    key = (row.api, row.model, base)
    found = _SESSION.models.get(key)
    if found is None:
        _, build = _MODELS[row.api]
        found = _SESSION.models[key] = build(row, base)
    return found


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

    loop = _SESSION.event_loop()
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
        if row.api not in _MODELS:
            return f"the pydantic-ai target has no model class for api {row.api!r}"
        module, _ = _MODELS[row.api]
        try:
            importlib.import_module(module)
        except ImportError as error:
            extra = _EXTRAS.get(row.api, row.api)
            return (
                f"pydantic-ai {self.version} cannot load {module} ({error}); "
                f'pip install "pydantic-ai-slim[{extra}]"'
            )
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history)[0]

    def render_stored(self, row: RowRef, history: History) -> Payload:
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
        self, row: RowRef, history: History, calls: dict[str, _Call], messages: list[Any]
    ) -> tuple[Payload, list[Any]]:
        """Run the agent with the history's tools, `calls` saying what the pending ones return."""
        from pydantic_ai import Agent, capture_run_messages

        tools = _tools(history)
        run_messages: list[Any] = []
        token = thread_token()

        def send(base: str) -> None:
            agent: Any = Agent(_model(row, base), tools=tools)
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
        from conformance.targets.pydantic_ai_repro import repro_script

        return repro_script(row, history, self.version)
