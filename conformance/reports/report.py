"""Turn results files into a report: a data model, and its Markdown view.

The report is data first: `Report` is a pydantic model, `Report.model_dump_json(indent=2)` is
the JSON view, and `render_markdown` (here), `render_html` (`conformance.reports.html`) and `badges`
(here) are renderings of the same model. Reading results files is `conformance.reports.results`.
"""

from __future__ import annotations

import os
import re
from datetime import date as Date
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Literal, NoReturn, get_args

from pydantic import AwareDatetime, BaseModel, ConfigDict

from conformance.history import ContentType
from conformance.judging.levels import LEVELS, RATIONALE, Level
from conformance.matrix.lifecycle import Status, status_on
from conformance.reports.layers import layer_lines, merged_layers
from conformance.reports.results import (
    CellStatus,
    EndLine,
    Expect,
    Known,
    Live,
    MetaLine,
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
    from collections.abc import Sequence

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
    "TargetReport",
    "Totals",
    "Verdict",
    "badges",
    "build_report",
    "level_words",
    "load_results",
    "md_code",
    "md_text",
    "render_markdown",
    "short_digest",
    "write_report",
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
    cells_by_status: dict[CellStatus, int]
    checks_by_verdict: dict[Verdict, int]
    cells_by_known: dict[Known, int]
    """Where each cell's expectation comes from."""
    conformant_share: float
    """Cells with status pass / all cells (0.0 when there are none)."""


class LevelCompliance(_Model):
    """How many of a target's cells keep every rule of one level, and the properties of it."""

    level: Level
    cells: int
    """Cells with at least one check of this level."""
    cells_by_status: dict[CellStatus, int]
    """Over this level's checks alone (see `CellReport.levels`)."""
    conformant_share: float
    """Cells with status pass at this level / cells (0.0 when there are none)."""
    properties: int
    properties_held: int
    """Properties of this level that passed (a declared failure is not held)."""


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


# ---- building the report ----------------------------------------------------------------


def build_report(results: Results) -> Report:
    """Group the results per target, row, content type and cell, and count them."""
    check_shards(results)
    meta = results.files[0].meta
    targets = targets_of(results)
    lines: dict[str, list[ResultLine]] = {name: [] for name in targets}
    props: dict[str, list[PropertyLine]] = {name: [] for name in targets}
    for file in results.files:  # one pass, grouped by target
        for line in file.results:
            lines.setdefault(line.target, []).append(line)
        for prop in file.properties:
            props.setdefault(prop.target, []).append(prop)
    return Report(
        suite_version=meta.suite_version,
        matrix=meta.matrix,
        matrix_digest=meta.matrix_digest,
        python=meta.python,
        date=max(file.meta.date for file in results.files),
        targets=[
            _target_report(
                name,
                version,
                lines[name],
                props[name],
                meta,
            )
            for name, version in targets.items()
        ],
        as_of=meta.as_of,
        layers=merged_layers([file.meta.layers for file in results.files]),
    )


def _target_report(
    name: str,
    version: str,
    lines: list[ResultLine],
    props: list[PropertyLine],
    meta: MetaLine,
) -> TargetReport:
    groups: dict[str, list[ResultLine]] = {}
    for line in lines:
        groups.setdefault(line.cell, []).append(line)
    rows: dict[str, list[CellReport]] = {}
    firsts: dict[str, ResultLine] = {}
    for group in groups.values():
        rows.setdefault(group[0].row, []).append(_cell_report(name, group))
        firsts.setdefault(group[0].row, group[0])
    cells = [cell for row_cells in rows.values() for cell in row_cells]
    properties = [
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
    return TargetReport(
        name=name,
        version=version,
        rows=[_row_report(firsts[row], cs, meta) for row, cs in rows.items()],
        totals=Totals(
            cells=len(cells),
            cells_by_status=_count(get_args(CellStatus), [c.status for c in cells]),
            checks_by_verdict=_count(get_args(Verdict), [line.verdict for line in lines]),
            cells_by_known=_count(get_args(Known), [c.known for c in cells]),
            conformant_share=(
                sum(c.status == "pass" for c in cells) / len(cells) if cells else 0.0
            ),
        ),
        compliance=[_compliance(level, cells, properties) for level in LEVELS],
        properties=properties,
    )


def _compliance(
    level: Level, cells: list[CellReport], properties: list[PropertyReport]
) -> LevelCompliance:
    statuses = [c.levels[level] for c in cells if level in c.levels]
    of_level = [p for p in properties if p.level == level]
    return LevelCompliance(
        level=level,
        cells=len(statuses),
        cells_by_status=_count(get_args(CellStatus), statuses),
        conformant_share=statuses.count("pass") / len(statuses) if statuses else 0.0,
        properties=len(of_level),
        properties_held=sum(p.verdict == "pass" for p in of_level),
    )


def _row_report(first: ResultLine, cells: list[CellReport], meta: MetaLine) -> RowReport:
    order = [(source, style) for source in _SOURCES for style in _STYLES]
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
            ContentTypeCells(
                content_type=ct,
                cells=sorted(of_ct, key=lambda c: order.index((c.source, c.style))),
            )
            for ct in _CONTENT_TYPES
            if (of_ct := [c for c in cells if c.content_type == ct])
        ],
    )


def _count(keys: tuple[Any, ...], values: list[Any]) -> dict[Any, int]:
    return {key: values.count(key) for key in keys}


_SHARED = ("api", "model", "expect", "known", "cite")
"""What every check of a cell says alike."""
_shared = attrgetter(*_SHARED)
_of_check = itemgetter("check", "level", "verdict", "detail", "reason", "link", "outcome", "live")
"""A line's own fields, from its `__dict__`, in one call."""
_CHECK_FIELDS = set(CheckReport.model_fields)
_CELL_FIELDS = set(CellReport.model_fields)


def _cell_report(target: str, group: list[ResultLine]) -> CellReport:
    """The cell's report, from its checks' lines, in one pass over them.

    The lines are validated already (`load_results`) and every value below is one of theirs
    or computed here, so the report's models are assembled without validating them again
    (`construct_trusted`): 17,000 cells and 100,000 checks validated once more cost more than
    the rest of the report (docs/performance.md; tests/test_results_fast.py re-validates
    them)."""
    first = group[0]
    shared = _shared(first)
    outcomes: list[Outcome] = []
    live: list[Live] = []
    checks: list[CheckReport] = []
    verdicts: dict[Level, set[Verdict]] = {}
    for line in group:
        if line is not first and _shared(line) != shared:
            _disagree(target, first, line)
        check, level, verdict, detail, reason, link, outcome, seen = _of_check(line.__dict__)
        if outcome is not None and outcome not in outcomes:
            outcomes.append(outcome)
        if seen is not None and seen not in live:
            live.append(seen)
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
    if len(outcomes) > 1:
        raise ReportError(
            f"target {target!r}, cell {first.cell!r}: checks observed different outcomes"
            f" {outcomes!r}"
        )
    if len(live) > 1:
        raise ReportError(f"target {target!r}, cell {first.cell!r}: checks disagree on live")
    every = set[Verdict]().union(*verdicts.values())
    return construct_trusted(
        CellReport,
        {
            "id": first.cell,
            "content_type": first.content_type,
            "source": first.source,
            "style": first.style,
            "status": _status(every),
            "outcome": outcomes[0] if outcomes else None,
            "expect": first.expect,
            "known": first.known,
            "cite": first.cite,
            "checks": checks,
            "levels": {level: _status(verdicts[level]) for level in LEVELS if level in verdicts},
            "live": live[0] if live else None,
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


# ---- Markdown ---------------------------------------------------------------------------

_BY_OUTCOME: dict[str, str] = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_BY_EXPECT: dict[Expect, str] = {
    "native": "✅",
    "fallback": "↪️",
    "unsupported": "🚫",
    "refuse-or-download": "🚫",
}
_LEGEND = (
    "Legend: ✅ native · ↪️ fallback with marker · 🚫 raised as expected (unsupported)"
    " · ❌ failure · ⚠️ known deviation · ⏭️ skipped · – no such cell"
)


_LIFECYCLE_MARK: dict[str, str] = {"near-shutdown": " ⏳", "past-shutdown": " ⛔"}
"""After a row's id: its model shuts down within 60 days of the matrix's as_of, or has."""


def _render_lifecycle(report: Report) -> list[str]:
    """A line per row whose model is near or past its shutdown on the matrix's `as_of`."""
    seen: dict[str, RowReport] = {}
    for target in report.targets:
        for row in target.rows:
            if row.status in _LIFECYCLE_MARK and row.id not in seen:
                seen[row.id] = row
    if not seen or report.as_of is None:
        return []
    out = ["", f"Model lifecycle on {report.as_of.isoformat()}:"]
    for row in seen.values():
        assert row.lifecycle is not None
        assert row.lifecycle.shutdown is not None
        shutdown = row.lifecycle.shutdown.isoformat()
        if row.status == "past-shutdown":
            out.append(f"- ⛔ {md_text(row.id)} ({md_code(row.model)}) shut down on {shutdown}")
        else:
            out.append(f"- ⏳ {md_text(row.id)} ({md_code(row.model)}) shuts down on {shutdown}")
    return out


SDK_SCHEMA = "sdk-schema"
"""The check that validates a payload with the official SDK's request types."""


def render_markdown(report: Report) -> str:
    """The report as GitHub-flavoured Markdown; the same report gives the same bytes."""
    out = [
        "# Tool-result conformance report",
        "",
        f"Suite {md_text(report.suite_version)} · matrix {md_code(report.matrix)}"
        f" ({md_code(short_digest(report.matrix_digest))}) · run {report.date.isoformat()}"
        f" · Python {md_text(report.python)}"
        + (f" · matrix as of {report.as_of.isoformat()}" if report.as_of else ""),
    ]
    out += _render_lifecycle(report)
    for target in report.targets:
        out += ["", f"## {md_text(target.name)} {md_text(target.version)}", ""]
        out += layer_lines(target.name, target.version, report.layers.get(target.name, {}))
        if not target.rows and not target.properties:
            out.append("No results for this target.")
            continue
        cells = [c for row in target.rows for ct in row.content_types for c in ct.cells]
        out += _render_compliance(target)
        out += [_LEGEND, *_render_tables(target.rows, cells), *_render_totals(target.totals)]
        out += _render_properties(target.properties)
        out += _render_findings(cells)
    return "\n".join(out) + "\n"


def level_words(compliance: LevelCompliance) -> str:
    """`118 of 120 cells (98.3%)`, with the properties held when any were searched."""
    if not compliance.cells:
        words = "no cells"
    else:
        passed = compliance.cells_by_status["pass"]
        words = f"{passed} of {compliance.cells} cells ({compliance.conformant_share:.1%})"
    if compliance.properties:
        words += f" · properties {compliance.properties_held} of {compliance.properties} held"
    return words


def _render_compliance(target: TargetReport) -> list[str]:
    """A line per level: the cells that keep all of its rules, and what breaks the rest."""
    out = [
        "### Compliance per level",
        "",
        "| level | conformant | known deviations | failures | skipped | what it protects |",
        "|---|---|---|---|---|---|",
    ]
    for compliance in target.compliance:
        by = compliance.cells_by_status
        out.append(
            f"| {compliance.level} | {md_text(level_words(compliance))} | {by['xfail']}"
            f" | {by['fail']} | {by['skip']} | {md_text(RATIONALE[compliance.level])} |"
        )
    return [*out, ""]


_PROPERTY_GLYPHS: dict[Verdict, str] = {
    "pass": "✅",
    "fail": "❌",
    "xfail": "⚠️",
    "xpass": "❗",
    "skip": "⏭️",
}


def _render_properties(properties: list[PropertyReport]) -> list[str]:
    """The properties searched on the target: one line each, a failure with its counterexample."""
    if not properties:
        return []
    out = ["", "### Properties", ""]
    for prop in properties:
        head = (
            f"- {_PROPERTY_GLYPHS[prop.verdict]} {md_code(prop.name)} ({prop.level})"
            f" · {prop.verdict} · {prop.examples} histories"
        )
        if prop.row:
            head += f" · row {md_code(prop.row)}"
        if prop.reason or prop.link:
            head += f" · known deviation{_why_of(prop.reason, prop.link)}"
        out.append(head)
        if prop.verdict in ("fail", "xfail", "skip"):
            out += _block(prop.detail)
    return out


def _render_tables(rows: list[RowReport], cells: list[CellReport]) -> list[str]:
    """One table per (source, style): a line per model row, a column per content type, and,
    where the run checked payloads against the official SDKs, a column counting those."""
    with_sdk = any(k.check == SDK_SCHEMA for c in cells for k in c.checks)
    out: list[str] = []
    for source in _SOURCES:
        for style in _STYLES:
            table = [c for c in cells if (c.source, c.style) == (source, style)]
            present = {c.content_type for c in table}
            columns = [ct for ct in _CONTENT_TYPES if ct in present]
            lines: list[str] = []
            for row in rows:
                by_ct = {
                    c.content_type: c
                    for ct in row.content_types
                    for c in ct.cells
                    if (c.source, c.style) == (source, style)
                }
                if by_ct:
                    glyphs = [_glyph(by_ct[ct]) if ct in by_ct else "–" for ct in columns]
                    if with_sdk:
                        glyphs.append(_sdk_count(list(by_ct.values())))
                    label = md_text(row.id) + _LIFECYCLE_MARK.get(row.status or "active", "")
                    lines.append("| " + " | ".join([label, *glyphs]) + " |")
            if lines:
                heads = [*columns, "sdk schema"] if with_sdk else columns
                header = "| row (api/model) | " + " | ".join(heads) + " |"
                rule = "|" + "---|" * (len(heads) + 1)
                out += ["", f"### {source} · {style}", "", header, rule, *lines]
    return out


def _sdk_count(cells: list[CellReport]) -> str:
    """`✅ 4/4` when every checked payload validates against its SDK, `❌ 3/4` otherwise."""
    verdicts = [k.verdict for c in cells for k in c.checks if k.check == SDK_SCHEMA]
    if not verdicts:
        return "–"
    passed = verdicts.count("pass")
    return f"{'✅' if passed == len(verdicts) else '❌'} {passed}/{len(verdicts)}"


def _render_totals(totals: Totals) -> list[str]:
    known = " · ".join(f"{k} {n}" for k, n in totals.cells_by_known.items())
    statuses = " · ".join(f"{s} {n}" for s, n in totals.cells_by_status.items())
    verdicts = " · ".join(f"{v} {n}" for v, n in totals.checks_by_verdict.items())
    conformant = totals.cells_by_status["pass"]
    return [
        "",
        f"Where each cell's expectation comes from: {known}",
        "",
        f"- Cells: {totals.cells} ({statuses}); conformant: {conformant} of {totals.cells}"
        f" ({totals.conformant_share:.1%})",
        f"- Checks: {sum(totals.checks_by_verdict.values())} ({verdicts})",
    ]


def _render_findings(cells: list[CellReport]) -> list[str]:
    """Failures (fail, xpass) with their detail, known deviations, and skips with why."""
    found = [(cell, check) for cell in cells for check in cell.checks]
    out = ["", "### Failures", ""]
    failures = [(c, k) for c, k in found if k.verdict in ("fail", "xpass")]
    for cell, check in failures:
        out.append(
            f"- {md_code(cell.id)} · {md_code(check.check)} ({check.level})"
            f" · outcome {_words(cell.outcome)}"
        )
        if check.verdict == "xpass":
            out[-1] += f" · xpass: the declared deviation no longer happens{_why(check)}"
        out += _block(check.detail)
    if not failures:
        out.append("No failures.")
    deviations = [(c, k) for c, k in found if k.verdict == "xfail"]
    if deviations:
        out += ["", "### Known deviations", ""]
    for cell, check in deviations:
        out.append(
            f"- {md_code(cell.id)} · {md_code(check.check)} ({check.level})"
            f" · outcome {_words(cell.outcome)}{_why(check)}"
        )
    skips = [(c, k) for c, k in found if k.verdict == "skip"]
    if skips:
        out += ["", "### Skipped", ""]
    for cell, check in skips:
        out.append(f"- {md_code(cell.id)} · {md_code(check.check)}: {md_text(check.detail)}")
    return out


def _glyph(cell: CellReport) -> str:
    if cell.status == "fail":
        return f"❌ {_words(cell.outcome)}"
    if cell.status == "xfail":
        return f"⚠️ {_words(cell.outcome)}"
    if cell.status == "skip":
        return "⏭️"
    return _BY_OUTCOME.get(cell.outcome or "", _BY_EXPECT[cell.expect])


def _words(outcome: Outcome | None) -> str:
    return outcome or "not observed"


def _why(check: CheckReport) -> str:
    return _why_of(check.reason, check.link)


def _why_of(reason: str | None, link: str | None) -> str:
    return (f": {md_text(reason)}" if reason else "") + (f" ({md_text(link)})" if link else "")


_BREAK = re.compile(r"\r\n|\r|\n")


_MD_ESCAPES: dict[str, str] = {
    "\\": "\\\\",
    "|": "\\|",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "[": "\\[",
    "]": "\\]",
    "`": "\\`",
}
_MD_SPECIAL = re.compile(r"[\\|&<>\[\]`]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029]")


def md_text(text: str) -> str:
    """Text safe inside a table cell, a heading or a list item, whoever wrote it: no HTML
    (`<`, `>`, `&` as entities), no link, image or code span (`[`, `]`, backticks escaped),
    pipes escaped, line breaks as <br>, other control characters as U+FFFD."""
    escaped = _MD_SPECIAL.sub(lambda m: _MD_ESCAPES[m.group()], text)
    return _BREAK.sub("<br>", _CONTROL.sub("\ufffd", escaped))


def md_code(text: str) -> str:
    """A code span for an id, whatever backticks it holds (not for table cells)."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{_BREAK.sub(' ', text)}{pad}{fence}"


def _block(detail: str) -> list[str]:
    """A detail, verbatim, in a fenced block indented under its list item."""
    if not detail:
        return []
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", detail)), default=0) + 1)
    body = [f"  {line}" if line else "" for line in _BREAK.split(detail)]
    return ["", f"  {fence}text", *body, f"  {fence}"]


def short_digest(digest: str) -> str:
    """`sha256:` and the first 12 hex digits: enough to tell two matrices apart."""
    algorithm, _, value = digest.rpartition(":")
    return f"{algorithm}:{value[:12]}" if algorithm else value[:12]


def write_report(paths: Sequence[str | os.PathLike[str]], fmt: Literal["md", "json"]) -> str:
    """Load results files and render the report as Markdown or JSON."""
    report = build_report(load_results(paths))
    return render_markdown(report) if fmt == "md" else report.model_dump_json(indent=2)


# ---- badges -----------------------------------------------------------------------------

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
    flat = _CONTROL.sub("", _BREAK.sub(" ", text))
    return flat if len(flat) <= 60 else flat[:59] + "…"


def badges(report: Report) -> dict[str, dict[str, str | int]]:
    """shields.io endpoint badges, keyed by file name: per target, `<target>.json` (cells that
    pass every check) and `<target>-<level>.json` for each level with cells (cells that keep
    every rule of that level, e.g. `required 118/120`)."""
    out: dict[str, dict[str, str | int]] = {}
    owners: dict[str, str] = {}
    for target in report.targets:
        stem = _UNSAFE.sub("-", target.name).strip(".")
        totals = target.totals
        wanted: list[tuple[str, str, int, int, float]] = [
            (
                f"{stem}.json",
                f"{_badge_text(target.name)} conformance",
                totals.cells_by_status["pass"],
                totals.cells,
                totals.conformant_share,
            )
        ]
        wanted += [
            (
                f"{stem}-{c.level}.json",
                f"{_badge_text(target.name)}: {c.level} rules",
                c.cells_by_status["pass"],
                c.cells,
                c.conformant_share,
            )
            for c in target.compliance
            if c.cells
        ]
        for name, label, passed, cells, share in wanted:
            if name in owners:
                raise ReportError(f"targets {owners[name]!r} and {target.name!r} share {name}")
            owners[name] = target.name
            colour = next(c for floor, c in _BADGE_COLOURS if share >= floor)
            out[name] = {
                "schemaVersion": 1,
                "label": label,
                "message": f"{passed}/{cells} cells" if cells else "no cells",
                "color": colour if cells else "lightgrey",
            }
    return out
