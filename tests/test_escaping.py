"""Every string a results file carries (target names and versions, reasons, details, links,
row ids) reaches every output escaped: Markdown (the report, the diff, both written to the
GitHub job summary), HTML and badges. None can add HTML, a link, an image or a table cell,
or lead the HTML report to read a file outside the snapshot folder."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from conformance.cli import main
from conformance.reports.badges import badges
from conformance.reports.diff import diff_reports, render_diff
from conformance.reports.html import render_html
from conformance.reports.markdown import md_text, render_markdown
from conformance.reports.report import build_report
from conformance.reports.results import load_results
from results_data import CELL, checks, meta, result, write

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

TAG = "<img src=x onerror=alert(1)>"
LINKED = "[click me](https://evil.example/phish)"
IMAGE = "![pixel](https://tracker.example/p.png)"
BREAKOUT = "</details><script>alert(1)</script>"
HOSTILE = f"{TAG} {LINKED} {IMAGE} {BREAKOUT} a|b `code`\nnext line"
NAME = "evil<b>|name"


def _hostile_results(tmp_path: Path, name: str = NAME) -> Path:
    fields: dict[str, Any] = {"target": name, "target_version": HOSTILE}
    lines = [
        *checks(
            "openai-chat/gpt-4o/text/inline/result", expect="native", outcome="native", **fields
        ),
        result(CELL, "snapshot", **fields),
        result(CELL, "outcome", verdict="fail", detail=HOSTILE, **fields),
        result(
            CELL,
            "provenance",
            verdict="xfail",
            reason=HOSTILE,
            link=f"https://example.invalid/{LINKED}",
            **fields,
        ),
        result(CELL, "text-identical", verdict="skip", detail=HOSTILE, **fields),
    ]
    head = meta(**{name: HOSTILE}) | {"python": HOSTILE, "matrix": HOSTILE}
    return write(tmp_path / f"r{len(list(tmp_path.iterdir()))}.jsonl", lines, head=head)


def _prose(markdown: str) -> str:
    """The Markdown outside fenced blocks and code spans (which show their text as it is)."""
    lines: list[str] = []
    fence = ""
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence:
            if stripped == fence:
                fence = ""
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            continue
        lines.append(re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", line))
    return "\n".join(lines)


def _assert_inert_markdown(text: str) -> None:
    prose = _prose(text)
    assert "<" not in prose.replace("<br>", "")
    assert "[click me](" not in prose
    assert "![pixel](" not in prose


def test_md_text_escapes_html_links_images_and_cells() -> None:
    assert md_text(TAG) == "&lt;img src=x onerror=alert(1)&gt;"
    assert md_text(LINKED) == "\\[click me\\](https://evil.example/phish)"
    assert md_text("a|b\nc & d `e`") == "a\\|b<br>c &amp; d \\`e\\`"
    assert md_text("bell\x07 and esc\x1b[31m") == "bell\ufffd and esc\ufffd\\[31m"


def test_the_markdown_report_is_inert(tmp_path: Path) -> None:
    text = render_markdown(build_report(load_results([_hostile_results(tmp_path)])))
    _assert_inert_markdown(text)
    assert "## evil&lt;b&gt;\\|name" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_the_diff_is_inert(tmp_path: Path) -> None:
    base = build_report(
        load_results([write(tmp_path / "base.jsonl", [], head=meta(**{NAME: "1"}))])
    )
    head = build_report(load_results([_hostile_results(tmp_path)]))
    text = render_diff(diff_reports(base, head))
    _assert_inert_markdown(text)
    assert "evil&lt;b&gt;\\|name" in text


def test_the_job_summary_files_are_inert(tmp_path: Path) -> None:
    """What the workflow appends to $GITHUB_STEP_SUMMARY: `report` and `diff` output."""
    results = _hostile_results(tmp_path)
    assert main(["report", str(results), "-o", str(tmp_path / "compatibility.md")]) == 0
    _assert_inert_markdown((tmp_path / "compatibility.md").read_text(encoding="utf-8"))
    other = _hostile_results(tmp_path, name="another")
    main(["diff", str(other), str(results), "-o", str(tmp_path / "diff.md")])
    _assert_inert_markdown((tmp_path / "diff.md").read_text(encoding="utf-8"))


def test_the_html_report_is_inert(tmp_path: Path) -> None:
    text = render_html(build_report(load_results([_hostile_results(tmp_path)])))
    assert "<img" not in text
    assert "<b>" not in text
    assert text.count("<script>") == 1  # the page's own
    assert "&lt;img src=x onerror=alert(1)&gt;" in text


def test_a_target_name_cannot_lead_the_html_report_outside_the_snapshots(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "openai-chat"
    outside.mkdir(parents=True)
    (outside / "gpt-4o.image.inline.result.json").write_text('"SECRET-CONTENT"')
    snapshots = tmp_path / "a" / "snapshots"
    snapshots.mkdir(parents=True)
    results = _hostile_results(tmp_path, name="../../outside")
    text = render_html(build_report(load_results([results])), snapshots=snapshots)
    assert "SECRET-CONTENT" not in text
    assert "not a plain folder name" in text


def test_badges_show_one_plain_line(tmp_path: Path) -> None:
    name = "evil\nname\x1b[2J" + "x" * 200
    written = badges(build_report(load_results([_hostile_results(tmp_path, name=name)])))
    assert written  # the target's badge, and one per level
    for badge in written.values():
        label = str(badge["label"])
        assert "\n" not in label
        assert "\x1b" not in label
        assert len(label) <= 60 + len(": recommended rules")
        assert json.loads(json.dumps(badge)) == badge


def test_badge_files_stay_in_their_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _hostile_results(tmp_path, name="../../escape")
    assert main(["badges", str(results), "-o", str(tmp_path / "badges")]) == 0
    written = sorted(p.name for p in (tmp_path / "badges").iterdir())
    assert "-..-escape.json" in written  # plain file names, in the folder
    assert all(name.startswith("-..-escape") and "/" not in name for name in written)
    assert not list(tmp_path.parent.glob("escape*"))
