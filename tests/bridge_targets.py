"""Bridge targets for `tests/test_bridge.py`: `tests/bridge_double.py` as a process, one class
per mode, each named after its mode (the handshake's `name`) so several run side by side."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from conformance.targets.bridge import BridgeTarget

ROOT = Path(__file__).resolve().parents[1]
DOUBLE = Path(__file__).resolve().parent / "bridge_double.py"


def command(mode: str) -> list[str]:
    return [sys.executable, str(DOUBLE), mode]


def environment(name: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {"BRIDGE_NAME": name, "PYTHONPATH": path}


class _Double(BridgeTarget):
    mode = "good"

    def __init__(self) -> None:
        name = "bridge-" + self.mode
        super().__init__(command(self.mode), env=environment(name))


def _mode(mode: str) -> type[_Double]:
    return type(mode.title().replace("-", ""), (_Double,), {"mode": mode})


Good = _mode("good")
Dies = _mode("dies")
Hangs = _mode("hangs")
Garbage = _mode("garbage")
WrongId = _mode("wrong-id")
Undeclared = _mode("undeclared")
Error = _mode("error")
BytesElsewhere = _mode("bytes-elsewhere")
BadHandshake = _mode("bad-handshake")
