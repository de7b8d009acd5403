"""The blob folders of a run's snapshots, checked when the run ends (`conformance.recording.media`).

With `--snapshot-update`, blobs no snapshot names any more are deleted (after syrupy has
written and deleted snapshots). Then, with or without it, every target's folder is audited:
an unused, missing or damaged blob is reported under "media blobs" and fails the run, as syrupy
fails a run for an unused snapshot. The audit reads the files on disk, so a run of a few cells
judges the whole folder the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from conformance.recording.media import audit, prune

__all__ = ["MediaAudit"]


class MediaAudit:
    """A pytest plugin object: prune (when updating) and audit each snapshot root."""

    def __init__(self, roots: Callable[[], Iterable[Path]], *, updating: bool) -> None:
        self.roots = roots
        self.updating = updating
        self.lines: list[str] = []

    @pytest.hookimpl(trylast=True)  # after syrupy's own session finish wrote the snapshots
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # the controller audits once, after every worker
        for root in dict.fromkeys(self.roots()):
            if self.updating:
                self.lines += [f"deleted unused media blob {path}" for path in prune(root)]
            found = audit(root)
            if not found.ok:
                self.lines += found.lines()
                self.lines.append(
                    f"{root}: run pytest with --snapshot-update to write and prune its blobs"
                )
                if session.exitstatus == 0:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.section("media blobs")
            for line in self.lines:
                terminalreporter.write_line(line)
