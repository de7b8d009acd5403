"""`conformance diff`: cells added, removed and changed; a regression exits 1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from conformance.cli import main
from conformance.reports.diff import OUTCOME_RANK, STATUS_RANK, diff_reports, render_diff
from conformance.reports.report import build_report
from conformance.reports.results import load_results
from results_data import CELL, LINK, meta, result, write

if TYPE_CHECKING:
    from pathlib import Path

OTHER = "anthropic/claude-4/image/inline/result"


def cell(
    verdict: str = "pass",
    outcome: str | None = "fallback-marked",
    cell_id: str = CELL,
    **fields: Any,
) -> list[dict[str, Any]]:
    """A cell as two checks: the snapshot passes; the outcome check has `verdict`."""
    extra: dict[str, Any] = {"reason": "drops media", "link": LINK} if "x" in verdict else {}
    if verdict == "skip":
        extra = {"detail": "not covered"}
    return [
        result(cell_id, "snapshot", outcome=outcome, **fields),
        result(cell_id, "outcome", verdict=verdict, outcome=outcome, **(extra | fields)),
    ]


def run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    base: list[dict[str, Any]],
    head: list[dict[str, Any]],
) -> tuple[int, str]:
    old = write(tmp_path / "base.jsonl", base)
    new = write(tmp_path / "head.jsonl", head)
    status = main(["diff", str(old), str(new)])
    return status, capsys.readouterr().out


def section(markdown: str, heading: str) -> list[str]:
    """The table lines under `### heading`."""
    if f"### {heading}\n" not in markdown:
        return []
    body = markdown.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("| ")][1:]


def test_a_planted_regression_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = [*cell(), *cell(cell_id=OTHER)]
    head = [*cell("fail", "dropped"), *cell(cell_id=OTHER)]
    status, out = run(tmp_path, capsys, base, head)
    assert status == 1
    assert out.startswith("## Conformance diff: ❌ 1 regression\n")
    assert (
        "1 regression · 0 improvements · 0 other changes · 0 cells added · 0 cells removed" in out
    )
    assert "· 1 unchanged" in out
    assert section(out, "Regressions") == [
        f"| reference | {CELL} | ✅ pass → ❌ fail | fallback-marked → dropped | fallback"
        " | reference | outcome pass → fail |"
    ]


def test_an_improvement_exits_0_and_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(tmp_path, capsys, cell("fail", "dropped"), cell())
    assert status == 0
    assert out.startswith("## Conformance diff: ✅ no regressions\n")
    assert section(out, "Improvements") == [
        f"| reference | {CELL} | ❌ fail → ✅ pass | dropped → fallback-marked | fallback"
        " | – | outcome fail → pass |"
    ]
    assert section(out, "Regressions") == []


def test_a_deviation_that_no_longer_happens_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(tmp_path, capsys, cell("xfail", "dropped"), cell())
    assert status == 0
    [line] = section(out, "Improvements")
    assert "⚠️ xfail → ✅ pass" in line
    assert "the known deviation no longer happens" in line


def test_an_xpass_is_an_improvement_not_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(tmp_path, capsys, cell("xfail", "dropped"), cell("xpass"))
    assert status == 0
    [line] = section(out, "Improvements")
    assert "⚠️ xfail → ❗ xpass" in line
    assert "the known deviation no longer happens; remove it from the deviations file" in line


def test_added_and_removed_cells_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run(tmp_path, capsys, cell(), cell(cell_id=OTHER))
    assert status == 0
    assert section(out, "Added cells") == [
        f"| reference | {OTHER} | ✅ pass | fallback-marked | fallback | – | – |"
    ]
    assert section(out, "Removed cells") == [
        f"| reference | {CELL} | ✅ pass | fallback-marked | fallback | – | – |"
    ]


def test_no_change_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(tmp_path, capsys, cell(), cell())
    assert status == 0
    assert "0 regressions · 0 improvements · 0 other changes" in out
    assert "· 1 unchanged" in out
    assert "###" not in out


@pytest.mark.parametrize(
    ("base", "head", "kind"),
    [
        (("pass", "native"), ("fail", "fallback-marked"), "regression"),
        (("pass", "native"), ("xfail", "fallback-marked"), "regression"),
        (("pass", "fallback-marked"), ("skip", None), "regression"),
        (("fail", "fallback-marked"), ("fail", "fallback-unmarked"), "regression"),
        (("pass", "raised"), ("fail", "dropped"), "regression"),
        (("fail", "raised"), ("fail", "stringified"), "regression"),
        (("fail", "noted"), ("fail", "dropped"), "regression"),
        (("xfail", "noted"), ("xfail", "dropped"), "regression"),
        (("fail", "fallback-unmarked"), ("fail", "raised"), "improvement"),
        (("skip", None), ("xfail", "dropped"), "improvement"),
        (("fail", "native"), ("pass", "fallback-marked"), "improvement"),
        (("fail", None), ("fail", "dropped"), "changed"),
    ],
)
def test_ranking(
    tmp_path: Path, base: tuple[str, str | None], head: tuple[str, str | None], kind: str
) -> None:
    old = build_report(load_results([write(tmp_path / "a.jsonl", cell(*base))]))
    new = build_report(load_results([write(tmp_path / "b.jsonl", cell(*head))]))
    [change] = diff_reports(old, new).changes
    assert change.kind == kind


def test_a_lowered_expectation_still_counts_as_a_regression(tmp_path: Path) -> None:
    base = cell(outcome="native", expect="native")
    head = cell(outcome="fallback-marked", expect="fallback")
    old = build_report(load_results([write(tmp_path / "a.jsonl", base)]))
    new = build_report(load_results([write(tmp_path / "b.jsonl", head)]))
    [change] = diff_reports(old, new).changes
    assert change.kind == "regression"
    assert change.notes == ["expectation native → fallback"]


def test_rankings_cover_every_status_and_outcome() -> None:
    assert list(STATUS_RANK) == ["pass", "xpass", "xfail", "skip", "fail"]
    assert list(OUTCOME_RANK) == [
        "native",
        "fallback-marked",
        "raised",
        "fallback-unmarked",
        "altered",
        "stringified",
        "noted",
        "dropped",
    ]
    assert sorted(OUTCOME_RANK.values()) == list(range(8))


def test_target_version_change_is_named(tmp_path: Path) -> None:
    old = build_report(load_results([write(tmp_path / "a.jsonl", cell())]))
    head = [line | {"target_version": "0.2.0"} for line in cell()]
    new_file = write(tmp_path / "b.jsonl", head, head=meta(reference="0.2.0"))
    markdown = render_diff(diff_reports(old, build_report(load_results([new_file]))))
    assert "- Target version: reference 0.1.0 → 0.2.0" in markdown


def test_pipes_in_ids_do_not_break_the_table(tmp_path: Path) -> None:
    odd = "weird/a|b/image/inline/result"
    old = build_report(load_results([write(tmp_path / "a.jsonl", cell(cell_id=odd))]))
    new = build_report(load_results([write(tmp_path / "b.jsonl", cell("fail", cell_id=odd))]))
    markdown = render_diff(diff_reports(old, new))
    assert "| reference | weird/a\\|b/image/inline/result |" in markdown


def test_output_to_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "base.jsonl", cell())
    new = write(tmp_path / "head.jsonl", cell("fail", "dropped"))
    out = tmp_path / "diff" / "diff.md"
    assert main(["diff", str(old), str(new), "-o", str(out)]) == 1
    assert capsys.readouterr().out == ""
    assert out.read_text(encoding="utf-8").startswith("## Conformance diff: ❌ 1 regression")


def test_a_truncated_side_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "base.jsonl", cell())
    new = write(tmp_path / "head.jsonl", cell())
    new.write_text(new.read_text(encoding="utf-8").rsplit("\n", 2)[0] + "\n", encoding="utf-8")
    assert main(["diff", str(old), str(new)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{new}: no end line")
    assert "Traceback" not in err


def leveled(verdicts: dict[str, str], cell_id: str = CELL) -> list[dict[str, Any]]:
    """A cell with one check per name, each with its verdict (a failure says why)."""
    return [
        result(cell_id, check, verdict=verdict, detail="broke" if verdict == "fail" else "")
        for check, verdict in verdicts.items()
    ]


_ALL = {"no-silent-loss": "pass", "provenance": "pass", "outcome": "pass"}


@pytest.mark.parametrize(
    ("broken", "levels"),
    [
        ("no-silent-loss", ["required"]),
        ("provenance", ["recommended"]),
        ("outcome", ["reference"]),
    ],
)
def test_a_regression_names_the_level_it_breaks(
    tmp_path: Path, broken: str, levels: list[str]
) -> None:
    base = build_report(load_results([write(tmp_path / "b.jsonl", leveled(_ALL))]))
    head_lines = leveled(_ALL | {broken: "fail"})
    head = build_report(load_results([write(tmp_path / "h.jsonl", head_lines)]))
    (change,) = diff_reports(base, head).of("regression")
    assert change.levels == levels


def test_fail_on_required_ignores_a_layout_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = write(tmp_path / "base.jsonl", leveled(_ALL))
    layout = write(tmp_path / "layout.jsonl", leveled(_ALL | {"outcome": "fail"}))
    loss = write(tmp_path / "loss.jsonl", leveled(_ALL | {"no-silent-loss": "fail"}))
    gate = ["--fail-on", "required"]
    assert main(["diff", str(old), str(layout), *gate]) == 0
    out = capsys.readouterr().out
    assert "✅ no regressions at required level" in out
    assert "| reference | outcome pass → fail |" in out  # still listed, with its level
    assert "- Regressions per level: required 0 · recommended 0 · reference 1" in out
    assert main(["diff", str(old), str(loss), *gate]) == 1
    assert "❌ 1 regression at required level" in capsys.readouterr().out
    assert main(["diff", str(old), str(layout)]) == 1  # every level by default


def test_fail_on_names_only_known_levels(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diff", "a", "b", "--fail-on", "required,strict"])
    assert "strict" in capsys.readouterr().err


def test_a_property_that_stops_holding_is_a_regression_at_its_level(tmp_path: Path) -> None:
    def line(verdict: str) -> dict[str, Any]:
        return {
            "kind": "result",
            "target": "reference",
            "target_version": "0.1.0",
            "cell": "property/markers-name-their-calls",
            "property": "markers-name-their-calls",
            "check": "markers-name-their-calls",
            "verdict": verdict,
            "examples": 50,
            "detail": "held" if verdict == "pass" else "marker text broke",
            "reason": None,
            "link": None,
        }

    base = build_report(load_results([write(tmp_path / "b.jsonl", [*cell(), line("pass")])]))
    head = build_report(load_results([write(tmp_path / "h.jsonl", [*cell(), line("fail")])]))
    (change,) = diff_reports(base, head).of("regression")
    assert change.cell == "property/markers-name-their-calls"
    assert change.levels == ["recommended"]


def test_diff_results_builds_only_the_cells_whose_lines_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`diff_results` (what `conformance diff` runs) gives the diff the two reports give: a
    cell changed, one added, one removed, one unchanged, a property. It builds the reports
    of the cells whose lines differ only: a line both sides have is one model
    (`load_results(known=...)`), and a cell of such lines is unchanged unbuilt."""
    from conformance.reports import diff as diff_module
    from conformance.reports.diff import diff_results
    from conformance.reports.figures import capabilities

    gone, new = "anthropic/claude-4/text/inline/result", "openai-chat/gpt-4o/audio/inline/result"
    prop = {"kind": "result", "target": "reference", "target_version": "0.1.0"} | {
        "cell": "property/total",
        "property": "total",
        "check": "total",
        "level": "required",
        "verdict": "pass",
        "examples": 50,
        "detail": "held on 50 histories",
        "reason": None,
        "link": None,
    }
    base_lines = [*cell(), *cell(cell_id=OTHER), *cell(cell_id=gone), prop]
    head_lines = [
        *cell(),
        *cell("fail", "dropped", cell_id=OTHER),
        *cell(cell_id=new),
        prop | {"verdict": "fail", "row": "openai-chat/gpt-4o"},
    ]
    known: dict[bytes, Any] = {}
    base = load_results([write(tmp_path / "base.jsonl", base_lines)], known=known)
    head = load_results([write(tmp_path / "head.jsonl", head_lines)], known=known)
    capability = (capabilities(base), capabilities(head))
    built: list[str] = []
    real = diff_module.cell_report

    def counting(target: str, lines: list[Any]) -> Any:
        built.append(lines[0].cell)
        return real(target, lines)

    monkeypatch.setattr(diff_module, "cell_report", counting)
    fast = diff_results(base, head, capability=capability)
    assert fast == diff_reports(build_report(base), build_report(head), capability=capability)
    assert sorted(built) == sorted([OTHER, gone, OTHER, new]), "the unchanged cell is not built"
    assert [(c.cell, c.kind) for c in fast.changes] == [  # the base's order, then the head's
        (gone, "removed"),
        (OTHER, "regression"),
        ("property/total", "regression"),
        (new, "added"),
    ]
    assert fast.unchanged == 1
