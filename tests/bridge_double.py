"""A bridge in Python, run as a process by `tests/test_bridge.py`: the reference mappers behind
the bridge protocol, well behaved or misbehaving in one way (`python bridge_double.py MODE`).

Modes: `good`; `dies` (exits on every request), `hangs` (never answers), `garbage` (prints a
line that is not JSON), `wrong-id` (answers another request id), `undeclared` (refuses with a
kind its handshake does not declare), `error` (answers an error), `bytes-elsewhere` (a payload
with bytes for an api whose body is JSON); `dies-once` and `hangs-once` misbehave on the first
request only (the next process, started anew, is good); `bad-handshake`, `no-handshake`.
The bridge's own refusal kind is `UnsupportedContent`, what the reference raises.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def handshake() -> None:
    if MODE == "no-handshake":
        time.sleep(3600)
    if MODE == "bad-handshake":
        write({"protocol": 1, "name": "Not A Name", "version": ""})
        return
    write(
        {
            "protocol": 1,
            "name": os.environ.get("BRIDGE_NAME", "pybridge"),
            "version": "1.0.0",
            "sdk_versions": {"conformance": "0.1.0"},
            "refusal_kinds": ["UnsupportedContent"],
            "rows": ["openai-chat", "anthropic", "gemini", "bedrock-converse/claude"],
            "unsupported": {"gemini/gemini-3": "this bridge has no Gemini 3 profile"},
            "repro": {"suffix": ".py", "comment": "#", "run": "python {file}"},
        }
    )


def first(request: dict[str, Any]) -> bool:
    return request["id"] == "r1"


def answer(request: dict[str, Any]) -> None:
    rid = request["id"]
    if MODE == "dies" or (MODE == "dies-once" and first(request)):
        sys.stderr.write("bridge_double: dying on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "hangs" or (MODE == "hangs-once" and first(request)):
        time.sleep(3600)
    if MODE == "garbage":
        write_raw("this is not JSON\n")
        return
    if MODE == "wrong-id":
        write({"id": rid + "-other", "payload": {}})
        return
    if MODE == "error":
        write({"id": rid, "error": {"type": "TypeError", "message": "x is not a function"}})
        return
    if request["op"] == "repro":
        write({"id": rid, "script": "print('a reproducer')\n"})
        return
    from conformance.errors import UnsupportedContent
    from conformance.history import load
    from conformance.targets.base import RowRef
    from conformance.targets.bridge.protocol import encode_payload
    from conformance.targets.reference import ReferenceTarget

    row = RowRef(**request["row"])
    history = load(json.dumps(request["history"]))
    target = ReferenceTarget()
    try:
        payload = (
            target.render(row, history)
            if request["op"] == "render"
            else target.render_stored(row, history)
        )
    except UnsupportedContent as error:
        kind = "NotDeclared" if MODE == "undeclared" else "UnsupportedContent"
        write({"id": rid, "refusal": {"kind": kind, "message": str(error)}})
        return
    if MODE == "bytes-elsewhere":
        payload = {**payload, "extra": b"\x00\x01"}
    write({"id": rid, "payload": encode_payload(payload)})


def write_raw(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


NEVER_SERVES = {"dies", "hangs", "garbage", "wrong-id", "error", "bad-handshake", "no-handshake"}
"""Modes that never render: they skip importing the reference, since a bridge that dies is
started anew for every render, within the cell time limit."""


def main() -> None:
    if pids := os.environ.get("BRIDGE_PID_FILE"):  # where a test finds the processes it made
        with open(pids, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    if MODE not in NEVER_SERVES:  # import before the handshake, outside any render's limit
        importlib.import_module("conformance.targets.reference")
    handshake()
    for line in sys.stdin:
        answer(json.loads(line))


if __name__ == "__main__":
    main()
