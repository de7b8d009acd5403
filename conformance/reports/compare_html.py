"""The comparison (`conformance.reports.compare`) as one self-contained HTML page.

A level switch (all checks, required, recommended, reference) recolours every cell to its
status at that level. Each grid cell holds the target's cells of one model row and content
type as buttons (one per source and style); a button opens a dialog with the cell's
expectation, outcome, checks with their levels, the declared deviation, and the command that
writes its reproducer (`conformance repro`), with the script itself when the page was built
with it. Everything is inline and escaped; the same comparison gives the same bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from conformance.judging.levels import LEVELS, RATIONALE
from conformance.reports.compare import (
    FINDINGS_SHOWN,
    Comparison,
    Finding,
    Release,
    glyph,
    release_words,
)
from conformance.reports.html import BASE_CSS, checks_table, esc, link, repro_command
from conformance.reports.report import CellReport, level_words, short_digest

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["render_compare_html", "repro_command"]


def render_compare_html(
    comparison: Comparison, *, scripts: Mapping[tuple[str, str], str] | None = None
) -> str:
    """The whole page; `scripts` holds reproducers by (target, cell id) to show in dialogs."""
    page = _Page(scripts or {})
    grid = page.grid(comparison)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            "<title>Frameworks compared: tool-result conformance</title>",
            f"<style>{BASE_CSS}{_CSS}</style>",
            "</head>",
            "<body>",
            "<header><h1>Frameworks compared</h1>",
            '<p class="meta">Newest release of each target: '
            + ", ".join(esc(release_words(c)) for c in comparison.columns)
            + " · matrix "
            + ", ".join(f"<code>{esc(short_digest(d))}</code>" for d in comparison.matrices)
            + "</p></header>",
            _summary(comparison),
            _levels_switch(),
            '<p class="legend">✅ native · ↪️ fallback with marker · 🚫 raised as expected ·'
            " ❌ failure · ⚠️ known deviation · ⏭️ skipped · · no check of this level · – no"
            " such cell. Click a cell for its details and its reproducer.</p>",
            grid,
            _timeline(comparison),
            *page.dialogs,
            f"<script>{_JS}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _summary(comparison: Comparison) -> str:
    out = ['<section class="summary"><h2>Summary per target</h2><div class="cards">']
    for column in comparison.columns:
        out.append(
            f'<article class="card" data-target="{esc(column.target)}">'
            f'<h3>{esc(column.target)} <span class="version">{esc(column.version)}</span></h3>'
        )
        out.append(
            "<ul>"
            + "".join(
                f'<li title="{esc(RATIONALE[c.level])}"><strong>{c.level}</strong>:'
                f" {esc(level_words(c))}</li>"
                for c in column.compliance
            )
            + "</ul>"
        )
        findings = comparison.findings[column.target]
        if findings:
            out.append('<h4>Worst findings</h4><ol class="findings">')
            out += [f"<li>{_finding(f)}</li>" for f in findings[:FINDINGS_SHOWN]]
            out.append("</ol>")
            if len(findings) > FINDINGS_SHOWN:
                out.append(f"<p>… and {len(findings) - FINDINGS_SHOWN} more in the grid.</p>")
        else:
            out.append("<p>No failures and no declared deviations.</p>")
        out.append("</article>")
    out.append("</div></section>")
    return "\n".join(out)


def _finding(finding: Finding) -> str:
    word = "known deviation" if finding.verdict == "xfail" else finding.verdict
    why = finding.reason or (finding.detail.strip().splitlines() or [""])[0][:200]
    return (
        f'<strong class="lv">{finding.level}</strong> <code>{esc(finding.cell)}</code>'
        f" · <code>{esc(finding.check)}</code> · {esc(word)} · outcome"
        f" {esc(finding.outcome or 'not observed')}" + (f": {esc(why)}" if why else "")
    )


def _levels_switch() -> str:
    options = "".join(
        f'<label><input type="radio" name="level" value="{value}"'
        f"{' checked' if value == 'all' else ''}> {value}</label>"
        for value in ["all", *LEVELS]
    )
    return (
        '<form class="filters" id="levels" aria-label="Show status at level">'
        f"<fieldset><legend>Level</legend>{options}</fieldset></form>"
    )


class _Page:
    def __init__(self, scripts: Mapping[tuple[str, str], str]) -> None:
        self.scripts = scripts
        self.dialogs: list[str] = []

    def grid(self, comparison: Comparison) -> str:
        heads = "".join(
            f'<th scope="col">{esc(c.target)} <span class="version">{esc(c.version)}</span></th>'
            for c in comparison.columns
        )
        out = [
            '<section class="compare"><h2>Model row × content type</h2>',
            '<table class="grid"><thead><tr><th scope="col">model row</th>'
            f'<th scope="col">content</th>{heads}</tr></thead><tbody>',
        ]
        by_target = {c.target: c for c in comparison.columns}
        for row in comparison.rows:
            tds: list[str] = []
            for group in row.targets:
                if not group.cells:
                    tds.append('<td class="none">–</td>')
                    continue
                release = by_target[group.target]
                tds.append("<td>" + "".join(self.cell(release, c) for c in group.cells) + "</td>")
            out.append(
                f'<tr><th scope="row">{esc(row.row)}<span class="model">{esc(row.model)}</span>'
                f"</th><td>{row.content_type}</td>{''.join(tds)}</tr>"
            )
        out.append("</tbody></table></section>")
        return "\n".join(out)

    def cell(self, release: Release, cell: CellReport) -> str:
        ident = f"d{len(self.dialogs) + 1}"
        self.dialogs.append(self.dialog(ident, release, cell))
        levels = "".join(
            f' data-{level}="{cell.levels.get(level, "none")}"'
            f' data-{level}-glyph="{glyph(cell, level)}"'
            for level in LEVELS
        )
        return (
            f'<button type="button" class="cell st-{cell.status}" data-details="{ident}"'
            f' data-all="{cell.status}" data-all-glyph="{glyph(cell)}"{levels}'
            f' title="{esc(cell.id)}: {cell.status}">'
            f'<span class="glyph" aria-hidden="true">{glyph(cell)}</span>'
            f' <span class="where">{cell.source} · {cell.style}</span></button>'
        )

    def dialog(self, ident: str, release: Release, cell: CellReport) -> str:
        declared = [c for c in cell.checks if c.reason]
        deviation = (
            f"{esc(declared[0].reason or '')} {link(declared[0].link or '')}"
            f" (level {', '.join(sorted({c.level for c in declared}, key=LEVELS.index))})"
            if declared
            else "none declared"
        )
        levels = ", ".join(f"{level} {status}" for level, status in cell.levels.items())
        facts = [
            ("Target", f"{esc(release.target)} {esc(release.version)}"),
            (
                "Expectation",
                f"{esc(cell.expect)} (known from {esc(cell.known)}, cite"
                f" <code>{esc(cell.cite)}</code>)",
            ),
            ("Observed outcome", esc(cell.outcome or "not observed")),
            ("Per level", esc(levels)),
            ("Deviation", deviation),
            ("Results", f"<code>{esc(release.path)}</code>"),
        ]
        command = repro_command(cell.id, release.target)
        script = self.scripts.get((release.target, cell.id))
        repro = [
            "<h4>Reproducer</h4>",
            "<p>A standalone script using only the framework, to paste into an upstream issue:"
            f'</p><pre class="command">{esc(command)}</pre>',
        ]
        if script is not None:
            repro.append(f'<pre class="payload repro">{esc(script)}</pre>')
        return "\n".join(
            [
                f'<dialog id="{ident}" class="details" aria-labelledby="{ident}-title">',
                '<form method="dialog"><button class="close">Close</button></form>',
                f'<h3 id="{ident}-title">{esc(cell.id)}</h3>',
                f'<p class="status st-{cell.status}">{glyph(cell)} {cell.status}</p>',
                "<dl>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
                "<h4>Checks</h4>",
                checks_table(cell),
                *repro,
                "</dialog>",
            ]
        )


def _timeline(comparison: Comparison) -> str:
    versions = "".join(
        f"<li>{esc(name)}: {' → '.join(esc(v) for v in found)}</li>"
        for name, found in comparison.releases.items()
    )
    out = [f'<section class="timeline"><h2>Across versions</h2><ul>{versions}</ul>']
    if not comparison.timeline:
        out.append("<p>No cell changed between the releases read.</p>")
    else:
        rows = "".join(
            f'<tr class="k-{c.kind}"><td>{esc(c.target)}</td><td><code>{esc(c.cell)}</code></td>'
            f"<td>{c.kind} in {esc(c.version)}</td><td>{esc(c.before)}</td>"
            f"<td>{esc(c.after)}</td></tr>"
            for c in comparison.timeline
        )
        out.append(
            '<table class="checks"><thead><tr><th>target</th><th>cell</th><th>change</th>'
            f"<th>before</th><th>after</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    out.append("</section>")
    return "\n".join(out)


_CSS = """
.cards { display: flex; flex-wrap: wrap; gap: 1rem; }
.card { flex: 1 1 22rem; border: 1px solid #ccc; border-radius: 6px; padding: .5rem .75rem; }
.card h3 { margin: 0; font-size: 1.1rem; }
.findings li { margin: .2rem 0; font-size: .9rem; }
.compare { overflow-x: auto; }
.compare .cell { display: inline-flex; width: auto; margin: 1px; }
.compare td { min-width: 12rem; }
.k-fixed { background: #e7f5ea; }
.k-broke { background: #fde8e7; }
.st-none { background: #fff; border-color: #bbb; border-style: dotted; }
"""

_JS = """
(function () {
  "use strict";
  var form = document.getElementById("levels");
  function apply() {
    var input = form.querySelector('input[name="level"]:checked');
    var level = input ? input.value : "all";
    document.querySelectorAll(".cell").forEach(function (cell) {
      var status = cell.getAttribute("data-" + level);
      cell.className = "cell st-" + status;
      cell.querySelector(".glyph").textContent = cell.getAttribute("data-" + level + "-glyph");
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
