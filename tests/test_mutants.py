"""Each mutant target breaks one rule; the suite must give the failing verdict for it.

The cells each mutant must fail are derived from the matrix and the scenario, never listed by
hand, so a check that silently stops failing shows up here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.checks import CellRun, Check, applicable_checks, evaluate, run_cell
from conformance.history import Message, ToolCall, ToolResult
from conformance.matrix import CellSpec, Matrix, load_matrix
from conformance.observe import observe
from conformance.scenarios import fixture_part
from conformance.targets.base import RowRef, Target
from conformance.targets.reference import ReferenceTarget
from mutants import (
    AddsMarkerToText,
    ChangesWhitespace,
    DropsMedia,
    ForgetsErrorFlag,
    LosesProvenanceInStorage,
    MarkerNamesWrongCall,
    NativeEverywhere,
    SendsUnsupported,
    SwallowsUnsupported,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(ROOT / "matrix.yaml")


def _runs(target: Target, matrix: Matrix) -> list[CellRun]:
    return [run_cell(target, cell) for cell in matrix.all_cells()]


def _failing(runs: list[CellRun], check: Check) -> set[str]:
    return {
        run.cell.id
        for run in runs
        if check in applicable_checks(run.cell) and not evaluate(run, check).passed
    }


def _ids(matrix: Matrix, check: Check, keep: Callable[[CellSpec], bool]) -> set[str]:
    """The cells where `check` applies and `keep` says the mutant's bug shows."""
    return {c.id for c in matrix.all_cells() if check in applicable_checks(c) and keep(c)}


def test_reference_passes_every_check(matrix: Matrix) -> None:
    """The baseline the mutants are measured against."""
    runs = _runs(ReferenceTarget(), matrix)
    failures = {
        (run.cell.id, check, evaluate(run, check).detail)
        for run in runs
        for check in applicable_checks(run.cell)
        if check != "snapshot" and not evaluate(run, check).passed
    }
    assert failures == set()


def test_dropped_media_is_caught(matrix: Matrix) -> None:
    runs = _runs(DropsMedia(), matrix)
    media = _ids(matrix, "outcome", lambda c: c.content_type != "text")
    assert _failing(runs, "no-silent-loss") == media
    assert _failing(runs, "outcome") == media
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    assert _failing(runs, "unsupported-raises") == unsupported
    assert {r.observation.outcome for r in runs if r.cell.id in media} == {"dropped"}


def test_marker_added_to_text_is_caught(matrix: Matrix) -> None:
    runs = _runs(AddsMarkerToText(), matrix)

    # Tool text is the fixture in text cells, and the short result text of the prompt style.
    def has_tool_text(c: CellSpec) -> bool:
        rendered = c.expect != "unsupported"
        return rendered and (c.content_type == "text" or c.style == "prompt")

    rendered = _ids(matrix, "text-identical", has_tool_text)
    assert _failing(runs, "text-identical") == rendered
    assert _failing(runs, "no-silent-loss") == _ids(matrix, "no-silent-loss", has_tool_text)
    outcomes = {r.observation.outcome for r in runs if r.cell.id in rendered}
    assert outcomes == {"altered"}


def test_changed_whitespace_is_caught(matrix: Matrix) -> None:
    runs = _runs(ChangesWhitespace(), matrix)
    text_cells = _ids(matrix, "text-identical", lambda c: c.content_type == "text")
    assert text_cells >= {c.id for c in matrix.error_cells()}, "error text too"
    assert _failing(runs, "text-identical") == text_cells
    assert _failing(runs, "outcome") == text_cells
    assert {r.observation.outcome for r in runs if r.cell.id in text_cells} == {"altered"}


def test_provenance_lost_in_storage_is_caught(matrix: Matrix) -> None:
    runs = _runs(LosesProvenanceInStorage(), matrix)
    # Prompt-style cells store provenance; without it the content renders as a plain user
    # message instead of tool output.
    prompt_rendered = _ids(matrix, "provenance", lambda c: c.style == "prompt")
    failing = _failing(runs, "provenance")
    assert failing == prompt_rendered
    detail = evaluate(next(r for r in runs if r.cell.id in failing), "provenance").detail
    assert "storage round trip" in detail


def test_media_sent_natively_where_not_accepted_is_caught(matrix: Matrix) -> None:
    runs = _runs(NativeEverywhere(), matrix)
    fallback = _ids(matrix, "outcome", lambda c: c.expect == "fallback")
    assert fallback, "the matrix has fallback cells to test this on"
    assert _failing(runs, "outcome") == fallback
    assert {r.observation.outcome for r in runs if r.cell.id in fallback} == {"native"}


def test_media_sent_where_unsupported_is_caught(matrix: Matrix) -> None:
    """The probe for uncertain refusals (docs/live-verification.md) breaks the rule it probes."""
    runs = _runs(SendsUnsupported(), matrix)
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    sent = _failing(runs, "unsupported-raises")
    assert sent <= unsupported
    assert "openai-chat/gpt-audio/document/inline/result" in sent
    assert "gemini/gemini-3/audio/url/result" in sent
    assert _failing(runs, "outcome") >= sent


def test_swallowed_unsupported_error_is_caught(matrix: Matrix) -> None:
    runs = _runs(SwallowsUnsupported(), matrix)
    unsupported = _ids(matrix, "unsupported-raises", lambda c: True)
    assert _failing(runs, "unsupported-raises") == unsupported
    assert _failing(runs, "no-silent-loss") == unsupported
    assert _failing(runs, "outcome") == unsupported


def test_marker_naming_the_wrong_call_is_caught(matrix: Matrix) -> None:
    runs = _runs(MarkerNamesWrongCall(), matrix)
    fallback = _ids(matrix, "provenance", lambda c: c.expect == "fallback")
    assert _failing(runs, "provenance") == fallback
    assert {r.observation.outcome for r in runs if r.cell.id in fallback} == {"fallback-unmarked"}


def test_marker_swapped_between_parallel_calls_is_caught() -> None:
    """Two calls in one turn, each returning an image: markers must name their own call."""
    image = fixture_part("image")
    other = image.model_copy(update={"data": b"\x89PNG other", "identifier": "b.png"})
    history = [
        Message(role="user", content="Fetch both charts."),
        ToolCall(tool_call_id="call_1", name="get_chart", arguments={"n": 1}),
        ToolCall(tool_call_id="call_2", name="get_chart", arguments={"n": 2}),
        ToolResult(tool_call_id="call_1", name="get_chart", content=[image]),
        ToolResult(tool_call_id="call_2", name="get_chart", content=[other]),
    ]
    row = RowRef(id="openai-chat/gpt-6", api="openai-chat", family="gpt-6", model="gpt-6-luna")
    good = observe("openai-chat", history, ReferenceTarget().render(row, history), None)
    assert [i.outcome for i in good.items] == ["fallback-marked", "fallback-marked"]
    bad = observe("openai-chat", history, MarkerNamesWrongCall().render(row, history), None)
    assert [i.outcome for i in bad.items] == ["fallback-unmarked", "fallback-unmarked"]
    assert "names 'call_2'" in bad.items[0].detail


def test_a_forgotten_error_flag_is_caught(matrix: Matrix) -> None:
    runs = _runs(ForgetsErrorFlag(), matrix)
    flagged = _ids(matrix, "error-flag", lambda c: True)
    assert flagged == {c.id for c in matrix.error_cells() if c.error == "flag"}
    assert flagged, "the matrix has rows whose api flags errors"
    assert _failing(runs, "error-flag") == flagged
    # Rows without a flag carry the text as is, and that is all a target can do there.
    assert _failing(runs, "text-identical") & {c.id for c in matrix.error_cells()} == set()
