"""The LiteLLM target: `litellm.completion` with each row's provider prefix, observed on the wire.

How a cell is rendered:

1. The canonical history becomes the OpenAI-format messages list LiteLLM takes
   (`to_messages`): the user prompt, an assistant message whose `tool_calls` hold the parallel
   calls, one `{"role": "tool", "tool_call_id": ..., "content": ...}` message per result, and
   tool-produced user content (style `prompt`) as one user message after the tool messages of
   the turn. A text-only result is the exact string; media is a list of content parts of the
   kinds LiteLLM's own types declare for tool and user messages (`ToolMessageContentPart`,
   `OpenAIMessageContentListBlock` in `litellm/types/llms/openai.py`): `image_url` (a data
   URI or the URL), `input_audio` (inline audio: base64 and format), and `file` for documents,
   video and audio by URL (`file_data` as a data URI, or `file_id` with the URL and `format`,
   as LiteLLM's "document / video input" docs show). A failed call is a tool message with the
   error text, and `is_error: true` where the installed LiteLLM declares that key on
   `ChatCompletionToolMessage`. LiteLLM keeps no provenance for tool-produced user content, so
   none is passed (no marker: a LiteLLM user has nothing to put there).
2. `litellm.completion(model="<prefix>/<row model>", messages=..., tools=...,
   api_base=<a recorder channel>, api_key=...)` sends the request through LiteLLM's own
   translation layer for that provider (`_ROUTES`). Bedrock goes through the Converse route
   (`bedrock/converse/<model id>`) signed by botocore with fake credentials, its runtime
   endpoint pointed at the recorder. The recorder records the body and answers 400; the
   payload is the first body that reached it (`conformance.targets.kit.body_or_raise`).
3. An exception raised before any request arrived is the target's: LiteLLM's
   `BadRequestError` is its refusal (`refusal_types`); anything else is a crash.

Storage round trip: LiteLLM has no history type of its own; its users store the OpenAI-format
messages list as JSON. `render_stored` does `json.loads(json.dumps(messages))` and renders again.

The module imports without LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import base64
import copy
import importlib
import json
import re
import threading
import warnings
from collections.abc import Callable
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit

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
from conformance.targets.kit import (
    body_or_raise,
    environment,
    litellm_media_allowed,
    litellm_offline,
)

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "LiteLLMTarget",
    "completion_kwargs",
    "dump_messages",
    "load_messages",
    "to_messages",
    "tools_of",
]

DISTRIBUTION = "litellm"
INSTALL_HINT = 'pip install litellm boto3  (or: nox -s "target(litellm)")'
API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""
_SDKS = ("openai", "httpx", "boto3", "botocore")
_RENDER_LOCK = threading.Lock()


# --- history -> the OpenAI-format messages LiteLLM takes ----------------------------------------


def _data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _audio_format(media_type: str) -> str:
    subtype = media_type.partition("/")[2]
    return {"mpeg": "mp3", "x-wav": "wav", "wave": "wav"}.get(subtype, subtype)


def _media_part(part: Image | Document | Audio | Video) -> dict[str, Any]:
    """One content part as LiteLLM's docs write it for this kind of media."""
    if isinstance(part, Image):
        url = part.url if part.url is not None else _data_uri(part.media_type, part.data or b"")
        return {"type": "image_url", "image_url": {"url": url}}
    if isinstance(part, Audio) and part.data is not None:
        return {
            "type": "input_audio",
            "input_audio": {
                "data": base64.b64encode(part.data).decode("ascii"),
                "format": _audio_format(part.media_type),
            },
        }
    if part.data is not None:
        return {
            "type": "file",
            "file": {
                "file_data": _data_uri(part.media_type, part.data),
                "filename": part.identifier,
            },
        }
    assert part.url is not None
    return {"type": "file", "file": {"file_id": part.url, "format": part.media_type}}


def _part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    return _media_part(part)


def _content(parts: list[Part]) -> str | list[dict[str, Any]]:
    """A lone text part is the plain string (byte for byte); anything else a parts list."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_part(p) for p in parts]


def _message_content(content: str | list[Part]) -> str | list[dict[str, Any]]:
    return content if isinstance(content, str) else _content(content)


def _error_flag_declared() -> bool:
    """Whether the installed LiteLLM declares `is_error` on its tool message type."""
    try:
        _import_litellm()  # first: its environment keeps the import offline
        types = importlib.import_module("litellm.types.llms.openai")
    except ImportError:
        return False
    message = getattr(types, "ChatCompletionToolMessage", None)
    return "is_error" in getattr(message, "__annotations__", {})


def to_messages(history: History, *, error_flag: bool | None = None) -> list[dict[str, Any]]:
    """The canonical history as the OpenAI-format messages list a LiteLLM user passes.

    Consecutive tool calls share one assistant message; each result is a tool message in
    order; tool-produced user content waits until the run of tool messages ends (no message
    may come between an assistant's tool calls and their results).
    """
    flag = _error_flag_declared() if error_flag is None else error_flag
    out: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # tool-produced user content of the current turn

    def flush() -> None:
        out.extend(waiting)
        waiting.clear()

    for item in history:
        if isinstance(item, ToolCall):
            flush()
            call = {
                "id": item.tool_call_id,
                "type": "function",
                "function": {"name": item.name, "arguments": json.dumps(item.arguments)},
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif isinstance(item, ToolResult):
            tool: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": item.tool_call_id,
                "content": _content(item.content),
            }
            if item.status == "error" and flag:
                tool["is_error"] = True
            out.append(tool)
        elif item.source is not None:
            waiting.append({"role": "user", "content": _message_content(item.content)})
        else:
            flush()
            out.append({"role": item.role, "content": _message_content(item.content)})
    flush()
    return out


def tools_of(history: History) -> list[dict[str, Any]]:
    """A function tool per tool the history calls, taking no arguments."""
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The scenario's {name} tool.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for name in names
    ]


def dump_messages(messages: list[dict[str, Any]]) -> str:
    """The storage a LiteLLM user has: the messages list as JSON."""
    return json.dumps(messages, ensure_ascii=False)


def load_messages(stored: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(stored)
    return loaded


# --- one route per api -------------------------------------------------------------------------


def _prefixed(prefix: str) -> Callable[[RowRef, str], dict[str, Any]]:
    def kwargs(row: RowRef, base: str) -> dict[str, Any]:
        return {"model": f"{prefix}/{row.model}", "api_base": base, "api_key": API_KEY}

    return kwargs


def _bedrock(row: RowRef, base: str) -> dict[str, Any]:
    """The Converse route, SigV4-signed by botocore with fake credentials; the runtime
    endpoint is the recorder (the model id travels in the path, `/model/<id>/converse`)."""
    return {
        "model": f"bedrock/converse/{row.model}",
        "aws_access_key_id": "AKIACONFORMANCE0000",
        "aws_secret_access_key": API_KEY,
        "aws_region_name": "us-east-1",
        "aws_bedrock_runtime_endpoint": base,
    }


def _huggingface(row: RowRef, base: str) -> dict[str, Any]:
    """The router's path: LiteLLM's Hugging Face config transforms the messages (as for the
    default router URL) when the base comes from `HF_API_BASE`, and sends them untouched when
    `api_base` is given (a dedicated endpoint). The base goes in the environment, as a router
    user behind a proxy sets it (`_ENV` is popped and set around the call)."""
    return {"model": f"huggingface/{row.model}", "api_key": API_KEY, _ENV: {"HF_API_BASE": base}}


_ENV = "__environment__"

_ROUTES: dict[str, Callable[[RowRef, str], dict[str, Any]]] = {
    "openai-chat": _prefixed("openai"),
    "openai-responses": _prefixed("openai/responses"),
    "anthropic": _prefixed("anthropic"),
    "gemini": _prefixed("gemini"),
    "bedrock-converse": _bedrock,
    "mistral": _prefixed("mistral"),
    "cohere": _prefixed("cohere_chat/v2"),
    "groq": _prefixed("groq"),
    "xai": _prefixed("xai"),
    "huggingface": _huggingface,
}
"""The provider prefix of each api (LiteLLM's "providers" docs) and how to aim it at a base."""


def completion_kwargs(row: RowRef, history: History, base: str) -> dict[str, Any]:
    """Everything `litellm.completion` is called with for a row, but the messages."""
    return {**_ROUTES[row.api](row, base), "tools": tools_of(history), "timeout": 60}


# --- the target --------------------------------------------------------------------------------


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _import_litellm() -> Any:
    """LiteLLM, imported offline and quiet: the toolkit's recipe (`kit.litellm_offline`: its
    bundled cost map, no feedback banner, its loggers at WARNING, no import warnings)."""
    return litellm_offline()


def _missing() -> str | None:
    try:
        _import_litellm()
    except ImportError as error:
        return f"litellm is not installed ({error}): {INSTALL_HINT}"
    return None


class LiteLLMTarget:
    """`litellm.completion` per provider prefix, with the OpenAI-format history LiteLLM takes."""

    name = "litellm"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _installed(DISTRIBUTION) or "not installed"
        self.sdk_versions = {n: v for n in _SDKS if (v := _installed(n)) is not None}
        self.refusal_types: tuple[type[BaseException], ...] = ()
        """LiteLLM's `BadRequestError`: what its prompt factories raise, before sending, for
        content a provider's format cannot take (in `factory.py`, e.g. `_gemini_tool_media_part`
        for a file reference Gemini tool results cannot inline, the Bedrock file converters for a
        `file` part without data), and its `ImageFetchError` subclass for a failed download."""
        if self.unavailable is None:
            litellm = _import_litellm()
            self.refusal_types = (litellm.BadRequestError,)
        self.unsupported_error: type[BaseException] = (
            self.refusal_types[0] if self.refusal_types else Exception
        )
        """The older single-type spelling of `refusal_types`, still read by the properties."""

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in _ROUTES:
            return f"the litellm target has no provider prefix for api {row.api!r}"
        if row.api == "bedrock-converse" and _installed("boto3") is None:
            return "LiteLLM signs Bedrock requests with botocore: pip install boto3"
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, to_messages(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, load_messages(dump_messages(to_messages(history))))

    def _send(self, row: RowRef, history: History, messages: list[dict[str, Any]]) -> Payload:
        litellm = _import_litellm()

        def send(base: str) -> None:
            kwargs = completion_kwargs(row, history, base)
            with environment(kwargs.pop(_ENV, {})):
                litellm.completion(messages=copy.deepcopy(messages), **kwargs)

        # LiteLLM imports provider modules lazily, on first use, and some of them warn (pydantic
        # `ReadOnly` TypedDicts); the suite runs with warnings as errors, LiteLLM users do not.
        # The fixture host's URLs go on LiteLLM's allow-list for loopback downloads for the
        # render (`kit.litellm_media_allowed`).
        with _RENDER_LOCK, warnings.catch_warnings(), litellm_media_allowed(litellm, history):
            warnings.simplefilter("ignore")
            return body_or_raise(row.api, send)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (litellm and the stdlib only) that sends this history."""
        return repro_script(row, history, error_flag=_error_flag_declared())


# --- the reproducer ----------------------------------------------------------------------------

_REPRO = """\
#!/usr/bin/env python3
\"\"\"LiteLLM {api} request for {row}: what `litellm.completion` sends for this history.

Needs only `pip install litellm{boto3}`. A stdlib HTTP server on 127.0.0.1 records the
request and answers 400, so nothing leaves the machine; the request body is printed as JSON.
URL media is served by this script on 127.0.0.1 too, so a LiteLLM that downloads it does so.
\"\"\"

import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: bundled cost map
import litellm  # noqa: E402

MESSAGES = json.loads({messages!r})
TOOLS = json.loads({tools!r})
CALL = json.loads({call!r})  # litellm.completion's other arguments, without the base URL
MEDIA = {media!r}  # path -> (media type, base64 bytes) served on 127.0.0.1
BASE_KEY = {base_key!r}

captured = []


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        found = MEDIA.get(self.path)
        body = base64.b64decode(found[1]) if found else b"not found"
        self.send_response(200 if found else 404)
        self.send_header("content-type", found[0] if found else "text/plain")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        captured.append((self.path, body))
        reply = b'{{"error": {{"message": "recorded, not answered", "type": "invalid_request"}}}}'
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
origin = "http://127.0.0.1:%d" % server.server_address[1]
text = json.dumps(MESSAGES).replace("http://conformance.recording.media", origin)
if MEDIA and hasattr(litellm, "user_url_allowed_hosts"):  # LiteLLM refuses loopback URLs else
    litellm.user_url_allowed_hosts = [origin.removeprefix("http://")]
litellm.suppress_debug_info = True
if BASE_KEY.startswith("$"):  # the base from the environment, e.g. $HF_API_BASE
    os.environ[BASE_KEY[1:]] = origin
else:
    CALL[BASE_KEY] = origin
try:
    litellm.completion(messages=json.loads(text), tools=TOOLS, **CALL)
except Exception as error:  # the 400 answer, or LiteLLM refusing before sending
    if not captured:
        print("raised before sending:", type(error).__module__ + "." + type(error).__name__)
        print(error)
if captured:
    path, body = captured[0]
    print("POST", path)
    print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
server.shutdown()
"""


def _media_stand_ins(messages: list[dict[str, Any]]) -> tuple[str, dict[str, tuple[str, str]]]:
    """The messages as JSON with fixture URLs on a stand-in origin the script replaces by its
    own server, and the bytes it serves there."""
    from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes

    text = json.dumps(messages, ensure_ascii=False)
    media: dict[str, tuple[str, str]] = {}
    urls: set[str] = set(_URL.findall(text))
    for url in sorted(urls):
        name = urlsplit(url).path.rsplit("/", 1)[-1]
        if name not in FIXTURE_TYPES:
            continue
        path = f"/conformance/{name}"
        media[path] = (FIXTURE_TYPES[name], base64.b64encode(fixture_bytes(name)).decode())
        text = text.replace(url, "http://conformance.recording.media" + path)
    return text, media


_URL = re.compile(r"https?://[^\"\s]+/conformance/[\w.-]+")


def repro_script(row: RowRef, history: History, *, error_flag: bool = True) -> str:
    """The source of a standalone script: this history, sent by `litellm.completion` for the
    row to a stdlib recorder on 127.0.0.1; it prints the request body as indented JSON."""
    messages, media = _media_stand_ins(to_messages(history, error_flag=error_flag))
    call = completion_kwargs(row, history, "")
    base_key = "aws_bedrock_runtime_endpoint" if row.api == "bedrock-converse" else "api_base"
    if _ENV in call:
        (variable,) = call.pop(_ENV)
        base_key = "$" + variable
    else:
        call.pop(base_key)
    tools = call.pop("tools")
    return _REPRO.format(
        api=row.api,
        row=row.id,
        boto3=" boto3" if row.api == "bedrock-converse" else "",
        messages=messages,
        tools=json.dumps(tools),
        call=json.dumps(call),
        media=media,
        base_key=base_key,
    )
