"""The Google ADK target through ADK's LiteLLM wrapper: the entry point, the rows it serves, a
request per provider family, storage, the reasons and deviations files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "google.adk",
    reason='the google-adk-litellm group is not installed: nox -s "target(google-adk-litellm)"',
)
pytest.importorskip(
    "litellm",
    reason='the google-adk-litellm group is not installed: nox -s "target(google-adk-litellm)"',
)

import litellm

import invoke_checks
import vertex_checks
from conformance.targets import google_adk_litellm as target_module
from conformance.targets.google_adk_litellm import GoogleADKLiteLLMTarget

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


@pytest.fixture(scope="module")
def target() -> GoogleADKLiteLLMTarget:
    return GoogleADKLiteLLMTarget()


def test_entry_point_names_the_target(target: GoogleADKLiteLLMTarget) -> None:
    found = resolve_target("google-adk-litellm")
    assert isinstance(found, GoogleADKLiteLLMTarget)
    assert found.unavailable is None
    assert found.version[0].isdigit()
    assert "litellm" in target.sdk_versions
    assert target.refusal_types == (ValueError, litellm.exceptions.BadRequestError)
    assert set(target.not_applicable) == {"style:prompt"}


def test_every_api_with_a_litellm_prefix_is_served(target: GoogleADKLiteLLMTarget) -> None:
    """Every row is served, the Vertex ones through LiteLLM's `vertex_ai/` routes: a row left
    unserved fails here."""
    unserved = {row.api for row in ROWS.values() if target.supports(row) is not None}
    assert unserved == set()


def test_anthropic_gets_the_response_dict_as_a_json_string(target: GoogleADKLiteLLMTarget) -> None:
    payload = target.render(ROWS["anthropic/claude-sonnet-5"], scenario("text", "inline", "result"))
    assert payload["model"] == "claude-sonnet-5-5"
    results = [
        block
        for message in payload["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results[0]["tool_use_id"] == CALL_ID
    content = results[0]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    # What the deviations file says: the response dict, JSON-serialized, is the tool's text.
    assert json.loads(text) == {"result": TEXT_FIXTURE}


def test_storage_renders_the_same(target: GoogleADKLiteLLMTarget) -> None:
    row = ROWS["mistral/mistral-medium"]
    history = scenario("image", "inline", "result")
    assert target.render_stored(row, history) == target.render(row, history)


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: GoogleADKLiteLLMTarget, tmp_path: Path
) -> None:
    """anthropic image inline result: ADK moves the image out of the tool result, unmarked (a
    declared deviation); the script shows it on its own, offline, in this venv."""
    row = ROWS["anthropic/claude-sonnet-5"]
    history = scenario("image", "inline", "result")
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
    assert first == "POST /v1/messages"
    assert json.loads(body) == target.render(row, history)


# --- Vertex AI, through LiteLLM's `vertex_ai/` routes ------------------------------------------


@pytest.mark.parametrize("row_id", sorted(vertex_checks.VERTEX_PATHS))
def test_vertex_rows_reach_the_vertex_endpoint_of_their_model(
    target: GoogleADKLiteLLMTarget, row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vertex_checks.reaches_vertex(target, ROWS[row_id], monkeypatch)


def test_vertex_repro_runs_and_prints_the_payload(
    target: GoogleADKLiteLLMTarget, tmp_path: Path
) -> None:
    vertex_checks.repro_prints_the_payload(
        target, ROWS["anthropic-vertex/claude-sonnet-5"], tmp_path
    )


# --- Claude through Bedrock InvokeModel: LiteLLM's `bedrock/invoke/<model id>` ------------------


def test_the_invoke_row_reaches_invoke_model_with_claudes_messages_body(
    target: GoogleADKLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LiteLlm(model="bedrock/invoke/<id>", ...)` sends the anthropic-bedrock row to the
    double's InvokeModel route with Claude's Messages body, never to Converse."""
    invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_the_invoke_row_through_the_converse_route_fails_the_check(
    target: GoogleADKLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant of the target's route table (the litellm target's, which it imports) that
    sends the row as `bedrock-converse` rows go (`bedrock/converse/<id>`) is caught."""
    routes = target_module.ROUTES
    monkeypatch.setitem(routes, "anthropic-bedrock", routes["bedrock-converse"])
    with pytest.raises(AssertionError, match="/converse"):
        invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_without_boto3_the_invoke_row_says_what_to_install(
    target: GoogleADKLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_checks.says_what_to_install_without_boto3(
        target, ROWS[invoke_checks.INVOKE_ROW], target_module, "installed", monkeypatch
    )


def test_invoke_repro_runs_and_prints_the_payload(
    target: GoogleADKLiteLLMTarget, tmp_path: Path
) -> None:
    invoke_checks.repro_prints_the_invoke_payload(target, ROWS[invoke_checks.INVOKE_ROW], tmp_path)
