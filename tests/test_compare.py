"""`conformance compare`: targets side by side per model row and content type, per level,
with a summary per target (worst findings first) and the cells that changed across versions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from conformance.cli import main
from conformance.reports.compare import build_comparison, render_compare_markdown, version_key
from conformance.reports.compare_html import render_compare_html, repro_command
from results_data import LINK, checks, meta, write

if TYPE_CHECKING:
    from pathlib import Path

IMAGE = "openai-chat/gpt-4o/image/inline/result"
AUDIO = "openai-chat/gpt-4o/audio/inline/result"
CLAUDE = "anthropic/claude-4/image/inline/result"
PAI = "pydantic-ai"


def of(target: str, version: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line | {"target": target, "target_version": version} for line in lines]


def failing(cell: str, check: str, outcome: str, **fields: Any) -> list[dict[str, Any]]:
    """The six checks of a cell, `check` failing with `outcome` observed."""
    lines = checks(cell, outcome=outcome, **fields)
    return [
        line | ({"verdict": "fail", "detail": f"{check} broke"} if line["check"] == check else {})
        for line in lines
    ]


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    reference = write(tmp_path / "results.jsonl", [*checks(IMAGE), *checks(CLAUDE)])
    old = of(PAI, "1.85.0", [*failing(IMAGE, "no-silent-loss", "dropped"), *checks(AUDIO)])
    new = of(
        PAI,
        "2.68.0",
        [
            *checks(IMAGE),
            *failing(AUDIO, "outcome", "fallback-marked", expect="unsupported"),
            *failing(CLAUDE, "provenance", "fallback-unmarked"),
        ],
    )
    return [
        reference,
        write(tmp_path / "pai-new.jsonl", new, head=meta(**{PAI: "2.68.0"})),
        write(tmp_path / "pai-old.jsonl", old, head=meta(**{PAI: "1.85.0"})),
    ]


def test_columns_are_the_newest_release_of_each_target(files: list[Path]) -> None:
    comparison = build_comparison(files)
    assert [(c.target, c.version) for c in comparison.columns] == [
        ("reference", "0.1.0"),
        (PAI, "2.68.0"),
    ]
    assert comparison.releases == {"reference": ["0.1.0"], PAI: ["1.85.0", "2.68.0"]}
    assert version_key("2.68.0") > version_key("2.9.1")


def test_rows_are_model_row_by_content_type_with_a_column_per_target(files: list[Path]) -> None:
    """In the matrix's order (rows as the results first list them, the reference's file
    first), content types in their canonical order within a row: not alphabetical."""
    rows = build_comparison(files).rows
    assert [(r.row, r.content_type) for r in rows] == [
        ("openai-chat/gpt-4o", "image"),
        ("openai-chat/gpt-4o", "audio"),
        ("anthropic/claude-4", "image"),
    ]
    audio = rows[1]
    assert [g.target for g in audio.targets] == ["reference", PAI]
    assert audio.targets[0].cells == []  # the reference results have no audio cell
    assert [c.id for c in audio.targets[1].cells] == [AUDIO]


def test_findings_put_the_strongest_level_first(files: list[Path]) -> None:
    findings = build_comparison(files).findings
    assert findings["reference"] == []
    assert [(f.cell, f.level) for f in findings[PAI]] == [
        (CLAUDE, "recommended"),
        (AUDIO, "reference"),
    ]


def test_the_timeline_says_fixed_in_and_broke_in(files: list[Path]) -> None:
    timeline = build_comparison(files).timeline
    by_cell = {c.cell: c for c in timeline}
    assert set(by_cell) == {IMAGE, AUDIO}  # CLAUDE is new in 2.68.0: nothing to compare
    assert by_cell[IMAGE].kind == "fixed"
    assert by_cell[IMAGE].before == "1.85.0: fail (dropped)"
    assert by_cell[IMAGE].after == "2.68.0: pass (fallback-marked)"
    assert by_cell[AUDIO].kind == "broke"
    assert by_cell[AUDIO].version == "2.68.0"


def test_markdown_has_summary_grids_per_level_and_timeline(files: list[Path]) -> None:
    md = render_compare_markdown(build_comparison(files))
    assert (
        "| target | version | required | recommended | reference | capability | failures"
        " | unsettled | deviations | n/a |"
    ) in md
    assert "| pydantic-ai | 2.68.0 | 3 of 3 cells (100.0%) | 2 of 3 cells (66.7%)" in md
    assert "| row | content | reference 0.1.0 | pydantic-ai 2.68.0 |" in md
    assert "| anthropic/claude-4 | image | ↪️ | ❌ |" in md  # all checks
    assert "| anthropic/claude-4 | image | ✅ | ✅ |" in md  # required rules: kept
    assert "<details><summary>Grid: recommended rules</summary>" in md
    assert "- pydantic-ai: 1.85.0 → 2.68.0" in md
    assert f"| pydantic-ai | {IMAGE} | fixed in 2.68.0 | 1.85.0: fail (dropped)" in md
    assert (  # findings grouped by reason, each with the cells it covers
        "- **fails recommended** · 1 cell · `provenance` · outcome fallback, unmarked:"
        " provenance broke<br>`anthropic/claude-4/image/inline/result`"
    ) in md


def test_html_cells_open_dialogs_with_levels_and_the_repro_command(files: list[Path]) -> None:
    page = render_compare_html(build_comparison(files), scripts={(PAI, CLAUDE): "print(1)\n"})
    assert page.count("<dialog") == 5  # one per cell: 2 reference, 3 pydantic-ai
    assert 'data-all="fail"' in page
    assert 'data-required="pass"' in page
    assert 'data-recommended="fail"' in page
    assert repro_command(CLAUDE, PAI) in page
    assert '<pre class="payload repro">print(1)\n</pre>' in page
    assert "fixed in 2.68.0" in page


def test_a_deviation_shows_its_level(tmp_path: Path) -> None:
    lines = checks(IMAGE)
    lines[2] |= {"verdict": "xfail", "reason": "drops media", "link": LINK}  # no-silent-loss
    comparison = build_comparison([write(tmp_path / "r.jsonl", lines)])
    (finding,) = comparison.findings["reference"]
    assert (finding.level, finding.verdict, finding.reason) == ("required", "xfail", "drops media")
    page = render_compare_html(comparison)
    assert "drops media" in page
    assert "(level required)" in page


def test_cli_writes_markdown_or_html_by_extension(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = [str(f) for f in files]
    assert main(["compare", *paths, "-o", str(tmp_path / "c.md")]) == 0
    assert (tmp_path / "c.md").read_text(encoding="utf-8").startswith("# Frameworks compared")
    assert main(["compare", *paths, "-o", str(tmp_path / "c.html")]) == 0
    assert (tmp_path / "c.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["compare", *paths, "--repro", "-o", str(tmp_path / "c2.md")]) == 2
    assert "--repro only applies to the HTML page" in capsys.readouterr().err


def test_one_release_given_twice_is_refused(
    files: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    again = tmp_path / "again.jsonl"
    again.write_bytes(files[1].read_bytes())
    assert main(["compare", str(files[1]), str(again)]) == 2
    assert "pydantic-ai 2.68.0 is also in" in capsys.readouterr().err


def test_repro_embeds_the_scripts_of_failing_cells_of_importable_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cell = "openai-chat/gpt-6/image/inline/result"  # a cell of the packaged matrix
    demo = of("repro-demo", "1.0.0", failing(cell, "provenance", "fallback-unmarked"))
    results = write(tmp_path / "demo.jsonl", demo, head=meta(**{"repro-demo": "1.0.0"}))
    out = tmp_path / "c.html"
    spec = "repro-demo=repro_target:ReproTarget"
    assert main(["compare", str(results), "--repro", "--repro-target", spec, "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert f"# Reproducer for {cell} on repro-demo 1.0.0" in page
    assert "http.server" in page
    assert main(["compare", str(results), "--repro", "-o", str(out)]) == 0  # not importable
    assert "no reproducer for" in capsys.readouterr().err
    assert "http.server" not in out.read_text(encoding="utf-8")
    assert repro_command(cell, "repro-demo") in out.read_text(encoding="utf-8")


def test_a_property_that_starts_holding_is_fixed_in_its_release(tmp_path: Path) -> None:
    def prop(version: str, verdict: str) -> dict[str, Any]:
        return {
            "kind": "result",
            "target": PAI,
            "target_version": version,
            "cell": "property/total",
            "property": "total",
            "check": "total",
            "verdict": verdict,
            "examples": 50,
            "detail": "held" if verdict == "pass" else "raised ValueError",
            "reason": None,
            "link": None,
        }

    old = write(tmp_path / "old.jsonl", [prop("1.0.0", "fail")], head=meta(**{PAI: "1.0.0"}))
    new = write(tmp_path / "new.jsonl", [prop("2.0.0", "pass")], head=meta(**{PAI: "2.0.0"}))
    (change,) = build_comparison([old, new]).timeline
    assert (change.cell, change.kind, change.before) == ("property/total", "fixed", "1.0.0: fail")


def _releases(tmp_path: Path, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[Path]:
    return [
        write(tmp_path / "old.jsonl", of(PAI, "1.85.0", old), head=meta(**{PAI: "1.85.0"})),
        write(tmp_path / "new.jsonl", of(PAI, "2.68.0", new), head=meta(**{PAI: "2.68.0"})),
    ]


def _declared(lines: list[dict[str, Any]], check: str) -> list[dict[str, Any]]:
    """The same lines, with `check`'s failure declared in the deviations file."""
    return [
        line
        | ({"verdict": "xfail", "reason": "known", "link": LINK} if line["check"] == check else {})
        for line in lines
    ]


def test_a_cell_failing_then_declared_is_still_failing_not_fixed(tmp_path: Path) -> None:
    """Misjudged before: `xfail` ranked above `fail`, so a newly declared failure read as fixed."""
    old = failing(IMAGE, "no-silent-loss", "dropped")
    comparison = build_comparison(_releases(tmp_path, old, _declared(old, "no-silent-loss")))
    (change,) = comparison.timeline
    assert change.kind == "declared"
    assert change.checks == ["no-silent-loss (required): fail → xfail"]
    md = render_compare_markdown(comparison)
    assert "still failing (now declared) in 2.68.0" in md
    assert "fixed in" not in md
    assert "- pydantic-ai 2.68.0: 1 still failing (now declared)" in md


def test_fixed_in_means_a_check_went_from_fail_to_pass(tmp_path: Path) -> None:
    old = failing(IMAGE, "no-silent-loss", "dropped")
    comparison = build_comparison(_releases(tmp_path, old, checks(IMAGE)))
    (change,) = comparison.timeline
    assert (change.kind, change.levels) == ("fixed", ["required"])
    assert change.checks == ["no-silent-loss (required): fail → pass"]
    md = render_compare_markdown(comparison)
    assert "- pydantic-ai 2.68.0: 1 fixed (required 1, recommended 0, reference 0)" in md


def test_an_older_release_is_compared_by_what_it_did_whatever_file_judged_it(
    tmp_path: Path,
) -> None:
    """Older releases run against the newest release's deviations file: an entry for a
    failure the older release did not have is an xpass there, and its raw observation a pass."""
    newest = _declared(failing(AUDIO, "text-identical", "fallback-marked"), "text-identical")
    older = [  # the same file applied: the declared check passed on the older release
        line
        | ({"verdict": "xpass", "reason": "known"} if line["check"] == "text-identical" else {})
        for line in checks(AUDIO)
    ]
    older += failing(IMAGE, "provenance", "fallback-unmarked")  # fails alike in both ...
    newest += _declared(failing(IMAGE, "provenance", "fallback-unmarked"), "provenance")
    comparison = build_comparison(_releases(tmp_path, older, newest))
    by_cell = {c.cell: c for c in comparison.timeline}
    assert by_cell[AUDIO].kind == "broke"  # pass → fail, observed
    assert by_cell[AUDIO].levels == ["required"]
    assert by_cell[IMAGE].kind == "declared"  # ... and only the declaration moved


def test_a_check_run_on_one_release_only_is_not_compared(tmp_path: Path) -> None:
    new = [
        line | ({"verdict": "fail", "detail": "no snapshot"} if line["check"] == "snapshot" else {})
        for line in checks(IMAGE)
    ]
    old = [line for line in checks(IMAGE) if line["check"] != "snapshot"]
    assert build_comparison(_releases(tmp_path, old, new)).timeline == []
