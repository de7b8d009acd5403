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
    KIND_WORDS,
    Comparison,
    Release,
    column_words,
    release_words,
    target_words,
    variants_in,
)
from conformance.reports.figures import capability_words
from conformance.reports.findings import FindingGroup, group_findings
from conformance.reports.html import BASE_CSS, checks_table, esc, link, repro_command
from conformance.reports.markdown import level_words, short_digest
from conformance.reports.report import CellReport
from conformance.reports.words import LEGEND, grade, outcome_word

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
            + "</p>"
            + _stale_note(comparison)
            + "</header>",
            _summary(comparison),
            _levels_switch(),
            _legend(),
            grid,
            _timeline(comparison),
            *page.dialogs,
            f"<script>{_JS}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _stale_note(comparison: Comparison) -> str:
    stale = [c for c in comparison.columns if comparison.stale(c)]
    if not stale:
        return ""
    names = ", ".join(
        f"{esc(c.target)} {esc(c.version)} (<code>{esc(short_digest(c.matrix_digest))}</code>)"
        for c in stale
    )
    current = esc(short_digest(comparison.current_matrix or ""))
    return (
        f'<p class="stale-note" role="note">Run on another matrix than the current one'
        f" (<code>{current}</code>), so each of their cells is marked stale: {names}.</p>"
    )


def _summary(comparison: Comparison) -> str:
    out = ['<section class="summary"><h2>Summary per target</h2><div class="cards">']
    for column in comparison.columns:
        out.append(f'<article class="card" data-target="{esc(column.target)}">{_card_head(column)}')
        out.append(
            "<ul>"
            + "".join(
                f'<li title="{esc(RATIONALE[c.level])}"><strong>{c.level}</strong>:'
                f" {esc(level_words(c))}</li>"
                for c in column.compliance
            )
            + (
                f"<li><strong>capability</strong>: {esc(capability_words(column.capability))}</li>"
                if column.capability is not None
                else ""
            )
            + "</ul>"
        )
        groups = group_findings(column)
        if groups:
            out.append('<h4>Worst findings, by reason</h4><ol class="findings">')
            out += [f"<li>{_finding(g)}</li>" for g in groups[:FINDINGS_SHOWN]]
            out.append("</ol>")
            if len(groups) > FINDINGS_SHOWN:
                out.append(f"<p>… and {len(groups) - FINDINGS_SHOWN} more reasons in the grid.</p>")
        else:
            out.append("<p>No failures and no declared deviations.</p>")
        out.append("</article>")
    out.append("</div></section>")
    return "\n".join(out)


def _card_head(column: Release) -> str:
    """A framework's name and version, with the variants run beside it; a variant's name
    with its framework's (`litellm 1.110.2 ↳ anthropic-messages`) and what it is."""
    if column.variant_of is not None:
        words = target_words(column.target, column.version, column.variant_of)
        return (
            f'<h3 class="variant">{esc(words)}</h3>'
            f'<p class="of">A variant of {esc(column.variant_of)}: another entry point,'
            f" run with it (<code>{esc(column.target)}</code>).</p>"
        )
    variants = variants_in(column)
    ran = (
        '<p class="of">Run with its variants: '
        + ", ".join(f"<code>{esc(v)}</code>" for v in variants)
        + ".</p>"
        if variants
        else ""
    )
    return f'<h3>{esc(column.target)} <span class="version">{esc(column.version)}</span></h3>{ran}'


def _finding(group: FindingGroup) -> str:
    word = "fails" if group.kind == "failure" else "known deviation at"
    count = len(group.cells)
    cells = "".join(f"<li><code>{esc(c)}</code></li>" for c in group.cells)
    checks = ", ".join(f"<code>{esc(c)}</code>" for c in group.checks)
    return (
        f'<strong class="lv">{word} {group.level}</strong> · {count}'
        f" cell{'s' if count != 1 else ''} · {checks}"
        f" · outcome {esc('; '.join(group.outcomes) or 'not observed')}: {esc(group.reason)}"
        + (f" {link(group.link)}" if group.link else "")
        + f'<details><summary>The cells</summary><ul class="cells">{cells}</ul></details>'
    )


def _legend() -> str:
    items = "".join(
        f'<li><span class="glyph" aria-hidden="true">{g}</span> {esc(w)}</li>' for g, w in LEGEND
    )
    return (
        '<section class="legend" aria-label="Legend"><ul>'
        f"{items}</ul><p>Each cell names what the target did and the strongest level it does"
        " not pass (at a chosen level: how it stands there), then the source and style. A cell"
        " marked stale comes from a run on another matrix. Click a cell for its details and"
        " its reproducer.</p></section>"
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


def _column_head(release: Release, grouped: set[str]) -> str:
    """A framework's column heading, or a variant's as a sub-column of the framework before it:
    `↳ anthropic-messages` (`column_words`) over the words saying whose variant it is."""
    if release.variant_of is None:
        return (
            f'<th scope="col"{_group(release, grouped)}>{esc(release.target)}'
            f' <span class="version">{esc(release.version)}</span></th>'
        )
    return (
        f'<th scope="col"{_group(release, grouped)}>{esc(column_words(release))}'
        f'<span class="of">variant of {esc(release.variant_of)}</span></th>'
    )


def _group(release: Release, grouped: set[str], *classes: str) -> str:
    """A column's attributes: `classes`, and for a framework with variants (in `grouped`) and
    for each variant, the class that draws the line before the group and the framework the
    variant's sub-column belongs to."""
    words = [*classes]
    data = ""
    if release.variant_of is not None:
        words.append("variant")
        data = f' data-variant-of="{esc(release.variant_of)}"'
    elif release.target in grouped:
        words.append("fw")
    return (f' class="{" ".join(words)}"' if words else "") + data


class _Page:
    def __init__(self, scripts: Mapping[tuple[str, str], str]) -> None:
        self.scripts = scripts
        self.dialogs: list[str] = []

    def grid(self, comparison: Comparison) -> str:
        grouped = {c.variant_of for c in comparison.columns if c.variant_of is not None}
        heads = "".join(_column_head(c, grouped) for c in comparison.columns)
        out = [
            '<section class="compare"><h2>Model row × content type</h2>',
            '<div class="scroll" tabindex="0" role="region" aria-label="The grid">'
            '<table class="grid"><thead><tr><th scope="col">model row</th>'
            f'<th scope="col">content</th>{heads}</tr></thead><tbody>',
        ]
        by_target = {c.target: c for c in comparison.columns}
        for row in comparison.rows:
            tds: list[str] = []
            for group in row.targets:
                release = by_target[group.target]
                if not group.cells:
                    tds.append(f"<td{_group(release, grouped, 'none')}>–</td>")
                    continue
                stale = comparison.stale(release)
                tds.append(
                    f"<td{_group(release, grouped)}>"
                    + "".join(self.cell(release, c, stale) for c in group.cells)
                    + "</td>"
                )
            out.append(
                f'<tr><th scope="row">{esc(row.row)}<span class="model">{esc(row.model)}</span>'
                f"</th><td>{row.content_type}</td>{''.join(tds)}</tr>"
            )
        out.append("</tbody></table></div></section>")
        return "\n".join(out)

    def cell(self, release: Release, cell: CellReport, stale: bool = False) -> str:
        ident = f"d{len(self.dialogs) + 1}"
        self.dialogs.append(self.dialog(ident, release, cell))
        levels = "".join(
            f' data-{level}="{g.status}" data-{level}-glyph="{g.glyph}"'
            f' data-{level}-grade="{esc(g.words)}"'
            for level in LEVELS
            for g in [grade(cell, level)]
        )
        overall = grade(cell)
        mark = ' <span class="stale">stale</span>' if stale else ""
        return (
            f'<button type="button" class="cell st-{cell.status}" data-details="{ident}"'
            f' data-all="{cell.status}" data-all-glyph="{overall.glyph}"'
            f' data-all-grade="{esc(overall.words)}"{levels}'
            f' title="{esc(cell.id)}: {cell.status}">'
            f'<span class="glyph" aria-hidden="true">{overall.glyph}</span>'
            f' <span class="word">{esc(outcome_word(cell))}</span>'
            f' <span class="grade">{esc(overall.words)}</span>{mark}'
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
            (
                "Target",
                esc(target_words(release.target, release.version, release.variant_of))
                + (f" (<code>{esc(release.target)}</code>)" if release.variant_of else ""),
            ),
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
                f'<p class="status st-{cell.status}">{grade(cell).glyph}'
                f" {esc(outcome_word(cell))}: {esc(grade(cell).words)}</p>",
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
            f"<td>{esc(KIND_WORDS[c.kind])} {esc(c.version)}</td><td>{esc(c.before)}</td>"
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
.compare .scroll { overflow: auto; max-height: 85vh; border: 1px solid #ccc; }
.compare .grid { border-collapse: separate; border-spacing: 0; }
.compare .grid thead th { position: sticky; top: 0; z-index: 2; background: #f4f4f4; }
.compare .grid tbody th { position: sticky; left: 0; z-index: 1; background: #fff; }
.compare .grid thead th:first-child { left: 0; z-index: 3; }
.compare .cell { display: inline-flex; flex-wrap: wrap; gap: 0 .3em; width: auto; margin: 1px;
  text-align: left; }
.compare .cell .grade { font-size: .8em; }
.compare .stale { font-size: .75em; font-weight: bold; text-transform: uppercase;
  border: 1px dashed #555; padding: 0 .2em; }
.compare td ~ td { min-width: 11rem; }
.compare .grid .fw { border-left: 2px solid #888; }
.compare .grid th.variant { font-weight: normal; }
.compare .grid .of, .card .of { display: block; font-size: .8em; color: #444; }
.compare td { white-space: normal; }
.legend ul { display: flex; flex-wrap: wrap; gap: .2rem 1rem; padding: 0; list-style: none; }
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
      cell.querySelector(".grade").textContent = cell.getAttribute("data-" + level + "-grade");
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
