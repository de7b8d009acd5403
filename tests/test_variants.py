"""Variants of a framework target (`<framework>.<variant>`, `variant_of` naming the framework):
one results file holds the framework and its variants, stored under the framework, and the
comparison shows each variant as its own column right after its framework's."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.reports.compare import build_comparison, column_words, render_compare_markdown
from conformance.reports.compare_html import render_compare_html
from conformance.reports.results import ReportError, load_results
from conformance.reports.site import write_site
from conformance.reports.store import import_results
from conformance.running.engine import variant_of
from results_data import checks, meta, write
from test_preflight import _noxfile  # pyright: ignore[reportPrivateUsage]

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "openai-chat/gpt-4o/image/inline/result"
LL, AM = "litellm", "litellm.anthropic-messages"


def _lines(target: str, version: str, verdict: str = "pass") -> list[dict[str, Any]]:
    return [
        line | {"target": target, "target_version": version}
        for line in checks(IMAGE, verdict=verdict, detail="x")
    ]


def framework_file(
    tmp_path: Path, version: str = "1.110.2", *, variants: dict[str, str] | None = None,
    drop: bool = False, name: str = "r.jsonl",
) -> Path:  # fmt: skip
    """A run of litellm and its variant; `drop` leaves the variant's results out."""
    chosen = {AM: LL} if variants is None else variants
    head = meta(**{LL: version, **dict.fromkeys(chosen, version)})
    head["variant_of"] = chosen
    lines = _lines(LL, version) + ([] if drop else _lines(AM, version, "fail"))
    return write(tmp_path / name, lines, head=head)


class _Target:
    def __init__(self, name: str, variant: str | None = None) -> None:
        self.name = name
        if variant is not None:
            self.variant_of = variant


def test_the_meta_line_names_each_variants_framework() -> None:
    targets = [_Target(LL), _Target(AM, LL), _Target("reference")]
    assert variant_of(targets) == {AM: LL}
    assert variant_of([_Target(LL)]) == {}


def test_a_framework_and_its_variants_are_stored_as_one_release(tmp_path: Path) -> None:
    (done,) = import_results([framework_file(tmp_path)], tmp_path / "results")
    assert done.stored == tmp_path / "results" / LL / "1.110.2.jsonl.gz"
    loaded = load_results([done.stored]).files[0].meta
    assert loaded.variant_of == {AM: LL}


def test_a_variant_of_another_framework_is_refused(tmp_path: Path) -> None:
    path = framework_file(tmp_path, variants={AM: "langchain"})
    with pytest.raises(ReportError, match=r"not of litellm 1\.110\.2"):
        import_results([path], tmp_path / "results")


def test_a_variant_at_another_version_is_refused(tmp_path: Path) -> None:
    head = meta(**{LL: "1.110.2", AM: "1.90.0"})
    head["variant_of"] = {AM: LL}
    lines = _lines(LL, "1.110.2") + _lines(AM, "1.90.0")
    path = write(tmp_path / "r.jsonl", lines, head=head)
    with pytest.raises(
        ReportError, match=r"variant litellm\.anthropic-messages is of litellm at 1\.90"
    ):
        import_results([path], tmp_path / "results")


def test_a_variant_run_without_its_framework_is_stored_as_its_own_target(tmp_path: Path) -> None:
    head = meta(**{AM: "1.110.2"})
    head["variant_of"] = {AM: LL}
    path = write(tmp_path / "r.jsonl", _lines(AM, "1.110.2"), head=head)
    (done,) = import_results([path], tmp_path / "results")
    assert done.stored == tmp_path / "results" / AM / "1.110.2.jsonl.gz"


def test_the_variant_is_a_column_right_after_its_framework(tmp_path: Path) -> None:
    other = write(tmp_path / "ref.jsonl", checks(IMAGE))  # the reference first
    comparison = build_comparison([other, framework_file(tmp_path)])
    assert [c.target for c in comparison.columns] == ["reference", LL, AM]
    assert [c.variant_of for c in comparison.columns] == [None, None, LL]
    assert column_words(comparison.columns[2]) == "↳ anthropic-messages"
    (row,) = comparison.rows
    # the variant's own cells (failing), not its framework's (passing)
    assert [g.cells[0].status for g in row.targets] == ["pass", "pass", "fail"]
    text = render_compare_markdown(comparison)
    assert "| reference 0.1.0 | litellm 1.110.2 | ↳ anthropic-messages |" in text


def test_a_dropped_variant_is_missing_from_the_comparison(tmp_path: Path) -> None:
    """The check fails when a variant's results are dropped: its column has no cells."""
    comparison = build_comparison([framework_file(tmp_path, drop=True)])
    assert [c.target for c in comparison.columns] == [LL, AM]  # named in the meta line
    (row,) = comparison.rows
    assert [len(g.cells) for g in row.targets] == [1, 0]


def test_a_variant_without_variant_of_is_no_sub_column(tmp_path: Path) -> None:
    """Mis-grouped (meta without `variant_of`): a column of its own, not a sub-column."""
    head = meta(**{LL: "1.110.2", AM: "1.110.2"})
    path = write(tmp_path / "r.jsonl", _lines(LL, "1.110.2") + _lines(AM, "1.110.2"), head=head)
    comparison = build_comparison([path])
    assert [c.variant_of for c in comparison.columns] == [None, None]
    assert column_words(comparison.columns[1]) == f"{AM} 1.110.2"


# --- the comparison page and the site ----------------------------------------------------------


def _pair(tmp_path: Path) -> list[Path]:
    """The reference's run and a run of litellm with its variant."""
    return [write(tmp_path / "ref.jsonl", checks(IMAGE)), framework_file(tmp_path)]


def test_the_comparison_page_shows_the_variant_as_a_sub_column_of_its_framework(
    tmp_path: Path,
) -> None:
    page = render_compare_html(build_comparison(_pair(tmp_path)))
    heads = re.findall(r'<th scope="col"([^>]*)>(.*?)</th>', page)[2:]
    assert heads == [
        ("", 'reference <span class="version">0.1.0</span>'),  # no variants: as before
        (' class="fw"', 'litellm <span class="version">1.110.2</span>'),
        (
            ' class="variant" data-variant-of="litellm"',
            '↳ anthropic-messages<span class="of">variant of litellm</span>',
        ),
    ]
    (variant,) = re.findall(r'<td class="variant" data-variant-of="litellm">(.*?)</td>', page)
    assert "st-fail" in variant  # the variant's own cell, not its framework's
    assert f"Run with its variants: <code>{AM}</code>" in page
    assert "litellm 1.110.2 ↳ anthropic-messages" in page  # its card names its framework


def test_a_variant_without_its_framework_at_its_version_is_a_column_of_its_own(
    tmp_path: Path,
) -> None:
    """The variant's newest release is not its framework's newest: no `↳` under a framework
    release it did not run with."""
    newer = write(tmp_path / "new.jsonl", _lines(LL, "1.120.0"), head=meta(**{LL: "1.120.0"}))
    comparison = build_comparison([framework_file(tmp_path), newer])
    assert [column_words(c) for c in comparison.columns] == [
        "litellm 1.120.0",
        f"{AM} 1.110.2",
    ]


@pytest.fixture
def variant_site(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    write_site(_pair(tmp_path), out)
    return out


def test_the_site_grid_puts_the_variant_under_its_framework(variant_site: Path) -> None:
    front = (variant_site / "index.html").read_text(encoding="utf-8")
    heads = re.findall(r'<th scope="col" data-framework="([^"]+)"([^>]*)>(.*?)</th>', front)
    assert [(t, a, re.sub(r"<[^>]+>", "|", h)) for t, a, h in heads] == [
        ("reference", "", "|reference 0.1.0|"),
        (LL, ' data-group="litellm" class="fw"', "|litellm 1.110.2|"),
        (
            AM,
            ' data-group="litellm" class="variant"',
            "|↳ anthropic-messages||variant of litellm 1.110.2|",
        ),
    ]
    # the framework filter offers the variant with its framework's name
    assert f'<option value="{AM}">litellm ↳ anthropic-messages</option>' in front
    index = json.loads((variant_site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert index["variant_of"] == {AM: LL}
    listed = (variant_site / "frameworks" / "index.html").read_text(encoding="utf-8")
    assert f'<ul class="variants"><li><a href="{AM}/index.html">↳ anthropic-messages' in listed


def test_the_release_page_lists_the_variants_that_ran_in_it(variant_site: Path) -> None:
    folder = variant_site / "frameworks"
    release = (folder / LL / "1.110.2.html").read_text(encoding="utf-8")
    assert (
        f'<dt>Variants run with it</dt><dd><a href="../../frameworks/{AM}/1.110.2.html">'
        f"anthropic-messages</a> (<code>{AM}</code>)</dd>"
    ) in release
    doc = json.loads((variant_site / "api/v1/releases" / LL / "1.110.2.json").read_text())
    assert doc["variants"] == [AM]
    assert doc["variant_of"] is None
    variant = (folder / AM / "1.110.2.html").read_text(encoding="utf-8")
    assert "<h1>litellm 1.110.2 ↳ anthropic-messages</h1>" in variant
    assert '<dt>A variant of</dt><dd><a href="../../frameworks/litellm/1.110.2.html">' in variant


def test_a_variant_run_alone_links_to_no_framework_page(tmp_path: Path) -> None:
    head = meta(**{AM: "1.110.2"}) | {"variant_of": {AM: LL}}
    alone = write(tmp_path / "r.jsonl", _lines(AM, "1.110.2"), head=head)
    write_site([alone], tmp_path / "site")
    page = (tmp_path / "site" / "frameworks" / AM / "1.110.2.html").read_text(encoding="utf-8")
    assert "A variant of" not in page
    assert f"frameworks/{LL}/" not in page


# --- end to end: a real variant through the framework's nox session, import, compare, site ---

TOY_TARGETS = '''\
from conformance.targets.reference import ReferenceTarget
from mutants import DropsMedia


class Toy(ReferenceTarget):
    """A framework: the reference under another name."""

    name = "toy"
    version = "1.0.0"


class ToyDropsMedia(DropsMedia):
    """Another entry point of it that leaves out every media item a tool produced."""

    name = "toy.drops-media"
    version = "1.0.0"
    variant_of = "toy"
'''
VARIANT = "toy.drops-media"
CELLS = "openai-chat/gpt-6/image/inline/result or openai-chat/gpt-6/text/inline/result"


class _RunningSession:
    """What the framework session calls of `nox.Session`, run for real: pytest in-process in
    the project, `conformance` through its own entry function."""

    def __init__(self, project: pytest.Pytester, posargs: list[str]) -> None:
        self.project = project
        self.posargs = posargs
        self.tmp = project.path / ".nox-tmp"

    def run(self, *args: str, success_codes: list[int] | None = None, **_: object) -> bool:
        if args[0] == "pytest":
            ran = self.project.runpytest(*args[1:])
            assert ran.ret in (success_codes or [0]), ran.outlines[-20:]
        else:
            assert args[0] == "conformance"
            assert cli.main(list(args[1:])) == 0
        return True

    def error(self, text: str) -> None:
        raise AssertionError(text)

    def log(self, text: str) -> None:
        pass

    def create_tmp(self) -> str:
        self.tmp.mkdir(exist_ok=True)
        return str(self.tmp)


@pytest.fixture
def toy(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project with a framework target `toy` and its variant registered as entry points, as
    an installed distribution registers them, the generated test in test_matrix.py as the
    framework session collects it, and the noxfile naming the variant."""
    project.makepyfile(
        toy_targets=TOY_TARGETS,
        test_matrix="from conformance.suite import test_conformance as test_conformance\n",
    )
    info = project.path / "toy_targets-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-targets\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(
        f"[conformance.targets]\ntoy = toy_targets:Toy\n{VARIANT} = toy_targets:ToyDropsMedia\n"
    )
    project.syspathinsert(project.path)
    # the in-process run imports the project's test_matrix.py: not this suite's, imported already
    monkeypatch.delitem(sys.modules, "test_matrix", raising=False)
    with monkeypatch.context() as here:
        here.chdir(ROOT)  # the noxfile reads pyproject.toml from where it is loaded
        noxfile = _noxfile()
    monkeypatch.setitem(noxfile.VARIANTS, "toy", (VARIANT,))
    return project


def test_a_variant_runs_in_its_frameworks_session_and_shows_as_its_sub_column(
    toy: pytest.Pytester,
) -> None:
    noxfile = _noxfile()
    session = _RunningSession(
        toy, ["-k", f"({CELLS}) and not :snapshot]", "--conformance-property-examples", "0"]
    )
    results = toy.path / "report" / "results-toy-1.0.0.jsonl"
    results.parent.mkdir()
    own = noxfile._release_deviations(session, "toy", "1.0.0")
    noxfile._run_release(session, "toy", results, False, {}, own)
    loaded = load_results([results]).files[0]
    assert loaded.meta.targets == {"toy": "1.0.0", VARIANT: "1.0.0"}  # one run, one file
    assert loaded.meta.variant_of == {VARIANT: "toy"}
    noxfile._import_release(session, "toy", "1.0.0", results)
    stored = toy.path / "results" / "toy" / "1.0.0.jsonl.gz"
    assert sorted((toy.path / "results").glob("*/*")) == [stored]  # under the framework only

    # the comparison: the variant's column right after its framework's, with its own cells
    comparison = build_comparison([stored])
    assert [column_words(c) for c in comparison.columns] == ["toy 1.0.0", "↳ drops-media"]
    image = next(
        r for r in comparison.rows if r.row == "openai-chat/gpt-6" and r.content_type == "image"
    )
    framework, variant = image.targets
    assert {c.status for c in framework.cells} == {"pass"}
    assert {c.outcome for c in variant.cells} == {"dropped"}  # the variant's own behaviour
    assert {c.status for c in variant.cells} == {"fail"}
    assert cli.main(["compare", str(stored), "-o", "compare.md"]) == 0
    markdown = (toy.path / "compare.md").read_text(encoding="utf-8")
    assert "| row | content | toy 1.0.0 | ↳ drops-media |" in markdown
    assert "### toy 1.0.0 ↳ drops-media: worst findings" in markdown

    assert cli.main(["compare", str(stored), "-o", "compare.html"]) == 0
    page = (toy.path / "compare.html").read_text(encoding="utf-8")
    heads = re.findall(r'<th scope="col"( class="[^"]+")?[^>]*>(.*?)</th>', page)
    assert heads[2:] == [
        (' class="fw"', 'toy <span class="version">1.0.0</span>'),
        (' class="variant"', '↳ drops-media<span class="of">variant of toy</span>'),
    ]
    cells = re.findall(r'<td class="variant" data-variant-of="toy">(.*?)</td>', page)
    assert cells
    assert any("st-fail" in c for c in cells)
    assert f"Run with its variants: <code>{VARIANT}</code>" in page
    assert "toy 1.0.0 ↳ drops-media" in page  # the variant's card and dialogs

    # the site: the sub-column in the grid, the framework's release page naming its variant
    assert cli.main(["site", "--results-dir", "results", "-o", "site"]) == 0
    site = toy.path / "site"
    front = (site / "index.html").read_text(encoding="utf-8")
    heads = re.findall(r'<th scope="col" data-framework="([^"]+)" data-group="([^"]+)"', front)
    assert heads == [("toy", "toy"), (VARIANT, "toy")]
    assert '↳ drops-media</a><span class="of">variant of toy 1.0.0</span>' in front
    release = (site / "frameworks" / "toy" / "1.0.0.html").read_text(encoding="utf-8")
    assert (
        f'<dt>Variants run with it</dt><dd><a href="../../frameworks/{VARIANT}/1.0.0.html">'
        f"drops-media</a> (<code>{VARIANT}</code>)</dd>"
    ) in release
    assert (site / "frameworks" / VARIANT / "1.0.0.html").is_file()
    of = (site / "frameworks" / VARIANT / "1.0.0.html").read_text(encoding="utf-8")
    assert '<dt>A variant of</dt><dd><a href="../../frameworks/toy/1.0.0.html">toy 1.0.0</a>' in of
    listed = (site / "frameworks" / "index.html").read_text(encoding="utf-8")
    assert f'<ul class="variants"><li><a href="{VARIANT}/index.html">↳ drops-media' in listed
    api = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert api["variant_of"] == {VARIANT: "toy"}


def test_the_run_report_names_the_variants_that_ran_with_the_framework(tmp_path: Path) -> None:
    path = framework_file(tmp_path)
    assert cli.main(["report", str(path), "-o", str(tmp_path / "r.md")]) == 0
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    framework = text.index(f"## {LL} 1.110.2")
    variant = text.index(f"## {AM} 1.110.2")
    assert text.index(f"Variants run with it: anthropic-messages ({AM}).", framework) < variant
    assert "A variant of litellm: another entry point of it, run with it." in text[variant:]
    assert cli.main(["report", str(path), "--format", "html", "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert f'<p class="variants">Variants run with it: anthropic-messages ({AM}).</p>' in page
    assert cli.main(["report", str(path), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["variant_of"] == {AM: LL}
