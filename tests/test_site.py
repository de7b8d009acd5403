"""`conformance site`: the static site from results files, every page readable without a
script, every link inside the site, the JSON API valid against its published schema, a stale
release marked on each of its cells, findings grouped by reason worst first."""

from __future__ import annotations

import json
import re
from html import escape
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import pytest

from conformance.cli import main
from conformance.reports.compare import build_comparison, render_compare_markdown
from conformance.reports.compare_html import render_compare_html
from conformance.reports.results import ReportError
from conformance.reports.site import MARKER, write_site
from conformance.reports.site_api import SCHEMAS, schema_of
from conformance.reports.store import import_results
from results_data import checks, meta, write

if TYPE_CHECKING:
    from pathlib import Path

GPT = "openai-chat/gpt-4o"
IMAGE = f"{GPT}/image/inline/result"
IMAGE_URL = f"{GPT}/image/url/result"
AUDIO = f"{GPT}/audio/inline/result"
CLAUDE = "anthropic/claude-4/image/inline/result"
PAI, LC = "pydantic-ai", "langchain"
REASON = "drops media it cannot place"
LINK = "https://example.invalid/issues/7"


def of(target: str, version: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line | {"target": target, "target_version": version} for line in lines]


def failing(cell: str, check: str, outcome: str, **fields: Any) -> list[dict[str, Any]]:
    lines = checks(cell, outcome=outcome, **{k: v for k, v in fields.items() if k == "expect"})
    extra = {k: v for k, v in fields.items() if k != "expect"}
    return [
        line
        | (
            {"verdict": "fail", "detail": f"{check} broke"} | extra
            if line["check"] == check
            else {}
        )
        for line in lines
    ]


def declared(cell: str, outcome: str) -> list[dict[str, Any]]:
    lines = checks(cell, outcome=outcome)
    return [
        line
        | (
            {"verdict": "xfail", "reason": REASON, "link": LINK}
            if line["check"] == "no-silent-loss"
            else {}
        )
        for line in lines
    ]


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    return make_files(tmp_path)


def make_files(tmp_path: Path) -> list[Path]:
    """The reference (fresh), pydantic-ai 1.0.0 and 2.0.0 committed, langchain committed but
    run on another matrix."""
    reference = write(
        tmp_path / "results.jsonl",
        [
            *checks(IMAGE),
            *checks(IMAGE_URL),
            *checks(AUDIO, expect="unsupported", outcome="raised"),
            *checks(CLAUDE, expect="native", outcome="native"),
        ],
    )
    old = of(PAI, "1.0.0", [*checks(IMAGE), *failing(AUDIO, "no-silent-loss", "dropped")])
    new = of(
        PAI,
        "2.0.0",
        [
            *declared(IMAGE, "dropped"),
            *declared(IMAGE_URL, "dropped"),
            *checks(AUDIO, expect="unsupported", outcome="raised"),
            *failing(CLAUDE, "provenance", "fallback-unmarked", expect="native"),
        ],
    )
    stale = of(LC, "1.8.3", [*checks(CLAUDE, expect="native", outcome="native")])
    folder = tmp_path / "results"
    inputs = tmp_path / "runs"
    inputs.mkdir()
    import_results(
        [
            write(inputs / "a.jsonl", old, head=meta(**{PAI: "1.0.0"})),
            write(inputs / "b.jsonl", new, head=meta(**{PAI: "2.0.0"})),
            write(inputs / "c.jsonl", stale, head=meta(**{LC: "1.8.3"}) | {"matrix_digest": "x"}),
        ],
        folder,
    )
    return [reference, *sorted(folder.glob("*/*.jsonl.gz"))]


@pytest.fixture
def site(files: list[Path], tmp_path: Path) -> Path:
    out = tmp_path / "site"
    write_site(files, out)
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("href", "src"):
            if found.get(name):
                self.links.append(found[name] or "")
        if found.get("id"):
            self.ids.add(found["id"] or "")


def test_every_page_and_link_is_inside_the_site(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert (site / "index.html") in pages
    assert (site / "frameworks" / PAI / "2.0.0.html") in pages
    assert (site / "frameworks" / PAI / "index.html") in pages
    assert (site / "cells" / f"{IMAGE}.html") in pages  # the permalink is the cell id
    checked = 0
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            if parts.scheme in ("http", "https"):
                continue  # upstream links, followed by a reader, never loaded
            assert not parts.scheme, f"{page}: {link}"
            assert not link.startswith("/"), f"{page}: {link} is not relative"
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert target.is_file(), f"{page}: {link} leads nowhere"
            assert site.resolve() in target.parents, f"{page}: {link} leaves the site"
            checked += 1
    assert checked > 50
    assert (site / MARKER).exists()


def test_variant_names_only_a_frameworks_entry_point_and_the_media_is_given_as(
    site: Path,
) -> None:
    """On the site "variant" means another entry point of a framework, run with it; a cell's
    source and style are what its media is "given as", in the filter, the chips, the legend
    and the cell page. These releases have no variants, so no page says the word."""
    pages = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    scripts = [p.read_text(encoding="utf-8") for p in site.rglob("*.js")]
    said = sorted(
        str(p.relative_to(site)) for p, text in pages.items() if "variant" in text.lower()
    )
    assert said == []
    front = pages[site / "index.html"]
    assert '<label>given as<select name="given">' in front
    assert '<option value="inline-result">inline · result</option>' in front
    assert 'data-given="inline-result"' in front
    assert any('value("given")' in js and "chip.dataset.given" in js for js in scripts)
    cell = pages[site / "cells" / f"{IMAGE}.html"]
    assert "<dt>Given as</dt>" in cell, cell


def test_the_front_page_is_the_grid_in_the_matrix_order_with_words(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr data-api="[^"]+" data-content="([^"]+)"><th scope="row">([^<]+)', page)
    assert rows == [("image", GPT), ("audio", GPT), ("image", "anthropic/claude-4")]
    heads = re.findall(r'<th scope="col" data-framework="([^"]+)">', page)
    assert heads == ["reference", LC, PAI]  # the newest release of each, reference first
    assert '<form id="filters" class="filters" hidden' in page  # shown by the script only
    chip = re.search(rf'href="cells/{re.escape(AUDIO)}\.html">(.*?)</a>', page)
    assert chip is not None
    assert "refused" in chip.group(1)  # never only a glyph
    assert "all levels pass" in chip.group(1)
    native = re.search(rf'href="cells/{re.escape(CLAUDE)}\.html">(.*?)</a>', page)
    assert native is not None
    assert "native" in native.group(1)
    assert "known deviation: required" in page
    assert "fails recommended" in page


def test_a_release_from_another_matrix_is_stale_on_each_of_its_cells(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    cells = re.findall(r'<td data-framework="langchain">(.*?)</td>', page)
    chips = [c for c in cells if "chip" in c]
    assert chips
    assert all('<span class="stale">stale</span>' in c for c in chips)
    others = re.findall(r'<td data-framework="pydantic-ai">(.*?)</td>', page)
    assert not any("stale" in c for c in others)
    assert "Run on another matrix than the current one" in page
    release = (site / "frameworks" / LC / "1.8.3.html").read_text(encoding="utf-8")
    assert '<span class="stale-tag">stale</span>' in release
    index = json.loads((site / "api" / "v1" / "index.json").read_text(encoding="utf-8"))
    assert {(r["target"], r["stale"]) for r in index["releases"]} >= {(LC, True), (PAI, False)}


def test_findings_are_grouped_by_reason_worst_first(site: Path) -> None:
    doc = json.loads(
        (site / "api" / "v1" / "releases" / PAI / "2.0.0.json").read_text(encoding="utf-8")
    )
    groups = [(g["level"], g["kind"], g["reason"], g["cells"]) for g in doc["findings"]]
    assert groups == [
        ("required", "deviation", REASON, [IMAGE, IMAGE_URL]),  # one reason, both cells
        ("recommended", "failure", "provenance broke", [CLAUDE]),
    ]
    page = (site / "frameworks" / PAI / "2.0.0.html").read_text(encoding="utf-8")
    assert page.count(REASON) == 2  # once in the findings, once among the deviations
    assert f'<a href="{LINK}" rel="noopener noreferrer">' in page
    assert doc["complete"] is True
    assert doc["command"] is None  # the hand-written file names no run


def test_the_cell_page_puts_each_framework_side_by_side(site: Path) -> None:
    page = (site / "cells" / f"{IMAGE}.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section aria-labelledby="t-([^"]+)"', page)
    assert sections == ["reference", PAI]
    assert "conformance repro openai-chat/gpt-4o/image/inline/result --target pydantic-ai" in page
    assert "Every release read" in page
    assert page.count("<tr><td><a href=") == 3  # reference, pydantic-ai 2.0.0 and 1.0.0
    assert "../../../../../frameworks/pydantic-ai/1.0.0.html" in page


def test_the_json_api_validates_against_its_published_schemas(site: Path) -> None:
    schemas = site / "api" / "v1" / "schema"
    for kind, model in SCHEMAS.items():
        published = json.loads((schemas / f"{kind}.schema.json").read_text(encoding="utf-8"))
        assert published == schema_of(kind)
        assert published["properties"]["api_version"]["const"] == 1
        del model
    documents = {
        "index": [site / "api" / "v1" / "index.json"],
        "release": sorted((site / "api" / "v1" / "releases").rglob("*.json")),
        "cell": sorted((site / "api" / "v1" / "cells").rglob("*.json")),
        "timeline": sorted((site / "api" / "v1" / "timelines").rglob("*.json")),
    }
    assert len(documents["release"]) == 4
    assert len(documents["cell"]) == 4
    for kind, paths in documents.items():
        for path in paths:
            SCHEMAS[kind].model_validate_json(path.read_bytes())  # strict: extra forbidden


def test_the_site_is_the_same_bytes_for_the_same_results(files: list[Path], tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_site(files, one)
    write_site(files, two)
    names = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_a_committed_release_changes_what_the_site_shows(files: list[Path], tmp_path: Path) -> None:
    before = tmp_path / "before"
    write_site(files[:1], before)
    assert PAI not in (before / "index.html").read_text(encoding="utf-8")
    after = tmp_path / "after"
    write_site(files, after)
    assert f"{PAI} 2.0.0" in (after / "index.html").read_text(encoding="utf-8")


def test_only_a_site_folder_is_replaced(files: list[Path], tmp_path: Path) -> None:
    other = tmp_path / "docs"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(ReportError, match="not a site written by `conformance site`"):
        write_site(files, other)
    assert (other / "keep.txt").read_text() == "mine"
    with pytest.raises(ReportError, match="holds an input results file"):
        write_site(files, files[1].parent.parent)


def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>"
    lines = failing(IMAGE, "outcome", "dropped", detail=hostile, reason=None)
    out = tmp_path / "site"
    write_site([write(tmp_path / "r.jsonl", lines)], out)
    for page in out.rglob("*.html"):
        assert hostile not in page.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "cells" / f"{IMAGE}.html").read_text()


def test_cli_writes_the_site_from_the_results_folder(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    folder = files[1].parent.parent
    assert main(["site", str(files[0]), "--results-dir", str(folder), "-o", str(out)]) == 0
    assert "4 releases, 4 cells" in capsys.readouterr().out
    assert (out / "frameworks" / LC / "index.html").exists()


def test_compare_html_names_outcomes_and_keeps_refused_apart_from_native(
    files: list[Path],
) -> None:
    page = render_compare_html(build_comparison(files))
    assert '<span class="word">refused</span>' in page
    assert '<span class="word">native</span>' in page
    refused = re.search(r'data-required-glyph="([^"]+)"[^>]*title="[^"]*audio', page)
    native = re.search(r'data-required-glyph="([^"]+)"[^>]*title="anthropic[^"]*: pass', page)
    assert refused is not None
    assert native is not None
    assert refused.group(1) != native.group(1)  # both pass required; they still differ
    legend = re.search(r'<section class="legend".*?</section>', page, re.S)
    assert legend is not None
    assert " · · " not in legend.group(0)  # no bare separator glyph standing for a word
    assert '<span class="stale">stale</span>' in page  # langchain's matrix is another
    md = render_compare_markdown(build_comparison(files))
    assert "| anthropic/claude-4 | image | ✅ | stale: ✅ | ❌ |" in md  # never mixed silently
    assert "position: sticky" in page


def test_a_reproducer_is_there_to_download_where_the_target_writes_one(tmp_path: Path) -> None:
    cell = "openai-chat/gpt-6/image/inline/result"  # a cell of the packaged matrix
    lines = of("repro-demo", "1.0.0", failing(cell, "provenance", "fallback-unmarked"))
    results = write(tmp_path / "demo.jsonl", lines, head=meta(**{"repro-demo": "1.0.0"}))
    out = tmp_path / "site"
    spec = "repro-demo=repro_target:ReproTarget"
    args = ["site", str(results), "--results-dir", "", "--repro", "--repro-target", spec]
    assert main([*args, "-o", str(out)]) == 0
    script = out / "repro" / "repro-demo" / f"{cell}.py"
    assert f"# Reproducer for {cell} on repro-demo 1.0.0" in script.read_text(encoding="utf-8")
    page = (out / "cells" / f"{cell}.html").read_text(encoding="utf-8")
    assert f'href="../../../../../repro/repro-demo/{cell}.py" download>' in page


def test_a_release_page_says_what_a_property_search_observed_beside_its_reason(
    tmp_path: Path,
) -> None:
    """A declared property failure shows the row and message the search found, then the
    reason; a property that held shows what it held on."""

    def prop(name: str, verdict: str, detail: str, **fields: Any) -> dict[str, Any]:
        return {
            "kind": "result",
            "target": PAI,
            "target_version": "2.0.0",
            "cell": f"property/{name}",
            "property": name,
            "check": name,
            "level": "required",
            "verdict": verdict,
            "examples": 12,
            "detail": detail,
            "reason": None,
            "link": None,
        } | fields

    observed = f"{GPT}: text not sent byte for byte: 'a&b'"
    lines = [
        *of(PAI, "2.0.0", checks(IMAGE)),
        prop("deterministic", "pass", "held on 12 histories"),
        prop(
            "text-identical",
            "xfail",
            f"{observed}\ncounterexample (a seed history, as it is, not shrunk), row {GPT}:",
            row=GPT,
            reason=REASON,
            link=LINK,
        ),
    ]
    folder = tmp_path / "results"
    import_results([write(tmp_path / "r.jsonl", lines, head=meta(**{PAI: "2.0.0"}))], folder)
    out = tmp_path / "site"
    write_site(sorted(folder.glob("*/*.jsonl.gz")), out)
    page = (out / "frameworks" / PAI / "2.0.0.html").read_text(encoding="utf-8")
    table = page[page.index('id="properties"') :]
    assert "held on 12 histories" in table
    row = table[table.index("<code>text-identical</code>") :].split("</tr>")[0]
    assert row.index(escape(observed)) < row.index(f"Known deviation: {REASON}")
    assert f'href="{LINK}"' in row
    assert "counterexample" not in row  # the first line only: the history is in the API


def test_a_release_page_names_the_hypothesis_that_drew_its_property_histories(
    tmp_path: Path,
) -> None:
    drawn = meta(**{PAI: "2.0.0"}) | {"hypothesis": "6.170.17"}
    older = meta(**{PAI: "1.0.0"})  # a file written before the field
    folder = tmp_path / "results"
    import_results(
        [
            write(tmp_path / "new.jsonl", of(PAI, "2.0.0", checks(IMAGE)), head=drawn),
            write(tmp_path / "old.jsonl", of(PAI, "1.0.0", checks(IMAGE)), head=older),
        ],
        folder,
    )
    out = tmp_path / "site"
    write_site(sorted(folder.glob("*/*.jsonl.gz")), out)
    new = (out / "frameworks" / PAI / "2.0.0.html").read_text(encoding="utf-8")
    old = (out / "frameworks" / PAI / "1.0.0.html").read_text(encoding="utf-8")
    assert "<dt>Hypothesis</dt><dd>6.170.17 (it drew the property histories)</dd>" in new
    assert "<dt>Hypothesis</dt><dd>not recorded</dd>" in old
    doc = json.loads((out / "api" / "v1" / "releases" / PAI / "2.0.0.json").read_text("utf-8"))
    assert doc["hypothesis"] == "6.170.17"


def test_the_cli_writes_the_site_again_over_its_own_folder_but_never_over_an_input(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `nox -s site` run twice: the second run replaces the folder the first one wrote
    out = tmp_path / "out"
    folder = files[1].parent.parent
    args = ["site", str(files[0]), "--results-dir", str(folder), "-o", str(out)]
    assert main(args) == 0
    assert main(args) == 0
    assert (out / "frameworks" / LC / "index.html").exists()
    capsys.readouterr()
    # an input inside the folder the site would replace is refused before anything is written
    kept = out / "results.jsonl"
    kept.write_bytes(files[0].read_bytes())
    assert main(["site", str(kept), "--results-dir", str(folder), "-o", str(out)]) == 2
    assert "is in it; give another folder" in capsys.readouterr().err
    assert kept.read_bytes() == files[0].read_bytes()
    assert main(["site", str(files[0]), "--results-dir", str(out), "-o", str(out)]) == 2
    # ... and so is one reached through a link from outside it
    link = tmp_path / "link.jsonl"
    link.symlink_to(kept)
    assert main(["site", str(link), "--results-dir", str(folder), "-o", str(out)]) == 2
    assert kept.read_bytes() == files[0].read_bytes()
