"""Recipes for the sub-layers a framework target often drives: a framework built on LiteLLM,
clients configured from the environment, async frameworks, and a reproducer that works from
the start. `conformance.targets.kit` re-exports them; `docs/history.md` shows each in use.

- `litellm_offline()`: LiteLLM imported the way an offline, quiet run needs it: its bundled
  model-cost map (`LITELLM_LOCAL_MODEL_COST_MAP=True`; it fetches one from GitHub at import
  otherwise), no feedback banner per failed call, its loggers at WARNING, and the warnings its
  own modules raise at import kept out of a run that treats warnings as errors.
- `litellm_media_allowed(litellm, history)`: LiteLLM refuses to download URLs on private or
  loopback addresses unless the host is on `litellm.user_url_allowed_hosts`; the suite's
  fixture host serves on 127.0.0.1, so its `host:port` (`loopback_hosts`), and nothing else, is
  put on that list for the block.
- `environment(values)`: environment variables set for a block and restored after, for clients
  that take their base URL or key only from the environment.
- `run_async(make)`: the result of a coroutine, on an event loop kept per thread, so clients
  bound to a loop stay usable from one render to the next (renders run on one worker thread).
- `render_script(row, history, target)`: the source of a reproducer that renders one cell with
  the target and prints the request body; a target's `repro` can return it until it has one
  that needs the framework alone.
- `repro_recorder(media, reply=...)` and `repro_report(call, ...)`: for a reproducer that needs
  the framework alone, the source of its stdlib recorder on 127.0.0.1 (it serves the fixture
  media for URL sources and records the api request, answering 400 with `reply`, an error the
  api's SDK raises on rather than retrying) and of its end: the framework's call, then the
  captured request's path and body as indented JSON, or what was raised before sending;
  `fixture_names(history)`, the fixtures the history's URL media name, for `media`.

None of these imports a framework at import time.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import logging
import os
import textwrap
import threading
import warnings
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

from conformance.history import History, Message, ToolResult, dump
from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes, stand_in_text
from conformance.targets.base import RowRef

__all__ = [
    "environment",
    "fixture_names",
    "litellm_fresh_downloads",
    "litellm_media_allowed",
    "litellm_offline",
    "loopback_hosts",
    "render_script",
    "repro_recorder",
    "repro_report",
    "run_async",
]

T = TypeVar("T")

LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
"""The loggers LiteLLM writes to (`litellm/_logging.py`)."""


@contextmanager
def environment(values: Mapping[str, str]) -> Generator[None]:
    """Set `values` in `os.environ` for the block; each variable gets its old value (or none)
    back after it, also when the block raises."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def loopback_hosts(history: History) -> list[str]:
    """`127.0.0.1:<port>` of every media URL of the history on the loopback address (the
    suite's fixture host), once each, in order."""
    hosts: list[str] = []
    for item in history:
        content = item.content if isinstance(item, ToolResult | Message) else []
        for part in content if isinstance(content, list) else []:
            url = getattr(part, "url", None)
            found = urlsplit(url) if isinstance(url, str) else None
            if found is not None and found.hostname == "127.0.0.1" and found.port is not None:
                hosts.append(f"127.0.0.1:{found.port}")
    return list(dict.fromkeys(hosts))


def fixture_names(history: History) -> list[str]:
    """The fixture file names (`chart.png`) that the history's URL media name by their path,
    `/conformance/<name>`, once each, in order: what a reproducer serves (`repro_recorder`)."""
    names: list[str] = []
    for item in history:
        content = item.content if isinstance(item, ToolResult | Message) else []
        for part in content if isinstance(content, list) else []:
            url = getattr(part, "url", None)
            path = urlsplit(url).path if isinstance(url, str) else ""
            name = path.removeprefix("/conformance/")
            if path.startswith("/conformance/") and name in FIXTURE_TYPES:
                names.append(name)
    return list(dict.fromkeys(names))


def litellm_offline() -> Any:
    """The `litellm` module, imported for an offline and quiet run (see the module's text);
    `ImportError` when LiteLLM is not installed. Calling it again is cheap."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with warnings.catch_warnings():  # pydantic and deprecation warnings of LiteLLM's modules
        warnings.simplefilter("ignore")
        litellm: Any = importlib.import_module("litellm")
    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner per failed call
    for name in LITELLM_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return litellm


@contextmanager
def litellm_media_allowed(litellm: Any, history: History) -> Generator[None]:
    """LiteLLM may download the history's fixture URLs for the block, as it would a public
    URL: their `host:port` joins `litellm.user_url_allowed_hosts`, which is restored after. A
    release without that setting has no such guard, and nothing is changed. The block also
    sees LiteLLM's download caches as a new process has them (`litellm_fresh_downloads`)."""
    with litellm_fresh_downloads():
        hosts = loopback_hosts(history)
        before = getattr(litellm, "user_url_allowed_hosts", None)
        if not hosts or before is None:
            yield
            return
        litellm.user_url_allowed_hosts = [*before, *hosts]
        try:
            yield
        finally:
            litellm.user_url_allowed_hosts = before


_LITELLM_DOWNLOADS = "litellm.litellm_core_utils.prompt_templates.image_handling"
_LITELLM_DOWNLOAD_CACHES = ("in_memory_cache", "pdf_probe_verdicts")
"""LiteLLM's process-wide caches of URL media it downloaded (and of its PDF probes), keyed by
URL, in `image_handling.py`."""


@contextmanager
def litellm_fresh_downloads() -> Generator[None]:
    """The block sees LiteLLM's download caches empty, as a new process has them, and the
    process's caches are put back after.

    LiteLLM keeps downloaded URL media by URL for the whole process, so a URL an earlier render
    (another cell, another target in the run) downloaded is not fetched again and the fixture
    host records no fetch: the cell would be judged by what ran before it. With caches of its
    own per render its outcome is the same alone or in any order; what LiteLLM sends is
    unchanged (the same bytes, downloaded once more). A release without them is left as is."""
    try:
        module = importlib.import_module(_LITELLM_DOWNLOADS)
    except ImportError:
        yield
        return
    saved = {n: getattr(module, n) for n in _LITELLM_DOWNLOAD_CACHES if hasattr(module, n)}
    for name, cache in saved.items():
        size = getattr(cache, "max_size_in_memory", None)
        setattr(module, name, type(cache)(max_size_in_memory=size) if size else type(cache)())
    try:
        yield
    finally:
        for name, cache in saved.items():
            setattr(module, name, cache)


_LOOPS = threading.local()


def run_async(make: Callable[[], Awaitable[T]]) -> T:
    """`await make()` from synchronous code, on this thread's own event loop (made on first
    use and kept), so an async client built in one render can be used in the next. Called
    from a coroutine (a loop already running on this thread), it raises `RuntimeError`: await
    the framework's call there instead."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("run_async was called with an event loop running; await it instead")
    loop: asyncio.AbstractEventLoop | None = getattr(_LOOPS, "loop", None)
    if loop is None or loop.is_closed():
        loop = _LOOPS.loop = asyncio.new_event_loop()

    async def call() -> T:
        return await make()

    return loop.run_until_complete(call())


_SCRIPT = '''\
#!/usr/bin/env python3
"""{row_id}: the request the target {target} makes for this history.

Run it in the project folder, with the framework and tool-result-conformance installed:
it renders the cell with the target (the framework's own request, captured on 127.0.0.1,
nothing leaves the machine) and prints the request body as JSON, or the error raised before
sending. URL media is served on 127.0.0.1 by the suite's fixture host. Before filing it
upstream, a script that needs the framework alone is better: see `repro` in docs/history.md.
"""

import base64
import json
import os
import sys
from pathlib import Path

here = Path.cwd()
project = next((f for f in (here, *here.parents) if (f / "pyproject.toml").is_file()), here)
sys.path[:0] = list(dict.fromkeys([str(here), str(project)]))  # where the target's module is

from conformance import ORIGIN_STAND_IN, RowRef, fixture_host, load, resolve_target

ROW = RowRef(**json.loads({row!r}))
HISTORY = {history!r}


def _bytes(value):
    return base64.b64encode(value).decode("ascii")


history = load(HISTORY.replace(ORIGIN_STAND_IN, fixture_host().origin))
target = resolve_target({target!r})
try:
    payload = target.render(ROW, history)
except Exception as error:
    print("raised before sending:", type(error).__module__ + "." + type(error).__qualname__)
    print(error)
else:
    print(json.dumps(payload, indent=2, ensure_ascii=False, default=_bytes))
'''


def render_script(row: RowRef, history: History, target: str) -> str:
    """The source of a script that renders `history` for `row` with the target `target`
    (`module:attr`, imported from the folder the script runs in) and prints the request body
    as indented JSON, or the error raised before sending. It needs the suite beside the
    framework; fixture URLs are stored as `ORIGIN_STAND_IN` and served again when it runs."""
    return _SCRIPT.format(
        row_id=row.id,
        target=target,
        row=json.dumps(asdict(row)),
        history=stand_in_text(dump(history).decode("utf-8")),
    )


# --- the pieces of a standalone reproducer ------------------------------------------------------

RECORDED: Mapping[str, Any] = {
    "error": {"message": "recorded, not answered", "type": "invalid_request_error"}
}
"""`repro_recorder`'s default answer: the error body OpenAI-style SDKs (and Anthropic's,
Mistral's, LiteLLM's) raise on for a 400, with no retry."""

_RECORDER = """\
# A recorder on 127.0.0.1 (nothing leaves the machine): it serves the media of URL sources
# (GET) and records each api request (POST), answering 400 so that the SDK raises at once.
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# path -> (media type, base64 bytes)
MEDIA = {media}
REPLY = {reply!r}
CAPTURED = []  # (path, body) of each api request


class Recorder(BaseHTTPRequestHandler):
    def do_GET(self):  # the media, for URL sources
        found = MEDIA.get(self.path.split("?", 1)[0])
        body = base64.b64decode(found[1]) if found else b"not found"
        self.answer(200 if found else 404, found[0] if found else "text/plain", body)

    def do_POST(self):  # the api: record, answer 400
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        CAPTURED.append((self.path, body))
        self.answer(400, "application/json", REPLY)

    def answer(self, status, media_type, body):
        self.send_response(status)
        self.send_header("content-type", media_type)
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
ORIGIN = "http://127.0.0.1:%d" % server.server_address[1]
"""


def repro_recorder(media: Iterable[str] = (), reply: Mapping[str, Any] = RECORDED) -> str:
    """The source of a reproducer's recorder, standard library only: a threaded HTTP server on
    127.0.0.1, started when the block runs, whose origin is `ORIGIN`. A GET of
    `/conformance/<name>` answers the fixture `name` of `media` (fixture file names, e.g.
    `chart.png`; none for a script without URL media), anything else 404; a POST is appended
    to `CAPTURED` as `(path, body bytes)` and answered 400 with `reply` as JSON. The block
    imports what it and `repro_report` use (`base64`, `json`, `threading`). The script points
    the framework's client at `ORIGIN` (with a path prefix where it likes) and its URLs at
    `ORIGIN + "/conformance/<name>"`, and ends with `repro_report`. `ValueError` for a name
    that is not a fixture."""
    served: dict[str, tuple[str, str]] = {}
    for name in media:
        if name not in FIXTURE_TYPES:
            raise ValueError(f"{name!r} is not a fixture file: one of {sorted(FIXTURE_TYPES)}")
        data = base64.b64encode(fixture_bytes(name)).decode("ascii")
        served[f"/conformance/{name}"] = (FIXTURE_TYPES[name], data)
    return _RECORDER.format(
        media="{"
        + "".join(f"\n    {path!r}: {entry!r}," for path, entry in served.items())
        + ("\n}" if served else "}"),
        reply=json.dumps(dict(reply)).encode(),
    )


_REFUSALS = {
    "one line": (
        'else:\n    print("nothing sent; raised %s: %s" % (type(raised).__name__, raised))\n'
    ),
    "two lines": (
        "elif raised is not None:\n"
        '    kind = type(raised).__module__ + "." + type(raised).__name__\n'
        '    print("raised before sending:", kind)\n'
        "    print(raised)\n"
    ),
    "exit": (
        'else:\n    raise SystemExit(f"raised before sending: {type(raised).__name__}: {raised}")\n'
    ),
}


def repro_report(
    call: str,
    *,
    refusal: Literal["one line", "two lines", "exit"] = "two lines",
    path_line: bool = True,
    unwrap: str | None = None,
    payload: str | None = None,
    stand_in: str | None = None,
) -> str:
    """The source of a reproducer's end, after `repro_recorder`: `call` (statements that make
    the framework send, as the script's top level), what it raises kept in `raised` (its
    attribute `unwrap` where the framework wraps the error), the recorder stopped, then the
    first captured request: `POST <path>` (unless not `path_line`) and its body as indented
    JSON (through the script's function named `payload`, `(path, body) -> payload`, where it
    has one; the text with `ORIGIN` as `stand_in` where given, the URLs as the suite's
    snapshots store them). Nothing captured, what was raised before sending: `one line`
    (`nothing sent; raised Type: message`), `two lines` (`raised before sending:
    module.Type`, then the message) or `exit` (the one line on stderr, exit status 1)."""
    kept = f"getattr(error, {unwrap!r}, error)" if unwrap else "error"
    body = f"{payload}(path, json.loads(body))" if payload else "json.loads(body)"
    printed = f"json.dumps({body}, indent=2, ensure_ascii=False)"
    if stand_in is not None:
        printed += f".replace(ORIGIN, {stand_in!r})"
    return (
        "raised = None\n"
        "try:\n"
        f"{textwrap.indent(call.strip(), '    ')}\n"
        "except Exception as error:  # the 400 answer, or a refusal before sending\n"
        f"    raised = {kept}\n"
        "server.shutdown()\n"
        "if CAPTURED:\n"
        "    path, body = CAPTURED[0]\n"
        + ('    print("POST", path)\n' if path_line else "")
        + f"    print({printed})\n"
        + _REFUSALS[refusal]
    )
