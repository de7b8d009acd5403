"""The timeline of one target across its releases (`conformance compare`'s "Across versions").

It compares what each release was observed to do, check by check, never its declarations: a
check's raw observation (`results.observed`: `xfail` is a failure, `xpass` a pass) is the same
whichever deviations file judged the release, so an older release run against the newest
release's file is compared right. A cell is "fixed in" a version when one of its checks went
from fail to pass and none the other way, "broke in" when one went from pass to fail and none
the other way; a cell whose checks fail alike and whose declarations moved is "still failing
(now declared)" or "(no longer declared)"; anything else that differs (both ways at once, the
outcome, a check skipped or n/a on one side) "changed in".
Checks run on one side only (the older releases run without the snapshot check) are not
compared.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from conformance.judging.levels import LEVELS, Level
from conformance.reports.markdown import md_text
from conformance.reports.results import Verdict, observed

if TYPE_CHECKING:
    from collections.abc import Sequence

    from conformance.reports.report import CellReport, PropertyReport

__all__ = ["KIND_WORDS", "Release", "TimelineChange", "TimelineKind", "timeline", "timeline_counts"]


class Release(Protocol):
    """A target at one version, as the timeline reads it (`compare.Release` is one)."""

    @property
    def target(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def cells(self) -> dict[str, CellReport]: ...
    @property
    def properties(self) -> list[PropertyReport]: ...


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


TimelineKind = Literal["fixed", "broke", "declared", "undeclared", "changed"]


class TimelineChange(_Model):
    target: str
    cell: str
    kind: TimelineKind
    before: str
    """Version and what the cell did there, e.g. `1.85.0: fail (dropped)`."""
    after: str
    version: str
    """The version where the change shows."""
    checks: list[str] = []
    """The checks whose observation or declaration moved, e.g. `text-identical (required):
    fail → pass`."""
    levels: list[Level] = []
    """For fixed and broke: the levels of the checks that went that way, strongest first."""


KIND_WORDS: dict[TimelineKind, str] = {
    "fixed": "fixed in",
    "broke": "broke in",
    "declared": "still failing (now declared) in",
    "undeclared": "still failing (no longer declared) in",
    "changed": "changed in",
}
"""How the timeline says each kind of change, before the version."""


def timeline(versions: Sequence[Release]) -> list[TimelineChange]:
    """The changes between consecutive releases of one target, oldest first."""
    changes: list[TimelineChange] = []
    for older, newer in itertools.pairwise(versions):
        for cell_id, now in newer.cells.items():
            was = older.cells.get(cell_id)
            if was is None:
                continue
            earlier = _verdicts(was)
            moves: list[tuple[str, Level, Verdict, Verdict]] = [
                (check.check, check.level, before, check.verdict)
                for check in now.checks
                if (before := earlier.get(check.check)) is not None
            ]
            found = _classify(moves)
            if found is None and was.outcome == now.outcome and was.na == now.na:
                continue
            kind, checks, levels = found or ("changed", [], [])
            if was.na != now.na:
                kind = "changed"
            changes.append(
                TimelineChange(
                    target=newer.target,
                    cell=cell_id,
                    kind=kind,
                    before=f"{older.version}: {_words(was)}",
                    after=f"{newer.version}: {_words(now)}",
                    version=newer.version,
                    checks=checks,
                    levels=levels,
                )
            )
        was_held: dict[str, PropertyReport] = {p.name: p for p in older.properties}
        for prop in newer.properties:
            before = was_held.get(prop.name)
            if before is None:
                continue
            move: tuple[str, Level, Verdict, Verdict] = (
                prop.name,
                prop.level,
                before.verdict,
                prop.verdict,
            )
            found = _classify([move])
            if found is None:
                continue
            kind, checks, levels = found
            changes.append(
                TimelineChange(
                    target=newer.target,
                    cell=f"property/{prop.name}",
                    kind=kind,
                    before=f"{older.version}: {before.verdict}",
                    after=f"{newer.version}: {prop.verdict}",
                    version=newer.version,
                    checks=checks,
                    levels=levels,
                )
            )
    return changes


def _verdicts(cell: CellReport) -> dict[str, Verdict]:
    return {check.check: check.verdict for check in cell.checks}


def _classify(
    moves: list[tuple[str, Level, Verdict, Verdict]],
) -> tuple[TimelineKind, list[str], list[Level]] | None:
    """What the checks of both releases did, observed before any deviations file: None when
    no check moved, in observation or in declaration."""
    fixed: list[tuple[str, Level]] = []
    broke: list[tuple[str, Level]] = []
    other: list[tuple[str, Level]] = []
    declared: list[tuple[str, Level]] = []
    undeclared: list[tuple[str, Level]] = []
    words: list[str] = []
    for check, level, before, after in moves:
        if before == after:
            continue
        words.append(f"{check} ({level}): {before} → {after}")
        was, now = observed(before), observed(after)
        if (was, now) == ("fail", "pass"):
            fixed.append((check, level))
        elif (was, now) == ("pass", "fail"):
            broke.append((check, level))
        elif was != now:  # skipped on one side: nothing was observed there
            other.append((check, level))
        elif after == "xfail":
            declared.append((check, level))
        elif before == "xfail":
            undeclared.append((check, level))
    if not words:
        return None
    kind: TimelineKind = "changed"
    moved: list[tuple[str, Level]] = []
    if fixed and not broke and not other:
        kind, moved = "fixed", fixed
    elif broke and not fixed and not other:
        kind, moved = "broke", broke
    elif declared and not (fixed or broke or other or undeclared):
        kind = "declared"
    elif undeclared and not (fixed or broke or other or declared):
        kind = "undeclared"
    levels: list[Level] = [lv for lv in LEVELS if any(at == lv for _, at in moved)]
    return kind, words, levels


def _words(cell: CellReport) -> str:
    return f"{cell.status} ({cell.outcome or 'not observed'})"


def timeline_counts(changes: list[TimelineChange], releases: dict[str, list[str]]) -> list[str]:
    """Per release, how many cells each kind of change has: what was observed to be fixed
    (with its levels) apart from what was only declared."""
    out: list[str] = []
    for name, versions in releases.items():
        for version in versions[1:]:
            of = [c for c in changes if c.target == name and c.version == version]
            if not of:
                continue
            parts: list[str] = []
            for kind, words in KIND_WORDS.items():
                count = sum(c.kind == kind for c in of)
                if not count:
                    continue
                part = f"{count} {words.removesuffix(' in')}"
                if kind in ("fixed", "broke"):
                    at = [
                        f"{lv} {sum(lv in c.levels for c in of if c.kind == kind)}" for lv in LEVELS
                    ]
                    part += f" ({', '.join(at)})"
                parts.append(part)
            out.append(f"- {md_text(name)} {md_text(version)}: {' · '.join(parts)}")
    return ["", *out] if out else []
