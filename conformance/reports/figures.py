"""What a figure may count: capability beside safety, unsettled failures and `n/a` apart.

A maintainer reads the `required` figure as "cells where my users' data is lost or damaged",
so three things are counted beside it, never inside it:

- **Capability**: what the target carries of what the row can carry. A cell is *carriable*
  when the matrix expects its media `native` or `fallback`; the target *carried* it when the
  observed outcome kept the media where the api reads it (`native`, `fallback-marked`,
  `fallback-unmarked`) and every `required` check observed a pass. A typed refusal keeps
  every required rule (`conformance.judging.refusal`) and carries nothing, so a target that
  refuses every cell is safe and carries 0 of M: "carried N of M carriable cells". Cells the
  target declares not applicable, or whose row it cannot serve, are carriable and not carried.
- **Unsettled failures**: a failure (`fail`) on a cell whose expectation the matrix marks
  `known: uncertain` rests on a guess; `docs/live-verification.md` says which recording
  settles it. The results line carries `known` already, so files stay readable by older
  readers. Such cells are counted apart from the failures at each level (`unsettled`), and
  `conformance diff` gates on settled cells unless asked to include them.
- **Not applicable**: cells whose lines carry `na` (`conformance.running.applicable`): a
  feature the target declares it does not have, or a row it cannot serve. They are left out
  of compliance (a share over the cells that apply) and counted beside it.

Observations, not declarations: every measure here reads a check's raw observation
(`conformance.reports.results.observed`), so it is the same whichever deviations file the
run applied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from pydantic import BaseModel, ConfigDict

from conformance.reports.results import observed

if TYPE_CHECKING:
    from collections.abc import Iterable

    from conformance.reports.results import ResultLine, Results

__all__ = [
    "CARRIABLE",
    "CARRIED_OUTCOMES",
    "SETTLE",
    "Capability",
    "capabilities",
    "capability_of",
    "capability_words",
    "is_unsettled",
]

CARRIABLE: Final[frozenset[str]] = frozenset({"native", "fallback"})
"""The expectations of a cell whose media the row can carry."""
CARRIED_OUTCOMES: Final[frozenset[str]] = frozenset(
    {"native", "fallback-marked", "fallback-unmarked"}
)
"""Outcomes that kept the media where the api reads it (provenance is judged apart)."""
SETTLE: Final = "docs/live-verification.md"
"""What settles an uncertain cell: a live recording, cell by cell."""


class Capability(BaseModel):
    """What a target carried of what the rows can carry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    carriable: int
    """Cells whose expectation is `native` or `fallback` (every such cell of the run)."""
    carried: int
    """Of those, the cells whose media the target kept (see the module's docstring)."""
    not_applicable: int = 0
    """Of the carriable cells, those not applicable to the target or of a row it cannot
    serve: not carried."""

    @property
    def share(self) -> float:
        return self.carried / self.carriable if self.carriable else 0.0


def is_unsettled(known: str, verdict: str) -> bool:
    """A failure that rests on an expectation the matrix itself marks uncertain."""
    return verdict == "fail" and known == "uncertain"


def capability_of(lines: Iterable[ResultLine]) -> Capability:
    """One target's capability, from its cells' lines (each cell's lines, any order).

    One pass over the lines' values (`__dict__`, as the report reads them): a diff computes it
    for 200,000 lines."""
    kept: dict[str, bool] = {}
    not_applicable: set[str] = set()
    for line in lines:
        values = line.__dict__
        if values["expect"] not in CARRIABLE:
            continue
        cell = values["cell"]
        if values["na"] is not None:
            not_applicable.add(cell)
        keeps = values["outcome"] in CARRIED_OUTCOMES and (
            values["level"] != "required" or values["verdict"] in _OBSERVED_PASS
        )
        kept[cell] = keeps and kept.get(cell, True)
    carried = sum(keeps for cell, keeps in kept.items() if cell not in not_applicable)
    return Capability(carriable=len(kept), carried=carried, not_applicable=len(not_applicable))


_OBSERVED_PASS: Final[frozenset[str]] = frozenset(
    verdict for verdict in ("pass", "xpass", "fail", "xfail", "skip") if observed(verdict) == "pass"
)
"""The verdicts whose raw observation is a pass (`results.observed`)."""


def capabilities(results: Results) -> dict[str, Capability]:
    """Every target's capability, from all of its cells' lines in the results."""
    lines: dict[str, list[ResultLine]] = {}
    for file in results.files:
        for line in file.results:
            lines.setdefault(line.target, []).append(line)
    return {target: capability_of(of_target) for target, of_target in lines.items()}


def capability_words(capability: Capability) -> str:
    """`carried 40 of 80 carriable cells (50.0%)`, with how many of them are n/a."""
    if not capability.carriable:
        return "no carriable cells"
    words = (
        f"carried {capability.carried} of {capability.carriable} carriable cells"
        f" ({capability.share:.1%})"
    )
    if capability.not_applicable:
        words += f"; {capability.not_applicable} of them n/a"
    return words
