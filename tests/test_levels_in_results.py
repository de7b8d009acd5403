"""Levels and property lines in results files: loaded strictly, old files still load, and the
report (Markdown, JSON, HTML) shows compliance per level and every property's verdict."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from conformance.judging.levels import level_of
from conformance.reports.html import render_html
from conformance.reports.markdown import render_markdown
from conformance.reports.report import build_report
from conformance.reports.results import ReportError, load_results, merge_results
from results_data import CELL, checks, result, write

if TYPE_CHECKING:
    from pathlib import Path


def prop(name: str = "media-exactly-once", verdict: str = "pass", **fields: Any) -> dict[str, Any]:
    """A property line as the plugin writes it."""
    line: dict[str, Any] = {
        "kind": "result",
        "target": "reference",
        "target_version": "0.1.0",
        "cell": f"property/{name}",
        "property": name,
        "check": name,
        "level": level_of(name),
        "verdict": verdict,
        "examples": 50,
        "detail": "held on 50 histories" if verdict == "pass" else "appears 0 times\nrow x",
        "reason": None,
        "link": None,
    }
    if verdict != "pass":
        line["row"] = "openai-chat/gpt-4o"
    return line | fields


def test_lines_without_a_level_get_their_checks_level(tmp_path: Path) -> None:
    loaded = load_results([write(tmp_path / "r.jsonl", checks(CELL))]).files[0]
    assert {line.check: line.level for line in loaded.results} == {
        "snapshot": "reference",
        "outcome": "reference",
        "no-silent-loss": "required",
        "text-identical": "required",
        "provenance": "recommended",
        "unsupported-raises": "required",
    }


def test_an_unknown_check_needs_a_level_and_a_level_must_be_known(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"r\.jsonl:2: .*check 'mine' has no level"):
        load_results([write(tmp_path / "r.jsonl", [result(check="mine")])])
    with pytest.raises(ReportError, match=r"r\.jsonl:2: .*level"):
        load_results([write(tmp_path / "r.jsonl", [result(level="optional")])])
    loaded = load_results([write(tmp_path / "r.jsonl", [result(check="mine", level="required")])])
    assert loaded.files[0].results[0].level == "required"


def test_property_lines_load_after_the_cells_and_merge_keeps_them(tmp_path: Path) -> None:
    lines = [*checks(CELL), prop(), prop("total", "fail")]
    path = write(tmp_path / "r.jsonl", lines)
    loaded = load_results([path])
    assert [p.property for p in loaded.files[0].properties] == ["media-exactly-once", "total"]
    assert loaded.files[0].properties[1].row == "openai-chat/gpt-4o"
    merged = [json.loads(x) for x in merge_results(loaded).splitlines()]
    assert merged[-3:-1] == [prop(), prop("total", "fail")]
    assert merged[-1] == {"kind": "end", "results": 8}


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (prop(cell="property/total"), "cell is property/<name>"),
        (prop(verdict="fail", detail=""), "a failure needs a detail"),
        (prop(verdict="xfail"), "an xfail needs a reason"),
        (prop(examples=-1), "examples"),
        (
            {**prop(), "level": None, "check": "mine", "property": "mine", "cell": "property/mine"},
            "has no level",
        ),
    ],
)
def test_bad_property_lines_are_refused_saying_where(
    tmp_path: Path, line: dict[str, Any], words: str
) -> None:
    with pytest.raises(ReportError, match=rf"r\.jsonl:8: .*{words}"):
        load_results([write(tmp_path / "r.jsonl", [*checks(CELL), line])])


def test_a_cell_line_after_a_property_line_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"r\.jsonl:3: a cell's result after a property's"):
        load_results([write(tmp_path / "r.jsonl", [prop(), result()])])


def test_a_duplicate_property_line_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"r\.jsonl:3: duplicate result .*property/total"):
        load_results([write(tmp_path / "r.jsonl", [prop("total"), prop("total")])])


def _report_lines() -> list[dict[str, Any]]:
    other = "openai-chat/gpt-4o/document/inline/result"
    lost = [
        line | {"verdict": "fail", "detail": "gone"} if line["check"] == "no-silent-loss" else line
        for line in checks(other, outcome="dropped")
    ]
    return [*checks(CELL), *lost, prop(), prop("total", "fail")]


def test_the_report_counts_cells_per_level(tmp_path: Path) -> None:
    report = build_report(load_results([write(tmp_path / "r.jsonl", _report_lines())]))
    (target,) = report.targets
    by_level = {c.level: c for c in target.compliance}
    assert by_level["required"].cells == 2
    assert by_level["required"].cells_by_status["fail"] == 1
    assert by_level["recommended"].cells_by_status["pass"] == 2
    assert by_level["required"].properties == 2
    assert by_level["required"].properties_held == 1
    cell = target.rows[0].content_types[0].cells[0]
    assert cell.levels == {"required": "pass", "recommended": "pass", "reference": "pass"}
    md = render_markdown(report)
    assert "| required | 1 of 2 cells (50.0%) · properties 1 of 2 held | 0 | 1 | 0 |" in md
    assert "- ❌ `total` (required) · fail · 50 histories · row `openai-chat/gpt-4o`" in md
    assert "· `no-silent-loss` (required) · outcome dropped" in md
    page = render_html(report)
    assert "<strong>required</strong>: 1 of 2 cells (50.0%)" in page
    assert "Properties: 1 of 2 held" in page
    assert "<td>required</td>" in page  # the checks table of a dialog names each level
    data = json.loads(report.model_dump_json())
    assert data["targets"][0]["properties"][1]["name"] == "total"
