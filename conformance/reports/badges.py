"""Badges: shields.io endpoint JSONs per target, per level and for capability."""

from __future__ import annotations

import re

from conformance.reports.markdown import BREAK, CONTROL
from conformance.reports.report import Report
from conformance.reports.results import ReportError

__all__ = ["badges"]

_BADGE_COLOURS: tuple[tuple[float, str], ...] = (
    (1.0, "brightgreen"),
    (0.9, "green"),
    (0.75, "yellowgreen"),
    (0.5, "yellow"),
    (0.25, "orange"),
    (0.0, "red"),
)
"""The colour of the first share floor the conformant share reaches."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _badge_text(text: str) -> str:
    """A name as a badge shows it: one line, no control characters, at most 60 characters."""
    flat = CONTROL.sub("", BREAK.sub(" ", text))
    return flat if len(flat) <= 60 else flat[:59] + "…"


def badges(report: Report) -> dict[str, dict[str, str | int]]:
    """shields.io endpoint badges, keyed by file name: per target, `<target>.json` (cells that
    pass every check), `<target>-<level>.json` for each level with cells (cells that keep
    every rule of that level, e.g. `118/120 cells`), each over the cells that apply, with the
    unsettled failures and the n/a cells beside (`118/120 cells · 2 unsettled · 40 n/a`), and
    `<target>-capability.json` (`carried 60/80`: what it carried of the carriable cells)."""
    out: dict[str, dict[str, str | int]] = {}
    owners: dict[str, str] = {}
    for target in report.targets:
        stem = _UNSAFE.sub("-", target.name).strip(".")
        totals = target.totals
        wanted: list[tuple[str, str, str, int, float]] = [
            (
                f"{stem}.json",
                f"{_badge_text(target.name)} conformance",
                _apart(
                    f"{totals.cells_by_status['pass']}/{totals.cells} cells",
                    totals.unsettled,
                    totals.not_applicable,
                ),
                totals.cells,
                totals.conformant_share,
            )
        ]
        wanted += [
            (
                f"{stem}-{c.level}.json",
                f"{_badge_text(target.name)}: {c.level} rules",
                _apart(
                    f"{c.cells_by_status['pass']}/{c.cells} cells", c.unsettled, c.not_applicable
                ),
                c.cells,
                c.conformant_share,
            )
            for c in target.compliance
            if c.cells or c.not_applicable
        ]
        if target.capability is not None and target.capability.carriable:
            capability = target.capability
            wanted.append(
                (
                    f"{stem}-capability.json",
                    f"{_badge_text(target.name)}: carried",
                    f"{capability.carried}/{capability.carriable} carriable cells",
                    capability.carriable,
                    capability.share,
                )
            )
        for name, label, message, cells, share in wanted:
            if name in owners:
                raise ReportError(f"targets {owners[name]!r} and {target.name!r} share {name}")
            owners[name] = target.name
            colour = next(c for floor, c in _BADGE_COLOURS if share >= floor)
            out[name] = {
                "schemaVersion": 1,
                "label": label,
                "message": message if cells else _apart("no cells", 0, totals.not_applicable),
                "color": colour if cells else "lightgrey",
            }
    return out


def _apart(message: str, unsettled: int, not_applicable: int) -> str:
    """A badge's message with what is counted apart: unsettled failures, n/a cells."""
    if unsettled:
        message += f" · {unsettled} unsettled"
    if not_applicable:
        message += f" · {not_applicable} n/a"
    return message
