"""The LiteLLM target's reproducer: a standalone script that rebuilds a history as LiteLLM messages
and calls `litellm.completion` against a stdlib server on 127.0.0.1, printing the body it got."""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import urlsplit

from conformance.history import (
    History,
)
from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes
from conformance.targets.base import RowRef
from conformance.targets.kit import comment
from conformance.targets.litellm._messages import to_messages
from conformance.targets.litellm._routes import ENV, completion_kwargs

# --- the reproducer ----------------------------------------------------------------------------

_REPRO = """\
#!/usr/bin/env python3
{about}\"\"\"The LiteLLM request named above: what `{entry}` sends for this history.

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
CALL = json.loads({call!r})  # {entry}'s other arguments, without the base URL
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
{setup}if BASE_KEY.startswith("$"):  # the base from the environment, e.g. $HF_API_BASE
    os.environ[BASE_KEY[1:]] = origin
else:
    CALL[BASE_KEY] = origin
try:
    {send}
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
    call = completion_kwargs(row, history, "")
    return script(
        row,
        to_messages(history, error_flag=error_flag),
        call,
        entry="litellm.completion",
        send="litellm.completion(messages=json.loads(text), tools=TOOLS, **CALL)",
    )


def script(
    row: RowRef,
    messages: list[dict[str, Any]],
    call: dict[str, Any],
    *,
    entry: str,
    send: str,
    setup: str = "",
) -> str:
    """A reproducer that sends `messages` with `send`, a fixed line of code that reads
    `json.loads(text)` (the messages, fixture URLs on the script's own server), `TOOLS` and
    `CALL` (`call` but its base URL and tools, which the script fills in). `setup` is fixed
    code run before, after LiteLLM is imported."""
    text, media = _media_stand_ins(messages)
    call = dict(call)
    base_key = "aws_bedrock_runtime_endpoint" if row.api == "bedrock-converse" else "api_base"
    if ENV in call:
        (variable,) = call.pop(ENV)
        base_key = "$" + variable
    else:
        call.pop(base_key)
    tools = call.pop("tools")
    return _REPRO.format(
        about=comment(f"LiteLLM {row.api} request for {row.id}"),
        entry=entry,
        boto3=" boto3" if row.api == "bedrock-converse" else "",
        messages=text,
        tools=json.dumps(tools),
        call=json.dumps(call),
        media=media,
        base_key=base_key,
        setup=setup,
        send=send,
    )
