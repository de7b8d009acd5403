"""A target's optional `supports_cell`: a cell the framework has no form for is skipped with the
target's reason, in the test run and in the results line; other cells of the row still run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_TARGET = """
from conformance.targets.reference import ReferenceTarget


class NoUrlTarget(ReferenceTarget):
    name = "no-url"

    def supports_cell(self, row, content_type, source, style):
        if source == "url":
            return "this framework has no URL source for media"
        return None
"""


def _project(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        no_url_target=_TARGET,
        test_conformance="from conformance.suite import test_conformance as test_conformance\n",
    )
    pytester.syspathinsert()
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())


def test_a_cell_without_a_form_skips_with_the_targets_reason(pytester: pytest.Pytester) -> None:
    _project(pytester)
    results = pytester.path / "results.jsonl"
    run = pytester.runpytest(
        "-k", "anthropic/claude-sonnet-5/image/ and :outcome]",
        "--conformance-target", "no_url_target:NoUrlTarget",
        "--conformance-results", str(results),
        "--conformance-property-examples", "0",
        "-rs",
    )  # fmt: skip
    run.assert_outcomes(passed=2, skipped=2)  # inline result and prompt; url result and prompt
    run.stdout.fnmatch_lines(["*this framework has no URL source for media*"])
    lines = [json.loads(line) for line in results.read_text("utf-8").splitlines()]
    skipped = {r["cell"]: r for r in lines if r.get("kind") == "result" and r["verdict"] == "skip"}
    assert sorted(skipped) == [
        "anthropic/claude-sonnet-5/image/url/prompt",
        "anthropic/claude-sonnet-5/image/url/result",
    ]
    assert {r["detail"] for r in skipped.values()} == {"this framework has no URL source for media"}
