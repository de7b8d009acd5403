"""The strands-litellm target: Strands' LiteLLMModel on every row's LiteLLM route, its refusal
types, the reproducer, the reasons and deviations files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "strands", reason='the strands-litellm group is not installed: nox -s "target(strands-litellm)"'
)
pytest.importorskip(
    "litellm", reason='the strands-litellm group is not installed: nox -s "target(strands-litellm)"'
)

import litellm

import invoke_checks
import vertex_checks
from conformance.targets.strands_litellm import ROUTES, StrandsLiteLLMTarget

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


@pytest.fixture(scope="module")
def target() -> StrandsLiteLLMTarget:
    return StrandsLiteLLMTarget()


def test_entry_point_names_the_variant(target: StrandsLiteLLMTarget) -> None:
    found = resolve_target("strands-litellm")
    assert isinstance(found, StrandsLiteLLMTarget)
    assert found.unavailable is None
    assert target.refusal_types[-1] is litellm.exceptions.BadRequestError
    assert TypeError in target.refusal_types
    assert "litellm" in target.sdk_versions
    assert all(target.supports(row) is None for row in ROWS.values() if row.api in ROUTES)


def test_every_row_goes_through_litellm_model_with_its_prefix(target: StrandsLiteLLMTarget) -> None:
    row = ROWS["anthropic/claude-sonnet-5"]
    model = target.models[row.api].build(row, "http://127.0.0.1:9/x")
    assert type(model).__name__ == "LiteLLMModel"
    assert model.get_config()["model_id"] == f"anthropic/{row.model}"
    assert model.client_args["api_base"] == "http://127.0.0.1:9/x"


def test_strands_formats_before_litellm_translates(target: StrandsLiteLLMTarget) -> None:
    """The OpenAI-format messages Strands builds reach LiteLLM, which writes Anthropic's body:
    the images Strands moved to user messages arrive after the tool results, and the error
    status Strands keeps never becomes `is_error` (the OpenAI format has no field for it)."""
    image = target.render(ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result"))
    blocks = image["messages"][2]["content"]
    assert [b["type"] for b in blocks] == ["tool_result", "tool_result", "image", "image"]
    assert "Tool successfully returned an image" in json.dumps(blocks[0]["content"])
    error = target.render(ROWS["anthropic/claude-sonnet-5"], scenario("text", "inline", "error"))
    first = error["messages"][2]["content"][0]
    assert first["tool_use_id"] == CALL_ID
    assert first["content"] == ERROR_FIXTURE
    assert "is_error" not in first


def test_huggingface_base_comes_from_the_environment_only_during_the_render(
    target: StrandsLiteLLMTarget,
) -> None:
    import os

    row = next(r for r in ROWS.values() if r.api == "huggingface")
    payload = target.render(row, scenario("text", "inline", "result"))
    assert payload["model"]
    assert "HF_API_BASE" not in os.environ


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: StrandsLiteLLMTarget, tmp_path: Path
) -> None:
    """openai-chat audio inline result: Strands' OpenAI-format tool message drops the audio
    before LiteLLM sees it; the script shows it on its own, offline, in this venv."""
    row = ROWS["openai-chat/gpt-6"]
    history = scenario("audio", "inline", "result")
    path = tmp_path / "repro.py"
    path.write_text(target.repro(row, history), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == "POST /api/chat/completions"
    printed = json.loads(body)
    assert printed == target.render(row, history)
    assert [m["content"] for m in printed["messages"] if m["role"] == "tool"] == ["", ""]


# --- Vertex AI, through LiteLLM's `vertex_ai/` routes ------------------------------------------


@pytest.mark.parametrize("row_id", sorted(vertex_checks.VERTEX_PATHS))
def test_vertex_rows_reach_the_vertex_endpoint_of_their_model(
    target: StrandsLiteLLMTarget, row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vertex_checks.reaches_vertex(target, ROWS[row_id], monkeypatch)


def test_vertex_repro_runs_and_prints_the_payload(
    target: StrandsLiteLLMTarget, tmp_path: Path
) -> None:
    vertex_checks.repro_prints_the_payload(
        target, ROWS["anthropic-vertex/claude-sonnet-5"], tmp_path
    )


# --- Claude through Bedrock InvokeModel: LiteLLM's `bedrock/invoke/<model id>` ------------------


def test_the_invoke_row_reaches_invoke_model_with_claudes_messages_body(
    target: StrandsLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LiteLLMModel(model_id="bedrock/invoke/<id>", client_args=...)` sends the
    anthropic-bedrock row to the double's InvokeModel route with Claude's Messages body, never
    to Converse."""
    invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_the_invoke_row_through_the_converse_route_fails_the_check(
    target: StrandsLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant of the target's own route table that sends the row as its `bedrock-converse`
    rows go (`bedrock/converse/<id>`) is caught."""
    monkeypatch.setitem(ROUTES, "anthropic-bedrock", ROUTES["bedrock-converse"])
    with pytest.raises(AssertionError, match="/converse"):
        invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_invoke_repro_runs_and_prints_the_payload(
    target: StrandsLiteLLMTarget, tmp_path: Path
) -> None:
    invoke_checks.repro_prints_the_invoke_payload(target, ROWS[invoke_checks.INVOKE_ROW], tmp_path)
