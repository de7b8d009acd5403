"""Compare two results files cell by cell: what a change did to each target's cells.

Cells are matched by target and cell id. A cell present on one side only is added or
removed. A cell present on both sides is compared by its status, then by its outcome, each
on a fixed ranking, best first:

- status: pass, xpass, xfail, skip, fail. `xpass` is a cell whose only failures are xpasses:
  the declared deviation no longer happens, the matrix still declares it. A skip ranks below
  a known deviation because it says nothing about the target, and counts against compliance.
- outcome: native, fallback-marked, raised, fallback-unmarked, altered, stringified, noted,
  dropped. Media in the tool-result block beats media moved behind a marker; either beats a
  clear error; a clear error beats any silent harm: moving media without provenance, then
  altering text, stringifying media, replacing it with a note, and dropping it, worst.

A move to a worse status is a regression, and so is a move to a worse outcome when the
status ranks the same (a failing cell that fails worse, or a passing cell whose expectation
was lowered: a capability lost deserves a reviewer's eye). A move to a better one is an
improvement; that includes a known deviation that no longer happens (xfail to pass, or to
xpass). Anything else that differs (the expectation, which checks fail, an outcome that was
not observed on one side) is listed as another change. `conformance diff` exits 1 when there
is a regression.

Each regression names the levels it breaks (`conformance.judging.levels`): a level regresses when
the cell's status over that level's checks alone got worse; a worse outcome at the same status
counts at the `reference` level (the matrix's expected layout). `--fail-on required` gates on
required rules only, so a framework can merge a change that only moves a payload's layout.
Properties (`property/<name>`) are compared like cells, at their own level.

Three things are set apart (`conformance.reports.figures`). A regression on a cell whose
expectation the matrix marks `uncertain` is *unsettled*: listed, marked, and left out of the gate
unless asked for (`regressions(include_unsettled=True)`, `conformance diff --include-unsettled`).
A cell that becomes (or stops being) not applicable to the target is another change, noted,
never a regression nor an improvement. And per target, the capability (carried N of M
carriable cells) of each side: a drop is shown, and gates only when asked
(`--fail-on-capability`).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conformance.judging.levels import LEVELS, Level
from conformance.reports.figures import Capability, capability_words
from conformance.reports.markdown import md_text, short_digest
from conformance.reports.report import (
    CellReport,
    PropertyReport,
    Report,
    Results,
    TargetCells,
    TargetReport,
    cell_report,
    check_cell,
    ordered_cells,
)
from conformance.reports.results import construct_trusted

__all__ = [
    "OUTCOME_RANK",
    "STATUS_RANK",
    "CapabilityMove",
    "CellChange",
    "Diff",
    "DiffStatus",
    "diff_reports",
    "diff_results",
    "render_diff",
]

DiffStatus = Literal["pass", "xpass", "xfail", "skip", "fail"]
ChangeKind = Literal["regression", "improvement", "changed", "added", "removed"]

STATUS_RANK: dict[DiffStatus, int] = {"pass": 0, "xpass": 1, "xfail": 2, "skip": 3, "fail": 4}
"""Lower is better."""
OUTCOME_RANK: dict[str, int] = {
    "native": 0,
    "fallback-marked": 1,
    "raised": 2,
    "fallback-unmarked": 3,
    "altered": 4,
    "stringified": 5,
    "noted": 6,
    "dropped": 7,
}
"""Lower is better."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CellSide(_Model):
    """One side of a cell's comparison."""

    status: DiffStatus
    outcome: str | None
    expect: str
    verdicts: dict[str, str]
    """Check -> verdict."""
    reason: str | None
    """The declared deviation's reason, when the cell has one."""
    levels: dict[Level, DiffStatus] = {}
    """The status over each level's checks alone (see `CellReport.levels`)."""
    known: str = "doc"
    """Where the expectation comes from; `uncertain` makes a failure unsettled."""
    na: str | None = None
    """`declared` or `unserved` when the cell is not applicable to the target."""


class CellChange(_Model):
    target: str
    cell: str
    kind: ChangeKind
    base: CellSide | None
    head: CellSide | None
    notes: list[str]
    """What changed besides status and outcome, in words."""
    levels: list[Level] = []
    """For a regression, the levels it breaks, strongest first."""
    unsettled: bool = False
    """A regression whose head rests on an expectation the matrix marks uncertain."""


class CapabilityMove(_Model):
    """One target's capability on each side (None where the side has no such target)."""

    target: str
    base: Capability | None
    head: Capability | None

    @property
    def dropped(self) -> bool:
        """The head carries fewer cells than the base did."""
        return (
            self.base is not None
            and self.head is not None
            and (self.head.carried < self.base.carried)
        )


class Diff(_Model):
    base: str
    """Suite version, matrix digest and targets of the base, in words."""
    head: str
    targets: list[str]
    """Target version changes, in words (`reference 0.1.0 → 0.2.0`)."""
    unchanged: int
    changes: list[CellChange]
    capability: list[CapabilityMove] = []
    """Per target, in the head's order."""

    def of(self, kind: ChangeKind) -> list[CellChange]:
        return [change for change in self.changes if change.kind == kind]

    def regressions(
        self, levels: tuple[Level, ...] = LEVELS, *, include_unsettled: bool = False
    ) -> list[CellChange]:
        """The regressions that break a rule of one of `levels`, on settled cells unless
        `include_unsettled`."""
        return [
            c
            for c in self.of("regression")
            if set(c.levels) & set(levels) and (include_unsettled or not c.unsettled)
        ]

    def capability_drops(self) -> list[CapabilityMove]:
        """The targets that carry fewer cells in the head than in the base."""
        return [move for move in self.capability if move.dropped]


def diff_reports(
    base: Report,
    head: Report,
    *,
    capability: tuple[dict[str, Capability], dict[str, Capability]] | None = None,
) -> Diff:
    """Every cell that differs between base and head, classified.

    `capability`, when given, is each side's capability per target (`figures.capability_of`
    over every line, where the reports were built from the gated levels only); else the
    reports' own."""
    return _diff(
        (_describe(base), _report_sides(base), {t.name: t.version for t in base.targets}),
        (_describe(head), _report_sides(head), {t.name: t.version for t in head.targets}),
        capability or (_capabilities(base), _capabilities(head)),
    )


def diff_results(
    base: Results,
    head: Results,
    *,
    capability: tuple[dict[str, Capability], dict[str, Capability]],
) -> Diff:
    """`diff_reports` of the two sides' reports, from their results, without building the
    reports: the same cells in the same order (`report.ordered_cells`), so the same diff. A
    cell whose lines on both sides are the very same models (`load_results(known=...)` gives
    a line read twice as one model) is unchanged without being built; only the others' cell
    reports are made and compared. `capability` as for `diff_reports`, given: each side's
    capability per target over all of its lines."""
    before, after = ordered_cells(base), ordered_cells(head)
    head_lines = {(t.name, group[0].cell): group for t in after for group in t.cells}
    shared: set[tuple[str, str]] = set()
    for target in before:
        for group in target.cells:
            key = (target.name, group[0].cell)
            other = head_lines.get(key)
            if other is not None and len(other) == len(group) and all(map(is_, other, group)):
                check_cell(target.name, group)  # what the report would have refused
                shared.add(key)
    return _diff(
        (_describe_results(base, before), _sides(before, shared), _versions(before)),
        (_describe_results(head, after), _sides(after, shared), _versions(after)),
        capability,
    )


def _versions(targets: Sequence[TargetCells | TargetReport]) -> dict[str, str]:
    return {target.name: target.version for target in targets}


def _sides(
    listed: list[TargetCells], shared: set[tuple[str, str]]
) -> dict[tuple[str, str], CellSide]:
    """Every cell's side, in order; a cell whose lines both sides share is `_SAME`, one side
    that compares equal to itself, so the cell counts as unchanged."""
    cells: dict[tuple[str, str], CellSide] = {}
    for target in listed:
        for group in target.cells:
            key = (target.name, group[0].cell)
            cells[key] = _SAME if key in shared else _side(cell_report(target.name, group))
        for prop in target.properties:
            cells[(target.name, f"property/{prop.name}")] = _property_side(prop)
    return cells


_Side = tuple[str, dict[tuple[str, str], "CellSide"], dict[str, str]]
"""One side of a diff: its description, its cells' sides, its targets' versions."""


def _diff(
    base: _Side,
    head: _Side,
    capability: tuple[dict[str, Capability], dict[str, Capability]],
) -> Diff:
    (base_words, before, versions), (head_words, after, head_versions) = base, head
    changes: list[CellChange] = []
    unchanged = 0
    for key in [*before, *(key for key in after if key not in before)]:
        old, new = before.get(key), after.get(key)
        change = _compare(key, old, new)
        if change is None:
            unchanged += 1
        else:
            changes.append(change)
    moved = [
        f"{name} {versions[name]} → {version}"
        for name, version in head_versions.items()
        if name in versions and versions[name] != version
    ]
    before_cap, after_cap = capability
    names = [*head_versions, *versions]
    return Diff(
        base=base_words,
        head=head_words,
        targets=moved,
        unchanged=unchanged,
        changes=changes,
        capability=[
            CapabilityMove(target=name, base=before_cap.get(name), head=after_cap.get(name))
            for name in dict.fromkeys(names)
            if name in before_cap or name in after_cap
        ],
    )


def _capabilities(report: Report) -> dict[str, Capability]:
    return {t.name: t.capability for t in report.targets if t.capability is not None}


def _describe(report: Report) -> str:
    return _words(report.suite_version, report.matrix_digest, _versions(report.targets))


def _describe_results(results: Results, listed: list[TargetCells]) -> str:
    meta = results.files[0].meta
    return _words(meta.suite_version, meta.matrix_digest, _versions(listed))


def _words(suite_version: str, matrix_digest: str, versions: dict[str, str]) -> str:
    targets = ", ".join(f"{name} {version}" for name, version in versions.items())
    return f"suite {suite_version}, matrix {short_digest(matrix_digest)}, {targets or 'no targets'}"


def _report_sides(report: Report) -> dict[tuple[str, str], CellSide]:
    cells = {
        (target.name, cell.id): _side(cell)
        for target in report.targets
        for row in target.rows
        for content_type in row.content_types
        for cell in content_type.cells
    }
    for target in report.targets:
        for prop in target.properties:
            cells[(target.name, f"property/{prop.name}")] = _property_side(prop)
    return cells


def _property_side(prop: PropertyReport) -> CellSide:
    status: DiffStatus = prop.verdict
    return CellSide(
        status=status,
        outcome=None,
        expect="holds",
        verdicts={prop.name: prop.verdict},
        reason=prop.reason,
        levels={prop.level: status},
    )


_SIDE_FIELDS = set(CellSide.model_fields)
_SAME = CellSide(
    status="pass", outcome=None, expect="the same lines on both sides", verdicts={}, reason=None
)
"""The side of a cell whose lines are the same models on both sides (`diff_results`)."""


def _side(cell: CellReport) -> CellSide:
    """A cell's side, in one pass over its checks, assembled without validation: every value
    is the report's (validated) or one of `DiffStatus`; 34,000 cells validated once more were
    a third of a diff."""
    verdicts: dict[str, str] = {}
    failing: set[Level] = set()
    """The levels with a check that failed: a cell failing with none of them only xpasses."""
    reason: str | None = None
    for check in cell.checks:
        verdicts[check.check] = check.verdict
        if check.verdict == "fail":
            failing.add(check.level)
        if reason is None and check.reason:
            reason = check.reason
    status: DiffStatus = "xpass" if cell.status == "fail" and not failing else cell.status
    if cell.na is not None:
        status = "skip"
    levels: dict[Level, DiffStatus] = {
        level: "xpass" if at == "fail" and level not in failing else at
        for level, at in cell.levels.items()
    }
    values = {
        "status": status,
        "outcome": cell.outcome,
        "expect": cell.expect,
        "verdicts": verdicts,
        "reason": reason,
        "levels": levels,
        "known": cell.known,
        "na": cell.na,
    }
    return construct_trusted(CellSide, values, _SIDE_FIELDS)


def _compare(key: tuple[str, str], old: CellSide | None, new: CellSide | None) -> CellChange | None:
    target, cell = key
    if old is None or new is None:
        kind: ChangeKind = "added" if old is None else "removed"
        return CellChange(target=target, cell=cell, kind=kind, base=old, head=new, notes=[])
    if old == new:  # nothing below can tell them apart: no note, no rank moved, no level
        return None
    notes = _notes(old, new)
    if old.na != new.na:  # counted apart: shown, never ranked
        return CellChange(target=target, cell=cell, kind="changed", base=old, head=new, notes=notes)
    by_status = STATUS_RANK[new.status] - STATUS_RANK[old.status]
    by_outcome = 0
    if old.outcome is not None and new.outcome is not None:
        by_outcome = OUTCOME_RANK[new.outcome] - OUTCOME_RANK[old.outcome]
    worse = by_status or by_outcome
    broken: list[Level] = [
        level
        for level in LEVELS
        if level in new.levels
        and STATUS_RANK[new.levels[level]] > STATUS_RANK[old.levels.get(level, "pass")]
    ]
    if by_outcome > 0 and not by_status and "reference" not in broken:
        broken.append("reference")
    if worse > 0:
        kind = "regression"
        if not broken:  # a worse status no single level explains (e.g. levels absent)
            broken = ["reference"]
    elif worse < 0:
        kind = "improvement"
    elif old.status != new.status or old.outcome != new.outcome or notes:
        kind = "changed"
    else:
        return None
    levels = broken if kind == "regression" else []
    unsettled = kind == "regression" and new.status == "fail" and new.known == "uncertain"
    return CellChange(
        target=target,
        cell=cell,
        kind=kind,
        base=old,
        head=new,
        notes=[*notes, _UNSETTLED] if unsettled else notes,
        levels=levels,
        unsettled=unsettled,
    )


_UNSETTLED = "unsettled: the matrix marks this expectation uncertain (docs/live-verification.md)"


def _notes(old: CellSide, new: CellSide) -> list[str]:
    notes: list[str] = []
    if old.na != new.na:
        notes.append(
            f"now not applicable ({new.na})" if new.na else f"applies again (was {old.na})"
        )
    if old.status == "xfail" and new.status in ("pass", "xpass"):
        notes.append("the known deviation no longer happens")
    if new.status == "xpass" and old.status != "xpass":
        notes.append("remove it from the deviations file")
    if new.status == "xfail" and old.status != "xfail" and new.reason:
        notes.append(f"new known deviation: {new.reason}")
    if old.expect != new.expect:
        notes.append(f"expectation {old.expect} → {new.expect}")
    for check in [*old.verdicts, *(c for c in new.verdicts if c not in old.verdicts)]:
        was, now = old.verdicts.get(check, "absent"), new.verdicts.get(check, "absent")
        if was != now:
            notes.append(f"{check} {was} → {now}")
    return notes


# ---- Markdown ---------------------------------------------------------------------------

_HEADINGS: dict[ChangeKind, str] = {
    "regression": "Regressions",
    "improvement": "Improvements",
    "changed": "Other changes",
    "added": "Added cells",
    "removed": "Removed cells",
}
_COUNTS: tuple[tuple[ChangeKind, str, str], ...] = (
    ("regression", "regression", ""),
    ("improvement", "improvement", ""),
    ("changed", "other change", ""),
    ("added", "cell", " added"),
    ("removed", "cell", " removed"),
)
_GLYPHS: dict[str, str] = {
    "pass": "✅",
    "xpass": "❗",
    "xfail": "⚠️",
    "skip": "⏭️",
    "fail": "❌",
}


def render_diff(
    diff: Diff,
    fail_on: tuple[Level, ...] = LEVELS,
    *,
    include_unsettled: bool = False,
    fail_on_capability: bool = False,
) -> str:
    """The diff as Markdown for a PR comment or a job summary; the same diff, the same bytes.

    The headline counts the regressions that break a rule of a level in `fail_on` (the levels
    the gate fails on), on settled cells unless `include_unsettled`; the others are listed
    with the levels they break. A capability drop is shown always, and in the headline when
    the gate fails on it (`fail_on_capability`)."""
    regressions = len(diff.regressions(fail_on, include_unsettled=include_unsettled))
    headline = f"❌ {_plural(regressions, 'regression')}" if regressions else "✅ no regressions"
    if fail_on != LEVELS:
        headline += f" at {', '.join(fail_on)} level" + ("s" if len(fail_on) > 1 else "")
    apart = len(diff.regressions(fail_on, include_unsettled=True)) - regressions
    if apart:
        headline += f" (and {apart} on unsettled cells, not gated)"
    drops = diff.capability_drops()
    if drops and fail_on_capability:
        headline += f" · ❌ capability dropped for {', '.join(m.target for m in drops)}"
    counts = " · ".join(_plural(len(diff.of(kind)), noun) + after for kind, noun, after in _COUNTS)
    out = [
        f"## Conformance diff: {headline}",
        "",
        f"{counts} · {diff.unchanged} unchanged",
        "",
        f"- Base: {md_text(diff.base)}",
        f"- Head: {md_text(diff.head)}",
    ]
    out += [f"- Target version: {md_text(moved)}" for moved in diff.targets]
    per_level = [
        f"{level} {len([c for c in diff.of('regression') if level in c.levels])}"
        for level in LEVELS
    ]
    out.append(f"- Regressions per level: {' · '.join(per_level)}")
    unsettled = [c for c in diff.of("regression") if c.unsettled]
    if unsettled:
        out.append(
            f"- Unsettled: {_plural(len(unsettled), 'regression')} on cells whose expectation"
            " the matrix marks uncertain (docs/live-verification.md says what settles them)"
            + ("" if include_unsettled else "; not gated (--include-unsettled gates them)")
        )
    out += [f"- Capability: {md_text(_capability(move))}" for move in diff.capability]
    for kind, heading in _HEADINGS.items():
        changes = diff.of(kind)
        if changes:
            out += ["", f"### {heading}", "", *_table(changes)]
    return "\n".join(out) + "\n"


def _table(changes: list[CellChange]) -> list[str]:
    lines = [
        "| target | cell | status | outcome | expectation | levels broken | what changed |",
        "|---|---|---|---|---|---|---|",
    ]
    for change in changes:
        base, head = change.base, change.head
        cells = [
            change.target,
            change.cell,
            _move(base and _status(base), head and _status(head)),
            _move(base and (base.outcome or "–"), head and (head.outcome or "–")),
            _move(base and base.expect, head and head.expect),
            ", ".join(change.levels) or "–",
            "; ".join(change.notes) or "–",
        ]
        lines.append("| " + " | ".join(md_text(cell) for cell in cells) + " |")
    return lines


def _status(side: CellSide) -> str:
    if side.na is not None:
        return "n/a"
    mark = "❔" if side.status == "fail" and side.known == "uncertain" else _GLYPHS[side.status]
    return f"{mark} {side.status}"


def _capability(move: CapabilityMove) -> str:
    """`reference: carried 40 → 38 of 80 carriable cells (-2, dropped)`, or one side's words."""
    base, head = move.base, move.head
    if base is None or head is None:
        side = "head only" if base is None else "base only"
        known = head or base
        assert known is not None
        return f"{move.target} ({side}): {capability_words(known)}"
    if (base.carried, base.carriable) == (head.carried, head.carriable):
        return f"{move.target}: {capability_words(head)}, unchanged"
    by = head.carried - base.carried
    sign = "+" if by > 0 else "-" if by < 0 else "±"
    return (
        f"{move.target}: carried {base.carried} → {head.carried} of {head.carriable} carriable"
        f" cells ({sign}{abs(by)}{', dropped' if move.dropped else ''})"
        + (f"; the base had {base.carriable} carriable" if base.carriable != head.carriable else "")
    )


def _move(was: str | None, now: str | None) -> str:
    if was is None or now is None:
        return was or now or "–"
    return was if was == now else f"{was} → {now}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
