"""A target whose optional dependency is missing: a skip with its reason in a local run, a
usage error where the target is required (its nox session). Runs whether or not pydantic-ai is
installed: the scratch project hides it."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _plugin_project(pytester: pytest.Pytester, conftest: str) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makeconftest(conftest)
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())


_HIDE = "import sys\nsys.modules['pydantic_ai'] = None  # as if it were not installed\n"
_CELL = "pydantic-ai:openai-chat/gpt-6/image/inline/result:outcome"


def test_missing_pydantic_ai_skips_with_the_install_hint(pytester: pytest.Pytester) -> None:
    _plugin_project(pytester, _HIDE)
    run = pytester.runpytest("-k", _CELL, "--conformance-target", "pydantic-ai", "-rs")
    run.assert_outcomes(skipped=1)
    run.stdout.fnmatch_lines(["*pydantic-ai is not installed: pip install*pydantic-ai-slim*"])


def test_missing_pydantic_ai_fails_when_the_target_is_required(
    pytester: pytest.Pytester,
) -> None:
    _plugin_project(pytester, _HIDE)
    run = pytester.runpytest(
        "-k", _CELL, "--conformance-target", "pydantic-ai", "--conformance-require-targets"
    )
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*'pydantic-ai' is required*pydantic-ai is not installed*"])


def test_missing_langchain_skips_with_the_install_hint(pytester: pytest.Pytester) -> None:
    _plugin_project(pytester, "import sys\nsys.modules['langchain_core'] = None\n")
    run = pytester.runpytest(
        "-k", "langchain:anthropic/claude-sonnet-5/image/inline/result:outcome",
        "--conformance-target", "langchain", "-rs",
    )  # fmt: skip
    run.assert_outcomes(skipped=1)
    run.stdout.fnmatch_lines(["*langchain-core is not installed: pip install langchain-core*"])
