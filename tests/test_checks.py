"""The checks on targets built to break one rule each, and the level and URL handling every
results line carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.errors import UnsupportedContent
from conformance.history import History
from conformance.judging.checks import applicable_checks, evaluate, run_cell
from conformance.judging.levels import level_of
from conformance.matrix import load_matrix
from conformance.reports.results import load_results
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load_matrix(ROOT / "matrix.yaml")
AUDIO = MATRIX.cell("anthropic/claude-sonnet-5/audio/inline/result")


class _Refusal(Exception):
    """Another declared refusal type."""


class RefusesDifferentlyAfterStorage(ReferenceTarget):
    refusal_types = (UnsupportedContent, _Refusal)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        try:
            return super().render_stored(row, history)
        except UnsupportedContent as error:
            raise _Refusal(str(error)) from None


def test_both_renderings_must_refuse_the_same_way() -> None:
    run = run_cell(RefusesDifferentlyAfterStorage(), AUDIO)
    assert run.observation.outcome == "raised"
    result = evaluate(run, "unsupported-raises")
    assert not result.passed
    assert result.detail.startswith("refused differently")


def test_the_reference_refuses_the_same_way_in_both_renderings() -> None:
    run = run_cell(ReferenceTarget(), AUDIO)
    assert evaluate(run, "unsupported-raises").passed


def test_every_check_has_a_level() -> None:
    for cell in MATRIX.all_cells():
        for check in applicable_checks(cell, sdk_schema=True, cassette=True):
            assert level_of(check) in ("required", "recommended", "reference")
    assert level_of("api-accepts") == "required"


def test_api_accepts_is_judged_on_every_content_cell_and_no_error_cell() -> None:
    content = {c.id for c in MATRIX.cells() if "api-accepts" in applicable_checks(c)}
    assert content == {c.id for c in MATRIX.cells()}
    assert not [c for c in MATRIX.error_cells() if "api-accepts" in applicable_checks(c)]


def test_results_lines_carry_their_level_and_what_happened_to_the_url(
    project: pytest.Pytester,
) -> None:
    cell = "openai-chat/gpt-6/document/url/result"
    project.runpytest("-k", cell, "--snapshot-update")
    project.runpytest("-k", cell, "--conformance-results", "r.jsonl").assert_outcomes(
        passed=len(applicable_checks(MATRIX.cell(cell)))
    )
    lines: list[dict[str, Any]] = [
        json.loads(line) for line in (project.path / "r.jsonl").read_text().splitlines()
    ]
    body = lines[1:-1]
    assert {line["check"]: line["level"] for line in body} == {
        check: level_of(check) for check in applicable_checks(MATRIX.cell(cell))
    }
    assert {line["url"] for line in body} == {"not-fetched"}
    assert {line["expect"] for line in body} == {"refuse-or-download"}
    loaded = load_results([project.path / "r.jsonl"]).files[0].results
    assert {line.level for line in loaded} >= {"required", "reference"}
