"""The site's pages, each a view of one document of the JSON API (`site_api`).

Pure functions from documents to HTML bodies; `conformance.reports.site` lays them out in
folders and writes them. Every text from results, the matrix or a snapshot is escaped; links
are relative to the page (`root` leads back to the site's top).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from conformance.judging.levels import LEVELS, RATIONALE
from conformance.reports.compare import heading, target_words, variant_name
from conformance.reports.markdown import level_words, short_digest
from conformance.reports.words import LEGEND

if TYPE_CHECKING:
    from conformance.reports.report import PropertyReport
    from conformance.reports.site_api import (
        CellDoc,
        Chip,
        IndexDoc,
        ReleaseDoc,
        TimelineDoc,
    )

__all__ = [
    "api_page",
    "cell_page",
    "frameworks_page",
    "front_page",
    "release_href",
    "release_page",
    "timeline_page",
]

_GLYPH = {"pass": "", "fail": "❌", "xfail": "⚠️", "skip": "⏭️", "none": "–"}
_VERDICT_GLYPHS = {"pass": "✅", "fail": "❌", "xfail": "⚠️", "xpass": "❗", "skip": "⏭️"}
_STATUS_WORDS = {
    "pass": "passes",
    "fail": "fails",
    "xfail": "known deviation",
    "skip": "skipped",
}
FINDINGS_SHOWN = 25
"""Finding groups listed on a release page; the rest are counted."""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _link(url: str | None) -> str:
    if not url:
        return ""
    if not url.startswith(("https://", "http://")):
        return f"<code>{_e(url)}</code>"
    return f'<a href="{_e(url)}" rel="noopener noreferrer">{_e(url)}</a>'


def release_href(target: str, version: str) -> str:
    return f"frameworks/{target}/{version}.html"


def cell_href(cell_id: str) -> str:
    return f"cells/{cell_id}.html"


def _given_as(source: str, style: str) -> str:
    """How a cell's tool gives its media: `inline · result`. Not a variant: on the site that
    word names another entry point of a framework, run with it."""
    return f"{source} · {style}"


def _legend() -> str:
    items = "".join(
        f'<li><span aria-hidden="true">{g}</span> {_e(words)}</li>' for g, words in LEGEND
    )
    return (
        f'<section class="legend" aria-labelledby="legend-h"><h2 id="legend-h">Legend</h2>'
        f'<ul>{items}</ul><p class="note">Every cell names what the framework did (its'
        " outcome) and the strongest level it does not pass, under what it is given as: how the"
        " tool gave the media (inline bytes or a URL) and where (in its result, or as user"
        " content). A cell marked stale comes from a run on another matrix.</p></section>"
    )


def _chip(chip: Chip, root: str, stale: bool) -> str:
    mark = '<span class="stale">stale</span>' if stale else ""
    glyph = _GLYPH.get(chip.status, "")
    return (
        f'<a class="chip st-{chip.status}{" stale-cell" if stale else ""}"'
        f' data-given="{chip.source}-{chip.style}" href="{root}{_e(cell_href(chip.cell))}">'
        f'<span class="v">{_given_as(chip.source, chip.style)}</span>'
        f'<span class="w">{_e(chip.word)}</span>'
        f'<span class="g"><span aria-hidden="true">{glyph}</span> {_e(chip.grade)}</span>'
        f"{mark}</a>"
    )


def _stale_note(releases: list[tuple[str, str, str]], current: str) -> str:
    if not releases:
        return ""
    names = ", ".join(
        f"{_e(t)} {_e(v)} (matrix <code>{_e(short_digest(d))}</code>)" for t, v, d in releases
    )
    return (
        '<p class="stale-note" role="note">Run on another matrix than the current one'
        f" (<code>{_e(short_digest(current))}</code>): {names}. Their cells are marked stale;"
        " run their sessions again to refresh them.</p>"
    )


def _filters(index: IndexDoc) -> str:
    apis = list(dict.fromkeys(entry.api for entry in index.grid))
    types = list(dict.fromkeys(entry.content_type for entry in index.grid))
    given = list(
        dict.fromkeys(
            (c.source, c.style) for e in index.grid for cs in e.targets.values() for c in cs
        )
    )

    def select(name: str, label: str, options: list[tuple[str, str]]) -> str:
        opts = '<option value="all">any</option>' + "".join(
            f'<option value="{_e(v)}">{_e(w)}</option>' for v, w in options
        )
        return f'<label>{label}<select name="{name}">{opts}</select></label>'

    return (
        '<form id="filters" class="filters" hidden aria-label="Filter the grid">'
        + select(
            "framework",
            "Does framework",
            [(c, _option(c, index.variant_of.get(c))) for c in index.columns],
        )
        + select("content", "carry content type", [(t, t) for t in types])
        + select("api", "to provider api", [(a, a) for a in apis])
        + select("given", "given as", [(f"{s}-{t}", _given_as(s, t)) for s, t in given])
        + '<button type="reset">Show all</button>'
        '<p id="filter-status" class="note" aria-live="polite"></p></form>'
    )


def front_page(index: IndexDoc, releases: list[ReleaseDoc]) -> str:
    latest = {r.target: r for r in releases if r.latest}
    stale = [
        (r.target, r.version, r.matrix_digest) for t in index.columns if (r := latest[t]).stale
    ]
    cards = "".join(_card(latest[t]) for t in index.columns)
    heads = "".join(_head(latest[t], index) for t in index.columns)
    rows: list[str] = []
    api = None
    width = len(index.columns) + 1
    for entry in index.grid:
        if entry.api != api:
            api = entry.api
            rows.append(
                f'<tr class="api" data-api="{_e(api)}"><th scope="rowgroup" colspan="{width}">'
                f"{_e(api)}</th></tr>"
            )
        tds: list[str] = []
        for target in index.columns:
            chips = entry.targets.get(target, [])
            body = (
                '<div class="chips">'
                + "".join(_chip(c, "", latest[target].stale) for c in chips)
                + "</div>"
                if chips
                else '<span class="none">– no such cell</span>'
            )
            tds.append(f"<td{_column_attributes(target, index)}>{body}</td>")
        rows.append(
            f'<tr data-api="{_e(entry.api)}" data-content="{_e(entry.content_type)}">'
            f'<th scope="row">{_e(entry.row)}<span class="model">{_e(entry.model)}</span>'
            f'<span class="ct">{_e(entry.content_type)}</span></th>{"".join(tds)}</tr>'
        )
    return "\n".join(
        [
            "<h1>Can I use it? Tool-result media by provider and framework</h1>",
            '<p class="lead">Does a framework carry the text, image, document, audio or video'
            " a tool returns to each provider's api: inside the tool result (native), moved to"
            " a user message with a marker (fallback), or refused with a clear error where the"
            " api cannot take it? Rows follow the matrix; each column is a framework's newest"
            " release. Each entry names how the tool gave the media (inline bytes or a URL, in"
            " its result or as user content), what the framework did, and the strongest rule"
            " level it breaks; open one for the payloads side by side. The legend and each"
            " framework's figures follow the grid.</p>",
            _stale_note(stale, index.current_matrix),
            '<section aria-labelledby="grid-h"><h2 id="grid-h">Model row × content type</h2>',
            _filters(index),
            '<div class="scroll" tabindex="0" role="region" aria-label="The grid (scrolls)">',
            f'<table id="grid" class="grid"><thead><tr><th scope="col">Model row · content'
            f"</th>{heads}</tr></thead><tbody>",
            *rows,
            "</tbody></table></div></section>",
            _legend(),
            f'<section aria-labelledby="fw-h"><h2 id="fw-h">Frameworks</h2>'
            f'<div class="cards">{cards}</div></section>',
        ]
    )


def _words(target: str, version: str, variant_of: str | None) -> str:
    """`litellm 1.110.2`, or `litellm 1.110.2 ↳ anthropic-messages` for a variant."""
    return target_words(target, version, variant_of)


def _option(target: str, variant_of: str | None) -> str:
    """`litellm`, and `litellm ↳ anthropic-messages` for its variant."""
    return f"{variant_of} {heading(target, '', variant_of)}" if variant_of else target


def _column_attributes(target: str, index: IndexDoc) -> str:
    """A grid column's attributes: the target it shows (the framework filter hides the
    others); for a framework with variants and for each variant, its framework's group
    (choosing the framework keeps its variants' sub-columns) and the class that draws the line
    before the group."""
    variant_of = index.variant_of.get(target)
    if variant_of is None and target not in index.variant_of.values():
        return f' data-framework="{_e(target)}"'
    group, kind = (variant_of, "variant") if variant_of else (target, "fw")
    return f' data-framework="{_e(target)}" data-group="{_e(group)}" class="{kind}"'


def _head(release: ReleaseDoc, index: IndexDoc) -> str:
    """A framework's column heading, or a variant's as a sub-column of the framework before
    it: `↳ anthropic-messages` over the words saying whose variant it is."""
    variant_of = index.variant_of.get(release.target)
    href = _e(release_href(release.target, release.version))
    words = heading(release.target, release.version, variant_of)
    of = (
        f'<span class="of">variant of {_e(variant_of)} {_e(release.version)}</span>'
        if variant_of
        else ""
    )
    return (
        f'<th scope="col"{_column_attributes(release.target, index)}>'
        f'<a href="{href}">{_e(words)}</a>{of}</th>'
    )


def _card(release: ReleaseDoc) -> str:
    levels = "".join(
        f"<li><strong>{c.level}</strong>: {_e(level_words(c))}</li>" for c in release.compliance
    )
    stale = ' <span class="stale-tag">stale</span>' if release.stale else ""
    named = _words(release.target, release.version, release.variant_of)
    return (
        f'<article class="card"><h3><a href="{_e(release_href(release.target, release.version))}">'
        f"{_e(named)}</a>{stale}</h3>{_variant_note(release, '')}<ul>{levels}</ul>"
        f'<p><a href="frameworks/{_e(release.target)}/index.html">Timeline of'
        f" {_e(release.target)}</a></p></article>"
    )


def _variant_note(release: ReleaseDoc, root: str) -> str:
    """A framework release's variants that ran with it, each linked to its own page; for a
    variant, the framework release it ran with."""
    if release.variant_of is None and not release.variants:
        return ""
    title, links = _variant_fact(release, root)
    return f'<p class="of">{title}: {links}.</p>'


def _variant_fact(release: ReleaseDoc, root: str) -> tuple[str, str]:
    """("Variants run with it", their links) for a framework release; ("A variant of", the
    framework release's link) for a variant (another entry point, run with it)."""
    if release.variant_of is not None:
        href = _e(release_href(release.variant_of, release.version))
        return (
            "A variant of",
            f'<a href="{root}{href}">{_e(release.variant_of)} {_e(release.version)}</a>,'
            f" another entry point run with it (<code>{_e(release.target)}</code>)",
        )
    return (
        "Variants run with it",
        ", ".join(
            f'<a href="{root}{_e(release_href(v, release.version))}">'
            f"{_e(variant_name(v, release.target))}</a> (<code>{_e(v)}</code>)"
            for v in release.variants
        ),
    )


def release_page(release: ReleaseDoc, root: str) -> str:
    sdks = ", ".join(f"{_e(k)} {_e(v)}" for k, v in release.sdk_versions.items()) or "none"
    facts = [
        (
            "Suite",
            f"{_e(release.suite_version)}, commit"
            f" <code>{_e(release.suite_commit or 'not recorded')}</code>",
        ),
        (
            "Matrix",
            f"<code>{_e(short_digest(release.matrix_digest))}</code>"
            + (' <span class="stale-tag">stale</span>' if release.stale else " (current)"),
        ),
        ("SDKs", sdks),
        ("Python", _e(release.python)),
        (
            "Hypothesis",
            f"{_e(release.hypothesis)} (it drew the property histories)"
            if release.hypothesis
            else "not recorded",
        ),
        ("Run", _e(release.date)),
        ("Command", f"<code>{_e(' '.join(release.command or ['not recorded']))}</code>"),
        ("Complete", "yes" if release.complete else "no"),
        ("Results file", f"<code>{_e(release.results_file)}</code>"),
    ]
    if release.variant_of is not None or release.variants:
        facts.insert(0, _variant_fact(release, root))
    compliance = "".join(
        f'<tr><th scope="row">{c.level}</th><td>{_e(level_words(c))}</td>'
        f"<td>{c.cells_by_status['xfail']}</td><td>{c.cells_by_status['fail']}</td>"
        f"<td>{c.cells_by_status['skip']}</td><td>{_e(RATIONALE[c.level])}</td></tr>"
        for c in release.compliance
    )
    outcomes = "".join(
        f'<tr><th scope="row">{_e(word)}</th><td>{n}</td></tr>'
        for word, n in release.outcomes.items()
    )
    out = [
        f"<h1>{_e(_words(release.target, release.version, release.variant_of))}</h1>",
        f'<p class="lead"><a href="{root}frameworks/{_e(release.target)}/index.html">Every'
        f" release of {_e(release.target)} and what changed</a>"
        + (" · the newest release read" if release.latest else "")
        + "</p>",
        '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
        '<h2 id="compliance">Compliance per level</h2>',
        '<table class="figures"><thead><tr><th scope="col">level</th><th scope="col">'
        'conformant</th><th scope="col">known deviations</th><th scope="col">failures</th>'
        '<th scope="col">skipped</th><th scope="col">what it protects</th></tr></thead>'
        f"<tbody>{compliance}</tbody></table>",
        '<h2 id="capability">What it does, by outcome</h2>',
        '<table class="figures"><thead><tr><th scope="col">outcome</th><th scope="col">'
        f"cells</th></tr></thead><tbody>{outcomes}</tbody></table>",
        '<h2 id="findings">Worst findings, grouped by reason</h2>',
        _findings(release, root),
        '<h2 id="deviations">Declared deviations and their upstream links</h2>',
        _deviations(release, root),
    ]
    if release.properties:
        rows = "".join(
            f'<tr><th scope="row"><code>{_e(p.name)}</code></th><td>{p.level}</td>'
            f"<td>{_VERDICT_GLYPHS[p.verdict]} {p.verdict}</td><td>{p.examples}</td>"
            f"<td>{_property_why(p)}</td></tr>"
            for p in release.properties
        )
        out += [
            '<h2 id="properties">Properties</h2>',
            '<table class="checks"><thead><tr><th scope="col">property</th><th scope="col">'
            'level</th><th scope="col">verdict</th><th scope="col">histories</th>'
            f'<th scope="col">why</th></tr></thead><tbody>{rows}</tbody></table>',
        ]
    return "\n".join(out)


def _property_why(found: PropertyReport) -> str:
    """What the search observed (the detail's first line: the row and the message, or the
    histories it held on), then, for a declared failure, the reason and its link."""
    observed = _e(_first(found.detail))
    if not found.reason:
        return observed
    return f"{observed}<br>Known deviation: {_e(found.reason)} {_link(found.link)}".rstrip()


def _first(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else ""


def _cell_links(cells: list[str], root: str) -> str:
    return ", ".join(
        f"<code>{_e(c)}</code>"
        if c.startswith("property/")
        else f'<a href="{root}{_e(cell_href(c))}"><code>{_e(c)}</code></a>'
        for c in cells
    )


def _findings(release: ReleaseDoc, root: str) -> str:
    if not release.findings:
        return "<p>No failures and no declared deviations.</p>"
    items: list[str] = []
    for group in release.findings[:FINDINGS_SHOWN]:
        word = "fails" if group.kind == "failure" else "known deviation at"
        count = len(group.cells)
        items.append(
            f"<li><strong>{word} {group.level}</strong> · {count} cell{'s' if count > 1 else ''}"
            f" · checks {', '.join(f'<code>{_e(c)}</code>' for c in group.checks)} · outcome"
            f" {_e('; '.join(group.outcomes) or 'not observed')}<br>{_e(group.reason)}"
            f' {_link(group.link)}<details class="cells"><summary>The {count} cell'
            f"{'s' if count > 1 else ''}</summary>{_cell_links(group.cells, root)}</details></li>"
        )
    more = len(release.findings) - FINDINGS_SHOWN
    tail = f"<p>… and {more} more groups in the JSON API.</p>" if more > 0 else ""
    return f'<ol class="findings">{"".join(items)}</ol>{tail}'


def _deviations(release: ReleaseDoc, root: str) -> str:
    declared = [g for g in release.findings if g.kind == "deviation"]
    if not declared:
        return "<p>None declared.</p>"
    rows = "".join(
        f"<tr><td>{g.level}</td><td>{_e(g.reason)}</td><td>{_link(g.link) or 'none given'}</td>"
        f"<td>{len(g.cells)}</td></tr>"
        for g in declared
    )
    return (
        '<table class="checks"><thead><tr><th scope="col">level</th><th scope="col">reason'
        '</th><th scope="col">upstream</th><th scope="col">cells</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def frameworks_page(releases: list[ReleaseDoc], columns: list[str]) -> str:
    """Every framework and its releases, each framework's variants listed under it."""
    variant_of = {r.target: r.variant_of for r in releases if r.variant_of in columns}

    def item(target: str) -> str:
        of = [r for r in releases if r.target == target]
        versions = ", ".join(
            f'<a href="{_e(target)}/{_e(r.version)}.html">{_e(r.version)}</a>' for r in of
        )
        framework = variant_of.get(target)
        named = f"↳ {variant_name(target, framework)} (variant)" if framework else target
        under = [item(v) for v in columns if variant_of.get(v) == target]
        nested = f'<ul class="variants">{"".join(under)}</ul>' if under else ""
        return (
            f'<li><a href="{_e(target)}/index.html">{_e(named)}</a>: releases {versions}'
            f"{nested}</li>"
        )

    items = [item(t) for t in columns if t not in variant_of]
    return "<h1>Frameworks</h1><ul>" + "".join(items) + "</ul>"


def timeline_page(timeline: TimelineDoc, releases: list[ReleaseDoc], root: str) -> str:
    of = {r.version: r for r in releases if r.target == timeline.target}
    rows = "".join(
        f'<tr><th scope="row"><a href="{_e(v)}.html">{_e(v)}</a>'
        + (' <span class="stale-tag">stale</span>' if of[v].stale else "")
        + f"</th><td>{_e(of[v].date)}</td>"
        + "".join(f"<td>{_e(level_words(c))}</td>" for c in of[v].compliance)
        + "</tr>"
        for v in timeline.releases
    )
    heads = "".join(f'<th scope="col">{level}</th>' for level in LEVELS)
    out = [
        f"<h1>{_e(timeline.target)}: releases and what changed</h1>",
        '<h2 id="releases">Releases, oldest first</h2>',
        f'<table class="figures"><thead><tr><th scope="col">release</th><th scope="col">run'
        f"</th>{heads}</tr></thead><tbody>{rows}</tbody></table>",
        '<h2 id="changes">Cells that changed between releases</h2>',
    ]
    if not timeline.changes:
        out.append("<p>No cell changed between the releases read.</p>")
    else:
        changes = "".join(
            f'<tr class="k-{c.kind}"><td>{c.kind} in {_e(c.version)}</td><td>'
            + _cell_links([c.cell], root)
            + f"</td><td>{_e(c.before)}</td><td>{_e(c.after)}</td></tr>"
            for c in timeline.changes
        )
        out.append(
            '<table class="checks"><thead><tr><th scope="col">change</th><th scope="col">cell'
            '</th><th scope="col">before</th><th scope="col">after</th></tr></thead>'
            f"<tbody>{changes}</tbody></table>"
        )
    return "\n".join(out)


def cell_page(
    cell: CellDoc,
    root: str,
    *,
    payloads: dict[str, str],
    repros: dict[str, str],
    siblings: list[tuple[str, str]],
    citation: str,
) -> str:
    """`payloads` and `repros` are HTML fragments per target; `siblings` the cells of the
    same row and content type (id, what each is given as)."""
    given = " · ".join(
        f"<strong>{_e(w)}</strong>"
        if i == cell.id
        else f'<a href="{root}{_e(cell_href(i))}">{_e(w)}</a>'
        for i, w in siblings
    )
    facts = [
        ("Model row", f"<code>{_e(cell.row)}</code> (model <code>{_e(cell.model)}</code>)"),
        ("Content", f"{_e(cell.content_type)}, {_given_as(cell.source, cell.style)}"),
        ("The matrix expects", f"{_e(cell.expect)} (known from {_e(cell.known)})"),
        ("Citation", citation),
        ("Given as", given),
    ]
    latest = [r for r in cell.results if r.latest]
    sections: list[str] = []
    for result in latest:
        levels = "".join(
            f"<li>{level}: {_e(_STATUS_WORDS.get(result.levels.get(level, ''), 'no check'))}</li>"
            for level in LEVELS
        )
        checks = "".join(
            f'<tr class="v-{k.verdict}"><td><code>{_e(k.check)}</code></td><td>{k.level}</td>'
            f'<td><span aria-hidden="true">{_VERDICT_GLYPHS[k.verdict]}</span> {k.verdict}</td>'
            f"<td>{_e(k.reason or '')} {_link(k.link)}"
            + (f'<pre class="detail">{_e(k.detail)}</pre>' if k.detail else "")
            + "</td></tr>"
            for k in result.checks
        )
        stale = ' <span class="stale-tag">stale</span>' if result.stale else ""
        sections.append(
            f'<section aria-labelledby="t-{_e(result.target)}" id="{_e(result.target)}">'
            f'<h2 id="t-{_e(result.target)}">'
            f"{_e(_words(result.target, result.version, result.variant_of))}{stale}</h2>"
            f'<p class="chip st-{result.status}"><span class="w">{_e(result.word)}</span>'
            f'<span class="g">{_e(result.grade)}</span></p><ul>{levels}</ul>'
            "<h3>Payload</h3>"
            + payloads.get(result.target, '<p class="note">No snapshot for this target.</p>')
            + "<h3>Checks</h3>"
            '<table class="checks"><thead><tr><th scope="col">check</th><th scope="col">level'
            '</th><th scope="col">verdict</th><th scope="col">detail</th></tr></thead>'
            f"<tbody>{checks}</tbody></table><h3>Reproducer</h3>"
            + repros.get(result.target, "")
            + "</section>"
        )
    history = "".join(
        f'<tr><td><a href="{root}{_e(release_href(r.target, r.version))}">'
        f"{_e(_words(r.target, r.version, r.variant_of))}</a>"
        f"{' (stale)' if r.stale else ''}</td><td>{_e(r.word)}</td>"
        f"<td>{_e(r.grade)}</td></tr>"
        for r in cell.results
    )
    return "\n".join(
        [
            f"<h1><code>{_e(cell.id)}</code></h1>",
            '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
            '<h2 id="side">Each framework side by side</h2>',
            f'<div class="side">{"".join(sections)}</div>',
            '<h2 id="history">Every release read</h2>',
            '<table class="figures"><thead><tr><th scope="col">release</th><th scope="col">'
            f'outcome</th><th scope="col">standing</th></tr></thead><tbody>{history}</tbody>'
            "</table>",
            f'<p><a href="{root}api/v1/cells/{_e(cell.id)}.json">This cell as JSON</a></p>',
        ]
    )


def api_page(kinds: list[str], index_path: str) -> str:
    schemas = "".join(
        f'<li><a href="api/v1/schema/{k}.schema.json"><code>{k}</code></a></li>' for k in kinds
    )
    return "\n".join(
        [
            "<h1>JSON API, version 1</h1>",
            '<p class="lead">The data every page shows, as static JSON files beside the pages.'
            " Each document has <code>api_version: 1</code> and a JSON Schema (draft 2020-12)."
            " A change that removes or renames a field, or changes its meaning, comes as"
            " version 2 under <code>api/v2/</code>; version 1 only gains optional fields.</p>",
            "<h2>Documents</h2>",
            "<ul>",
            f'<li><a href="{_e(index_path)}"><code>api/v1/index.json</code></a>: every release,'
            " the current matrix digest, and the grid (model row × content type × framework,"
            " in the matrix's order).</li>",
            "<li><code>api/v1/releases/&lt;target&gt;/&lt;version&gt;.json</code>: one"
            " release's provenance (suite version and commit, matrix digest, SDK versions,"
            " date, command, complete), compliance per level, outcomes, findings grouped by"
            " reason, properties.</li>",
            "<li><code>api/v1/cells/&lt;cell id&gt;.json</code>: one cell, each release's"
            " verdicts.</li>",
            "<li><code>api/v1/timelines/&lt;target&gt;.json</code>: a target's releases and"
            " the cells that changed between them.</li>",
            "</ul>",
            f"<h2>Schemas</h2><ul>{schemas}</ul>",
        ]
    )
