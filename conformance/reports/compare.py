"""Frameworks side by side: one page answering "with provider X and media Y in a tool result,
which framework gets it right, and since which version?"

`build_comparison` reads results files that are each a run of their own (the reference's, and
one per framework release, as `nox -s "target(NAME)"` writes them): the newest release of each
target is a column; the rows are model row by content type, each grid cell holding the target's
cells of that row and type (one per source and style). A cell shows its status overall or at
one level (`conformance.judging.levels`). Per target, a summary counts its cells per level and lists
its worst findings first (required before recommended before reference, then by how much harm
the outcome does). Across the releases of one target, the timeline lists every cell whose
status or outcome changed between consecutive versions: "fixed in", "broke in", "changed in".

`render_compare_markdown` (here, for a job summary) and `conformance.reports.compare_html` (one
self-contained page, each cell opening a dialog with its checks, expectation and the command
that writes its reproducer) are views of the same `Comparison` model.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Literal, get_args

from pydantic import BaseModel, ConfigDict

from conformance.history import ContentType
from conformance.judging.levels import LEVELS, Level
from conformance.reports.diff import OUTCOME_RANK, STATUS_RANK, DiffStatus
from conformance.reports.layers import via
from conformance.reports.report import (
    CellReport,
    LevelCompliance,
    PropertyReport,
    TargetReport,
    build_report,
    level_words,
    md_code,
    md_text,
    short_digest,
)
from conformance.reports.results import ReportError, Source, Style, load_results

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

__all__ = [
    "Comparison",
    "Finding",
    "GridCell",
    "GridRow",
    "Release",
    "TimelineChange",
    "build_comparison",
    "glyph",
    "render_compare_markdown",
    "version_key",
]

_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
FINDINGS_SHOWN = 10
"""The worst findings listed per target; the summary counts all of them."""


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
    layers: dict[str, list[tuple[str, str]]] = {}
    """Per row served through other layers, those layers (`conformance.reports.layers`)."""


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


class TimelineChange(_Model):
    target: str
    cell: str
    kind: Literal["fixed", "broke", "changed"]
    before: str
    """Version and what the cell did there, e.g. `1.85.0: fail (dropped)`."""
    after: str
    version: str
    """The version where the change shows."""


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


def release_words(release: Release) -> str:
    """`openai-agents 0.24`, and `(via litellm 1.110 on 3 rows)` per chain of other layers."""
    chains: dict[tuple[tuple[str, str], ...], int] = {}
    for chain in release.layers.values():
        key = tuple((a, b) for a, b in chain)
        chains[key] = chains.get(key, 0) + 1
    words = f"{release.target} {release.version}"
    for chain, rows in sorted(chains.items()):
        shown = via(release.target, release.version, chain).removeprefix(words)
        words += f" ({shown.strip()} on {rows} row{'s' if rows != 1 else ''})"
    return words


def version_key(version: str) -> tuple[int, ...]:
    """`2.68.0` -> (2, 68, 0): releases ordered by their numbers."""
    return tuple(int(x) for x in re.findall(r"\d+", version))


def build_comparison(paths: Sequence[str | os.PathLike[str]]) -> Comparison:
    """Read results files, each a run of its own, and line up their targets' newest releases."""
    if not paths:
        raise ReportError("no results files given")
    releases: dict[str, dict[str, Release]] = {}
    for path in paths:
        report = build_report(load_results([path]))
        for target in report.targets:
            release = _release(target, str(path), report.matrix_digest, report.date.isoformat())
            release = release.model_copy(update={"layers": report.layers.get(target.name, {})})
            known = releases.setdefault(target.name, {})
            if target.version in known:
                raise ReportError(
                    f"{path}: {target.name} {target.version} is also in"
                    f" {known[target.version].path}; give each release once"
                )
            known[target.version] = release
    ordered = {
        name: sorted(by_version.values(), key=lambda r: version_key(r.version))
        for name, by_version in releases.items()
    }
    columns = [versions[-1] for versions in ordered.values()]
    return Comparison(
        columns=columns,
        rows=_grid(columns),
        findings={c.target: _findings(c) for c in columns},
        timeline=[change for versions in ordered.values() for change in _timeline(versions)],
        releases={name: [r.version for r in versions] for name, versions in ordered.items()},
        matrices=sorted({c.matrix_digest for c in columns}),
    )


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
    )


def _grid(columns: list[Release]) -> list[GridRow]:
    keys: dict[tuple[str, ContentType], str] = {}
    for column in columns:
        for cell in column.cells.values():
            row = cell.id.rsplit("/", 3)[0]
            keys.setdefault((row, cell.content_type), _model_of(cell))
    ordered = sorted(keys, key=lambda k: (k[0], _CONTENT_TYPES.index(k[1])))
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
                        key=_variant,
                    ),
                )
                for column in columns
            ],
        )
        for row, content_type in ordered
    ]


_VARIANTS: tuple[tuple[str, str], ...] = tuple(
    (source, style) for source in get_args(Source) for style in get_args(Style)
)


def _variant(cell: CellReport) -> int:
    """Inline before url, result before prompt before error: the order glyphs are shown in."""
    return _VARIANTS.index((cell.source, cell.style))


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


def _side(cell: CellReport) -> tuple[DiffStatus, str | None]:
    return cell.status, cell.outcome


def _timeline(versions: list[Release]) -> list[TimelineChange]:
    changes: list[TimelineChange] = []
    for older, newer in itertools.pairwise(versions):
        for cell_id, now in newer.cells.items():
            was = older.cells.get(cell_id)
            if was is None or _side(was) == _side(now):
                continue
            by = STATUS_RANK[now.status] - STATUS_RANK[was.status]
            if not by and was.outcome and now.outcome:
                by = OUTCOME_RANK.get(now.outcome, 0) - OUTCOME_RANK.get(was.outcome, 0)
            kind: Literal["fixed", "broke", "changed"] = (
                "fixed" if by < 0 else "broke" if by > 0 else "changed"
            )
            changes.append(
                TimelineChange(
                    target=newer.target,
                    cell=cell_id,
                    kind=kind,
                    before=f"{older.version}: {_words(was)}",
                    after=f"{newer.version}: {_words(now)}",
                    version=newer.version,
                )
            )
        was_held: dict[str, DiffStatus] = {p.name: p.verdict for p in older.properties}
        for prop in newer.properties:
            before = was_held.get(prop.name)
            if before is None or before == prop.verdict:
                continue
            by = STATUS_RANK[prop.verdict] - STATUS_RANK[before]
            changes.append(
                TimelineChange(
                    target=newer.target,
                    cell=f"property/{prop.name}",
                    kind="fixed" if by < 0 else "broke" if by > 0 else "changed",
                    before=f"{older.version}: {before}",
                    after=f"{newer.version}: {prop.verdict}",
                    version=newer.version,
                )
            )
    return changes


def _words(cell: CellReport) -> str:
    return f"{cell.status} ({cell.outcome or 'not observed'})"


# ---- Markdown ---------------------------------------------------------------------------

_STATUS: dict[str, str] = {"pass": "✅", "fail": "❌", "xfail": "⚠️", "skip": "⏭️"}
_OUTCOME: dict[str, str] = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_EXPECT: dict[str, str] = {"native": "✅", "fallback": "↪️", "unsupported": "🚫"}
_KIND_WORDS = {"fixed": "fixed in", "broke": "broke in", "changed": "changed in"}


def glyph(cell: CellReport, level: Level | None = None) -> str:
    """What a cell shows: overall, its outcome's glyph when it passes; at a level, its status
    over that level's checks (`·` when it has none)."""
    if level is not None:
        status = cell.levels.get(level)
        return "·" if status is None else _STATUS[status]
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
    for column in columns:
        findings = comparison.findings[column.target]
        out += ["", f"### {md_text(column.target)} {md_text(column.version)}: worst findings", ""]
        if not findings:
            out.append("No failures and no declared deviations.")
        for finding in findings[:FINDINGS_SHOWN]:
            out.append(_finding_line(finding))
        if len(findings) > FINDINGS_SHOWN:
            out.append(f"- … and {len(findings) - FINDINGS_SHOWN} more (see the HTML page)")
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
        for row in comparison.rows:
            glyphs = [" ".join(glyph(c, level) for c in g.cells) or "–" for g in row.targets]
            out.append(f"| {md_text(row.row)} | {row.content_type} | " + " | ".join(glyphs) + " |")
        out += ["", "</details>"]
    out += ["", "## Across versions", ""]
    for name, versions in comparison.releases.items():
        out.append(f"- {md_text(name)}: {' → '.join(md_text(v) for v in versions)}")
    if not comparison.timeline:
        out += ["", "No cell changed between the releases read."]
    else:
        out += ["", "| target | cell | change | before | after |", "|---|---|---|---|---|"]
        for change in comparison.timeline:
            out.append(
                f"| {md_text(change.target)} | {md_text(change.cell)}"
                f" | {_KIND_WORDS[change.kind]} {md_text(change.version)}"
                f" | {md_text(change.before)} | {md_text(change.after)} |"
            )
    return "\n".join(out) + "\n"


def _summary_header() -> str:
    return "| target | version | " + " | ".join(LEVELS) + " | failures | deviations |"


def _summary_rule() -> str:
    return "|" + "---|" * (len(LEVELS) + 4)


def _summary_line(column: Release) -> str:
    levels = [md_text(level_words(c)) for c in column.compliance]
    checks = [k for cell in column.cells.values() for k in cell.checks]
    failures = sum(k.verdict in ("fail", "xpass") for k in checks)
    failures += sum(p.verdict == "fail" for p in column.properties)
    deviations = sum(k.verdict == "xfail" for k in checks)
    deviations += sum(p.verdict == "xfail" for p in column.properties)
    return (
        f"| {md_text(column.target)} | {md_text(column.version)} | "
        + " | ".join(levels)
        + f" | {failures} | {deviations} |"
    )


def _finding_line(finding: Finding) -> str:
    word = "known deviation" if finding.verdict == "xfail" else finding.verdict
    line = (
        f"- **{finding.level}** · {md_code(finding.cell)} · {md_code(finding.check)} · {word}"
        f" · outcome {finding.outcome or 'not observed'}"
    )
    first = finding.detail.strip().splitlines()[0] if finding.detail.strip() else ""
    if finding.reason:
        line += f": {md_text(finding.reason)}"
    elif first:
        line += f": {md_text(first[:200])}"
    return line


def _grid_header(columns: list[Release]) -> str:
    heads = [f"{md_text(c.target)} {md_text(c.version)}" for c in columns]
    return "| row | content | " + " | ".join(heads) + " |"
