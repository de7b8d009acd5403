"""Findings grouped by reason: the checks of a release that fail or deviate, one group per
level, kind (failure or declared deviation) and reason, with every cell the reason covers.

Read worst first: the strongest level, failures before declared deviations, then the harm of
the worst outcome among the group's cells, then the number of cells. A reason given once for
thirty cells is one line naming thirty cells, not thirty lines repeating it (the views list
the cells under the reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from conformance.judging.levels import LEVELS, Level
from conformance.matrix.vocabulary import SEVERITY
from conformance.reports.words import outcome_word

if TYPE_CHECKING:
    from conformance.reports.compare import Release

__all__ = ["FindingGroup", "group_findings"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FindingGroup(_Model):
    """Checks that fail or deviate for one reason, with every cell they cover."""

    level: Level
    kind: Literal["failure", "deviation"]
    reason: str
    """The declared deviation's reason, else the first line of the failure's detail."""
    link: str | None
    checks: list[str]
    outcomes: list[str]
    cells: list[str]


def group_findings(release: Release) -> list[FindingGroup]:
    """Failing and deviating checks grouped by level, kind and reason, worst first."""
    groups: dict[tuple[Level, str, str], dict[str, Any]] = {}
    for cell in release.cells.values():
        for check in cell.checks:
            if check.verdict not in ("fail", "xpass", "xfail"):
                continue
            kind = "deviation" if check.verdict == "xfail" else "failure"
            reason = check.reason or _first_line(check.detail) or f"{check.check} {check.verdict}"
            if check.verdict == "xpass":
                reason = f"declared deviation no longer happens: {reason}"
            group = groups.setdefault(
                (check.level, kind, reason),
                {"link": check.link, "checks": [], "outcomes": [], "cells": []},
            )
            for key, value in (("checks", check.check), ("cells", cell.id)):
                if value not in group[key]:
                    group[key].append(value)
            word = outcome_word(cell)
            if word not in group["outcomes"]:
                group["outcomes"].append(word)
            group["rank"] = max(group.get("rank", -1), _harm(cell.outcome))
    for prop in release.properties:
        if prop.verdict in ("fail", "xpass", "xfail"):
            kind = "deviation" if prop.verdict == "xfail" else "failure"
            reason = prop.reason or _first_line(prop.detail) or prop.name
            group = groups.setdefault(
                (prop.level, kind, reason),
                {"link": prop.link, "checks": [], "outcomes": [], "cells": [], "rank": -1},
            )
            group["checks"].append(prop.name)
            group["cells"].append(f"property/{prop.name}")
    ordered = sorted(
        groups.items(),
        key=lambda item: (
            LEVELS.index(item[0][0]),
            item[0][1] != "failure",
            -item[1]["rank"],
            -len(item[1]["cells"]),
            item[0][2],
        ),
    )
    return [
        FindingGroup(
            level=level,
            kind="failure" if kind == "failure" else "deviation",
            reason=reason,
            link=group["link"],
            checks=group["checks"],
            outcomes=group["outcomes"],
            cells=group["cells"],
        )
        for (level, kind, reason), group in ordered
    ]


def _harm(outcome: str | None) -> int:
    """Higher is worse: the outcome's place in `SEVERITY` (worst first), none the least."""
    if outcome not in SEVERITY:
        return -1
    return len(SEVERITY) - SEVERITY.index(outcome)


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:300] if lines else ""
