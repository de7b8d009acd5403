"""A small target with `repro(row, history)`, for `conformance repro` and the comparison page.

Its "framework" is the reference mapper; the script it writes holds the payload that mapper
renders and sends it the way a framework would, to a stdlib `http.server` on 127.0.0.1 that
records the request and answers 400, then prints the captured body as indented JSON.
"""

from __future__ import annotations

import json

from conformance.history import History
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget

_SCRIPT = """\
import http.server
import json
import threading
import urllib.error
import urllib.request

PAYLOAD = json.loads({payload!r})
captured = []


class Recorder(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        captured.append(self.rfile.read(int(self.headers["content-length"])))
        self.send_response(400)
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
threading.Thread(target=server.serve_forever, daemon=True).start()
request = urllib.request.Request(
    f"http://127.0.0.1:{{server.server_port}}/v1/chat/completions",
    data=json.dumps(PAYLOAD).encode(),
    headers={{"content-type": "application/json"}},
)
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError:
    pass
server.shutdown()
print(json.dumps(json.loads(captured[0]), indent=2, ensure_ascii=False))
"""


class ReproTarget(ReferenceTarget):
    name = "repro-demo"
    version = "1.0.0"

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script sending this row's payload for `history` to a local recorder."""
        return _SCRIPT.format(payload=json.dumps(self.render(row, history)))


class BrokenRepro(ReferenceTarget):
    name = "broken-repro"
    version = "1.0.0"

    def repro(self, row: RowRef, history: History) -> str:
        raise RuntimeError("cannot build the history in this framework")


class FixedScript(ReferenceTarget):
    name = "fixed-script"
    version = "1.0.0"

    def repro(self, row: RowRef, history: History) -> str:
        return "print('the framework sent nothing')\n"
