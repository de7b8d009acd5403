"""The report as one self-contained HTML page: a grid per target, filters, and cell details.

Everything is inline (style and script, no fonts, images or requests), so the file opens from
disk or as a CI artifact with no network. Each target is a table of model rows by content
types, targets side by side; each cell is a button showing its status by colour, glyph and
word, and opens a dialog with everything known about the cell: expectation and citation,
observed outcome, every check with its verdict and detail, the payload from its snapshot,
the declared deviation, and what a live API said. Every text from the results, the matrix
or a snapshot is escaped. The same report and files give the same bytes.
"""

from __future__ import annotations

import contextlib
import json
from html import escape
from typing import TYPE_CHECKING, NamedTuple, get_args

from conformance.history import ContentType
from conformance.judging.levels import LEVELS, RATIONALE
from conformance.paths import is_safe_name
from conformance.reports.figures import capability_words
from conformance.reports.markdown import level_words, short_digest
from conformance.reports.report import (
    CellReport,
    PropertyReport,
    Report,
    RowReport,
    TargetReport,
    variant_note,
)
from conformance.reports.results import Source, Style

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = [
    "BASE_CSS",
    "Citation",
    "checks_table",
    "esc",
    "link",
    "render_html",
    "repro_command",
]

PAYLOAD_LIMIT = 100_000
"""Characters of a snapshot shown in a cell's details; the rest is cut, with a note."""


class Citation(NamedTuple):
    """Where a cell's expectation comes from (from matrix.yaml's `citations`)."""

    url: str
    says: str


_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
_OUTCOME_GLYPHS = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_EXPECT_GLYPHS = {
    "native": "✅",
    "fallback": "↪️",
    "unsupported": "🚫",
    "refuse-or-download": "🚫",
}
_STATUS_GLYPHS = {"fail": "❌", "xfail": "⚠️", "skip": "⏭️"}
_VERDICT_GLYPHS = {"pass": "✅", "fail": "❌", "xfail": "⚠️", "xpass": "❗", "skip": "⏭️"}


def repro_command(cell: str, target: str) -> str:
    """The command that writes a cell's standalone reproducer (`conformance repro`)."""
    name = cell.replace("/", "_") + ".py"
    return f"conformance repro {cell} --target {target} -o {name}"


def esc(text: str) -> str:
    """Text escaped for HTML content and attribute values."""
    return escape(text, quote=True)


_e = esc


def render_html(
    report: Report,
    *,
    snapshots: Path | None = None,
    citations: Mapping[str, Citation] | None = None,
) -> str:
    """The whole page.

    `snapshots` is the folder of payload snapshots (`<target>/<api>/<family>.<content type>.
    <source>.<style>.json` under it); `citations` adds each citation's URL and words.
    """
    page = _Page(snapshots, citations or {})
    sections = [page.target(target, variant_note(report, target.name)) for target in report.targets]
    cells = [c for t in report.targets for r in t.rows for ct in r.content_types for c in ct.cells]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>Tool-result conformance report</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<header>",
            "<h1>Tool-result conformance report</h1>",
            f'<p class="meta">Suite {_e(report.suite_version)} · matrix'
            f" <code>{_e(report.matrix)}</code> (<code>{_e(short_digest(report.matrix_digest))}"
            f"</code>) · run {_e(report.date.isoformat())} · Python {_e(report.python)}"
            + (f" · matrix as of {_e(report.as_of.isoformat())}" if report.as_of else "")
            + "</p>",
            "</header>",
            _filters(cells),
            f'<p class="legend">{_LEGEND}</p>',
            "<noscript><p>The filters and the cell details need JavaScript; report.json holds"
            " the same data.</p></noscript>",
            '<main class="targets">',
            *sections,
            "</main>",
            *page.dialogs,
            f"<script>{_JS}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _lifecycle_mark(row: RowReport) -> str:
    """A badge on a row whose model is near or past its shutdown on the matrix's as_of."""
    if row.lifecycle is None or row.lifecycle.shutdown is None:
        return ""
    day = _e(row.lifecycle.shutdown.isoformat())
    if row.status == "past-shutdown":
        return f'<span class="lifecycle past" title="shut down on {day}">⛔ shut down {day}</span>'
    if row.status == "near-shutdown":
        return (
            f'<span class="lifecycle near" title="shuts down on {day}">⏳ shuts down {day}</span>'
        )
    return ""


def _filters(cells: list[CellReport]) -> str:
    out = ['<form class="filters" id="filters" aria-label="Show cells of">']
    groups: list[tuple[str, tuple[str, ...]]] = [
        ("source", get_args(Source)),
        ("style", get_args(Style)),
    ]
    for name, values in groups:
        present = [v for v in values if any(getattr(c, name) == v for c in cells)]
        out.append(f"<fieldset><legend>{name.capitalize()}</legend>")
        for value in ["all", *present]:
            checked = " checked" if value == "all" else ""
            out.append(
                f'<label><input type="radio" name="{name}" value="{value}"{checked}>'
                f" {value}</label>"
            )
        out.append("</fieldset>")
    out.append("</form>")
    return "\n".join(out)


_LEGEND = (
    "✅ native · ↪️ fallback with marker · 🚫 raised as expected (unsupported) · ❌ failure"
    " · ⚠️ known deviation · ⏭️ skipped · – no such cell. Click a cell for its details."
)


class _Page:
    """Renders targets; collects one dialog per cell, numbered in page order."""

    def __init__(self, snapshots: Path | None, citations: Mapping[str, Citation]) -> None:
        self.snapshots = snapshots
        self.citations = citations
        self.dialogs: list[str] = []

    def target(self, target: TargetReport, note: str | None = None) -> str:
        """A target's section; `note` says which variants ran with it, or whose it is."""
        totals = target.totals
        by_status = " · ".join(f"{s} {n}" for s, n in totals.cells_by_status.items())
        out = [
            f'<section class="target" data-target="{_e(target.name)}">',
            f'<h2>{_e(target.name)} <span class="version">{_e(target.version)}</span></h2>',
            *([f'<p class="variants">{_e(note)}</p>'] if note else []),
            f'<p class="totals">{totals.cells_by_status["pass"]} of {totals.cells} cells'
            f" conformant ({totals.conformant_share:.1%}) · {by_status}"
            f" · unsettled {totals.unsettled} · n/a {totals.not_applicable}</p>",
            _compliance(target),
            _properties(target.properties),
        ]
        if not target.rows:
            return "\n".join([*out, "<p>No results for this target.</p>", "</section>"])
        columns: list[ContentType] = [
            ct
            for ct in _CONTENT_TYPES
            if any(c.content_type == ct for r in target.rows for c in r.content_types)
        ]
        out += [
            '<table class="grid">',
            '<thead><tr><th scope="col">model row</th>'
            + "".join(f'<th scope="col">{ct}</th>' for ct in columns)
            + "</tr></thead>",
            "<tbody>",
            *(self.row(target, row, columns) for row in target.rows),
            "</tbody>",
            "</table>",
            "</section>",
        ]
        return "\n".join(out)

    def row(self, target: TargetReport, row: RowReport, columns: list[ContentType]) -> str:
        by_ct = {ct.content_type: ct.cells for ct in row.content_types}
        tds: list[str] = []
        for column in columns:
            cells = by_ct.get(column, [])
            if not cells:
                tds.append('<td class="none">–</td>')
                continue
            tds.append("<td>" + "".join(self.cell(target, row, cell) for cell in cells) + "</td>")
        head = (
            f'<th scope="row">{_e(row.id)}<span class="model">{_e(row.model)}</span>'
            f"{_lifecycle_mark(row)}</th>"
        )
        return f"<tr>{head}{''.join(tds)}</tr>"

    def cell(self, target: TargetReport, row: RowReport, cell: CellReport) -> str:
        ident = f"c{len(self.dialogs) + 1}"
        glyph, word = _face(cell)
        self.dialogs.append(self.dialog(ident, target, row, cell))
        return (
            f'<button type="button" class="cell st-{cell.status}" data-source="{cell.source}"'
            f' data-style="{cell.style}" data-details="{ident}"'
            f' title="{_e(cell.id)}: {cell.status}">'
            f'<span class="glyph" aria-hidden="true">{glyph}</span>'
            f' <span class="word">{_e(word)}</span>'
            f' <span class="where">{cell.source} · {cell.style}</span></button>'
        )

    def dialog(self, ident: str, target: TargetReport, row: RowReport, cell: CellReport) -> str:
        glyph, word = _face(cell)
        facts = [
            ("Target", f"{_e(target.name)} {_e(target.version)}"),
            ("Model", f"{_e(row.model)} (row <code>{_e(row.id)}</code>)"),
            ("Expectation", f"{_e(cell.expect)} (known from {_e(cell.known)})"),
            ("Citation", self.citation(cell.cite)),
            ("Observed outcome", _e(cell.outcome or "not observed")),
            ("Deviation", _deviation(cell)),
            ("Accepted by a live API", _live(cell)),
        ]
        return "\n".join(
            [
                f'<dialog id="{ident}" class="details" aria-labelledby="{ident}-title">',
                '<form method="dialog"><button class="close">Close</button></form>',
                f'<h3 id="{ident}-title">{_e(cell.id)}</h3>',
                f'<p class="status st-{cell.status}"><span aria-hidden="true">{glyph}</span>'
                f" {cell.status}: {_e(word)}</p>",
                "<dl>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
                "<h4>Checks</h4>",
                _checks(cell),
                "<h4>Payload</h4>",
                self.payload(target, row, cell),
                "<h4>Reproducer</h4>",
                "<p>A standalone script using only the framework, to paste into an upstream"
                f' issue:</p><pre class="command">{_e(repro_command(cell.id, target.name))}</pre>',
                "</dialog>",
            ]
        )

    def citation(self, cite: str) -> str:
        found = self.citations.get(cite)
        if found is None:
            return f"<code>{_e(cite)}</code>"
        return f"<code>{_e(cite)}</code>: {_e(found.says)} {_link(found.url)}"

    def payload(self, target: TargetReport, row: RowReport, cell: CellReport) -> str:
        if self.snapshots is None:
            return '<p class="note">No snapshot folder was given (<code>--snapshots</code>).</p>'
        family = row.id[len(row.api) + 1 :]
        name = f"{family}.{cell.content_type}.{cell.source}.{cell.style}.json"
        if not all(is_safe_name(part) for part in (target.name, row.api, name)):
            # Names come from a results file: none may lead outside the snapshot folder.
            return (
                '<p class="note">No snapshot: the target, api or cell name is not a plain'
                " folder name.</p>"
            )
        path = self.snapshots / target.name / row.api / name
        try:
            text = path.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return f'<p class="note">No snapshot at <code>{_e(str(path))}</code>.</p>'
        with contextlib.suppress(ValueError):  # not JSON: shown as it is
            text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        note = f"From <code>{_e(str(path))}</code>."
        if len(text) > PAYLOAD_LIMIT:
            note = (
                f"The first {PAYLOAD_LIMIT:,} of {len(text):,} characters of"
                f" <code>{_e(str(path))}</code>; open the file for the rest."
            )
            text = text[:PAYLOAD_LIMIT]
        return f'<p class="note">{note}</p><pre class="payload">{_e(text)}</pre>'


def _face(cell: CellReport) -> tuple[str, str]:
    """The glyph and word a cell shows: what was observed, or why not."""
    if cell.na is not None:
        return "n/a", "not applicable"
    if cell.status == "skip":
        return _STATUS_GLYPHS["skip"], "skipped"
    word = cell.outcome or "not observed"
    if cell.status in _STATUS_GLYPHS:
        return _STATUS_GLYPHS[cell.status], word
    return _OUTCOME_GLYPHS.get(cell.outcome or "", _EXPECT_GLYPHS[cell.expect]), word


def _compliance(target: TargetReport) -> str:
    """Per level: the cells keeping all of its rules, and the properties of it that held."""
    items = "".join(
        f'<li class="level lv-{c.level}" title="{_e(RATIONALE[c.level])}">'
        f"<strong>{c.level}</strong>: {_e(level_words(c))}</li>"
        for c in target.compliance
    )
    if target.capability is not None:
        items += f"<li><strong>capability</strong>: {_e(capability_words(target.capability))}</li>"
    return f'<ul class="compliance" aria-label="Compliance per level">{items}</ul>'


def _properties(properties: list[PropertyReport]) -> str:
    if not properties:
        return ""
    rows = [
        f'<tr class="v-{p.verdict}"><td><code>{_e(p.name)}</code></td><td>{p.level}</td>'
        f'<td><span aria-hidden="true">{_VERDICT_GLYPHS[p.verdict]}</span> {p.verdict}</td>'
        f"<td>{p.examples}</td><td>"
        + (f'<pre class="detail">{_e(p.detail)}</pre>' if p.detail else "–")
        + (
            f"<p>Known deviation: {_e(p.reason or '')} {_link(p.link or '')}</p>"
            if p.reason
            else ""
        )
        + "</td></tr>"
        for p in properties
    ]
    head = (
        "<thead><tr><th>property</th><th>level</th><th>verdict</th><th>histories</th>"
        "<th>detail</th></tr></thead>"
    )
    return (
        '<details class="properties"><summary>Properties: '
        f"{sum(p.verdict == 'pass' for p in properties)} of {len(properties)} held</summary>"
        f'<table class="checks">{head}<tbody>{"".join(rows)}</tbody></table></details>'
    )


def checks_table(cell: CellReport) -> str:
    """A cell's checks as a table: check, level, verdict and detail."""
    return _checks(cell)


def link(url: str) -> str:
    """A link to follow (never loaded by the page); only http(s) URLs become links."""
    return _link(url)


def _checks(cell: CellReport) -> str:
    rows = [
        f'<tr class="v-{check.verdict}"><td><code>{_e(check.check)}</code></td>'
        f"<td>{check.level}</td>"
        f'<td><span aria-hidden="true">{_VERDICT_GLYPHS[check.verdict]}</span>'
        f" {check.verdict}</td><td>"
        + (f'<pre class="detail">{_e(check.detail)}</pre>' if check.detail else "–")
        + "</td></tr>"
        for check in cell.checks
    ]
    head = "<thead><tr><th>check</th><th>level</th><th>verdict</th><th>detail</th></tr></thead>"
    return f'<table class="checks">{head}<tbody>{"".join(rows)}</tbody></table>'


def _deviation(cell: CellReport) -> str:
    declared = [c for c in cell.checks if c.reason or c.link]
    if not declared:
        return "none declared"
    first = declared[0]
    levels = sorted({c.level for c in declared}, key=LEVELS.index)
    words = f"{_e(first.reason or '')} {_link(first.link or '')}".strip()
    return f"{words} (level {', '.join(levels)}: {', '.join(_e(c.check) for c in declared)})"


def _live(cell: CellReport) -> str:
    if cell.live is None:
        return "not recorded"
    said = "accepted" if cell.live.accepted else "rejected"
    return f"{said} on {cell.live.date.isoformat()}"


def _link(url: str) -> str:
    """A link to follow (never loaded by the page); only http(s) URLs become links."""
    if not url.startswith(("https://", "http://")):
        return f"<code>{_e(url)}</code>" if url else ""
    return f'<a href="{_e(url)}" rel="noopener noreferrer">{_e(url)}</a>'


_CSS = """
:root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #fff; }
body { margin: 1rem 1.5rem; }
[hidden] { display: none !important; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
.meta, .legend, .totals { color: #444; margin: .25rem 0; }
.filters { display: flex; gap: 1rem; flex-wrap: wrap; margin: .75rem 0; }
.filters fieldset { border: 1px solid #bbb; border-radius: 6px; padding: .25rem .75rem; }
.filters label { margin-right: .75rem; }
.targets { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.target { flex: 1 1 30rem; min-width: 0; overflow-x: auto; }
.target h2 { font-size: 1.2rem; margin: .5rem 0 0; }
.version { color: #555; font-weight: normal; }
table { border-collapse: collapse; }
.grid th, .grid td { border: 1px solid #ccc; padding: .25rem; vertical-align: top; }
.grid th[scope=row] { text-align: left; white-space: nowrap; }
.model { display: block; color: #666; font-weight: normal; font-size: .8rem; }
.lifecycle { display: block; font-weight: normal; font-size: .8rem; }
.lifecycle.near { color: #8a5a00; }
.lifecycle.past { color: #b00020; }
.grid td.none, .grid td:not(:has(.cell:not([hidden]))) { color: #888; text-align: center; }
.cell { display: flex; align-items: center; gap: .3rem; width: 100%; margin: 2px 0;
  padding: .2rem .4rem; border: 2px solid; border-radius: 4px; cursor: pointer;
  font: inherit; font-size: .85rem; text-align: left; }
.cell .where { color: #555; font-size: .75rem; margin-left: auto; }
.cell .word, .cell .where { white-space: nowrap; }
.st-pass { background: #e7f5ea; border-color: #2e7d32; }
.st-fail { background: #fde8e7; border-color: #c62828; }
.st-xfail { background: #fff3e0; border-color: #b26a00; }
.st-skip { background: #efefef; border-color: #757575; border-style: dashed; }
.cell:focus-visible { outline: 3px solid #1565c0; outline-offset: 1px; }
dialog.details { max-width: min(60rem, 95vw); max-height: 90vh; padding: 1rem 1.25rem; }
dialog.details::backdrop { background: rgba(0, 0, 0, .35); }
.details h3 { margin: 0 0 .5rem; font-size: 1.1rem; word-break: break-all; }
.details .status { padding: .25rem .5rem; border: 2px solid; border-radius: 4px; }
.details dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.details dt { font-weight: 600; }
.details dd { margin: 0; }
.close { float: right; }
.compliance { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none;
  padding: 0; margin: .25rem 0; }
.properties { margin: .25rem 0 .5rem; }
.checks th, .checks td { border: 1px solid #ccc; padding: .25rem .4rem; text-align: left;
  vertical-align: top; }
.v-fail, .v-xpass { background: #fde8e7; }
.v-xfail { background: #fff3e0; }
pre { white-space: pre-wrap; word-break: break-all; margin: 0; font-size: .8rem; }
pre.payload { max-height: 24rem; overflow: auto; background: #f6f6f6; padding: .5rem; }
pre.command { background: #f6f6f6; padding: .5rem; }
"""

BASE_CSS = _CSS
"""The page's style, shared with the comparison page (`conformance.reports.compare_html`)."""

_JS = """
(function () {
  "use strict";
  var form = document.getElementById("filters");
  function chosen(name) {
    var input = form.querySelector('input[name="' + name + '"]:checked');
    return input ? input.value : "all";
  }
  function apply() {
    var source = chosen("source"), style = chosen("style");
    document.querySelectorAll(".cell").forEach(function (cell) {
      cell.hidden = (source !== "all" && cell.dataset.source !== source) ||
        (style !== "all" && cell.dataset.style !== style);
    });
    document.querySelectorAll(".grid tbody tr").forEach(function (row) {
      row.hidden = !row.querySelector(".cell:not([hidden])");
    });
  }
  form.addEventListener("change", apply);
  document.addEventListener("click", function (event) {
    var cell = event.target.closest(".cell");
    if (cell) {
      document.getElementById(cell.dataset.details).showModal();
    } else if (event.target.tagName === "DIALOG") {
      event.target.close();
    }
  });
  apply();
})();
"""
