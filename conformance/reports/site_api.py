"""The site's data: the JSON API (version 1), from which every page is rendered.

`build_site_data` turns the releases read (`conformance.reports.compare.load_releases`) into
one `SiteData`: the index (every release, the grid of model row by content type across the
frameworks' newest releases, in the matrix's order), a document per release (its provenance,
compliance per level, what it does by outcome, its findings grouped by reason, worst first),
a document per cell (each target's verdicts, every release's status) and the timeline per
target. The site writes each as a file under `api/v1/` and the JSON Schema of each beside
them (`SCHEMAS`); the pages are views of the same models, so the two cannot disagree.

The version is in the path and in every document (`api_version`): a change that removes or
renames a field, or changes its meaning, is version 2 under `api/v2/`; adding an optional
field is not.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter

from conformance.judging.levels import Level
from conformance.reports.compare import (
    Comparison,
    Release,
    TimelineChange,
    compare_releases,
    variants_in,
)
from conformance.reports.findings import FindingGroup, group_findings
from conformance.reports.report import CellReport, CheckReport, LevelCompliance, PropertyReport
from conformance.reports.words import grade, outcome_word

__all__ = [
    "API_VERSION",
    "SCHEMAS",
    "CellDoc",
    "CellResult",
    "FindingGroup",
    "GridEntry",
    "IndexDoc",
    "ReleaseDoc",
    "ReleaseRef",
    "SiteData",
    "TimelineDoc",
    "build_site_data",
    "cell_path",
]

API_VERSION: Literal[1] = 1


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReleaseRef(_Model):
    target: str
    version: str
    latest: bool
    """The target's newest release read: the one the front page shows."""
    stale: bool
    """Run on another matrix than the current one: its cells are shown marked stale."""
    matrix_digest: str


class Chip(_Model):
    """One cell of one release, as the grid shows it."""

    cell: str
    source: str
    style: str
    status: str
    outcome: str | None
    word: str
    """The outcome in words ("native", "refused", "dropped", ...)."""
    grade: str
    """The strongest level the cell does not pass, in words, or "all levels pass"."""
    levels: dict[Level, str]


class GridEntry(_Model):
    row: str
    api: str
    model: str
    content_type: str
    targets: dict[str, list[Chip]]
    """Per target (its newest release), its cells of this row and type; absent: none."""


class IndexDoc(_Model):
    api_version: Literal[1] = API_VERSION
    current_matrix: str
    releases: list[ReleaseRef]
    """Targets in column order; each target's releases oldest first."""
    columns: list[str]
    """The targets, in the order the grid shows them (the reference first; a framework's
    variants right after it)."""
    grid: list[GridEntry]
    """Model row by content type, in the matrix's order."""
    variant_of: dict[str, str] = {}
    """Per column that is a variant (another entry point of a framework, run with it), its
    framework's column: the grid shows it as a sub-column of that framework."""


class ReleaseDoc(_Model):
    api_version: Literal[1] = API_VERSION
    target: str
    version: str
    latest: bool
    stale: bool
    matrix_digest: str
    suite_version: str
    suite_commit: str | None
    python: str
    hypothesis: str | None = None
    """The hypothesis version that drew the property searches' histories (another draws
    others), where the file records it."""
    date: str
    command: list[str] | None
    """The command the run was started with, where the file records it."""
    complete: bool
    """Always true: only a complete run's file is read (`load_results`)."""
    sdk_versions: dict[str, str]
    results_file: str
    compliance: list[LevelCompliance]
    outcomes: dict[str, int]
    """Cells by what the target did, in words, most frequent first."""
    findings: list[FindingGroup]
    """Worst first: level, failures before deviations, then the outcome's harm."""
    properties: list[PropertyReport]
    variant_of: str | None = None
    """The framework target this one is a variant of (run with it, at its version)."""
    variants: list[str] = []
    """The variants that ran with this framework release (in its results file)."""


class CellResult(_Model):
    target: str
    version: str
    latest: bool
    stale: bool
    status: str
    outcome: str | None
    word: str
    grade: str
    levels: dict[Level, str]
    checks: list[CheckReport]
    variant_of: str | None = None
    """The framework target this one is a variant of, run with it."""


class CellDoc(_Model):
    api_version: Literal[1] = API_VERSION
    id: str
    row: str
    api: str
    model: str
    content_type: str
    source: str
    style: str
    expect: str
    known: str
    cite: str
    results: list[CellResult]
    """The newest release of each target first, in column order, then older releases."""


class TimelineDoc(_Model):
    api_version: Literal[1] = API_VERSION
    target: str
    releases: list[str]
    """Oldest first."""
    changes: list[TimelineChange]


class SiteData(_Model):
    index: IndexDoc
    releases: list[ReleaseDoc]
    cells: list[CellDoc]
    timelines: list[TimelineDoc]


SCHEMAS: dict[str, type[BaseModel]] = {
    "index": IndexDoc,
    "release": ReleaseDoc,
    "cell": CellDoc,
    "timeline": TimelineDoc,
}
"""Each document kind and its model; `api/v1/schema/<kind>.schema.json` is its JSON Schema."""


def schema_of(kind: str) -> dict[str, Any]:
    schema = TypeAdapter(SCHEMAS[kind]).json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def cell_path(cell_id: str) -> str:
    """A cell's page and document name: its id, a folder per part (`openai-chat/gpt-6/...`)."""
    return cell_id


def build_site_data(ordered: dict[str, list[Release]], current_matrix: str | None) -> SiteData:
    comparison = compare_releases(ordered, current_matrix=current_matrix)
    refs = [
        ReleaseRef(
            target=r.target,
            version=r.version,
            latest=r is versions[-1],
            stale=comparison.stale(r),
            matrix_digest=r.matrix_digest,
        )
        for versions in ordered.values()
        for r in versions
    ]
    index = IndexDoc(
        current_matrix=comparison.current_matrix or "",
        releases=refs,
        columns=[c.target for c in comparison.columns],
        variant_of={c.target: c.variant_of for c in comparison.columns if c.variant_of},
        grid=[
            GridEntry(
                row=row.row,
                api=row.row.split("/", 1)[0],
                model=row.model,
                content_type=row.content_type,
                targets={g.target: [_chip(c) for c in g.cells] for g in row.targets if g.cells},
            )
            for row in comparison.rows
        ],
    )
    read = {(r.target, r.version) for versions in ordered.values() for r in versions}
    releases = [
        _release_doc(r, r is versions[-1], comparison, read)
        for versions in ordered.values()
        for r in versions
    ]
    timelines = [
        TimelineDoc(
            target=name,
            releases=[r.version for r in versions],
            changes=[c for c in comparison.timeline if c.target == name],
        )
        for name, versions in ordered.items()
    ]
    return SiteData(
        index=index, releases=releases, cells=_cells(ordered, comparison), timelines=timelines
    )


def _chip(cell: CellReport) -> Chip:
    return Chip(
        cell=cell.id,
        source=cell.source,
        style=cell.style,
        status=cell.status,
        outcome=cell.outcome,
        word=outcome_word(cell),
        grade=grade(cell).words,
        levels=dict(cell.levels),
    )


def _release_doc(
    release: Release, latest: bool, comparison: Comparison, read: set[tuple[str, str]]
) -> ReleaseDoc:
    """`read`: every (target, version) read, so that a variant names its framework's release
    only where that release has a page."""
    meta = release.meta
    framework = release.variant_of
    counts: dict[str, int] = {}
    for cell in release.cells.values():
        word = outcome_word(cell)
        counts[word] = counts.get(word, 0) + 1
    return ReleaseDoc(
        target=release.target,
        version=release.version,
        latest=latest,
        stale=comparison.stale(release),
        matrix_digest=release.matrix_digest,
        suite_version=meta.suite_version if meta else "",
        suite_commit=meta.suite_commit if meta else None,
        python=meta.python if meta else "",
        hypothesis=meta.hypothesis if meta else None,
        date=release.date,
        command=list(meta.run.command) if meta and meta.run else None,
        complete=True,
        sdk_versions=dict(meta.sdk_versions.get(release.target, {})) if meta else {},
        results_file=_shown(release.path),
        compliance=release.compliance,
        outcomes=dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        findings=group_findings(release),
        properties=release.properties,
        variant_of=framework if (framework, release.version) in read else None,
        variants=[v for v in variants_in(release) if (v, release.version) in read],
    )


def _shown(path: str) -> str:
    """A results file as the site names it: relative to here (the repository, where the site
    is built), else its name alone: no machine's own folders in a published page."""
    given = Path(path)
    with contextlib.suppress(ValueError):
        return given.resolve().relative_to(Path.cwd().resolve()).as_posix()
    return given.name


def _cells(ordered: dict[str, list[Release]], comparison: Comparison) -> list[CellDoc]:
    order: dict[str, CellReport] = {}
    for row in comparison.rows:
        for group in row.targets:
            for cell in group.cells:
                order.setdefault(cell.id, cell)
    docs: list[CellDoc] = []
    for cell_id, first in order.items():
        results: list[CellResult] = []
        for versions in ordered.values():  # newest release of each target first
            results += _results_of(cell_id, versions[-1:], True, comparison)
        for versions in ordered.values():
            results += _results_of(cell_id, list(reversed(versions[:-1])), False, comparison)
        row = cell_id.rsplit("/", 3)[0]
        docs.append(
            CellDoc(
                id=cell_id,
                row=row,
                api=row.split("/", 1)[0],
                model=_model(comparison, row),
                content_type=first.content_type,
                source=first.source,
                style=first.style,
                expect=first.expect,
                known=first.known,
                cite=first.cite,
                results=results,
            )
        )
    return docs


def _model(comparison: Comparison, row: str) -> str:
    return next((r.model for r in comparison.rows if r.row == row), "")


def _results_of(
    cell_id: str, releases: list[Release], latest: bool, comparison: Comparison
) -> list[CellResult]:
    out: list[CellResult] = []
    for release in releases:
        cell = release.cells.get(cell_id)
        if cell is None:
            continue
        out.append(
            CellResult(
                target=release.target,
                version=release.version,
                latest=latest,
                stale=comparison.stale(release),
                status=cell.status,
                outcome=cell.outcome,
                word=outcome_word(cell),
                grade=grade(cell).words,
                levels=dict(cell.levels),
                checks=cell.checks,
                variant_of=release.variant_of,
            )
        )
    return out
