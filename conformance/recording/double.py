"""A local provider double: each api's smallest valid success answer, on 127.0.0.1.

Cassettes can be recorded offline against it (`nox -s record`): the official SDK clients are
pointed at its base URL, send their real requests, and get back an answer they parse like the
provider's own. It knows each endpoint the SDKs call (see `ROUTES`), answers 404 for any other
path and 400 for a body that is not a JSON object, so a client sent to the wrong place fails
loudly instead of being recorded.

A request that breaks one of its api's acceptance rules (`conformance.wire.acceptance`: where
blocks may sit, how many results a turn takes) gets the provider's answer to it instead: HTTP
400 with the provider's error body (`refusal`), so a client sees what the provider would have
said. The api of a chat-completions path, which several apis share, is told by the fake key
the client sends (`conformance.recording.send.FAKE_KEYS`). Beyond those rules it proves
nothing about what a provider accepts: cassettes recorded here say `origin: double`; only a
live recording (`nox -s record -- --live`) does.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final, cast
from urllib.parse import unquote

from conformance.recording.send import FAKE_KEYS
from conformance.wire.acceptance import Breach, breaches

__all__ = ["ROUTES", "Double", "Received", "refusal", "route_api", "running"]

_Answer = Callable[[re.Match[str], dict[str, Any]], dict[str, Any]]


def _model(body: dict[str, Any], fallback: str = "double") -> str:
    model = body.get("model")
    return model if isinstance(model, str) else fallback


def _chat_completion(_: re.Match[str], body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Chat Completions, and the apis that share its shape (Mistral, Groq, xAI, Hugging
    Face): each of their SDKs parses this answer."""
    return {
        "id": "chatcmpl-double",
        "object": "chat.completion",
        "created": 0,
        "model": _model(body),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _response(_: re.Match[str], body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Responses."""
    return {
        "id": "resp_double",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": _model(body),
        "output": [
            {
                "type": "message",
                "id": "msg_double",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        },
    }


def _anthropic_message(_: re.Match[str], body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_double",
        "type": "message",
        "role": "assistant",
        "model": _model(body),
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _gemini_content(match: re.Match[str], _: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "ok"}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": match["model"],
    }


def _vertex_claude(match: re.Match[str], body: dict[str, Any]) -> dict[str, Any]:
    """Claude on Vertex AI: the Messages answer; the model is the URL's."""
    return {**_anthropic_message(match, body), "model": match["model"]}


def _bedrock_claude(match: re.Match[str], body: dict[str, Any]) -> dict[str, Any]:
    """Claude through Bedrock InvokeModel: the Messages answer; the model is the URL's."""
    return {**_anthropic_message(match, body), "model": unquote(match["model"])}


def _converse(_: re.Match[str], __: dict[str, Any]) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }


def _cohere_chat(_: re.Match[str], __: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "double",
        "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        "usage": {
            "billed_units": {"input_tokens": 1, "output_tokens": 1},
            "tokens": {"input_tokens": 1, "output_tokens": 1},
        },
    }


ROUTES: Final[tuple[tuple[re.Pattern[str], _Answer], ...]] = (
    # OpenAI, Mistral, xAI and Hugging Face under /v1, Groq under /openai/v1.
    (re.compile(r"/(?:openai/)?v1/chat/completions"), _chat_completion),
    (re.compile(r"/v1/responses"), _response),
    (re.compile(r"/v1/messages"), _anthropic_message),
    (re.compile(r"/v1beta/models/(?P<model>[^/:]+):generateContent"), _gemini_content),
    (re.compile(r"/model/(?P<model>[^/]+)/converse"), _converse),
    (re.compile(r"/model/(?P<model>[^/]+)/invoke(?:-with-response-stream)?"), _bedrock_claude),
    (re.compile(r"/v2/chat"), _cohere_chat),
    # Vertex AI: Claude (anthropic's AnthropicVertex) and Gemini (google-genai, vertexai=True).
    (
        re.compile(
            r"/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/"
            r"(?P<model>[^/:]+):(?:rawPredict|streamRawPredict)"
        ),
        _vertex_claude,
    ),
    (
        re.compile(
            r"/v1(?:beta1)?/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/"
            r"(?P<model>[^/:]+):generateContent"
        ),
        _gemini_content,
    ),
)
"""Path (without the query) -> the answer."""

_CHAT_KEYS: Final[dict[str, str]] = {
    FAKE_KEYS["mistral"]: "mistral",
    FAKE_KEYS["groq"]: "groq",
    FAKE_KEYS["xai"]: "xai",
    FAKE_KEYS["huggingface"]: "huggingface",
}


_INVOKE: Final = re.compile(r"^/model/[^/]+/invoke(?:-with-response-stream)?$")
"""Bedrock InvokeModel, which Claude's Messages body takes (`anthropic-bedrock`)."""


_VERTEX_CLAUDE: Final = re.compile(
    r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/[^/:]+:"
    r"(?:rawPredict|streamRawPredict)$"
)
"""Claude's Messages body on Vertex AI (`anthropic-vertex`)."""
_VERTEX_GEMINI: Final = re.compile(
    r"^/v1(?:beta1)?/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/[^/:]+:"
    r"generateContent$"
)
"""Gemini on Vertex AI (`gemini-vertex`)."""


def route_api(path: str, headers: dict[str, str]) -> str | None:
    """The api a request path (and, for the shared chat path, its bearer key) belongs to."""
    if path.startswith("/openai/v1/chat/completions"):
        return "groq"
    if path.endswith("/v1/chat/completions"):
        key = headers.get("authorization", "").removeprefix("Bearer ").strip()
        return _CHAT_KEYS.get(key, "openai-chat")
    if _VERTEX_CLAUDE.match(path):
        return "anthropic-vertex"
    if _VERTEX_GEMINI.match(path):
        return "gemini-vertex"
    for prefix, api in (
        ("/v1/responses", "openai-responses"),
        ("/v1/messages", "anthropic"),
        ("/v1beta/models/", "gemini"),
        ("/model/", "anthropic-bedrock" if _INVOKE.search(path) else "bedrock-converse"),
        ("/v2/chat", "cohere"),
    ):
        if path.startswith(prefix):
            return api
    return None


def _error_body(api: str, breach: Breach) -> tuple[dict[str, Any], dict[str, str]]:
    """The provider's 400 body (and headers) for a breach, in each provider's own shape
    (the shapes are those the rules' sources quote)."""
    message = breach.message
    match api:
        case "openai-chat":
            index = breach.path.removeprefix("messages[").split("]", 1)[0]
            error = {
                "message": message,
                "type": "invalid_request_error",
                "param": f"messages.[{index}].role",
                "code": None,
            }
            return {"error": error}, {}
        case "openai-responses":
            error = {"message": message, "type": "invalid_request_error", "param": "input"}
            return {"error": {**error, "code": None}}, {}
        case "anthropic" | "anthropic-vertex":  # Vertex AI answers in Anthropic's words
            error = {"type": "invalid_request_error", "message": message}
            return {"type": "error", "error": error, "request_id": "req_double"}, {}
        case "gemini" | "gemini-vertex":
            return {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}, {}
        case "bedrock-converse" | "anthropic-bedrock":
            return {"message": message}, {"x-amzn-errortype": "ValidationException"}
        case "mistral":
            kind = (
                "invalid_request_error"
                if breach.rule == "MI-1"
                else "invalid_request_message_order"
            )
            body = {"object": "error", "message": message, "type": kind}
            return {**body, "param": None, "code": "3230"}, {}
        case _:
            return {"error": {"message": message}}, {}


def refusal(
    path: str, headers: dict[str, str], body: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The provider's 400 answer (body, headers) to a request that breaks one of its api's
    acceptance rules (the first, as a provider reports one error); None for any other request."""
    api = route_api(path, headers)
    if api is None:
        return None
    if api == "bedrock-converse" and (found := re.fullmatch(r"/model/([^/]+)/converse", path)):
        body = {**body, "modelId": unquote(found[1])}  # boto3 sends the model id in the path
    broken = breaches(api, body)
    return _error_body(api, broken[0]) if broken else None


@dataclass(frozen=True)
class Received:
    """One request the double answered, as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Double:
    """A running double: its base URL and the requests it has received."""

    host: str
    port: int
    received: list[Received] = field(default_factory=list[Received])

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the recordings are the log

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        cast("_Server", self.server).double.received.append(
            Received("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            self._send(400, {"error": {"message": "the double expects a JSON object body"}})
            return
        request = cast("dict[str, Any]", parsed)
        headers = {k.lower(): v for k, v in self.headers.items()}
        if (refused := refusal(path, headers, request)) is not None:
            self._send(400, *refused)
            return
        for pattern, answer in ROUTES:
            match = pattern.fullmatch(path)
            if match:
                self._send(200, answer(match, request))
                return
        self._send(404, {"error": {"message": f"the double does not serve {path}"}})

    def do_GET(self) -> None:
        self._send(404, {"error": {"message": f"the double does not serve GET {self.path}"}})

    def _send(
        self, status: int, answer: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(answer, separators=(",", ":")).encode()
        self.send_response_only(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    double: Double


@contextmanager
def running(timeout: float = 5.0) -> Generator[Double]:
    """Start the double on 127.0.0.1 (a free port), yield it, and stop it.

    `timeout` bounds each connection's socket and the wait for the server thread to end.
    """
    handler = type("_TimedHandler", (_Handler,), {"timeout": timeout})  # socket timeout
    server = _Server(("127.0.0.1", 0), handler)
    server.timeout = timeout
    host, port = server.server_address[:2]
    server.double = Double(str(host), int(port))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield server.double
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout)
