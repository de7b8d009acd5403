"""What a cell says at a glance, in words: its outcome and how it stands per level.

Shared by the comparison page and the site, so that a reader sees the same words for the
same cell everywhere. A glyph never stands alone: `outcome_word` names what the target did
("native", "refused", "dropped", ...) and `grade` how the cell stands, overall (the strongest
level it does not pass) or at one level. A refusal the api calls for and a native rendering
both pass `required`; their words and glyphs stay apart at every level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from conformance.judging.levels import LEVELS, Level

if TYPE_CHECKING:
    from conformance.reports.report import CellReport

__all__ = ["LEGEND", "OUTCOME_WORDS", "Grade", "grade", "outcome_glyph", "outcome_word"]

OUTCOME_WORDS: dict[str, str] = {
    "native": "native",
    "fallback-marked": "fallback, marked",
    "fallback-unmarked": "fallback, unmarked",
    "raised": "refused",
    "crashed": "crashed",
    "malformed": "malformed",
    "dropped": "dropped",
    "noted": "noted",
    "stringified": "stringified",
    "altered": "altered",
}
"""An outcome as the pages say it; `raised` (the target's declared refusal) is "refused"."""

_OUTCOME_GLYPHS: dict[str, str] = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_STATUS_GLYPHS: dict[str, str] = {"fail": "❌", "xfail": "⚠️", "skip": "⏭️"}

LEGEND: tuple[tuple[str, str], ...] = (
    ("✅", "native: carried inside the tool result"),
    ("↪️", "fallback, marked: moved to a user message after a marker naming the call"),
    ("🚫", "refused: a typed error before sending, where the api cannot carry it"),
    ("❌", "fails a rule (the level it breaks is named)"),
    ("⚠️", "known deviation, declared with a reason and an upstream link"),
    ("⏭️", "skipped (counts against compliance)"),
    ("–", "no such cell in the matrix"),
)
"""Each glyph with the words it stands for; every cell also shows its words."""


def outcome_word(cell: CellReport) -> str:
    """What the target did with the cell, in words."""
    if cell.outcome is None:
        return "skipped" if cell.status == "skip" else "not observed"
    return OUTCOME_WORDS.get(cell.outcome, cell.outcome)


def outcome_glyph(cell: CellReport) -> str:
    """The glyph of what the target did, for a cell that keeps its rules."""
    return _OUTCOME_GLYPHS.get(cell.outcome or "", "✅")


class Grade(NamedTuple):
    status: str
    """`pass`, `fail`, `xfail`, `skip`, or `none` (no check of the level)."""
    glyph: str
    words: str
    """E.g. "all levels pass", "fails required", "known deviation: recommended"."""


def grade(cell: CellReport, level: Level | None = None) -> Grade:
    """How the cell stands overall (named by the strongest level it does not pass) or at one
    level; a cell that passes shows its outcome's glyph, so refused and native differ."""
    if level is not None:
        status = cell.levels.get(level)
        if status is None:
            return Grade("none", "–", f"no {level} check")
        return _grade(cell, status, level, f"passes {level}")
    for strongest in LEVELS:
        status = cell.levels.get(strongest, "pass")
        if status != "pass":
            return _grade(cell, status, strongest, "")
    return Grade("pass", outcome_glyph(cell), "all levels pass")


def _grade(cell: CellReport, status: str, level: Level, passing: str) -> Grade:
    if status == "pass":
        return Grade("pass", outcome_glyph(cell), passing)
    words = {
        "fail": f"fails {level}",
        "xfail": f"known deviation: {level}",
        "skip": f"skipped: {level}",
    }[status]
    return Grade(status, _STATUS_GLYPHS[status], words)
