"""The HTML report: self-contained, every cell present, every text escaped."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from conformance import cli
from conformance.reports.html import PAYLOAD_LIMIT, Citation, render_html
from conformance.reports.report import Report, build_report
from conformance.reports.results import load_results
from results_data import ALL_PASS, CELL, LINK, checks, meta, result, write

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>"\'&'


class Page(HTMLParser):
    """Every start tag with its attributes, and the text inside <style> and <script>."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.code: list[str] = []
        self._in_code = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_code = tag in ("style", "script")

    def handle_endtag(self, tag: str) -> None:
        self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.code.append(data)

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            found
            for name, found in self.tags
            if name == tag and all(found.get(k) == v for k, v in attrs.items())
        ]


def report_of(tmp_path: Path, lines: list[dict[str, Any]], **targets: str) -> Report:
    return build_report(load_results([write(tmp_path / "r.jsonl", lines, head=meta(**targets))]))


FAILING = [
    *checks("openai-chat/gpt-4o/text/inline/result", expect="native", outcome="native"),
    result(check="snapshot", outcome="dropped"),
    result(verdict="fail", outcome="dropped", detail="expected fallback-marked, observed dropped"),
]


def test_self_contained(tmp_path: Path) -> None:
    page = Page(render_html(report_of(tmp_path, FAILING), snapshots=tmp_path))
    loading = {"img", "link", "iframe", "object", "embed", "audio", "video", "source", "base"}
    assert not [tag for tag, _ in page.tags if tag in loading]
    assert not [attrs for _, attrs in page.tags if "src" in attrs or "srcset" in attrs]
    assert [tag for tag, _ in page.tags].count("script") == 1
    assert [tag for tag, _ in page.tags].count("style") == 1
    code = "".join(page.code)
    for loader in ("url(", "@import", "http:", "https:", "fetch(", "XMLHttpRequest", "@font-face"):
        assert loader not in code
    for _, attrs in page.tags:
        href = attrs.get("href")
        assert href is None or href.startswith(("http://", "https://"))


def test_links_are_only_followed_never_loaded(tmp_path: Path) -> None:
    lines = [result(verdict="xfail", outcome="noted", reason="notes instead", link=LINK)]
    page = Page(render_html(report_of(tmp_path, lines)))
    [link] = [attrs for _, attrs in page.tags if "href" in attrs]
    assert link == {"href": LINK, "rel": "noopener noreferrer"}
    assert [tag for tag, attrs in page.tags if "href" in attrs] == ["a"]


def test_every_cell_has_a_button_and_its_details(tmp_path: Path) -> None:
    lines = [
        *ALL_PASS,
        *checks("gemini/gemini-3/video/url/prompt", expect="native", outcome="native"),
        *checks(CELL, target="pydantic-ai", target_version="1.2.3"),
    ]
    report = report_of(tmp_path, lines, reference="0.1.0", **{"pydantic-ai": "1.2.3"})
    text = render_html(report)
    page = Page(text)
    buttons = page.all("button", type="button")
    assert len(buttons) == 6
    assert [b["data-source"] for b in buttons] == ["inline"] * 4 + ["url", "inline"]
    dialogs = page.all("dialog")
    assert [d["id"] for d in dialogs] == [b["data-details"] for b in buttons]
    cells = [
        c.id for t in report.targets for r in t.rows for ct in r.content_types for c in ct.cells
    ]
    for cell_id, dialog in zip(cells, dialogs, strict=True):
        assert f'<h3 id="{dialog["id"]}-title">{cell_id}</h3>' in text
    sections = page.all("section")
    assert [(s["data-target"]) for s in sections] == ["reference", "pydantic-ai"]
    assert '<h2>pydantic-ai <span class="version">1.2.3</span></h2>' in text
    radios = [(r["name"], r["value"]) for r in page.all("input", type="radio")]
    assert radios == [
        ("source", "all"),
        ("source", "inline"),
        ("source", "url"),
        ("style", "all"),
        ("style", "result"),
        ("style", "prompt"),
    ]


def test_a_cell_shows_colour_glyph_and_word(tmp_path: Path) -> None:
    text = render_html(report_of(tmp_path, FAILING))
    assert 'class="cell st-fail"' in text
    assert '<span class="glyph" aria-hidden="true">❌</span> <span class="word">dropped</span>' in (
        text
    )
    assert '<span class="glyph" aria-hidden="true">✅</span> <span class="word">native</span>' in (
        text
    )


def test_details_hold_expectation_checks_and_live(tmp_path: Path) -> None:
    live = {"accepted": True, "date": "2026-11-01"}
    lines = [
        result(check="snapshot", live=live),
        result(
            verdict="xfail", outcome="fallback-marked", reason="no marker", link=LINK, live=live
        ),
        *checks("anthropic/claude-4/image/inline/result", expect="native", outcome="native"),
    ]
    text = render_html(
        report_of(tmp_path, lines),
        citations={
            "openai-chat-tool-message": Citation("https://example.invalid/doc", "text only")
        },
    )
    assert "<dt>Expectation</dt><dd>fallback (known from sdk)</dd>" in text
    assert (
        "<dt>Citation</dt><dd><code>openai-chat-tool-message</code>: text only"
        ' <a href="https://example.invalid/doc" rel="noopener noreferrer">' in text
    )
    assert "<dt>Observed outcome</dt><dd>fallback-marked</dd>" in text
    assert f'<dt>Deviation</dt><dd>no marker <a href="{LINK}"' in text
    assert "<dt>Accepted by a live API</dt><dd>accepted on 2026-11-01</dd>" in text
    assert "<dt>Accepted by a live API</dt><dd>not recorded</dd>" in text
    assert "<dt>Deviation</dt><dd>none declared</dd>" in text


def test_hostile_text_is_escaped(tmp_path: Path) -> None:
    hostile = {"target": HOSTILE, "target_version": "1<b>", "cite": HOSTILE}
    lines = [
        result(check="snapshot", **hostile),
        result(verdict="xfail", detail=HOSTILE, reason=HOSTILE, link="javascript:x", **hostile),
    ]
    report = report_of(tmp_path, lines, **{HOSTILE: "1<b>"})
    text = render_html(
        report.model_copy(update={"matrix": HOSTILE, "python": HOSTILE}),
        snapshots=tmp_path,
        citations={HOSTILE: Citation(HOSTILE, HOSTILE)},
    )
    assert HOSTILE not in text
    assert "<script>alert" not in text
    assert "<img" not in text
    assert "<b>" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert 'href="javascript:' not in text
    page = Page(text)
    assert [tag for tag, _ in page.tags].count("script") == 1
    assert not page.all("img")


def test_payload_comes_from_the_snapshot_escaped(tmp_path: Path) -> None:
    folder = tmp_path / "snapshots" / "reference" / "openai-chat"
    folder.mkdir(parents=True)
    payload = {"messages": [{"role": "tool", "content": "</pre><script>alert(1)</script>"}]}
    (folder / "gpt-4o.image.inline.result.json").write_text(json.dumps(payload))
    text = render_html(report_of(tmp_path, [result()]), snapshots=tmp_path / "snapshots")
    assert "&quot;role&quot;: &quot;tool&quot;," in text  # pretty: one key per line
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<script>alert" not in text


def test_a_huge_payload_is_cut_with_a_note(tmp_path: Path) -> None:
    folder = tmp_path / "snapshots" / "reference" / "openai-chat"
    folder.mkdir(parents=True)
    payload = {"data": "A" * (PAYLOAD_LIMIT * 2)}
    (folder / "gpt-4o.image.inline.result.json").write_text(json.dumps(payload))
    text = render_html(report_of(tmp_path, [result()]), snapshots=tmp_path / "snapshots")
    size = len(json.dumps(payload, indent=2))
    assert f"The first {PAYLOAD_LIMIT:,} of {size:,} characters of" in text
    assert "A" * PAYLOAD_LIMIT not in text


def test_a_missing_snapshot_is_said(tmp_path: Path) -> None:
    text = render_html(report_of(tmp_path, [result()]), snapshots=tmp_path)
    assert "No snapshot at <code>" in text
    assert "gpt-4o.image.inline.result.json" in text
    assert "No snapshot folder was given" in render_html(report_of(tmp_path, [result()]))


def test_output_is_deterministic(tmp_path: Path) -> None:
    report = report_of(tmp_path, [*ALL_PASS[:6], *FAILING[-2:]])
    assert render_html(report, snapshots=tmp_path) == render_html(report, snapshots=tmp_path)


def stub(matrix: SimpleNamespace) -> Callable[[str], SimpleNamespace]:
    """A stand-in for `load_matrix`: the citations and digest are all the report reads."""

    def load(path: str) -> SimpleNamespace:
        return matrix

    return load


def test_cli_writes_html_with_citations_from_the_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix = SimpleNamespace(
        digest="sha256:" + "ab" * 32,
        citations={"openai-chat-tool-message": SimpleNamespace(url=LINK, says="strings only")},
    )
    monkeypatch.setattr(cli, "load_matrix", stub(matrix))
    results = write(tmp_path / "r.jsonl", [result()])
    out = tmp_path / "report" / "index.html"
    args = ["report", str(results), "--format", "html", "--matrix", "m.yaml", "-o", str(out)]
    assert cli.main(args) == 0
    assert "<code>openai-chat-tool-message</code>: strings only" in out.read_text(encoding="utf-8")


def test_cli_refuses_a_matrix_the_run_did_not_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = SimpleNamespace(digest="sha256:" + "cd" * 32, citations={})
    monkeypatch.setattr(cli, "load_matrix", stub(matrix))
    results = write(tmp_path / "r.jsonl", [result()])
    assert cli.main(["report", str(results), "--format", "html", "--matrix", "m.yaml"]) == 2
    assert capsys.readouterr().err.startswith("m.yaml: digest sha256:cdcd")


def test_a_cells_dialog_offers_the_command_for_its_reproducer(tmp_path: Path) -> None:
    report = build_report(load_results([write(tmp_path / "r.jsonl", checks(CELL))]))
    page = render_html(report)
    expected = f"conformance repro {CELL} --target reference -o {CELL.replace('/', '_')}.py"
    assert f'<pre class="command">{expected}</pre>' in page
