"""A standalone reproducer for one cell: LlamaIndex and the standard library only.

The script holds the cell's messages as LlamaIndex stores them (`ChatMessage.model_dump_json`,
loaded back with `ChatMessage.model_validate`), builds the row's LLM from its integration with
its base URL on a stdlib `http.server` on 127.0.0.1 (which records the request and answers
400), and calls `chat_with_tools` with a `FunctionTool` per tool, as the target does. It prints
the captured request body as indented JSON, or what LlamaIndex raised before sending. URL media
is served by the script itself on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import pprint
import re

from conformance.history import History, Media, Message, ToolResult
from conformance.scenarios.fixtures import fixture_bytes
from conformance.targets.base import RowRef
from conformance.targets.llamaindex._messages import dump_messages, to_messages, tool_names
from conformance.targets.llamaindex._models import MODELS

__all__ = ["repro_script"]

_ORIGIN = "__FIXTURE_ORIGIN__"
_LOOPBACK_ORIGIN = re.compile(r"http://127\.0\.0\.1:\d+")


def _fixtures(history: History) -> dict[str, tuple[str, str]]:
    found: dict[str, tuple[str, str]] = {}
    for item in history:
        parts = item.content if isinstance(item, Message | ToolResult) else []
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, Media) and part.url is not None:
                data = base64.b64encode(fixture_bytes(part.identifier)).decode("ascii")
                found[part.identifier] = (part.media_type, data)
    return found


_TEMPLATE = '''\
"""Reproducer: {cell_note}.

What LlamaIndex ({distribution}) sends to the {api} api for a tool result, captured offline:
the request goes to a local server on 127.0.0.1 that records it and answers 400.
Needs: pip install llama-index-core {distribution}
"""

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.tools import FunctionTool
from {module} import {cls}

FIXTURES = {fixtures}
CAPTURED = []


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # the fixture media, for URL sources
        name = self.path.rsplit("/", 1)[-1]
        if name not in FIXTURES:
            self.send_error(404)
            return
        media_type, data = FIXTURES[name]
        body = base64.b64decode(data)
        self.send_response(200)
        self.send_header("content-type", media_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):  # the provider api: record, answer 400
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        CAPTURED.append((self.path, body))
        reply = json.dumps({{"error": {{"message": "recorded", "type": "invalid_request_error"}}}})
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
FIXTURE_ORIGIN = "http://127.0.0.1:%d" % server.server_address[1]
BASE = FIXTURE_ORIGIN + "/api"


def tool():
    return ""


tools = [
    FunctionTool.from_defaults(fn=tool, name=name, description="A tool of the scenario.")
    for name in {tools}
]
# The conversation as LlamaIndex stores it (ChatMessage.model_dump_json per message).
STORED = {stored}
messages = [
    ChatMessage.model_validate(m)
    for m in json.loads(STORED.replace("{origin}", FIXTURE_ORIGIN))
]

llm = {model}
raised = None
try:
    llm.chat_with_tools(tools, chat_history=messages)
except Exception as error:  # the 400 answer, or a refusal before sending
    raised = error
server.shutdown()
if CAPTURED:
    path, body = CAPTURED[0]
    print("POST", path)
    print(json.dumps(json.loads(body), indent=2, ensure_ascii=False))
else:
    print("nothing sent; raised %s: %s" % (type(raised).__name__, raised))
'''


def repro_script(row: RowRef, history: History) -> str:
    """The source of the reproducer script for `row` and `history`."""
    spec = MODELS[row.api]
    stored = _LOOPBACK_ORIGIN.sub(_ORIGIN, dump_messages(to_messages(history, spec.turn)))
    pretty = json.dumps(json.loads(stored), indent=1, ensure_ascii=False)
    return _TEMPLATE.format(
        cell_note=f"{row.id}, {row.model}",
        distribution=spec.distribution,
        api=row.api,
        module=spec.module,
        cls=spec.cls,
        fixtures=pprint.pformat(_fixtures(history), width=96),
        tools=repr(tool_names(history)),
        stored=repr(pretty),
        origin=_ORIGIN,
        model=spec.source.format(model=row.model),
    )
