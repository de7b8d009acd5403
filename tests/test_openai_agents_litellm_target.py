"""The Agents SDK through its LiteLLM extension: the rows it serves, the routes, the capture,
the reproducer, a missing extension and the reasons file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_IDS, ERROR_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "agents", reason='openai-agents is not installed: nox -s "target(openai-agents-litellm)"'
)
pytest.importorskip(  # the SDK's extension raises ImportError, not ModuleNotFoundError, without it
    "litellm", reason='litellm is not installed: nox -s "target(openai-agents-litellm)"'
)

import litellm
from agents.exceptions import UserError

import invoke_checks
import vertex_checks
from conformance.targets import openai_agents_litellm as target_module
from conformance.targets.openai_agents_litellm import (
    INSTALL_HINT,
    OpenAIAgentsLiteLLMTarget,
    route,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}
ANTHROPIC = ROWS["anthropic/claude-sonnet-5"]


@pytest.fixture(scope="module")
def target() -> OpenAIAgentsLiteLLMTarget:
    return OpenAIAgentsLiteLLMTarget()


def test_entry_point_names_the_target(target: OpenAIAgentsLiteLLMTarget) -> None:
    found = resolve_target("openai-agents-litellm")
    assert isinstance(found, OpenAIAgentsLiteLLMTarget)
    assert found.name == "openai-agents-litellm"
    assert found.unavailable is None
    assert target.refusal_types == (UserError, litellm.exceptions.BadRequestError)
    assert {"openai", "litellm"} <= set(target.sdk_versions)
    # Every row, the Vertex ones through LiteLLM's `vertex_ai/` routes: a row left unserved
    # fails here.
    unserved = {row.api for row in ROWS.values() if target.supports(row) is not None}
    assert unserved == set()


def test_a_missing_extension_is_unavailable_with_the_hint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> Any:
        raise ImportError("No module named 'litellm'")

    monkeypatch.setattr(target_module, "_import_extension", missing)
    absent = OpenAIAgentsLiteLLMTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable
    assert absent.supports(ANTHROPIC) == absent.unavailable
    assert absent.refusal_types == ()


def test_routes_give_litellm_its_prefix_and_base() -> None:
    model, extra, environment = route(ANTHROPIC, "http://127.0.0.1:1/c")
    assert model == {
        "model": f"anthropic/{ANTHROPIC.model}",
        "base_url": "http://127.0.0.1:1/c",
        "api_key": "conformance-not-a-key",
    }
    assert (extra, environment) == ({}, {})
    bedrock, extra, _ = route(ROWS["bedrock-converse/nova"], "http://127.0.0.1:1/c")
    assert bedrock["base_url"] is None
    assert extra["aws_bedrock_runtime_endpoint"] == "http://127.0.0.1:1/c"
    _, _, environment = route(ROWS["huggingface/qwen3.6"], "http://127.0.0.1:1/c")
    assert environment == {"HF_API_BASE": "http://127.0.0.1:1/c"}


def test_the_run_reaches_the_tools_and_litellm_sends_the_image(
    target: OpenAIAgentsLiteLLMTarget,
) -> None:
    """The extension keeps media in tool outputs (`preserve_tool_output_all_content=True`):
    on Anthropic each image is a `tool_result` image block."""
    payload = target.render(ANTHROPIC, scenario("image", "inline", "result"))
    results = [
        block
        for message in payload["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert [r["tool_use_id"] for r in results] == list(CALL_IDS)
    assert all(r["content"][0]["type"] == "image" for r in results)


def test_bedrock_is_signed_and_sent_to_the_recorder(target: OpenAIAgentsLiteLLMTarget) -> None:
    row = ROWS["bedrock-converse/nova"]
    payload = target.render(row, scenario("text", "inline", "error"))
    assert payload["modelId"] == row.model
    text = json.dumps(payload, ensure_ascii=False)
    assert json.dumps(ERROR_FIXTURE, ensure_ascii=False)[1:-1] in text


def test_repro_of_a_cell_runs_and_prints_the_payload(
    target: OpenAIAgentsLiteLLMTarget, tmp_path: Path
) -> None:
    history = scenario("image", "inline", "result")
    path = tmp_path / "repro.py"
    path.write_text(target.repro(ANTHROPIC, history), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    assert json.loads(run.stdout) == target.render(ANTHROPIC, history)


# --- Vertex AI, through LiteLLM's `vertex_ai/` routes ------------------------------------------


@pytest.mark.parametrize("row_id", sorted(vertex_checks.VERTEX_PATHS))
def test_vertex_rows_reach_the_vertex_endpoint_of_their_model(
    target: OpenAIAgentsLiteLLMTarget, row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    vertex_checks.reaches_vertex(target, ROWS[row_id], monkeypatch)


def test_vertex_repro_runs_and_prints_the_payload(
    target: OpenAIAgentsLiteLLMTarget, tmp_path: Path
) -> None:
    vertex_checks.repro_prints_the_payload(
        target, ROWS["anthropic-vertex/claude-sonnet-5"], tmp_path
    )


# --- Claude through Bedrock InvokeModel: LiteLLM's `bedrock/invoke/<model id>` ------------------


def test_the_invoke_row_reaches_invoke_model_with_claudes_messages_body(
    target: OpenAIAgentsLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LitellmModel("bedrock/invoke/<id>")` with the route's AWS arguments as the agent's
    `ModelSettings(extra_args=...)` sends the anthropic-bedrock row to the double's InvokeModel
    route with Claude's Messages body, never to Converse."""
    invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_the_invoke_row_through_the_converse_route_fails_the_check(
    target: OpenAIAgentsLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant of the target's route table (`_ROUTES`, the litellm target's) that sends the
    row as `bedrock-converse` rows go (`bedrock/converse/<id>`) is caught. The run keeps the
    models it built per rendering thread (`_run.model_for`), so the mutant starts with none:
    else an earlier render's `bedrock/invoke/` model would be reused with the mutant's
    arguments."""
    from conformance.targets.openai_agents import _run

    routes = target_module._ROUTES  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setitem(routes, "anthropic-bedrock", routes["bedrock-converse"])
    monkeypatch.setattr(_run._SESSION, "models", {})  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(AssertionError, match="/converse"):
        invoke_checks.reaches_invoke_model(target, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_without_boto3_the_invoke_row_says_what_to_install(
    target: OpenAIAgentsLiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_checks.says_what_to_install_without_boto3(
        target, ROWS[invoke_checks.INVOKE_ROW], target_module, "_installed", monkeypatch
    )


def test_invoke_repro_runs_and_prints_the_payload(
    target: OpenAIAgentsLiteLLMTarget, tmp_path: Path
) -> None:
    invoke_checks.repro_prints_the_invoke_payload(target, ROWS[invoke_checks.INVOKE_ROW], tmp_path)
