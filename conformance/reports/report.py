"""Turn results files into a report: a data model, and its Markdown view.

The report is data first: `Report` is a pydantic model, `Report.model_dump_json(indent=2)` is
the JSON view, and `render_markdown` (here), `render_html` (`conformance.reports.html`) and `badges`
(here) are renderings of the same model. Reading results files is `conformance.reports.results`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date as Date
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, cast, get_args

from pydantic import AwareDatetime, BaseModel, ConfigDict

from conformance.history import ContentType
from conformance.judging.levels import LEVELS, Level
from conformance.matrix.lifecycle import Status, status_on
from conformance.reports.figures import (
    Capability,
    capability_of,
    is_unsettled,
)
from conformance.reports.layers import merged_layers
from conformance.reports.results import (
    CellStatus,
    EndLine,
    Expect,
    Known,
    Live,
    MetaLine,
    NotApplicable,
    Outcome,
    PropertyLine,
    ReportError,
    ResultLine,
    Results,
    ResultsFile,
    RowLifecycle,
    Source,
    Style,
    Verdict,
    check_shards,
    construct_trusted,
    load_results,
    targets_of,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "CellReport",
    "CellStatus",
    "CheckReport",
    "ContentTypeCells",
    "EndLine",
    "Expect",
    "Known",
    "LevelCompliance",
    "MetaLine",
    "Outcome",
    "PropertyReport",
    "Report",
    "ReportError",
    "ResultLine",
    "Results",
    "ResultsFile",
    "RowReport",
    "TargetCells",
    "TargetReport",
    "Totals",
    "Verdict",
    "build_report",
    "cell_report",
    "check_cell",
    "check_report",
    "load_results",
    "ordered_cells",
]

_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
_SOURCES: tuple[Source, ...] = get_args(Source)
_STYLES: tuple[Style, ...] = get_args(Style)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- the report model -------------------------------------------------------------------


class CheckReport(_Model):
    check: str
    level: Level
    verdict: Verdict
    detail: str
    reason: str | None
    link: str | None


class CellReport(_Model):
    id: str
    content_type: ContentType
    source: Source
    style: Style
    status: CellStatus
    outcome: Outcome | None
    """What the target was observed to do; None when no check observed it."""
    expect: Expect
    known: Known
    cite: str
    checks: list[CheckReport]
    """Every check of the cell, in the order the results list them."""
    levels: dict[Level, CellStatus]
    """The cell's status at each level it has checks of, over those checks alone: a cell that
    keeps every required rule and lays the payload out its own way is `pass` at `required`."""
    live: Live | None = None
    """What a live API said to the cell's request, when that was recorded."""
    na: NotApplicable | None = None
    """Set when the cell is not applicable to the target (`ResultLine.na`); its checks are
    skips whose detail is the reason, and the cell counts apart in every figure."""

    @property
    def unsettled(self) -> bool:
        """A failing cell whose every failure rests on an expectation the matrix marks
        uncertain (`conformance.reports.figures`)."""
        return self.known == "uncertain" and any(k.verdict == "fail" for k in self.checks)


class ContentTypeCells(_Model):
    content_type: ContentType
    cells: list[CellReport]
    """One per source × style, inline before url, result before prompt."""


class RowReport(_Model):
    id: str
    api: str
    model: str
    content_types: list[ContentTypeCells]
    """In the order text, image, document, audio, video; only those with cells."""
    lifecycle: RowLifecycle | None = None
    """The row's lifecycle dates, where the results carry them."""
    status: Status | None = None
    """Where the row's model stands on the matrix's `as_of`, where the results carry it."""


class Totals(_Model):
    cells: int
    """The cells that apply to the target (n/a cells are counted apart)."""
    cells_by_status: dict[CellStatus, int]
    """Over the cells that apply; `fail` counts the settled failures, `unsettled` the rest."""
    checks_by_verdict: dict[Verdict, int]
    cells_by_known: dict[Known, int]
    """Where each cell's expectation comes from."""
    conformant_share: float
    """Cells with status pass / cells that apply (0.0 when there are none)."""
    unsettled: int = 0
    """Failing cells whose expectation the matrix marks uncertain."""
    not_applicable: int = 0
    """Cells not applicable to the target, declared or of a row it cannot serve."""


class LevelCompliance(_Model):
    """How many of a target's cells keep every rule of one level, and the properties of it."""

    level: Level
    cells: int
    """Cells that apply to the target with at least one check of this level."""
    cells_by_status: dict[CellStatus, int]
    """Over this level's checks alone (see `CellReport.levels`); `fail` counts the settled
    failures, `unsettled` the others."""
    conformant_share: float
    """Cells with status pass at this level / cells (0.0 when there are none)."""
    properties: int
    properties_held: int
    """Properties of this level that passed (a declared failure is not held)."""
    unsettled: int = 0
    """Cells failing at this level on an expectation the matrix marks uncertain."""
    not_applicable: int = 0
    """Cells with checks of this level not applicable to the target (left out of `cells`)."""


class PropertyReport(_Model):
    """One property's verdict on a target (`conformance.running.property_gate`)."""

    name: str
    level: Level
    verdict: Verdict
    row: str | None
    """The counterexample's model row, for a failure."""
    examples: int
    detail: str
    reason: str | None
    link: str | None


class TargetReport(_Model):
    name: str
    version: str
    rows: list[RowReport]
    """In the order the results first list them."""
    totals: Totals
    compliance: list[LevelCompliance]
    """Per level, strongest first; every level, even one without checks in the run."""
    properties: list[PropertyReport] = []
    """In the order the results list them; none when the run searched no property."""
    capability: Capability | None = None
    """What the target carried of what the rows can carry (`conformance.reports.figures`)."""


class Report(_Model):
    report_version: Literal[1] = 1
    suite_version: str
    matrix: str
    matrix_digest: str
    python: str
    date: AwareDatetime
    targets: list[TargetReport]
    """In the order the meta lines declare them."""
    as_of: Date | None = None
    """The day the matrix was last checked against its sources, where the results carry it."""
    layers: dict[str, dict[str, list[tuple[str, str]]]] = {}
    """Per target, per row it serves through other layers, those layers (`reports.layers`)."""
    variant_of: dict[str, str] = {}
    """Per variant target of the run, its framework target (the meta lines' `variant_of`)."""


def variant_note(report: Report, name: str) -> str | None:
    """What a target's section says of variants: a framework's names the variants that ran
    with it, a variant's its framework; None for a target with neither."""
    framework = report.variant_of.get(name)
    if framework is not None:
        return f"A variant of {framework}: another entry point of it, run with it."
    variants = [v for v, of in report.variant_of.items() if of == name]
    if not variants:
        return None
    named = ", ".join(f"{v.removeprefix(name + '.')} ({v})" for v in variants)
    return f"Variants run with it: {named}."


# ---- building the report ----------------------------------------------------------------


def build_report(results: Results) -> Report:
    """Group the results per target, row, content type and cell, and count them."""
    check_shards(results)
    meta = results.files[0].meta
    targets = targets_of(results)
    lines, props = _per_target(results, targets)
    return Report(
        suite_version=meta.suite_version,
        matrix=meta.matrix,
        matrix_digest=meta.matrix_digest,
        python=meta.python,
        date=max(file.meta.date for file in results.files),
        targets=[
            _target_report(name, version, lines[name], props[name], meta)
            for name, version in targets.items()
        ],
        as_of=meta.as_of,
        layers=merged_layers([file.meta.layers for file in results.files]),
        variant_of={v: f for file in results.files for v, f in file.meta.variant_of.items()},
    )


def check_report(results: Results) -> None:
    """Raise the `ReportError` that `build_report` would raise for these results, without
    building the report (`conformance merge` refuses shards `report` would refuse)."""
    check_shards(results)
    lines, _ = _per_target(results, targets_of(results))
    for name, of_target in lines.items():
        for group in _cells(of_target).values():
            _agreed(name, group)


def _per_target(
    results: Results, targets: dict[str, str]
) -> tuple[dict[str, list[ResultLine]], dict[str, list[PropertyLine]]]:
    """Every target's cell lines and property lines, in file order."""
    lines: dict[str, list[ResultLine]] = {name: [] for name in targets}
    props: dict[str, list[PropertyLine]] = {name: [] for name in targets}
    for file in results.files:  # one pass, grouped by target
        for line in file.results:
            lines.setdefault(line.target, []).append(line)
        for prop in file.properties:
            props.setdefault(prop.target, []).append(prop)
    return lines, props


def _cells(lines: list[ResultLine]) -> dict[str, list[ResultLine]]:
    groups: dict[str, list[ResultLine]] = {}
    for line in lines:
        groups.setdefault(line.cell, []).append(line)
    return groups


def _target_report(
    name: str,
    version: str,
    lines: list[ResultLine],
    props: list[PropertyLine],
    meta: MetaLine,
) -> TargetReport:
    rows, firsts = _rows(name, lines)
    cells = [cell for row_cells in rows.values() for cell in row_cells]
    applying = [cell for cell in cells if cell.na is None]
    unsettled = [cell.unsettled for cell in applying]
    properties = _property_reports(props)
    return TargetReport(
        name=name,
        version=version,
        rows=[_row_report(firsts[row], cs, meta) for row, cs in rows.items()],
        totals=Totals(
            cells=len(applying),
            cells_by_status=_count(
                get_args(CellStatus),
                [c.status for c, u in zip(applying, unsettled, strict=True) if not u],
            ),
            checks_by_verdict=_count(get_args(Verdict), [line.verdict for line in lines]),
            cells_by_known=_count(get_args(Known), [c.known for c in cells]),
            conformant_share=(
                sum(c.status == "pass" for c in applying) / len(applying) if applying else 0.0
            ),
            unsettled=sum(unsettled),
            not_applicable=len(cells) - len(applying),
        ),
        compliance=[_compliance(level, cells, properties) for level in LEVELS],
        properties=properties,
        capability=capability_of(lines),
    )


def _rows(
    name: str, lines: list[ResultLine]
) -> tuple[dict[str, list[CellReport]], dict[str, ResultLine]]:
    """A target's cell reports per row, in the order their rows and cells first appear, and
    each row's first line."""
    rows: dict[str, list[CellReport]] = {}
    firsts: dict[str, ResultLine] = {}
    for group in _cells(lines).values():
        rows.setdefault(group[0].row, []).append(_cell_report(name, group))
        firsts.setdefault(group[0].row, group[0])
    return rows, firsts


def _property_reports(props: list[PropertyLine]) -> list[PropertyReport]:
    return [
        PropertyReport(
            name=line.property,
            level=line.level or "required",  # always filled in on load
            verdict=line.verdict,
            row=line.row,
            examples=line.examples,
            detail=line.detail,
            reason=line.reason,
            link=line.link,
        )
        for line in props
    ]


@dataclass(frozen=True)
class TargetCells:
    """A target's cells, as the lines of each, and its properties, in its report's order,
    without the report's figures (`ordered_cells`)."""

    name: str
    version: str
    cells: list[list[ResultLine]]
    """Each cell's lines, in the report's order: per row, per content type, per source and
    style (`cell_report` makes a cell's report of them)."""
    properties: list[PropertyReport]


def ordered_cells(results: Results) -> list[TargetCells]:
    """Every target's cells and properties as `build_report` lists them, without building
    the cells' reports or the figures (totals, compliance, capability, rows' lifecycles):
    what `conformance diff` needs, which builds a cell's report only where the two sides'
    lines differ."""
    check_shards(results)
    targets = targets_of(results)
    lines, props = _per_target(results, targets)
    found: list[TargetCells] = []
    for name, version in targets.items():
        rows: dict[str, list[list[ResultLine]]] = {}
        for group in _cells(lines[name]).values():
            rows.setdefault(group[0].row, []).append(group)
        ordered = [
            group
            for groups in rows.values()
            for _, of_type in _by_content_type(groups, key=_first)
            for group in of_type
        ]
        found.append(TargetCells(name, version, ordered, _property_reports(props[name])))
    return found


def cell_report(target: str, lines: list[ResultLine]) -> CellReport:
    """A cell's report from its checks' lines, as `build_report` makes it; `ReportError` where
    they disagree."""
    return _cell_report(target, lines)


def check_cell(target: str, lines: list[ResultLine]) -> None:
    """The `ReportError` `build_report` raises where a cell's checks disagree, if any."""
    _agreed(target, lines)


def _first(group: list[ResultLine]) -> ResultLine:
    return group[0]


def _compliance(
    level: Level, cells: list[CellReport], properties: list[PropertyReport]
) -> LevelCompliance:
    of_cells = [c for c in cells if level in c.levels]
    applying = [c for c in of_cells if c.na is None]
    statuses = [c.levels[level] for c in applying]
    unsettled = [_unsettled_at(c, level) for c in applying]
    of_level = [p for p in properties if p.level == level]
    return LevelCompliance(
        level=level,
        cells=len(statuses),
        cells_by_status=_count(
            get_args(CellStatus),
            [s for s, u in zip(statuses, unsettled, strict=True) if not u],
        ),
        conformant_share=statuses.count("pass") / len(statuses) if statuses else 0.0,
        properties=len(of_level),
        properties_held=sum(p.verdict == "pass" for p in of_level),
        unsettled=sum(unsettled),
        not_applicable=len(of_cells) - len(applying),
    )


def _unsettled_at(cell: CellReport, level: Level) -> bool:
    """The cell fails at `level` only where the matrix itself is unsure of the expectation."""
    return any(k.level == level and is_unsettled(cell.known, k.verdict) for k in cell.checks)


_ORDER = [(source, style) for source in _SOURCES for style in _STYLES]


_C = TypeVar("_C")


def _itself(value: object) -> object:
    return value


def _by_content_type(
    cells: list[_C], key: Callable[[_C], CellReport | ResultLine] | None = None
) -> list[tuple[ContentType, list[_C]]]:
    """A row's cells per content type (the vocabulary's order), each by source and style;
    `key` gives the report or line that says a cell's content type, source and style."""
    of = key or cast("Callable[[_C], CellReport]", _itself)
    return [
        (ct, sorted(of_ct, key=lambda c: _ORDER.index((of(c).source, of(c).style))))
        for ct in _CONTENT_TYPES
        if (of_ct := [c for c in cells if of(c).content_type == ct])
    ]


def _row_report(first: ResultLine, cells: list[CellReport], meta: MetaLine) -> RowReport:
    lifecycle = meta.lifecycle.get(first.row)
    status = (
        None
        if lifecycle is None or meta.as_of is None
        else status_on(lifecycle.deprecated, lifecycle.shutdown, meta.as_of)
    )
    return RowReport(
        lifecycle=lifecycle,
        status=status,
        id=first.row,
        api=first.api,
        model=first.model,
        content_types=[
            ContentTypeCells(content_type=ct, cells=of_ct) for ct, of_ct in _by_content_type(cells)
        ],
    )


def _count(keys: tuple[Any, ...], values: list[Any]) -> dict[Any, int]:
    return {key: values.count(key) for key in keys}


_SHARED = ("api", "model", "expect", "known", "cite")
"""What every check of a cell says alike."""
_shared = attrgetter(*_SHARED)
_of_check = itemgetter("check", "level", "verdict", "detail", "reason", "link")
"""A line's own fields, from its `__dict__`, in one call."""
_CHECK_FIELDS = set(CheckReport.model_fields)
_CELL_FIELDS = set(CellReport.model_fields)


def _agreed(
    target: str, group: list[ResultLine]
) -> tuple[Outcome | None, Live | None, NotApplicable | None]:
    """What a cell's checks say alike (its outcome, its live record, its n/a), or the
    `ReportError` naming where they disagree: what every check of one cell must share."""
    first = group[0]
    shared = _shared(first)
    outcomes: list[Outcome] = []
    live: list[Live] = []
    na: NotApplicable | None = None
    for line in group:
        if line is not first and _shared(line) != shared:
            _disagree(target, first, line)
        outcome, seen, na_ = _agreeing(line.__dict__)
        na = na or na_
        if outcome is not None and outcome not in outcomes:
            outcomes.append(outcome)
        if seen is not None and seen not in live:
            live.append(seen)
    if len(outcomes) > 1:
        raise ReportError(
            f"target {target!r}, cell {first.cell!r}: checks observed different outcomes"
            f" {outcomes!r}"
        )
    if len(live) > 1:
        raise ReportError(f"target {target!r}, cell {first.cell!r}: checks disagree on live")
    return (outcomes[0] if outcomes else None), (live[0] if live else None), na


_agreeing = itemgetter("outcome", "live", "na")


def _cell_report(target: str, group: list[ResultLine]) -> CellReport:
    """The cell's report, from its checks' lines (`_agreed` first, then one pass).

    The lines are validated already (`load_results`) and every value below is one of theirs
    or computed here, so the report's models are assembled without validating them again
    (`construct_trusted`): 17,000 cells and 100,000 checks validated once more cost more than
    the rest of the report (docs/performance.md; tests/test_results_fast.py re-validates
    them)."""
    first = group[0]
    outcome, live, na = _agreed(target, group)
    checks: list[CheckReport] = []
    verdicts: dict[Level, set[Verdict]] = {}
    for line in group:
        check, level, verdict, detail, reason, link = _of_check(line.__dict__)
        level = level or "reference"  # always filled in on load
        values = {
            "check": check,
            "level": level,
            "verdict": verdict,
            "detail": detail,
            "reason": reason,
            "link": link,
        }
        checks.append(construct_trusted(CheckReport, values, _CHECK_FIELDS))
        if level in verdicts:
            verdicts[level].add(verdict)
        else:
            verdicts[level] = {verdict}
    every = set[Verdict]().union(*verdicts.values())
    return construct_trusted(
        CellReport,
        {
            "id": first.cell,
            "content_type": first.content_type,
            "source": first.source,
            "style": first.style,
            "status": _status(every),
            "outcome": outcome,
            "expect": first.expect,
            "known": first.known,
            "cite": first.cite,
            "checks": checks,
            "levels": {level: _status(verdicts[level]) for level in LEVELS if level in verdicts},
            "live": live,
            "na": na,
        },
        _CELL_FIELDS,
    )


def _disagree(target: str, first: ResultLine, line: ResultLine) -> NoReturn:
    for field in _SHARED:
        if (value := getattr(line, field)) != getattr(first, field):
            raise ReportError(
                f"target {target!r}, cell {first.cell!r}: checks disagree on {field}"
                f" ({getattr(first, field)!r} vs {value!r})"
            )
    raise AssertionError("the lines agree")  # pragma: no cover - called on a disagreement


def _status(verdicts: set[Verdict]) -> CellStatus:
    if verdicts & {"fail", "xpass"}:
        return "fail"
    if "xfail" in verdicts:
        return "xfail"
    return "skip" if "skip" in verdicts else "pass"
