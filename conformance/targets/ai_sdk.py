"""The Vercel AI SDK target: `bridges/ai-sdk/` behind the bridge protocol, one release at a time.

The Node side (`bridges/ai-sdk/bridge.mjs`, with `ai7/main.mjs` and `ai6/main.mjs` importing
each release's packages) builds the SDK's own messages from the history, runs each tool turn
through the SDK's tool loop with a real `tool()` (`execute` returns the history's result,
`toModelOutput` makes the release's content parts), and sends them with `generateText` through
the row's official provider package, its base URL on a loopback recorder. See docs/ai-sdk.md.

Which release runs: `CONFORMANCE_AI_SDK` (`7`, the default, or `6`), installed with `npm ci` in
`bridges/ai-sdk/ai<N>/` (`nox -s "target(ai-sdk)"` does it). The 7 line declares Node >= 22 and
pins Node 22 in its lockfile (`node_modules/.bin/node`); the 6 line runs on the machine's
`node`. Without the installed packages the target reports itself `unavailable`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from conformance.targets.base import RowRef
from conformance.targets.bridge import BridgeTarget

__all__ = ["LATEST", "RELEASES", "AISDKTarget", "bridge_folder"]

RELEASES = ("7", "6")
"""The release lines with a folder under `bridges/ai-sdk/`, latest first."""
LATEST = RELEASES[0]
_SOURCE = Path(__file__).resolve().parents[2] / "bridges" / "ai-sdk"


def bridge_folder() -> Path:
    """`bridges/ai-sdk/` of this checkout, or `CONFORMANCE_AI_SDK_DIR`."""
    return Path(os.environ.get("CONFORMANCE_AI_SDK_DIR") or _SOURCE)


def _release() -> str:
    return os.environ.get("CONFORMANCE_AI_SDK") or LATEST


def _command(folder: Path) -> tuple[list[str] | None, str | None]:
    """The command that starts the release's bridge, or why it cannot start."""
    hint = f'cd {folder} && npm ci  (or: nox -s "target(ai-sdk)")'
    if not (folder / "main.mjs").is_file():
        return None, f"no AI SDK bridge at {folder} (CONFORMANCE_AI_SDK_DIR, CONFORMANCE_AI_SDK)"
    if not (folder / "node_modules" / "ai").is_dir():
        return None, f"the AI SDK packages are not installed: {hint}"
    pinned = folder / "node_modules" / ".bin" / "node"
    node = str(pinned) if pinned.exists() else shutil.which("node")
    if node is None:
        return None, f"no `node` on PATH and none pinned in {folder}: {hint}"
    return [node, "main.mjs"], None


class AISDKTarget(BridgeTarget):
    """The AI SDK release `CONFORMANCE_AI_SDK` names (default: the latest)."""

    def __init__(self) -> None:
        release = _release()
        folder = bridge_folder() / f"ai{release}"
        command, missing = _command(folder)
        self.unavailable: str | None = missing
        if command is None:
            self.name = "ai-sdk"
            self.version = "not installed"
            self.sdk_versions: dict[str, str] = {}
            self.refusal_types: tuple[type[BaseException], ...] = ()
            return
        super().__init__(command, cwd=str(folder))

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        return super().supports(row)
