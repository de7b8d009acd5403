"""Frameworks side by side: one page answering "with provider X and media Y in a tool result,
which framework gets it right, and since which version?"

`build_comparison` reads results files that are each a run of their own (the reference's, and
one per framework release, as `nox -s "target(NAME)"` writes them): the newest release of each
target is a column; the rows are model row by content type, each grid cell holding the target's
cells of that row and type (one per source and style). A cell shows its status overall or at
one level (`conformance.judging.levels`). Per target, a summary counts its cells per level and lists
its worst findings first (required before recommended before reference, then by how much harm
the outcome does), beside its capability (carried N of M carriable cells) and the unsettled and
n/a cells counted apart (`conformance.reports.figures`).

Across the releases of one target, the timeline (`conformance.reports.timeline`) lists the
cells whose observed checks changed: "fixed in" only where a check went from fail to pass.

`render_compare_markdown` (here, for a job summary) and `conformance.reports.compare_html` (one
self-contained page, each cell opening a dialog with its checks, expectation and the command
that writes its reproducer) are views of the same `Comparison` model.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, get_args

from pydantic import BaseModel, ConfigDict

from conformance.history import ContentType
from conformance.judging.levels import LEVELS, Level
from conformance.reports.diff import OUTCOME_RANK
from conformance.reports.figures import SETTLE, Capability, capability_words, is_unsettled
from conformance.reports.findings import group_findings
from conformance.reports.layers import via
from conformance.reports.markdown import level_words, md_code, md_text, short_digest
from conformance.reports.report import (
    CellReport,
    LevelCompliance,
    PropertyReport,
    RowReport,
    TargetReport,
    build_report,
)
from conformance.reports.results import MetaLine, ReportError, Source, Style, load_results
from conformance.reports.timeline import KIND_WORDS, TimelineChange, timeline, timeline_counts

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

__all__ = [
    "KIND_WORDS",
    "Comparison",
    "Finding",
    "GridCell",
    "GridRow",
    "Release",
    "TimelineChange",
    "build_comparison",
    "column_words",
    "compare_releases",
    "glyph",
    "heading",
    "load_releases",
    "render_compare_markdown",
    "target_words",
    "variant_name",
    "variants_in",
    "version_key",
]

_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
FINDINGS_SHOWN = 10
"""The worst findings (reasons, each with its cells) listed per target; the summary counts all
of them."""
CELLS_SHOWN = 8
"""Cells named under a reason in the Markdown; the HTML page lists them all."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Release(_Model):
    """One target at one version: the column of its newest release, or a point of its timeline."""

    target: str
    version: str
    path: str
    """The results file it comes from."""
    matrix_digest: str
    date: str
    compliance: list[LevelCompliance]
    cells: dict[str, CellReport]
    """By cell id."""
    properties: list[PropertyReport]
    capability: Capability | None = None
    """What it carried of the carriable cells (`conformance.reports.figures`)."""
    meta: MetaLine | None = None
    """The results file's meta line: suite version and commit, SDK versions, the command."""
    rows: list[RowReport] = []
    """The release's model rows, in the order its results list them (the matrix's)."""
    layers: dict[str, list[tuple[str, str]]] = {}
    """Per row served through other layers, those layers (`conformance.reports.layers`)."""
    variant_of: str | None = None
    """The framework target this one is a variant of (the results' `variant_of`), shown as a
    sub-column right after its framework's column."""


class GridCell(_Model):
    """The cells of one target for one model row and content type (one per source and style)."""

    target: str
    cells: list[CellReport]


class GridRow(_Model):
    row: str
    model: str
    content_type: ContentType
    targets: list[GridCell]
    """One per column, in column order; empty `cells` where the target has none."""


class Finding(_Model):
    """A failing or deviating check of a target's newest release, with its level."""

    target: str
    cell: str
    check: str
    level: Level
    verdict: str
    outcome: str | None
    detail: str
    reason: str | None


class Comparison(_Model):
    columns: list[Release]
    """The newest release of each target, in the order the files name them."""
    rows: list[GridRow]
    findings: dict[str, list[Finding]]
    """Per target, worst first (all of them; views show `FINDINGS_SHOWN`)."""
    timeline: list[TimelineChange]
    releases: dict[str, list[str]]
    """Per target, every version read, oldest first."""
    matrices: list[str]
    """The matrix digests the columns were run on (more than one: say so)."""
    current_matrix: str | None = None
    """The digest the comparison is judged against; a column run on another is stale."""

    def stale(self, release: Release) -> bool:
        """The release was run on another matrix than the current one: each of its cells is
        shown as stale, never mixed silently with the current ones."""
        return self.current_matrix is not None and release.matrix_digest != self.current_matrix


def release_words(release: Release) -> str:
    """`openai-agents 0.24`, and `(via litellm 1.110 on 3 rows)` per chain of other layers; a
    variant with its framework (`litellm 1.110.2 ↳ anthropic-messages`)."""
    chains: dict[tuple[tuple[str, str], ...], int] = {}
    for chain in release.layers.values():
        key = tuple((a, b) for a, b in chain)
        chains[key] = chains.get(key, 0) + 1
    plain = f"{release.target} {release.version}"
    words = target_words(release.target, release.version, release.variant_of)
    for chain, rows in sorted(chains.items()):
        shown = via(release.target, release.version, chain).removeprefix(plain)
        words += f" ({shown.strip()} on {rows} row{'s' if rows != 1 else ''})"
    return words


def version_key(version: str) -> tuple[int, ...]:
    """`2.68.0` -> (2, 68, 0): releases ordered by their numbers."""
    return tuple(int(x) for x in re.findall(r"\d+", version))


def build_comparison(
    paths: Sequence[str | os.PathLike[str]], *, current_matrix: str | None = None
) -> Comparison:
    """Read results files, each a run of its own, and line up their targets' newest releases.

    `current_matrix` is the matrix digest the comparison is judged against (default: the first
    file's, the fresh reference run's); a release run on another matrix is stale, cell by cell
    (`Comparison.stale`)."""
    return compare_releases(load_releases(paths), current_matrix=current_matrix)


def load_releases(paths: Sequence[str | os.PathLike[str]]) -> dict[str, list[Release]]:
    """Every target's releases in the files, oldest first; each release given once."""
    if not paths:
        raise ReportError("no results files given")
    releases: dict[str, dict[str, Release]] = {}
    for path in paths:
        results = load_results([path])
        report = build_report(results)
        meta = results.files[0].meta
        for target in report.targets:
            release = _release(target, str(path), report.matrix_digest, report.date.isoformat())
            layers = report.layers.get(target.name, {})
            release = release.model_copy(
                update={
                    "meta": meta,
                    "rows": target.rows,
                    "layers": layers,
                    "variant_of": meta.variant_of.get(target.name),
                }
            )
            known = releases.setdefault(target.name, {})
            if target.version in known:
                raise ReportError(
                    f"{path}: {target.name} {target.version} is also in"
                    f" {known[target.version].path}; give each release once"
                )
            known[target.version] = release
    return {
        name: sorted(by_version.values(), key=lambda r: version_key(r.version))
        for name, by_version in releases.items()
    }


def compare_releases(
    ordered: dict[str, list[Release]], *, current_matrix: str | None = None
) -> Comparison:
    """The comparison of releases read (`load_releases`): the newest of each is a column."""
    columns = _grouped([versions[-1] for versions in ordered.values()])
    return Comparison(
        columns=columns,
        rows=_grid(columns),
        findings={c.target: _findings(c) for c in columns},
        timeline=[change for versions in ordered.values() for change in timeline(versions)],
        releases={name: [r.version for r in versions] for name, versions in ordered.items()},
        matrices=sorted({c.matrix_digest for c in columns}),
        current_matrix=current_matrix or columns[0].matrix_digest,
    )


def _grouped(columns: list[Release]) -> list[Release]:
    """Each framework's variants right after its column, in their order; a variant whose
    framework is not among the columns at its version (run alone, or left out of the
    framework's newest release) keeps its place as a column of its own, named in full."""
    versions = {c.target: c.version for c in columns}
    columns = [
        c
        if c.variant_of is None or versions.get(c.variant_of) == c.version
        else c.model_copy(update={"variant_of": None})
        for c in columns
    ]
    present = {c.target for c in columns}
    out: list[Release] = []
    for column in columns:
        if column.variant_of in present:
            continue
        out.append(column)
        out += [c for c in columns if c.variant_of == column.target]
    return out


def column_words(release: Release) -> str:
    """A column's heading: `litellm 1.110.2`, and `↳ anthropic-messages` for a variant of the
    column before it (its version is its framework's)."""
    return heading(release.target, release.version, release.variant_of)


def heading(target: str, version: str, variant_of: str | None) -> str:
    """`litellm 1.110.2`; for a variant, `↳ anthropic-messages`: a sub-column's heading, right
    after its framework's column (`column_words`; the site's grid has the same)."""
    if variant_of is not None:
        return "↳ " + variant_name(target, variant_of)
    return f"{target} {version}"


def variant_name(target: str, variant_of: str) -> str:
    """`litellm.anthropic-messages` of `litellm` -> `anthropic-messages`."""
    return target.removeprefix(variant_of + ".")


def target_words(target: str, version: str, variant_of: str | None) -> str:
    """A target named where it does not stand beside its framework (a card, a page title):
    `litellm 1.110.2`, and `litellm 1.110.2 ↳ anthropic-messages` for a variant."""
    if variant_of is not None:
        return f"{variant_of} {version} {heading(target, version, variant_of)}"
    return f"{target} {version}"


def variants_in(release: Release) -> list[str]:
    """The variants that ran in the same run as this framework release (its results file's
    meta line), in the order the run named them."""
    if release.meta is None or release.variant_of is not None:
        return []
    return [v for v, of in release.meta.variant_of.items() if of == release.target]


def _release(target: TargetReport, path: str, digest: str, date: str) -> Release:
    cells = {cell.id: cell for row in target.rows for ct in row.content_types for cell in ct.cells}
    return Release(
        target=target.name,
        version=target.version,
        path=path,
        matrix_digest=digest,
        date=date,
        compliance=target.compliance,
        cells=cells,
        properties=target.properties,
        capability=target.capability,
    )


def _grid(columns: list[Release]) -> list[GridRow]:
    """Model row by content type, in the matrix's order: rows as the results first list them
    (a run writes its cells in the matrix's order, the reference's file first), content types
    in the canonical order within a row."""
    keys: dict[tuple[str, ContentType], str] = {}
    first_seen: dict[str, int] = {}
    for column in columns:
        for cell in column.cells.values():
            row = cell.id.rsplit("/", 3)[0]
            first_seen.setdefault(row, len(first_seen))
            keys.setdefault((row, cell.content_type), _model_of(cell))
    ordered = sorted(keys, key=lambda k: (first_seen[k[0]], _CONTENT_TYPES.index(k[1])))
    return [
        GridRow(
            row=row,
            model=keys[(row, content_type)],
            content_type=content_type,
            targets=[
                GridCell(
                    target=column.target,
                    cells=sorted(
                        (
                            c
                            for c in column.cells.values()
                            if c.id.rsplit("/", 3)[0] == row and c.content_type == content_type
                        ),
                        key=_given_as,
                    ),
                )
                for column in columns
            ],
        )
        for row, content_type in ordered
    ]


_GIVEN_AS: tuple[tuple[str, str], ...] = tuple(
    (source, style) for source in get_args(Source) for style in get_args(Style)
)
"""Every source and style a cell's media can be given as (not a variant: that is another entry
point of a framework)."""


def _given_as(cell: CellReport) -> int:
    """Inline before url, result before prompt before error: the order glyphs are shown in."""
    return _GIVEN_AS.index((cell.source, cell.style))


def _model_of(cell: CellReport) -> str:
    return cell.id.rsplit("/", 3)[0].split("/", 1)[1]


def _findings(release: Release) -> list[Finding]:
    found = [
        Finding(
            target=release.target,
            cell=cell.id,
            check=check.check,
            level=check.level,
            verdict=check.verdict,
            outcome=cell.outcome,
            detail=check.detail,
            reason=check.reason,
        )
        for cell in release.cells.values()
        for check in cell.checks
        if check.verdict in ("fail", "xpass", "xfail")
    ]
    found += [
        Finding(
            target=release.target,
            cell=f"property/{prop.name}",
            check=prop.name,
            level=prop.level,
            verdict=prop.verdict,
            outcome=None,
            detail=prop.detail,
            reason=prop.reason,
        )
        for prop in release.properties
        if prop.verdict in ("fail", "xpass", "xfail")
    ]
    return sorted(found, key=_harm)


def _harm(finding: Finding) -> tuple[int, int, int, str]:
    """Worst first: the level, a failure before a declared deviation, then the outcome."""
    return (
        LEVELS.index(finding.level),
        0 if finding.verdict in ("fail", "xpass") else 1,
        -OUTCOME_RANK.get(finding.outcome or "", -1),
        finding.cell,
    )


# ---- Markdown ---------------------------------------------------------------------------

_STATUS: dict[str, str] = {"pass": "✅", "fail": "❌", "xfail": "⚠️", "skip": "⏭️"}
_OUTCOME: dict[str, str] = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_EXPECT: dict[str, str] = {"native": "✅", "fallback": "↪️", "unsupported": "🚫"}


def glyph(cell: CellReport, level: Level | None = None) -> str:
    """What a cell shows: overall, its outcome's glyph when it passes; at a level, its status
    over that level's checks (`·` when it has none); `n/a` for a cell not applicable to the
    target, ❔ for a failure on a cell whose expectation is uncertain."""
    if cell.na is not None:
        return "n/a"
    if level is not None:
        status = cell.levels.get(level)
        if status == "fail" and cell.known == "uncertain":
            failing = [k for k in cell.checks if k.level == level and k.verdict == "fail"]
            return "❔" if failing else _STATUS[status]
        return "·" if status is None else _STATUS[status]
    if cell.unsettled:
        return "❔"
    if cell.status == "pass":
        return _OUTCOME.get(cell.outcome or "", _EXPECT.get(cell.expect, "✅"))
    return _STATUS[cell.status]


def render_compare_markdown(comparison: Comparison) -> str:
    """The comparison as GitHub-flavoured Markdown: summary, grid per level, timeline."""
    columns = comparison.columns
    out = [
        "# Frameworks compared",
        "",
        "Newest release of each target: "
        + ", ".join(md_text(release_words(c)) for c in columns)
        + ". Each grid cell holds one glyph per cell of that row and content type, in the order"
        " inline · result, inline · prompt, inline · error, url · result, url · prompt (those"
        " the matrix has).",
    ]
    if len(comparison.matrices) > 1:
        out += [
            "",
            "⚠️ The columns were run on different matrices: "
            + ", ".join(md_code(short_digest(d)) for d in comparison.matrices),
        ]
    out += ["", "## Summary per target", "", _summary_header(), _summary_rule()]
    for column in columns:
        out.append(_summary_line(column))
    out += [
        "",
        "Compliance is over the cells that apply to each target; n/a cells (a feature it"
        " declares it does not have, a row it cannot serve) and unsettled failures (on cells"
        f" whose expectation the matrix marks uncertain; {SETTLE} settles them) are counted"
        " apart. Capability: what the target carried of the cells whose media the row can"
        " carry; a typed refusal is safe and carries nothing.",
    ]
    for column in columns:
        groups = group_findings(column)
        named = target_words(column.target, column.version, column.variant_of)
        out += ["", f"### {md_text(named)}: worst findings", ""]
        if not groups:
            out.append("No failures and no declared deviations.")
        for group in groups[:FINDINGS_SHOWN]:
            word = "fails" if group.kind == "failure" else "known deviation at"
            shown = ", ".join(md_code(c) for c in group.cells[:CELLS_SHOWN])
            more = len(group.cells) - CELLS_SHOWN
            out.append(
                f"- **{word} {group.level}** · {len(group.cells)}"
                f" cell{'s' if len(group.cells) != 1 else ''} ·"
                f" {', '.join(md_code(c) for c in group.checks)} · outcome"
                f" {md_text('; '.join(group.outcomes) or 'not observed')}: {md_text(group.reason)}"
                + (f" ({md_text(group.link)})" if group.link else "")
                + f"<br>{shown}"
                + (f" and {more} more" if more > 0 else "")
            )
        if len(groups) > FINDINGS_SHOWN:
            out.append(f"- … and {len(groups) - FINDINGS_SHOWN} more reasons (see the HTML page)")
    views: list[tuple[str, Level | None]] = [("all checks", None)]
    for name in LEVELS:
        views.append((f"{name} rules", name))
    for title, level in views:
        out += [
            "",
            f"<details{' open' if level is None else ''}><summary>Grid: {title}</summary>",
            "",
            _grid_header(columns),
            "|" + "---|" * (len(columns) + 2),
        ]
        stale = {c.target for c in columns if comparison.stale(c)}
        for row in comparison.rows:
            glyphs = [
                ("stale: " if g.target in stale and g.cells else "")
                + (" ".join(glyph(c, level) for c in g.cells) or "–")
                for g in row.targets
            ]
            out.append(f"| {md_text(row.row)} | {row.content_type} | " + " | ".join(glyphs) + " |")
        out += ["", "</details>"]
    out += ["", "## Across versions", ""]
    for name, versions in comparison.releases.items():
        out.append(f"- {md_text(name)}: {' → '.join(md_text(v) for v in versions)}")
    out += timeline_counts(comparison.timeline, comparison.releases)
    if not comparison.timeline:
        out += ["", "No cell changed between the releases read."]
    else:
        out += ["", "| target | cell | change | before | after |", "|---|---|---|---|---|"]
        for change in comparison.timeline:
            out.append(
                f"| {md_text(change.target)} | {md_text(change.cell)}"
                f" | {KIND_WORDS[change.kind]} {md_text(change.version)}"
                f" | {md_text(change.before)} | {md_text(change.after)} |"
            )
    return "\n".join(out) + "\n"


def _summary_header() -> str:
    return (
        "| target | version | "
        + " | ".join(LEVELS)
        + " | capability | failures | unsettled | deviations | n/a |"
    )


def _summary_rule() -> str:
    return "|" + "---|" * (len(LEVELS) + 7)


def _summary_line(column: Release) -> str:
    levels = [md_text(level_words(c)) for c in column.compliance]
    cells = column.cells.values()
    failing = [(c, k) for c in cells for k in c.checks if k.verdict in ("fail", "xpass")]
    unsettled = sum(is_unsettled(c.known, k.verdict) for c, k in failing)
    failures = len(failing) - unsettled + sum(p.verdict == "fail" for p in column.properties)
    deviations = sum(k.verdict == "xfail" for c in cells for k in c.checks)
    deviations += sum(p.verdict == "xfail" for p in column.properties)
    capability = capability_words(column.capability) if column.capability else "–"
    not_applicable = sum(c.na is not None for c in cells)
    return (
        f"| {md_text(column.target)} | {md_text(column.version)} | "
        + " | ".join(levels)
        + f" | {md_text(capability)} | {failures} | {unsettled} | {deviations}"
        + f" | {not_applicable} |"
    )


def _grid_header(columns: list[Release]) -> str:
    heads = [md_text(column_words(c)) for c in columns]
    return "| row | content | " + " | ".join(heads) + " |"
