"""What the langchain variants' tests share: the matrix rows as `RowRef`s, the role "tool"
messages of a Chat Completions-shaped payload, and a reproducer run standalone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conformance.matrix import load_matrix
from conformance.targets.base import RowRef

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


def tool_messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The role "tool" messages of a Chat Completions-shaped request body, in order."""
    return [m for m in payload["messages"] if m["role"] == "tool"]


def run_repro(script: str) -> tuple[str, dict[str, Any]]:
    """Run a reproducer with `python -I` (no suite on the path): the request line it prints
    and the body it captured."""
    run = subprocess.run(
        [sys.executable, "-I", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    path, _, body = run.stdout.partition("\n")
    return path, json.loads(body)
