"""The pydantic-ai target: the framework's own model classes, observed on the wire.

How a cell is rendered:

1. The canonical history is translated into pydantic-ai messages (`to_messages`): user and
   system content become `UserPromptPart` / `SystemPromptPart` in a `ModelRequest`, tool calls
   and assistant text become `ToolCallPart` / `TextPart` in a `ModelResponse`. Media is
   `BinaryContent` (inline bytes) or `ImageUrl` / `DocumentUrl` / `AudioUrl` / `VideoUrl`.
   A tool result is a `ToolReturnPart` whose content is what the tool returned (a media item is
   the return value itself, as when a tool returns `BinaryContent`). Tool-produced user content
   (style `prompt`) is what pydantic-ai makes of `ToolReturn(return_value=..., content=[...])`:
   a `UserPromptPart` after the tool returns in the same request; pydantic-ai keeps no
   provenance on it, so none is passed. A failed call is `ToolReturnPart(outcome="failed")`
   where the version has it (2.x: mapped to the api's error flag), else the 1.x way, the
   `RetryPromptPart` a tool's `ModelRetry` produces.
2. The real model class of the row (`OpenAIChatModel`, `AnthropicModel`, `GoogleModel`, ...)
   is given a provider whose client points at a local HTTP double on 127.0.0.1, and a public
   `Agent(model, tools=[...]).run_sync(None, message_history=messages)` sends the last request
   of the history, through the framework's own message preparation. The double records the
   request body and answers 400, so exactly one request is made and nothing leaves the
   machine. The payload is that body, parsed.
3. If pydantic-ai raises before a request reaches the double, that exception is the outcome
   (`raised`). URL media that a provider cannot take by URL is downloaded by pydantic-ai; the
   suite refuses the download (no network), so such a cell raises `DownloadRefused`, whose
   message names the URL.

Storage round trip: `ModelMessagesTypeAdapter.dump_json`, `validate_json`, render again.
The module imports without pydantic-ai; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import sys
import threading
import uuid
import warnings
from collections.abc import Callable, Generator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from typing import Any

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)
from conformance.targets.base import Payload, RowRef

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "DownloadRefused",
    "NoRequestSent",
    "PydanticAITarget",
    "to_messages",
]

DISTRIBUTION = "pydantic-ai-slim"
_EXTRAS_ALL = "openai,anthropic,google,bedrock,mistral,cohere,groq,huggingface"
INSTALL_HINT = f'pip install "pydantic-ai-slim[{_EXTRAS_ALL}]"'
_API_KEY = "conformance-not-a-key"


class DownloadRefused(RuntimeError):
    """pydantic-ai tried to fetch a URL; the suite sends nothing over the network."""


class NoRequestSent(RuntimeError):
    """The run ended without raising and without a request reaching the double."""


# --- the local double ------------------------------------------------------------------------


class _Double:
    """A threaded HTTP server on 127.0.0.1 that records request bodies per path prefix."""

    def __init__(self) -> None:
        self.captured: dict[str, list[tuple[str, bytes]]] = {}
        lock = threading.Lock()
        captured = self.captured

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                token = self.path.split("/")[1] if self.path.startswith("/") else ""
                with lock:
                    captured.setdefault(token, []).append((self.command + " " + self.path, body))
                reply = json.dumps(
                    {
                        "error": {
                            "message": "conformance double: request recorded, not answered",
                            "type": "invalid_request_error",
                        }
                    }
                ).encode()
                self.send_response(400)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_POST = _record
            do_GET = _record
            do_PUT = _record

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"

    def take(self, token: str) -> list[tuple[str, bytes]]:
        return self.captured.pop(token, [])


_DOUBLES: list[_Double] = []
_DOUBLE_LOCK = threading.Lock()
_RENDER_LOCK = threading.Lock()
_TOKENS = itertools.count(1)


def _double() -> _Double:
    """The process's one double, started on first use."""
    with _DOUBLE_LOCK:
        if not _DOUBLES:
            _DOUBLES.append(_Double())
        return _DOUBLES[0]


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


def _user_content(content: str | list[Part]) -> Any:
    return content if isinstance(content, str) else [_content(p) for p in content]


def _text_of(content: str | list[Part]) -> str:
    return (
        content
        if isinstance(content, str)
        else "".join(p.text for p in content if isinstance(p, Text))
    )


def _tool_return(item: ToolResult) -> Any:
    from pydantic_ai import messages as m

    values = [_content(p) for p in item.content]
    value: Any = values[0] if len(values) == 1 else values
    if item.status == "error":
        text = "".join(p.text for p in item.content if isinstance(p, Text))
        if "outcome" in getattr(m.ToolReturnPart, "__dataclass_fields__", {}):
            return m.ToolReturnPart(
                tool_name=item.name, content=text, tool_call_id=item.tool_call_id, outcome="failed"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            retry: Any = getattr(m, "RetryPromptPart")  # noqa: B009 (deprecated in 2.x)
            return retry(content=text, tool_name=item.name, tool_call_id=item.tool_call_id)
    return m.ToolReturnPart(tool_name=item.name, content=value, tool_call_id=item.tool_call_id)


def to_messages(history: History) -> list[Any]:
    """The canonical history as pydantic-ai `ModelMessage`s.

    Consecutive request-side items (user and system messages, tool results, tool-produced user
    content) share one `ModelRequest`; consecutive tool calls and assistant text share one
    `ModelResponse`, as pydantic-ai itself stores a turn.
    """
    from pydantic_ai import messages as m

    out: list[Any] = []
    request: list[Any] = []
    response: list[Any] = []

    def flush_request() -> None:
        if request:
            out.append(m.ModelRequest(parts=list(request)))
            request.clear()

    def flush_response() -> None:
        if response:
            out.append(m.ModelResponse(parts=list(response)))
            response.clear()

    for item in history:
        if isinstance(item, ToolCall):
            flush_request()
            response.append(
                m.ToolCallPart(
                    tool_name=item.name, args=dict(item.arguments), tool_call_id=item.tool_call_id
                )
            )
        elif isinstance(item, ToolResult):
            flush_response()
            request.append(_tool_return(item))
        elif item.role == "assistant":
            flush_request()
            response.append(m.TextPart(content=_text_of(item.content)))
        else:
            flush_response()
            if item.role == "system":
                request.append(m.SystemPromptPart(content=_text_of(item.content)))
            else:
                request.append(m.UserPromptPart(content=_user_content(item.content)))
    flush_request()
    flush_response()
    return out


def _tool_names(history: History) -> list[str]:
    return list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))


def dump_messages(messages: list[Any]) -> bytes:
    """pydantic-ai's own storage format for a message history."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(messages)


def load_messages(data: bytes) -> list[Any]:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return list(ModelMessagesTypeAdapter.validate_json(data))


# --- models, one per api -----------------------------------------------------------------------


def _openai_chat_class() -> Any:
    module = importlib.import_module("pydantic_ai.models.openai")
    return getattr(module, "OpenAIChatModel", None) or module.OpenAIModel


def _openai_provider(base: str) -> Any:
    from pydantic_ai.providers.openai import OpenAIProvider

    return OpenAIProvider(base_url=base + "/v1", api_key=_API_KEY)


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

    return AnthropicModel(row.model, provider=AnthropicProvider(base_url=base, api_key=_API_KEY))


def _gemini(row: RowRef, base: str) -> Any:
    from google.genai import Client
    from google.genai.types import HttpOptions
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    client = Client(api_key=_API_KEY, http_options=HttpOptions(base_url=base))
    return GoogleModel(row.model, provider=GoogleProvider(client=client))


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

    return MistralModel(row.model, provider=MistralProvider(base_url=base, api_key=_API_KEY))


def _cohere(row: RowRef, base: str) -> Any:
    from cohere import AsyncClientV2
    from pydantic_ai.models.cohere import CohereModel
    from pydantic_ai.providers.cohere import CohereProvider

    client = AsyncClientV2(api_key=_API_KEY, base_url=base)
    return CohereModel(row.model, provider=CohereProvider(cohere_client=client))


def _groq(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.groq import GroqModel
    from pydantic_ai.providers.groq import GroqProvider

    return GroqModel(row.model, provider=GroqProvider(base_url=base, api_key=_API_KEY))


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


# --- the run -----------------------------------------------------------------------------------


async def _refuse_download(*args: Any, **kwargs: Any) -> Any:
    first = args[0] if args else kwargs.get("url", kwargs.get("item"))
    url = first if isinstance(first, str) else getattr(first, "url", repr(first))
    raise DownloadRefused(
        f"pydantic-ai tried to download {url} to send it inline; the suite sends nothing over "
        "the network, so the fixture URL is not fetched"
    )


@contextmanager
def _no_downloads() -> Generator[None]:
    """Route pydantic-ai's URL downloads (`download_item`, `safe_download`) to a refusal."""
    patched: list[tuple[Any, str, Any]] = []
    for name, module in list(sys.modules.items()):
        if not (name == "pydantic_ai" or name.startswith("pydantic_ai.")):
            continue
        namespace: dict[str, Any] = getattr(module, "__dict__", None) or {}  # None if blocked
        for attr in ("download_item", "safe_download"):
            found = namespace.get(attr)
            if found is not None and callable(found):
                patched.append((module, attr, found))
                setattr(module, attr, _refuse_download)
    try:
        yield
    finally:
        for module, attr, original in patched:
            setattr(module, attr, original)


def _tool(name: str) -> Any:
    from pydantic_ai import Tool

    def tool() -> str:
        """A tool of the scenario; the model is never asked to run it again."""
        return ""

    return Tool(tool, name=name, takes_ctx=False)


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


class PydanticAITarget:
    """pydantic-ai's real model classes, driven through `Agent.run` with a message history."""

    name = "pydantic-ai"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _installed_version() or "not installed"
        self.unsupported_error: type[Exception] = Exception
        """What pydantic-ai raises for content a model cannot take: its `UserError`."""
        if self.unavailable is None:
            from pydantic_ai.exceptions import UserError

            self.unsupported_error = UserError

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
        return self._send(row, history, to_messages(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, load_messages(dump_messages(to_messages(history))))

    def _send(self, row: RowRef, history: History, messages: list[Any]) -> Payload:
        from pydantic_ai import Agent

        double = _double()
        token = f"r{next(_TOKENS)}-{uuid.uuid4().hex[:8]}"
        base = f"{double.base}/{token}"
        _, build = _MODELS[row.api]
        error: BaseException | None = None
        with _RENDER_LOCK, warnings.catch_warnings(), _no_downloads():
            warnings.simplefilter("ignore")
            model = build(row, base)
            agent: Any = Agent(model, tools=[_tool(n) for n in _tool_names(history)])
            try:
                _run(agent, messages)
            except Exception as raised:
                error = raised
        sent = [body for line, body in double.take(token) if line.startswith("POST ")]
        if sent:
            return json.loads(sent[0])
        if error is not None:
            raise error
        raise NoRequestSent(f"pydantic-ai sent no request to {row.api} and raised nothing")


def _run(agent: Any, messages: list[Any]) -> None:
    """`Agent.run(None, message_history=...)` on a fresh event loop: the trailing request of
    the history is the one sent."""

    async def main() -> None:
        await agent.run(None, message_history=messages)

    asyncio.run(main())
