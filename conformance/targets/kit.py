"""The public toolkit for writing a target around a real framework.

A framework target drives the framework the way its users do (its agent or chat-model API)
and observes what it would send, offline. The pieces every such target needs:

- `Recorder`: a loopback HTTP server on 127.0.0.1 that records every request (method, path,
  headers, body) and answers with an error, so exactly one request is made and nothing leaves
  the machine. `recorder()` is the process's one instance.
- `body_or_raise(api, send)`: give `send` a fresh base URL on the recorder and return the
  payload of the request it made (per api: the JSON body; for Bedrock Converse the Converse
  parameters: the model id the path carries, media as raw bytes), or re-raise what `send`
  raised before any request arrived.
- `exception_snapshot(error)`: a stable view of an exception for snapshots: its type and the
  first line of its message, with paths, versions, addresses and loopback ports scrubbed.
- `FixtureHost`: the fixture media served on 127.0.0.1 during the run, recording every
  fetch, so that a framework that downloads a URL is observed doing so. `fixture_host()` is
  the process's one instance; scenario URLs point at it. Its origin changes every run, so
  stored data (snapshots, cassettes, `exception_snapshot`) holds
  `ORIGIN_STAND_IN` (`http://fixtures.conformance.invalid`) in its place.
- `scrub_origins(text)`: text with the fixture host's origin as `ORIGIN_STAND_IN` and the
  loopback ports and recorder channels of URLs replaced, as results files and reports show it.
- The recipes for sub-layers (`conformance.targets.recipes`): `litellm_offline`,
  `litellm_media_allowed`, `litellm_fresh_downloads`, `loopback_hosts`, `environment`,
  `run_async`, `render_script`, `repro_recorder`, `repro_report`, `fixture_names`.

None of these imports a framework or an SDK.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
import unicodedata
import uuid
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import unquote

from conformance.errors import NoRequestSent, SuiteError
from conformance.scenarios.fixtures import (
    ORIGIN_STAND_IN,
    stand_in_text,
)
from conformance.scenarios.host import Fetch, FixtureHost, fixture_host
from conformance.targets.base import Payload
from conformance.targets.recipes import (
    environment,
    fixture_names,
    litellm_fresh_downloads,
    litellm_media_allowed,
    litellm_offline,
    loopback_hosts,
    render_script,
    repro_recorder,
    repro_report,
    run_async,
)

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "ORIGIN_STAND_IN",
    "Exchange",
    "Fetch",
    "FixtureHost",
    "Recorder",
    "StrayRequest",
    "body_or_raise",
    "comment",
    "environment",
    "exception_snapshot",
    "fixture_host",
    "fixture_names",
    "litellm_fresh_downloads",
    "litellm_media_allowed",
    "litellm_offline",
    "loopback_hosts",
    "payload_of",
    "recorder",
    "render_script",
    "repro_recorder",
    "repro_report",
    "run_async",
    "scrub_message",
    "scrub_origins",
    "set_time_limit",
    "thread_token",
    "time_limit",
]


@dataclass(frozen=True)
class Exchange:
    """One request that reached the recorder."""

    method: str
    path: str
    """The path after the channel's prefix, e.g. `/v1/chat/completions`."""
    headers: dict[str, str]
    """Header names in lower case."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


_BEDROCK_PATH = re.compile(r"^/model/(?P<model>[^/]+)/converse(?:-stream)?$")


def payload_of(api: str, exchange: Exchange) -> Payload:
    """What the suite judges for a recorded request: the JSON body; for `bedrock-converse`
    the Converse parameters, `{"modelId": <from the path>, **body}`, since the model id
    travels in the URL there (as boto3's `converse(modelId=..., ...)` takes it)."""
    try:
        body = exchange.json()
    except ValueError:  # not JSON (an upload, a form): the suite's, never the target's refusal
        body = None
    if not isinstance(body, dict):
        raise NoRequestSent(
            f"the request to {exchange.path} has no JSON object body: {_kind(exchange)}"
        )
    payload: Payload = dict(body)  # pyright: ignore[reportUnknownArgumentType]
    if api == "bedrock-converse":
        found = _BEDROCK_PATH.match(exchange.path.split("?", 1)[0])
        if found is not None:
            payload = {"modelId": unquote(found["model"]), **payload}
        payload = _raw_blobs(payload)
    return payload


def _kind(exchange: Exchange) -> str:
    """What a body that is not a JSON object is, the same on every run: its media type without
    parameters (a multipart boundary is random per request) and its size; for a JSON body, the
    JSON type it has instead. Never the body's bytes."""
    media = exchange.headers.get("content-type", "").split(";", 1)[0].strip() or "no content-type"
    try:
        parsed = exchange.json()
    except ValueError:
        return f"{media}, {len(exchange.body)} bytes"
    return f"{media}, {len(exchange.body)} bytes, a JSON {type(parsed).__name__}"


def _raw_blobs(value: Any) -> Any:
    """Converse parameters take media as raw bytes (boto3 base64-encodes them for the wire):
    every `source.bytes` string of the JSON body becomes the bytes it encodes."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [_raw_blobs(item) for item in items]
    if not isinstance(value, dict):
        return value
    mapping: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    out: dict[str, Any] = {}
    for key, item in mapping.items():
        blob = _blob(key, item)
        out[key] = _raw_blobs(item) if blob is None else {**item, "bytes": blob}
    return out


def _blob(key: str, item: Any) -> bytes | None:
    """The bytes a Converse `source` mapping's base64 `bytes` string encodes, else None."""
    if key != "source" or not isinstance(item, dict):
        return None
    source: dict[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
    text = source.get("bytes")
    return base64.b64decode(text) if isinstance(text, str) else None


_ERROR_REPLY = json.dumps(
    {
        "error": {
            "message": "conformance recorder: request recorded, not answered",
            "type": "invalid_request_error",
            "code": "conformance_recorded",
        }
    }
).encode()


class Recorder:
    """A threaded HTTP server on 127.0.0.1 that records requests per channel and answers 400.

    A channel is a path prefix (`/<token>`): `with recorder.channel() as (base, taken):` gives a
    base URL to point a client at, and after the block `taken` holds what arrived there.
    """

    def __init__(self) -> None:
        self._captured: dict[str, list[Exchange]] = {}
        self._lock = threading.Lock()
        self._tokens = itertools.count(1)
        captured, lock = self._captured, self._lock

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _record(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                token, _, rest = self.path.lstrip("/").partition("/")
                exchange = Exchange(
                    method=self.command,
                    path="/" + rest,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                with lock:
                    captured.setdefault(token, []).append(exchange)
                self.send_response(400)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(_ERROR_REPLY)))
                # One request per connection: a client that is never closed (a framework's
                # model object dropped after the cell) keeps no socket open to the recorder.
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()
                self.wfile.write(_ERROR_REPLY)

            do_POST = do_GET = do_PUT = do_PATCH = do_DELETE = _record

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"

    def token(self) -> str:
        """A new channel token (the path prefix of a base URL)."""
        return f"c{next(self._tokens)}-{uuid.uuid4().hex[:8]}"

    @contextmanager
    def channel(self, token: str | None = None) -> Generator[tuple[str, list[Exchange]]]:
        """A base URL; the list fills with what arrived there when the block ends.

        Without `token`, a fresh one. With one (`thread_token()`), the same base URL again, so
        that a client or model built for it can be used for the next render too; what arrived
        there while no block was open (a request of an earlier render that came late) is never
        taken as this block's: `StrayRequest` is raised instead."""
        token = token or self.token()
        taken: list[Exchange] = []
        with self._lock:
            strays = self._captured.pop(token, [])
        if strays:
            raise StrayRequest(
                f"{len(strays)} request(s) reached {token} between renders (first: "
                f"{strays[0].method} {strays[0].path}); a render left a request in flight"
            )
        try:
            yield f"{self.origin}/{token}", taken
        finally:
            with self._lock:
                taken.extend(self._captured.pop(token, []))

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


_SINGLETONS: dict[str, Any] = {}
_SINGLETON_LOCK = threading.Lock()


def recorder() -> Recorder:
    """The process's one recorder, started on first use."""
    with _SINGLETON_LOCK:
        if "recorder" not in _SINGLETONS:
            _SINGLETONS["recorder"] = Recorder()
        return _SINGLETONS["recorder"]


class StrayRequest(SuiteError):
    """A request reached a reused channel while no render was using it: the suite's error (the
    cell is `crashed`), never a request attributed to the render that came next."""


_THREAD = threading.local()


def thread_token() -> str:
    """This thread's own channel token on the process's recorder, the same for every render
    on the thread. Renders run one at a time on one worker thread (`conformance.judging.guard`), so
    a target may build its clients or models once for `<origin>/<thread_token()>` and pass the token
    to `body_or_raise`; a render abandoned on a timeout keeps its thread, and so its token, so what
    it sends late never reaches the next render's channel."""
    token: str | None = getattr(_THREAD, "token", None)
    if token is None:
        token = _THREAD.token = recorder().token()
    return token


def body_or_raise(api: str, send: Callable[[str], object], *, token: str | None = None) -> Payload:
    """Run `send(base_url)` against a recorder channel (a fresh one, or `token`'s:
    `thread_token()`) and return the payload of the first request body it sent (`payload_of`).
    An exception raised after a request was sent is ignored (the recorder's error answer
    provokes one); one raised before is re-raised as the target's own; a `send` that neither
    sends nor raises gives `NoRequestSent`."""
    error: Exception | None = None
    with recorder().channel(token) as (base, taken):
        try:
            send(base)
        except Exception as raised:  # judged below: sent or not
            error = raised
    sent = [e for e in taken if e.method in {"POST", "PUT"} and e.body]
    if sent:
        return payload_of(api, sent[0])
    if error is not None:
        raise error
    raise NoRequestSent(f"nothing was sent to {api} and nothing was raised")


_URL = re.compile(r"""https?://[^\s'"<>]+""")
_IN_URLS = (
    (re.compile(r"^(https?://(?:127\.0\.0\.1|localhost|\[::1\])):\d+"), r"\1:<port>"),
    (re.compile(r"/c\d+-[0-9a-f]{8}(?=/|$)"), "/<channel>"),  # a recorder channel's token
)
_OUTSIDE_URLS = (
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}[\\/]?"), "<path>"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "<addr>"),
    (
        re.compile(r"(?<![\d.])v?\d+\.\d+\.\d+(?:[.-]?(?:a|b|rc|dev|post)\d*)?(?![\d.]*\d)"),
        "<version>",
    ),
)
_UUID = (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>")


def _scrub(text: str, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for pattern, replacement in (*rules, _UUID):
        text = pattern.sub(replacement, text)
    return text


def scrub_message(message: str) -> str:
    """A message without what differs between runs and machines: file paths (`<path>`),
    versions (`<version>`; an IP address is not one), memory addresses (`<addr>`), uuids
    (`<uuid>`); in URLs, a loopback port (`<port>`) and a recorder channel (`<channel>`),
    the URL's path otherwise kept; the fixture host's origin as `ORIGIN_STAND_IN`."""
    message = stand_in_text(message)
    out: list[str] = []
    position = 0
    for found in _URL.finditer(message):
        out.append(_scrub(message[position : found.start()], _OUTSIDE_URLS))
        out.append(_scrub(found.group(), _IN_URLS))
        position = found.end()
    out.append(_scrub(message[position:], _OUTSIDE_URLS))
    return "".join(out)


def scrub_origins(text: str) -> str:
    """`text` with what a run on 127.0.0.1 puts in it replaced, and nothing else: the fixture
    host's origin as `ORIGIN_STAND_IN`, in every loopback URL the port (`<port>`) and a
    recorder channel (`<channel>`). What results files and reports hold in their details."""
    text = _URL.sub(lambda found: _scrub_url(found.group()), stand_in_text(text))
    return _BARE_LOOPBACK.sub(r"\1:<port>", text)  # `127.0.0.1:PORT` outside a URL


_BARE_LOOPBACK = re.compile(r"(?<![\w/.:])(127\.0\.0\.1|localhost|\[::1\]):\d+\b")


def _scrub_url(url: str) -> str:
    for pattern, replacement in _IN_URLS:
        url = pattern.sub(replacement, url)
    return url


def exception_snapshot(error: BaseException) -> dict[str, str]:
    """`{"raised": "module.Type", "message": <first line, scrubbed>}`: the same across venvs,
    machines and releases of a framework whose messages hold paths, versions or ports
    (`scrub_message`)."""
    kind = type(error)
    module = kind.__module__
    name = kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"
    lines = str(error).strip().splitlines()
    return {"raised": name, "message": scrub_message(lines[0]) if lines else ""}


# --- the per-render time limit -----------------------------------------------------------------

DEFAULT_TIME_LIMIT: Final = 60.0
"""Seconds a render may take before its cell is judged without it (`--conformance-cell-timeout`)."""

_limit: list[float | None] = [DEFAULT_TIME_LIMIT]


def set_time_limit(seconds: float | None) -> None:
    """The per-render time limit in seconds; None or 0 runs renders inline, with no limit. The
    suite sets it from `--conformance-cell-timeout`; a target reads it with `time_limit`."""
    _limit[0] = seconds if seconds else None


def time_limit() -> float | None:
    """The per-render time limit the suite applies, or None: a target that waits on something
    of its own (a subprocess, a bridge) waits no longer than this."""
    return _limit[0]


# --- generated scripts -------------------------------------------------------------------------

_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (bidirectional overrides), surrogate, private, unassigned and separator
characters: in a comment they could end it, or make the code around it read otherwise."""


def _visible(char: str) -> str:
    if char == "\t" or unicodedata.category(char) not in _HIDDEN:
        return char
    code = ord(char)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def comment(text: str, prefix: str = "#") -> str:
    """`text` as comment lines, each `prefix` (`#` for Python, `//` for a bridge's script), a
    space and one line of it, ending in a newline.

    Every line break (any `str.splitlines` knows) starts a new comment line, and every
    control, format or separator character is written as its escape (`\\x1b`, `\\u202e`), so
    no text from a matrix, a history or a target can leave the comment of a generated script
    or change how the code around it reads. Values that are code go in as `repr` literals."""
    lines = text.splitlines() or [""]
    return "".join(f"{prefix} {''.join(map(_visible, line))}".rstrip() + "\n" for line in lines)
