"""The published compatibility report: a static site written from results files.

`write_site` reads every release's results (the reference run's and the committed
`results/<target>/<version>.jsonl.gz`, `conformance.reports.store`), builds the JSON API's
documents (`conformance.reports.site_api`) and writes, in one folder:

    index.html                          the "can I use" grid: model row by content type by framework
    frameworks/index.html               every framework and its releases
    frameworks/<target>/index.html      its releases and the cells that changed between them
    frameworks/<target>/<version>.html  one release: provenance, compliance, findings, deviations
    cells/<cell id>.html                one cell: each framework's payload and verdicts side by side
    media/<sha256>.<ext>                the media the payloads name, once each (by digest)
    repro/<target>/<cell id>.py         a reproducer, where the site was built with one
    api.html, api/v1/...                the same data as JSON, with a JSON Schema per document
    assets/site.css, assets/site.js     the style, and the filters (the pages read without it)

Paths are the ids themselves (a cell's page is its id), so links are stable across builds.
Every link is relative: the folder works from `file://` and from any static host. The folder
is written beside its destination and moved into place, and only a folder this command wrote
(it holds `.conformance-site`) is ever replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conformance.paths import is_safe_name
from conformance.recording.media import blob_path, references, store_of
from conformance.reports.compare import load_releases
from conformance.reports.html import repro_command
from conformance.reports.results import ReportError
from conformance.reports.site_api import SCHEMAS, SiteData, build_site_data, schema_of
from conformance.reports.site_assets import CSS, JS, page
from conformance.reports.site_pages import (
    api_page,
    cell_page,
    frameworks_page,
    front_page,
    release_page,
    timeline_page,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from conformance.reports.report import CheckReport
    from conformance.reports.site_api import CellDoc

__all__ = ["MARKER", "write_site"]

MARKER = ".conformance-site"
"""The file that says a folder is a site this command wrote (and may replace)."""
PAYLOAD_LIMIT = 60_000
"""Characters of a payload shown on a cell page; the rest is in the snapshot file."""


def write_site(
    paths: Sequence[str | os.PathLike[str]],
    out: Path,
    *,
    snapshots: Path | None = None,
    citations: Mapping[str, tuple[str, str]] | None = None,
    current_matrix: str | None = None,
    scripts: Mapping[tuple[str, str], str] | None = None,
) -> SiteData:
    """Write the site for these results files into `out`; returns its data.

    `citations` (cite id -> url, words) come from the matrix; `current_matrix` is its digest
    (default: the first file's); `scripts` holds reproducers by (target, cell id)."""
    ordered = load_releases(paths)
    data = build_site_data(ordered, current_matrix)
    _check_names(data)
    given = {Path(os.fspath(p)).resolve() for p in paths}
    if any(out.resolve() in (p, *p.parents) for p in given):
        raise ReportError(f"{out}: holds an input results file; write the site elsewhere")
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        raise ReportError(
            f"{out}: a folder that is not a site written by `conformance site` (no {MARKER});"
            " give an empty or new folder"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        _Writer(staging, snapshots, citations or {}, scripts or {}).write(data)
        (staging / MARKER).write_text("written by `conformance site`\n", encoding="utf-8")
        if out.exists():
            old = out.with_name(f".{out.name}-old")
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
            staging.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return data


def _check_names(data: SiteData) -> None:
    """Targets, versions and each part of a cell id become paths: plain names only."""
    problems: list[str] = []
    for release in data.releases:
        for name in (release.target, release.version):
            if not is_safe_name(name):
                problems.append(f"{release.results_file}: {name!r} is not a plain file name")
    for cell in data.cells:
        if not all(is_safe_name(part) for part in cell.id.split("/")):
            problems.append(f"cell {cell.id!r}: a part is not a plain file name")
    if problems:
        raise ReportError(*problems)


class _Writer:
    def __init__(
        self,
        root: Path,
        snapshots: Path | None,
        citations: Mapping[str, tuple[str, str]],
        scripts: Mapping[tuple[str, str], str],
    ) -> None:
        self.root = root
        self.snapshots = snapshots
        self.citations = citations
        self.scripts = scripts

    def file(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def json(self, relative: str, value: Any) -> None:
        self.file(relative, json.dumps(value, indent=2, ensure_ascii=False) + "\n")

    def html(self, relative: str, title: str, body: str, here: str = "") -> None:
        depth = relative.count("/")
        self.file(relative, page(title, body, root="../" * depth, here=here))

    def write(self, data: SiteData) -> None:
        self.file("assets/site.css", CSS.lstrip())
        self.file("assets/site.js", JS.lstrip())
        self.file(".nojekyll", "")
        index = data.index
        self.html("index.html", "Can I use", front_page(index, data.releases), "home")
        self.json("api/v1/index.json", index.model_dump(mode="json"))
        for kind in SCHEMAS:
            self.json(f"api/v1/schema/{kind}.schema.json", schema_of(kind))
        self.html("api.html", "JSON API", api_page(list(SCHEMAS), "api/v1/index.json"), "api")
        self.html(
            "frameworks/index.html",
            "Frameworks",
            frameworks_page(data.releases, index.columns),
            "frameworks",
        )
        for release in data.releases:
            where = f"frameworks/{release.target}/{release.version}.html"
            title = f"{release.target} {release.version}"
            self.html(where, title, release_page(release, "../../"), "frameworks")
            self.json(
                f"api/v1/releases/{release.target}/{release.version}.json",
                release.model_dump(mode="json"),
            )
        for timeline in data.timelines:
            body = timeline_page(timeline, data.releases, "../../")
            self.html(f"frameworks/{timeline.target}/index.html", timeline.target, body)
            self.json(f"api/v1/timelines/{timeline.target}.json", timeline.model_dump(mode="json"))
        siblings: dict[str, list[tuple[str, str]]] = {}
        for cell in data.cells:
            key = f"{cell.row}/{cell.content_type}"
            siblings.setdefault(key, []).append((cell.id, f"{cell.source} · {cell.style}"))
        for cell in data.cells:
            self.cell(cell, siblings[f"{cell.row}/{cell.content_type}"])

    def cell(self, cell: CellDoc, siblings: list[tuple[str, str]]) -> None:
        relative = f"cells/{cell.id}.html"
        root = "../" * relative.count("/")
        payloads: dict[str, str] = {}
        repros: dict[str, str] = {}
        for result in cell.results:
            if not result.latest:
                continue
            payloads[result.target] = self.payload(cell, result.target, root, result.checks)
            repros[result.target] = self.repro(cell, result.target, root)
        found = self.citations.get(cell.cite)
        citation = f"<code>{escape(cell.cite)}</code>"
        if found is not None:
            url, says = found
            link = (
                f'<a href="{escape(url)}" rel="noopener noreferrer">{escape(url)}</a>'
                if url.startswith(("https://", "http://"))
                else f"<code>{escape(url)}</code>"
            )
            citation += f": {escape(says)} {link}"
        body = cell_page(
            cell, root, payloads=payloads, repros=repros, siblings=siblings, citation=citation
        )
        self.file(relative, page(cell.id, body, root=root))
        self.json(f"api/v1/cells/{cell.id}.json", cell.model_dump(mode="json"))

    def payload(self, cell: CellDoc, target: str, root: str, checks: list[CheckReport]) -> str:
        if self.snapshots is None:
            return '<p class="note">Built without the snapshot folder.</p>'
        family = cell.row[len(cell.api) + 1 :]
        name = f"{family}.{cell.content_type}.{cell.source}.{cell.style}.json"
        path = self.snapshots / target / cell.api / name
        shown = Path(self.snapshots.name) / target / cell.api / name  # no machine's path
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return '<p class="note">No payload snapshot: the target raised, or has none here.</p>'
        media: list[str] = []
        with contextlib.suppress(ValueError):
            value = json.loads(text)
            text = json.dumps(value, indent=2, ensure_ascii=False)
            media = self.media(value, path, root)
        snapshot = next((k for k in checks if k.check == "snapshot"), None)
        if snapshot is not None and snapshot.verdict == "pass":
            said = "The payload this release sent (its snapshot check passed)."
        else:
            said = (
                "The committed snapshot; this release's snapshot check did not pass, so what it"
                " sent differs (see the check's detail)."
            )
        if len(text) > PAYLOAD_LIMIT:
            said += f" The first {PAYLOAD_LIMIT:,} of {len(text):,} characters."
            text = text[:PAYLOAD_LIMIT]
        items = "".join(f"<li>{m}</li>" for m in media)
        listed = f'<ul class="media">{items}</ul>' if items else ""
        return (
            f'<p class="note">{said} From <code>{escape(shown.as_posix())}</code>.</p>'
            f'<pre class="payload" tabindex="0">{escape(text)}</pre>{listed}'
        )

    def media(self, value: Any, snapshot: Path, root: str) -> list[str]:
        """Copy each media item the payload names into media/ (once), and link it."""
        links: list[str] = []
        store = store_of(snapshot)
        for reference in references(value):
            try:
                source = blob_path(store, reference)
            except ValueError:
                continue
            target = self.root / "media" / source.name
            if not target.exists():
                try:
                    data = source.read_bytes()
                except OSError:
                    links.append(f"<code>{escape(source.name)}</code> (missing)")
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            words = f"{escape(str(reference['type']))}, {int(reference['size']):,} bytes"
            links.append(
                f'<a href="{root}media/{escape(source.name)}">{escape(source.name[:12])}…</a>'
                f" ({words}, sent as {escape(str(reference['as']))})"
            )
        return list(dict.fromkeys(links))

    def repro(self, cell: CellDoc, target: str, root: str) -> str:
        command = escape(repro_command(cell.id, target))
        script = self.scripts.get((target, cell.id))
        if script is None:
            return (
                "<p>Write a standalone script with only the framework, to paste into an"
                f' upstream issue:</p><pre class="command">{command}</pre>'
            )
        relative = f"repro/{target}/{cell.id}.py"
        self.file(relative, script)
        return (
            f'<p><a href="{root}{escape(relative)}" download>Download the reproducer</a>'
            f' (a standalone script with only the framework), or write it:</p><pre class="command">'
            f"{command}</pre>"
        )
