"""What a figure may count: a typed refusal keeps the required rules and carries nothing, `n/a`
cells and unsettled failures are counted apart, and capability stands beside compliance.

Each rule has a target in `figure_mutants.py` (or `mutants.py`) that was misjudged before and
is judged right now."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from conformance.cli import main
from conformance.judging.checks import evaluate, run_cell
from conformance.judging.refusal import refusal_kept
from conformance.matrix import load_matrix
from conformance.reports.badges import badges
from conformance.reports.figures import capability_of
from conformance.reports.markdown import render_markdown
from conformance.reports.report import build_report
from conformance.reports.results import load_results
from figure_mutants import RefusesAndChangesHistory, RefusesEverything
from results_data import checks, meta, result, write

if TYPE_CHECKING:
    from pathlib import Path

    from conformance.reports.report import Report

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
MATRIX = load_matrix(ROOT / "matrix.yaml")
FAST = ["-p", "no:cacheprovider", "--conformance-property-examples", "0", "-k", "not :snapshot"]


def _run(project: pytest.Pytester, target: str, api: str) -> Report:
    project.runpytest(
        *FAST, "--conformance-target", target, "--conformance-api", api,
        "--conformance-results", "r.jsonl",
    )  # fmt: skip
    return build_report(load_results([project.path / "r.jsonl"]))


def _cells(api: str) -> list[Any]:
    return [c for c in MATRIX.all_cells() if c.api == api]


# ---- a typed refusal: safe, and carries nothing -------------------------------------------


def test_a_typed_refusal_no_longer_fails_text_identical() -> None:
    """Misjudged before: the check alone fails a refusal for want of a payload."""
    cell = next(c for c in MATRIX.all_cells() if c.expect == "native" and c.style == "result")
    run = run_cell(RefusesEverything(), cell)
    before = evaluate(run, "text-identical")
    assert not before.passed
    assert "no payload to carry the text" in before.detail
    after = refusal_kept(run, "text-identical", before)
    assert after.passed
    assert "nothing sent, nothing lost" in after.detail
    assert not refusal_kept(run, "outcome", evaluate(run, "outcome")).passed  # reference: fails


def test_a_refusal_after_changing_the_history_is_still_a_finding() -> None:
    cell = next(c for c in MATRIX.all_cells() if c.style == "error")
    run = run_cell(RefusesAndChangesHistory(), cell)
    assert not refusal_kept(run, "text-identical", evaluate(run, "text-identical")).passed


def test_a_target_refusing_every_cell_keeps_required_and_scores_0_carried(
    project: pytest.Pytester,
) -> None:
    report = _run(project, "figure_mutants:RefusesEverything", "anthropic")
    (target,) = report.targets
    required = next(c for c in target.compliance if c.level == "required")
    assert required.cells == len(_cells("anthropic"))
    assert required.cells_by_status["pass"] == required.cells  # nothing was lost
    reference = next(c for c in target.compliance if c.level == "reference")
    assert reference.cells_by_status["pass"] < reference.cells
    carriable = [c for c in _cells("anthropic") if c.expect in ("native", "fallback")]
    assert target.capability is not None
    assert (target.capability.carried, target.capability.carriable) == (0, len(carriable))
    md = render_markdown(report)
    assert f"Capability: carried 0 of {len(carriable)} carriable cells (0.0%)." in md
    badge = badges(report)["mutant-refuses-everything-capability.json"]
    assert (badge["message"], badge["color"]) == (f"0/{len(carriable)} carriable cells", "red")


def test_the_reference_carries_every_carriable_cell(project: pytest.Pytester) -> None:
    report = _run(project, "reference", "anthropic")
    capability = report.targets[0].capability
    assert capability is not None
    assert capability.carried == capability.carriable > 0


def test_cells_a_target_does_not_run_are_skipped_at_setup_with_their_lines(
    project: pytest.Pytester,
) -> None:
    # Skipped before setup: no call phase runs (a framework serving few rows skips most tests).
    project.makeconftest(
        "PHASES = []\n"
        "def pytest_runtest_logreport(report):\n"
        "    if report.skipped:\n"
        "        PHASES.append(report.when)\n"
        "def pytest_sessionfinish(session):\n"
        "    open('phases.txt', 'w').write(' '.join(sorted(set(PHASES))))\n"
    )
    cells = _cells("openai-chat")
    for target, reason in [
        ("figure_mutants:ServesOneModel", "no client for gpt-audio here"),
        ("figure_mutants:CannotRunHere", "its framework is not installed here"),
    ]:
        report = _run(project, target, "openai-chat")
        lines = [json.loads(x) for x in (project.path / "r.jsonl").read_text().splitlines()[1:-1]]
        (project.path / "r.jsonl").unlink()
        skipped = [x for x in lines if x["verdict"] == "skip"]
        audio = [x for x in lines if x["row"] == "openai-chat/gpt-audio"]
        assert (project.path / "phases.txt").read_text() == "setup"
        assert {x["detail"] for x in skipped} == {reason}
        assert all(x["outcome"] is None and x["reason"] is None for x in skipped)
        if target.endswith("ServesOneModel"):
            assert skipped == audio
            assert {x["na"] for x in skipped} == {"unserved"}
            assert all(x["verdict"] == "pass" for x in lines if x not in audio)
            assert report.targets[0].totals.not_applicable == len(
                [c for c in cells if c.row_id == "openai-chat/gpt-audio"]
            )
        else:
            assert skipped == lines  # every cell, counted against compliance: no `na`
            assert all("na" not in x for x in skipped)
            assert {x["check"] for x in skipped} >= {"outcome", "text-identical"}


def test_a_target_whose_supports_raises_fails_those_cells_and_keeps_their_lines(
    project: pytest.Pytester,
) -> None:
    report = _run(project, "figure_mutants:SupportsRaises", "openai-chat")
    lines = [json.loads(x) for x in (project.path / "r.jsonl").read_text().splitlines()[1:-1]]
    audio = [x for x in lines if x["row"] == "openai-chat/gpt-audio"]
    expected = {(c.id, check) for c in _cells("openai-chat") for check in ("outcome",)}
    assert expected <= {(x["cell"], x["check"]) for x in lines}  # no line lost
    assert audio
    assert {x["verdict"] for x in audio} == {"fail"}
    assert all("no model list for gpt-audio" in x["detail"] for x in audio)
    assert all(x["verdict"] == "pass" for x in lines if x not in audio)
    assert report.targets[0].totals.not_applicable == 0


# ---- not applicable -----------------------------------------------------------------------


def test_declared_not_applicable_cells_are_n_a_with_the_reason(project: pytest.Pytester) -> None:
    report = _run(project, "figure_mutants:NoPromptStyle", "anthropic")
    lines = [json.loads(x) for x in (project.path / "r.jsonl").read_text().splitlines()[1:-1]]
    prompt = [x for x in lines if x["style"] == "prompt"]
    assert prompt
    assert {(x["verdict"], x["na"]) for x in prompt} == {("skip", "declared")}
    assert all(x["detail"].startswith("n/a (style:prompt): the framework has no") for x in prompt)
    assert all("na" not in x for x in lines if x["style"] != "prompt")
    (target,) = report.targets
    cells = _cells("anthropic")
    applying = [c for c in cells if c.style != "prompt"]
    required = next(c for c in target.compliance if c.level == "required")
    assert (required.cells, required.not_applicable) == (len(applying), len(cells) - len(applying))
    assert required.cells_by_status["pass"] == len(applying)  # over the cells that apply
    assert required.cells_by_status["skip"] == 0  # n/a is not a skip against compliance
    assert target.totals.not_applicable == len(cells) - len(applying)
    assert target.capability is not None
    carriable = [c for c in cells if c.expect in ("native", "fallback")]
    assert target.capability.carriable == len(carriable)
    assert target.capability.not_applicable == sum(c.style == "prompt" for c in carriable)
    md = render_markdown(report)
    assert "### Not applicable" in md
    assert f" · {required.not_applicable} n/a" in md
    assert "| n/a |" in md  # a prompt cell's glyph in the tables


def test_declaring_everything_not_applicable_cannot_look_good(project: pytest.Pytester) -> None:
    report = _run(project, "figure_mutants:NothingApplies", "anthropic")
    (target,) = report.targets
    n = len(_cells("anthropic"))
    for level in target.compliance:
        assert (level.cells, level.conformant_share) == (0, 0.0)
    assert target.totals.not_applicable == n
    assert target.capability is not None
    assert target.capability.carried == 0
    assert target.capability.not_applicable == target.capability.carriable > 0
    found = badges(report)
    assert found["mutant-nothing-applies-required.json"]["message"] == f"no cells · {n} n/a"
    assert found["mutant-nothing-applies-required.json"]["color"] == "lightgrey"
    assert found["mutant-nothing-applies-capability.json"]["color"] == "red"
    assert "no cells · " in render_markdown(report)


def test_a_feature_that_does_not_exist_stops_the_run(project: pytest.Pytester) -> None:
    run = project.runpytest(*FAST, "--conformance-target", "figure_mutants:BadNotApplicable")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert "not_applicable['style:prompts']: unknown style 'prompts'" in run.stderr.str()


def test_rows_a_target_cannot_serve_are_counted_apart(tmp_path: Path) -> None:
    cell = "openai-chat/gpt-4o/image/inline/result"
    lines = checks(cell, "skip", detail="no such model here", outcome=None, na="unserved")
    report = build_report(load_results([write(tmp_path / "r.jsonl", lines)]))
    (target,) = report.targets
    assert target.totals.cells == 0
    assert target.totals.not_applicable == 1
    assert "a row the target cannot serve" in render_markdown(report)


# ---- unsettled ----------------------------------------------------------------------------


def test_failures_on_uncertain_cells_are_unsettled_and_counted_apart(
    project: pytest.Pytester,
) -> None:
    """Misjudged before: a failure resting on the matrix's guess counted as a settled one."""
    report = _run(project, "mutants:NativeEverywhere", "gemini")
    (target,) = report.targets
    required = next(c for c in target.compliance if c.level == "required")
    cells = [c for row in target.rows for ct in row.content_types for c in ct.cells]
    failing = [c for c in cells if c.levels.get("required") == "fail"]
    uncertain = [c for c in failing if c.known == "uncertain"]
    assert uncertain
    assert failing != uncertain  # both kinds, told apart
    assert required.unsettled == len(uncertain)
    assert required.cells_by_status["fail"] == len(failing) - len(uncertain)
    md = render_markdown(report)
    assert "### Unsettled failures" in md
    assert "docs/live-verification.md" in md
    assert "❔" in md


def _diff(tmp_path: Path, base: list[dict[str, Any]], head: list[dict[str, Any]], *args: str):
    b, h = write(tmp_path / "base.jsonl", base), write(tmp_path / "head.jsonl", head)
    out = tmp_path / "diff.md"
    gate = ["--gate", "required", "--fail-on", "required"]
    code = main(["diff", str(b), str(h), *gate, "-o", str(out), *args])
    return code, out.read_text(encoding="utf-8")


UNCERTAIN = "mistral/mistral-medium/image/inline/result"


def test_diff_gates_on_settled_cells_unless_told_otherwise(tmp_path: Path) -> None:
    base = checks(UNCERTAIN, known="uncertain")
    head = [
        line | ({"verdict": "fail", "detail": "lost"} if line["check"] == "no-silent-loss" else {})
        for line in base
    ]
    code, md = _diff(tmp_path, base, head)
    assert code == 0
    assert "✅ no regressions at required level (and 1 on unsettled cells, not gated)" in md
    assert "not gated (--include-unsettled gates them)" in md
    code, md = _diff(tmp_path, base, head, "--include-unsettled")
    assert code == 1
    assert "❌ 1 regression" in md
    settled = [line | {"known": "doc"} for line in head]
    code, _ = _diff(tmp_path, [line | {"known": "doc"} for line in base], settled)
    assert code == 1


def test_diff_shows_a_capability_drop_and_gates_on_it_when_asked(tmp_path: Path) -> None:
    cell = "anthropic/claude-4/image/inline/result"
    base = checks(cell, expect="native", outcome="native")
    head = [
        line | ({"verdict": "fail", "detail": "raised"} if line["check"] == "outcome" else {})
        for line in checks(cell, expect="native", outcome="raised")
    ]
    code, md = _diff(tmp_path, base, head)
    assert code == 0  # the outcome check is at the reference level, not gated here
    assert "- Capability: reference: carried 1 → 0 of 1 carriable cells (-1, dropped)" in md
    code, md = _diff(tmp_path, base, head, "--fail-on-capability")
    assert code == 1
    assert "❌ capability dropped for reference" in md


def test_capability_needs_the_required_checks_observed_passing(tmp_path: Path) -> None:
    """A declared deviation does not make a loss carried: the raw observation counts."""
    cell = "anthropic/claude-4/image/inline/result"
    lines = [
        result(cell, "no-silent-loss", expect="native", outcome="native"),
        result(cell, "api-accepts", expect="native", outcome="native", verdict="xfail", reason="r"),
    ]
    report = build_report(load_results([write(tmp_path / "r.jsonl", lines, head=meta())]))
    assert report.targets[0].capability is not None
    assert report.targets[0].capability.carried == 0
    loaded = load_results([tmp_path / "r.jsonl"]).files[0].results
    assert capability_of(loaded).carriable == 1


def test_a_cell_becoming_n_a_is_a_change_in_the_diff_not_a_regression(tmp_path: Path) -> None:
    cell = "anthropic/claude-4/image/inline/prompt"
    base = checks(cell, expect="native", outcome="native")
    head = checks(
        cell, "skip", expect="native", outcome=None, detail="n/a (style:prompt): no", na="declared"
    )
    code, md = _diff(tmp_path, base, head)
    assert code == 0
    assert "now not applicable (declared)" in md
    assert "| reference | anthropic/claude-4/image/inline/prompt | ✅ pass → n/a |" in md
    assert "carried 1 → 0 of 1 carriable cells (-1, dropped)" in md


def test_unsettled_failures_are_apart_in_the_badges(tmp_path: Path) -> None:
    lines = [
        result(
            "mistral/m1/image/inline/result", "no-silent-loss", verdict="fail", known="uncertain"
        ),
        result("mistral/m2/image/inline/result", "no-silent-loss", verdict="fail"),
        result("mistral/m3/image/inline/result", "no-silent-loss"),
    ]
    report = build_report(load_results([write(tmp_path / "r.jsonl", lines)]))
    required = next(c for c in report.targets[0].compliance if c.level == "required")
    assert (required.cells, required.unsettled, required.cells_by_status["fail"]) == (3, 1, 1)
    assert badges(report)["reference-required.json"]["message"] == "1/3 cells · 1 unsettled"


def test_a_results_file_of_today_loads_with_nothing_apart(tmp_path: Path) -> None:
    from results_data import ALL_PASS

    report = build_report(load_results([write(tmp_path / "r.jsonl", ALL_PASS)]))
    (target,) = report.targets
    assert (target.totals.not_applicable, target.totals.unsettled) == (0, 0)
    assert target.capability is not None
    assert (target.capability.carried, target.capability.carriable) == (3, 3)


def test_compare_shows_n_a_and_unsettled_apart(tmp_path: Path) -> None:
    from conformance.reports.compare import build_comparison, render_compare_markdown

    lines = [
        *checks(
            "mistral/m1/image/inline/result", "skip", outcome=None, detail="n/a", na="declared"
        ),
        *[
            line | ({"verdict": "fail", "detail": "lost"} if line["check"] == "api-accepts" else {})
            for line in [
                *checks("mistral/m2/image/inline/result", known="uncertain"),
                result("mistral/m2/image/inline/result", "api-accepts", known="uncertain"),
            ]
        ],
    ]
    md = render_compare_markdown(build_comparison([write(tmp_path / "r.jsonl", lines)]))
    assert "| mistral/m1 | image | n/a |" in md
    assert "| mistral/m2 | image | ❔ |" in md
    assert " | 0 | 1 | 0 | 1 |" in md  # failures, unsettled, deviations, n/a


class _Declares:
    name = "declares"

    def __init__(self, given: object) -> None:
        self.given = given

    @property
    def not_applicable(self) -> object:
        if isinstance(self.given, BaseException):
            raise self.given
        return self.given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (["style:prompt"], "is a list; give a mapping of feature to reason"),
        ({"colour:red": "x"}, "unknown kind of feature 'colour'"),
        ({"content:videos": "x"}, "unknown content 'videos'; use one of text, image"),
        ({"api:cohere": "  "}, "give the reason"),
        (RuntimeError("boom"), "reading it raised RuntimeError: boom"),
    ],
)
def test_a_bad_not_applicable_says_what_to_write(given: object, says: str) -> None:
    from conformance.running.applicable import declared_not_applicable
    from conformance.targets import TargetError

    with pytest.raises(TargetError, match=re.escape(says)):
        declared_not_applicable(_Declares(given))  # pyright: ignore[reportArgumentType]


def test_every_kind_of_feature_selects_its_cells() -> None:
    from conformance.running.applicable import declared_not_applicable, not_applicable_reason

    declared = declared_not_applicable(
        _Declares({"api:cohere": "a", "content:video": "b", "source:url": "c", "style:error": "d"})  # pyright: ignore[reportArgumentType]
    )
    for cell in MATRIX.all_cells():
        why = not_applicable_reason(declared, cell)
        hit = (
            cell.api == "cohere"
            or cell.content_type == "video"
            or cell.source == "url"
            or cell.style == "error"
        )
        assert (why is not None) == hit, cell.id
