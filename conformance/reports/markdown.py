"""The report as Markdown: a section per target, a grid per source and style, findings worst
first (`render_markdown`); the escaping every Markdown view shares (`md_text`, `md_code`)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal, get_args

from conformance.history import ContentType
from conformance.judging.levels import RATIONALE
from conformance.reports.figures import (
    SETTLE,
    capability_words,
    is_unsettled,
)
from conformance.reports.layers import layer_lines
from conformance.reports.report import (
    CellReport,
    CheckReport,
    LevelCompliance,
    PropertyReport,
    Report,
    RowReport,
    TargetReport,
    Totals,
    build_report,
    variant_note,
)
from conformance.reports.results import (
    Expect,
    Outcome,
    Source,
    Style,
    Verdict,
    load_results,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "BREAK",
    "CONTROL",
    "SDK_SCHEMA",
    "level_words",
    "md_code",
    "md_text",
    "render_markdown",
    "short_digest",
    "write_report",
]

_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
_SOURCES: tuple[Source, ...] = get_args(Source)
_STYLES: tuple[Style, ...] = get_args(Style)


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
    " · ❌ failure · ❔ failure on an unsettled cell (its expectation is uncertain)"
    " · ⚠️ known deviation · ⏭️ skipped · n/a not applicable to the target · – no such cell"
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
        if (note := variant_note(report, target.name)) is not None:
            out += [md_text(note), ""]
        out += layer_lines(target.name, target.version, report.layers.get(target.name, {}))
        if not target.rows and not target.properties:
            out.append("No results for this target.")
            continue
        cells = [c for row in target.rows for ct in row.content_types for c in ct.cells]
        out += _render_compliance(target)
        if target.capability is not None:
            out += [f"Capability: {md_text(capability_words(target.capability))}.", ""]
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
    if compliance.unsettled:
        words += f" · {compliance.unsettled} unsettled"
    if compliance.not_applicable:
        words += f" · {compliance.not_applicable} n/a"
    if compliance.properties:
        words += f" · properties {compliance.properties_held} of {compliance.properties} held"
    return words


def _render_compliance(target: TargetReport) -> list[str]:
    """A line per level: the cells that keep all of its rules, and what breaks the rest."""
    out = [
        "### Compliance per level",
        "",
        "| level | conformant | known deviations | failures | unsettled | skipped | n/a"
        " | what it protects |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for compliance in target.compliance:
        by = compliance.cells_by_status
        out.append(
            f"| {compliance.level} | {md_text(level_words(compliance))} | {by['xfail']}"
            f" | {by['fail']} | {compliance.unsettled} | {by['skip']}"
            f" | {compliance.not_applicable} | {md_text(RATIONALE[compliance.level])} |"
        )
    out.append("")
    if any(c.unsettled for c in target.compliance):
        out += [
            "Unsettled: failures on cells whose expectation the matrix marks uncertain;"
            f" {SETTLE} says which live recording settles each.",
            "",
        ]
    return out


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
    apart = f" · unsettled {totals.unsettled}" if totals.unsettled else ""
    if totals.not_applicable:
        apart += f"; {totals.not_applicable} more not applicable"
    return [
        "",
        f"Where each cell's expectation comes from: {known}",
        "",
        f"- Cells: {totals.cells} ({statuses}{apart}); conformant: {conformant} of"
        f" {totals.cells} ({totals.conformant_share:.1%})",
        f"- Checks: {sum(totals.checks_by_verdict.values())} ({verdicts})",
    ]


def _render_findings(cells: list[CellReport]) -> list[str]:
    """Failures (fail, xpass) with their detail, known deviations, and skips with why."""
    found = [(cell, check) for cell in cells for check in cell.checks]
    out = ["", "### Failures", ""]
    failing = [(c, k) for c, k in found if k.verdict in ("fail", "xpass")]
    failures = [(c, k) for c, k in failing if not is_unsettled(c.known, k.verdict)]
    unsettled = [(c, k) for c, k in failing if is_unsettled(c.known, k.verdict)]
    for title, listed in (("", failures), ("Unsettled failures", unsettled)):
        if title and listed:
            out += [
                "",
                f"### {title}",
                "",
                "The matrix marks these cells' expectation uncertain: each failure rests on a"
                f" guess until a live recording settles it ({SETTLE}).",
                "",
            ]
        for cell, check in listed:
            out.append(
                f"- {md_code(cell.id)} · {md_code(check.check)} ({check.level})"
                f" · outcome {_words(cell.outcome)}"
            )
            if check.verdict == "xpass":
                out[-1] += f" · xpass: the declared deviation no longer happens{_why(check)}"
            out += _block(check.detail)
        if not title and not listed:
            out.append("No failures." if not unsettled else "No settled failures.")
    deviations = [(c, k) for c, k in found if k.verdict == "xfail"]
    if deviations:
        out += ["", "### Known deviations", ""]
    for cell, check in deviations:
        out.append(
            f"- {md_code(cell.id)} · {md_code(check.check)} ({check.level})"
            f" · outcome {_words(cell.outcome)}{_why(check)}"
        )
    skips = [(c, k) for c, k in found if k.verdict == "skip" and c.na is None]
    if skips:
        out += ["", "### Skipped", ""]
    for cell, check in skips:
        out.append(f"- {md_code(cell.id)} · {md_code(check.check)}: {md_text(check.detail)}")
    not_applicable = [c for c in cells if c.na is not None]
    if not_applicable:
        out += ["", "### Not applicable", ""]
    for cell in not_applicable:
        why = cell.checks[0].detail if cell.checks else ""
        kind = "declared" if cell.na == "declared" else "a row the target cannot serve"
        out.append(f"- {md_code(cell.id)} ({kind}): {md_text(why)}")
    return out


def _glyph(cell: CellReport) -> str:
    if cell.na is not None:
        return "n/a"
    if cell.status == "fail":
        return f"{'❔' if cell.unsettled else '❌'} {_words(cell.outcome)}"
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


BREAK = re.compile(r"\r\n|\r|\n")


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
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u2028\u2029]")


def md_text(text: str) -> str:
    """Text safe inside a table cell, a heading or a list item, whoever wrote it: no HTML
    (`<`, `>`, `&` as entities), no link, image or code span (`[`, `]`, backticks escaped),
    pipes escaped, line breaks as <br>, other control characters as U+FFFD."""
    escaped = _MD_SPECIAL.sub(lambda m: _MD_ESCAPES[m.group()], text)
    return BREAK.sub("<br>", CONTROL.sub("\ufffd", escaped))


def md_code(text: str) -> str:
    """A code span for an id, whatever backticks it holds (not for table cells)."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{BREAK.sub(' ', text)}{pad}{fence}"


def _block(detail: str) -> list[str]:
    """A detail, verbatim, in a fenced block indented under its list item."""
    if not detail:
        return []
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", detail)), default=0) + 1)
    body = [f"  {line}" if line else "" for line in BREAK.split(detail)]
    return ["", f"  {fence}text", *body, f"  {fence}"]


def short_digest(digest: str) -> str:
    """`sha256:` and the first 12 hex digits: enough to tell two matrices apart."""
    algorithm, _, value = digest.rpartition(":")
    return f"{algorithm}:{value[:12]}" if algorithm else value[:12]


def write_report(paths: Sequence[str | os.PathLike[str]], fmt: Literal["md", "json"]) -> str:
    """Load results files and render the report as Markdown or JSON."""
    report = build_report(load_results(paths))
    return render_markdown(report) if fmt == "md" else report.model_dump_json(indent=2)
