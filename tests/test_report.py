"""The report: strict loading of results files, the Report model, and its Markdown view."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from conformance.reports.badges import badges
from conformance.reports.markdown import render_markdown, write_report
from conformance.reports.report import Report, ReportError, build_report, load_results
from results_data import ALL_PASS, CELL, LINK, checks, meta, result, write

if TYPE_CHECKING:
    from pathlib import Path


def markdown(tmp_path: Path, results: list[dict[str, Any]], **targets: str) -> str:
    return write_report([write(tmp_path / "r.jsonl", results, head=meta(**targets))], "md")


def report_of(tmp_path: Path, results: list[dict[str, Any]], **targets: str) -> Report:
    return build_report(load_results([write(tmp_path / "r.jsonl", results, head=meta(**targets))]))


def table_row(md: str, row: str) -> list[str]:
    """The glyph cells of the first table line for `row`."""
    line = next(line for line in md.splitlines() if line.startswith(f"| {row} |"))
    return [cell.strip() for cell in line.strip("|").split(" | ")][1:]


def test_all_pass_glyphs(tmp_path: Path) -> None:
    md = markdown(tmp_path, ALL_PASS)
    assert "## reference 0.1.0" in md
    assert "### inline · result" in md
    assert "| row (api/model) | text | image | audio |" in md
    assert table_row(md, "openai-chat/gpt-4o") == ["✅", "↪️", "🚫"]
    assert table_row(md, "anthropic/claude-4") == ["–", "✅", "–"]
    assert "No failures." in md
    assert "### Known deviations" not in md


def test_rows_keep_first_seen_order_and_columns_their_fixed_order(tmp_path: Path) -> None:
    report = report_of(tmp_path, ALL_PASS)
    rows = report.targets[0].rows
    assert [row.id for row in rows] == ["openai-chat/gpt-4o", "anthropic/claude-4"]
    assert [ct.content_type for ct in rows[0].content_types] == ["text", "image", "audio"]


def test_failing_cell_shows_outcome_and_is_listed_with_detail(tmp_path: Path) -> None:
    failing = [
        result(verdict="pass", check="snapshot", outcome="dropped"),
        result(verdict="fail", check="outcome", outcome="dropped", detail="expected fallback"),
        result(verdict="fail", check="no-silent-loss", outcome="dropped", detail="image gone"),
    ]
    md = markdown(tmp_path, failing)
    assert table_row(md, "openai-chat/gpt-4o") == ["❌ dropped"]
    failures = md.split("### Failures", 1)[1]
    assert f"- `{CELL}` · `outcome` (reference) · outcome dropped" in failures
    assert f"- `{CELL}` · `no-silent-loss` (required) · outcome dropped" in failures
    assert "  image gone" in failures
    assert "No failures." not in md


def test_xfail_shows_warning_reason_and_link(tmp_path: Path) -> None:
    deviating = [
        result(check="snapshot", outcome="noted"),
        result(outcome="noted", verdict="xfail", reason="replaces media by a note", link=LINK),
    ]
    report = report_of(tmp_path, deviating)
    assert report.targets[0].rows[0].content_types[0].cells[0].status == "xfail"
    md = render_markdown(report)
    assert table_row(md, "openai-chat/gpt-4o") == ["⚠️ noted"]
    deviations = md.split("### Known deviations", 1)[1]
    assert (
        f"- `{CELL}` · `outcome` (reference) · outcome noted: replaces media by a note ({LINK})"
        in (deviations)
    )
    assert "No failures." in md


def test_xpass_counts_as_failure(tmp_path: Path) -> None:
    lines = [result(verdict="xpass", reason="used to drop", link=LINK)]
    report = report_of(tmp_path, lines)
    totals = report.targets[0].totals
    assert totals.cells_by_status == {"pass": 0, "fail": 1, "xfail": 0, "skip": 0}
    assert totals.checks_by_verdict["xpass"] == 1
    md = render_markdown(report)
    assert table_row(md, "openai-chat/gpt-4o") == ["❌ fallback-marked"]
    assert "xpass: the declared deviation no longer happens: used to drop" in md


def test_skip_shows_its_glyph_and_reason(tmp_path: Path) -> None:
    lines = [
        result(check="snapshot"),
        result(verdict="skip", outcome=None, detail="pydantic-ai not installed"),
    ]
    report = report_of(tmp_path, lines)
    assert report.targets[0].totals.conformant_share == 0.0
    md = render_markdown(report)
    assert table_row(md, "openai-chat/gpt-4o") == ["⏭️"]
    assert f"- `{CELL}` · `outcome`: pydantic-ai not installed" in md


def test_two_targets_each_with_its_version(tmp_path: Path) -> None:
    other = [
        {**line, "target": "pydantic-ai", "target_version": "1.2.3", "outcome": "dropped"}
        | ({"verdict": "fail"} if line["check"] == "no-silent-loss" else {})
        for line in ALL_PASS
    ]
    md = markdown(tmp_path, [*ALL_PASS, *other], reference="0.1.0", **{"pydantic-ai": "1.2.3"})
    reference, pydantic_ai = md.split("## reference 0.1.0", 1)[1].split("## pydantic-ai 1.2.3")
    assert table_row(reference, "openai-chat/gpt-4o") == ["✅", "↪️", "🚫"]
    assert table_row(pydantic_ai, "openai-chat/gpt-4o") == ["❌ dropped"] * 3
    assert "No failures." in reference
    assert "No failures." not in pydantic_ai


def test_one_table_per_source_and_style(tmp_path: Path) -> None:
    lines = [
        result("gemini/gemini-2.5/image/url/prompt", expect="native", outcome="native"),
        result("gemini/gemini-2.5/image/inline/result", expect="native", outcome="native"),
    ]
    md = markdown(tmp_path, lines)
    inline = md.index("### inline · result")
    url = md.index("### url · prompt")
    assert inline < url
    assert "### inline · prompt" not in md
    assert "### url · result" not in md
    cells = report_of(tmp_path, lines).targets[0].rows[0].content_types[0].cells
    assert [(c.source, c.style) for c in cells] == [("inline", "result"), ("url", "prompt")]


def test_totals(tmp_path: Path) -> None:
    lines = [
        *ALL_PASS,
        result("mistral/large/image/inline/result", verdict="fail", outcome="dropped"),
        result("mistral/large/audio/inline/result", verdict="skip", detail="no fixture"),
        result("mistral/large/video/inline/result", verdict="xfail", reason="r", link=LINK),
    ]
    totals = report_of(tmp_path, lines).targets[0].totals
    assert totals.cells == 7
    assert totals.cells_by_status == {"pass": 4, "fail": 1, "xfail": 1, "skip": 1}
    assert totals.checks_by_verdict == {"pass": 24, "fail": 1, "xfail": 1, "xpass": 0, "skip": 1}
    assert totals.conformant_share == 4 / 7
    md = markdown(tmp_path, lines)
    assert "- Cells: 7 (pass 4 · fail 1 · xfail 1 · skip 1); conformant: 4 of 7 (57.1%)" in md
    assert "- Checks: 27 (pass 24 · fail 1 · xfail 1 · xpass 0 · skip 1)" in md


def test_known_counts_cells_not_checks(tmp_path: Path) -> None:
    lines = [
        *checks("openai-chat/gpt-4o/image/inline/result", known="doc"),
        *checks("openai-chat/gpt-4o/audio/inline/result", known="doc"),
        result("gemini/gemini-3/video/url/result", known="uncertain"),
        result("xai/grok-4/image/inline/result", known="third-party"),
    ]
    report = report_of(tmp_path, lines)
    known = {"doc": 2, "sdk": 0, "third-party": 1, "uncertain": 1}
    assert report.targets[0].totals.cells_by_known == known
    assert (
        "Where each cell's expectation comes from: doc 2 · sdk 0 · third-party 1 · uncertain 1"
        in render_markdown(report)
    )


def test_file_without_end_line_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(meta()) + "\n" + json.dumps(result()) + "\n", encoding="utf-8")
    with pytest.raises(ReportError, match="truncated"):
        load_results([path])


def test_file_cut_mid_line_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(meta()) + "\n" + json.dumps(result())[:40], encoding="utf-8")
    with pytest.raises(ReportError, match=r"r\.jsonl:2: not valid JSON .*truncated"):
        load_results([path])


def test_end_count_mismatch_is_truncated(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [result()])
    text = path.read_text(encoding="utf-8").replace('"results": 1', '"results": 2')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportError, match=r"r\.jsonl:3: the end line counts 2 .* truncated"):
        load_results([path])


def test_empty_file_is_truncated(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("", encoding="utf-8")
    with pytest.raises(ReportError, match=r"empty.*truncated"):
        load_results([path])


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [result(), result(check="snapshot")])
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[2] = "{not json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ReportError, match=rf"^{tmp_path / 'r.jsonl'}:3: not valid JSON"):
        load_results([path])


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"verdict": "passed"}, "verdict: Input should be"),
        ({"kind": "results"}, "does not match any of the expected tags"),
        ({"outcome": "lost"}, "outcome: Input should be"),
        ({"verdict": "xfail"}, "an xfail needs a reason"),
        ({"verdict": "skip"}, "a skip needs a detail"),
        ({"source": "url"}, "is not row/content_type/source/style"),
        ({"extra": 1}, "extra: Extra inputs are not permitted"),
        ({"target": "litellm"}, "target 'litellm' '0.1.0' is not declared"),
    ],
)
def test_invalid_record_names_file_line_and_problem(
    tmp_path: Path, fields: dict[str, Any], problem: str
) -> None:
    path = write(tmp_path / "r.jsonl", [result(check="snapshot"), result(**fields)])
    with pytest.raises(ReportError, match=r"r\.jsonl:3: ") as raised:
        load_results([path])
    assert problem in str(raised.value)


def test_duplicate_cell_and_check_is_named(tmp_path: Path) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result(check="snapshot"), result()])
    with pytest.raises(ReportError) as raised:
        load_results([one, two])
    message = str(raised.value)
    assert f"two.jsonl:3: duplicate result for target 'reference', cell '{CELL}'" in message
    assert "check 'outcome'" in message
    assert "one.jsonl:2" in message


def test_shards_are_concatenated(tmp_path: Path) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result("anthropic/claude-4/image/inline/result")])
    rows = build_report(load_results([one, two])).targets[0].rows
    assert [row.id for row in rows] == ["openai-chat/gpt-4o", "anthropic/claude-4"]


def test_checks_of_one_cell_must_agree(tmp_path: Path) -> None:
    lines = [result(check="snapshot"), result(outcome="native")]
    with pytest.raises(ReportError, match="checks observed different outcomes"):
        report_of(tmp_path, lines)


def test_json_round_trips(tmp_path: Path) -> None:
    report = report_of(
        tmp_path, [*ALL_PASS, result(verdict="xpass", check="x", level="reference", link=LINK)]
    )
    text = write_report([tmp_path / "r.jsonl"], "json")
    assert text == report.model_dump_json(indent=2)
    assert Report.model_validate_json(text) == report


def test_pipes_and_newlines_do_not_break_tables(tmp_path: Path) -> None:
    detail = "line one | with a pipe\nline two\n```\nfence inside"
    lines = [
        result("weird/a|b/image/inline/result", verdict="fail", outcome="dropped", detail=detail),
    ]
    md = markdown(tmp_path, lines)
    assert "| weird/a\\|b | ❌ dropped |" in md.splitlines()
    assert "  ````text\n  line one | with a pipe\n  line two\n  ```\n  fence inside\n  ````" in md


def test_output_is_deterministic(tmp_path: Path) -> None:
    lines = [*ALL_PASS, result("mistral/large/image/inline/result", verdict="fail")]
    first = markdown(tmp_path, lines)
    assert markdown(tmp_path, lines) == first
    assert write_report([tmp_path / "r.jsonl"], "json") == write_report(
        [tmp_path / "r.jsonl"], "json"
    )


@pytest.mark.parametrize(
    ("passing", "colour"),
    [
        (10, "brightgreen"),
        (9, "green"),
        (8, "yellowgreen"),
        (5, "yellow"),
        (3, "orange"),
        (2, "red"),
    ],
)
def test_badge_colour_follows_the_conformant_share(
    tmp_path: Path, passing: int, colour: str
) -> None:
    cells = [f"mistral/m{n}/image/inline/result" for n in range(10)]
    lines = [
        result(cell, verdict="pass" if n < passing else "fail") for n, cell in enumerate(cells)
    ]
    expected = {"schemaVersion": 1, "message": f"{passing}/10 cells", "color": colour}
    # Every line here is an `outcome` check: the reference level is the cells' only one.
    found = badges(report_of(tmp_path, lines))
    assert found.pop("reference-capability.json")["message"] == "10/10 carriable cells"
    assert found == {
        "reference.json": {"label": "reference conformance", **expected},
        "reference-reference.json": {"label": "reference: reference rules", **expected},
    }


def test_a_badge_per_level_counts_the_cells_keeping_that_levels_rules(tmp_path: Path) -> None:
    dropped = "openai-chat/gpt-4o/document/inline/result"
    changed = [result(dropped, "snapshot", verdict="fail", detail="differs")]
    lines = [*checks(CELL), *changed, *checks(dropped)[1:]]  # checks() starts with snapshot
    found = badges(report_of(tmp_path, lines))
    assert found["reference-required.json"]["message"] == "2/2 cells"
    assert found["reference-recommended.json"]["message"] == "2/2 cells"
    assert found["reference-reference.json"]["message"] == "1/2 cells"
    assert found["reference-reference.json"]["color"] == "yellow"
    assert found["reference.json"]["message"] == "1/2 cells"


def test_badges_one_per_target_with_a_safe_file_name(tmp_path: Path) -> None:
    lines = [result(), result(target="my_pkg.adapter:Target", target_version="2")]
    found = badges(report_of(tmp_path, lines, reference="0.1.0", **{"my_pkg.adapter:Target": "2"}))
    assert [name for name in found if "-reference" not in name and "-capab" not in name] == [
        "reference.json",
        "my_pkg.adapter-Target.json",
    ]
    assert found["my_pkg.adapter-Target.json"]["label"] == "my_pkg.adapter:Target conformance"


def test_a_target_without_cells_gets_a_grey_badge(tmp_path: Path) -> None:
    report = report_of(tmp_path, [result()], reference="0.1.0", other="1")
    assert badges(report)["other.json"] == {
        "schemaVersion": 1,
        "label": "other conformance",
        "message": "no cells",
        "color": "lightgrey",
    }


def test_badge_file_names_must_not_collide(tmp_path: Path) -> None:
    lines = [
        result(),
        result(target="a b", target_version="1"),
        result(target="a:b", target_version="1"),
    ]
    report = report_of(tmp_path, lines, reference="0.1.0", **{"a b": "1", "a:b": "1"})
    with pytest.raises(ReportError, match=r"targets 'a b' and 'a:b' share a-b\.json"):
        badges(report)


def test_sdk_schema_is_its_own_column(tmp_path: Path) -> None:
    other = "openai-chat/gpt-4o/document/inline/result"
    results = [
        result(CELL, "outcome"),
        result(CELL, "sdk-schema"),
        result(other, "outcome"),
        result(other, "sdk-schema", verdict="fail", detail="messages[2].content[0]: bad"),
    ]
    text = markdown(tmp_path, results)
    assert "| row (api/model) | image | document | sdk schema |" in text
    assert "| openai-chat/gpt-4o | ↪️ | ❌ fallback-marked | ❌ 1/2 |" in text


def test_without_sdk_schema_results_there_is_no_column(tmp_path: Path) -> None:
    assert "sdk schema" not in markdown(tmp_path, [result(CELL, "outcome")])


def test_error_results_get_a_table_of_their_own(tmp_path: Path) -> None:
    error_cell = "anthropic/claude-sonnet-4/text/inline/error"
    text = markdown(tmp_path, [result(CELL), result(error_cell, expect="native", outcome="native")])
    assert "### inline · error" in text
    table = text.split("### inline · error", 1)[1].split("\n\n", 2)[1]
    assert table.splitlines()[0] == "| row (api/model) | text |"
