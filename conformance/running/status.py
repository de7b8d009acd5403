"""How a run ended, in the words a results file's end line uses (`EndLine.status`).

A module of its own, with nothing imported, so that the readers of results files
(`conformance.reports`) name it without loading the run log and the stages it writes for."""

from __future__ import annotations

from typing import Literal

__all__ = ["RunStatus"]

RunStatus = Literal["complete", "interrupted", "incomplete", "crashed"]
