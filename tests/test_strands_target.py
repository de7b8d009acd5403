"""The Strands target: translation, storage, the agent's tool run, refusals, cells without a
Strands form, the reproducer, a missing install, the reasons and deviations files."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.running.applicable import declared_not_applicable
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, PROMPT, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "strands", reason='the strands dependency group is not installed: nox -s "target(strands)"'
)

from conformance.targets import strands as target_module
from conformance.targets.strands import (
    INSTALL_HINT,
    NoStrandsForm,
    StrandsTarget,
    dump_messages,
    load_messages,
    plan,
    to_messages,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


@pytest.fixture(scope="module")
def target() -> StrandsTarget:
    return StrandsTarget()


def test_entry_point_names_the_target(target: StrandsTarget) -> None:
    found = resolve_target("strands")
    assert isinstance(found, StrandsTarget)
    assert found.version[0].isdigit()
    assert found.unavailable is None
    assert target.refusal_types == (TypeError, ValueError)
    assert {"openai", "anthropic", "boto3"} <= set(target.sdk_versions)


def test_a_missing_install_is_unavailable_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    real = target_module.importlib.import_module

    def missing(name: str) -> Any:
        if name == "strands":
            raise ImportError("No module named 'strands'")
        return real(name)

    monkeypatch.setattr(target_module.importlib, "import_module", missing)
    absent = StrandsTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable
    assert absent.supports(ROWS["openai-chat/gpt-6"]) == absent.unavailable
    assert absent.refusal_types == ()


def test_rows_without_a_strands_provider_class_skip(target: StrandsTarget) -> None:
    reason = target.supports(next(r for r in ROWS.values() if r.api == "cohere"))
    assert reason is not None
    assert "no model provider class" in reason
    assert target.supports(ROWS["bedrock-converse/nova"]) is None
    # AnthropicModel builds the plain anthropic client from its client_args: no Vertex route
    vertex_claude = target.supports(ROWS["anthropic-vertex/claude-sonnet-5"])
    assert vertex_claude is not None
    assert "no model provider class" in vertex_claude


def test_url_media_and_tool_produced_content_have_no_strands_form(target: StrandsTarget) -> None:
    declared = declared_not_applicable(target)
    assert set(declared) == {"source:url", "style:prompt"}
    assert "no URL source" in declared["source:url"]
    assert "tool-produced" in declared["style:prompt"]
    with pytest.raises(NoStrandsForm, match="no URL"):
        to_messages(scenario("image", "url", "result"))


def test_history_becomes_strands_messages_with_tool_use_and_tool_result_blocks() -> None:
    user, assistant, results = to_messages(scenario("image", "inline", "result"))
    assert user == {"role": "user", "content": [{"text": PROMPT}]}
    assert [b["toolUse"]["toolUseId"] for b in assistant["content"]] == [CALL_ID, "call_2"]
    assert assistant["role"] == "assistant"
    assert results["role"] == "user"
    first = results["content"][0]["toolResult"]
    assert first["toolUseId"] == CALL_ID
    assert first["status"] == "success"
    (image,) = first["content"]
    assert image["image"]["format"] == "png"
    assert image["image"]["source"]["bytes"].startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("content_type", "key", "fmt"),
    [("document", "document", "pdf"), ("audio", "audio", "wav"), ("video", "video", "mp4")],
)
def test_each_media_kind_is_a_strands_content_block(content_type: str, key: str, fmt: str) -> None:
    results = to_messages(scenario(content_type, "inline", "result"))[2]  # type: ignore[arg-type]
    (part,) = results["content"][0]["toolResult"]["content"]
    assert part[key]["format"] == fmt
    assert isinstance(part[key]["source"]["bytes"], bytes)
    if key == "document":
        assert part[key]["name"] == "report"  # Bedrock allows no dot in a document name


def test_text_and_error_results_keep_the_exact_string_and_status() -> None:
    results = to_messages(scenario("text", "inline", "error"))[2]["content"]
    assert results[0]["toolResult"]["status"] == "error"
    assert results[0]["toolResult"]["content"] == [{"text": ERROR_FIXTURE}]
    assert results[1]["toolResult"]["status"] == "success"
    ok = to_messages(scenario("text", "inline", "result"))[2]["content"][0]["toolResult"]
    assert ok["content"] == [{"text": TEXT_FIXTURE}]


def test_tool_produced_content_joins_the_results_message_and_system_is_left_out() -> None:
    image = Image(media_type="image/png", data=b"x", identifier="x.png")
    history: History = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolCall(tool_call_id="b", name="two"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        ToolResult(tool_call_id="b", name="two", content=[Text(text="2")]),
        Message(role="user", content=[image], source={"tool_name": "one", "tool_call_id": "a"}),  # type: ignore[arg-type]
    ]
    messages = to_messages(history)
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [next(iter(b)) for b in messages[2]["content"]] == ["toolResult", "toolResult", "image"]
    assert plan(history) is None  # no tool produces user content: sent as stored messages


def test_plan_leaves_the_last_turn_to_the_tools() -> None:
    history = scenario("text", "inline", "error")
    found = plan(history)
    assert found is not None
    assert found.head == history[:3]
    assert found.results[CALL_ID] == {"status": "error", "content": [{"text": ERROR_FIXTURE}]}


def test_storage_round_trip_is_strands_session_format() -> None:
    messages = to_messages(scenario("document", "inline", "result"))
    stored = dump_messages(messages)
    data = json.loads(stored)
    assert data[2]["message"]["content"][0]["toolResult"]["content"][0]["document"]["source"][
        "bytes"
    ]["__bytes_encoded__"]
    assert load_messages(stored) == messages


def test_the_tools_run_and_the_payload_is_the_next_request(target: StrandsTarget) -> None:
    payload = target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    first, second = payload["messages"][2]["content"]
    assert first["type"] == "tool_result"
    assert [first["tool_use_id"], second["tool_use_id"]] == [CALL_ID, "call_2"]
    assert first["content"][0]["type"] == "image"
    assert first["is_error"] is False


def test_bedrock_is_signed_and_sent_to_the_recorder(target: StrandsTarget) -> None:
    row = ROWS["bedrock-converse/claude"]
    payload = target.render(row, scenario("text", "inline", "error"))
    assert payload["modelId"] == row.model
    result = payload["messages"][2]["content"][0]["toolResult"]
    assert result["toolUseId"] == CALL_ID
    assert result["content"] == [{"text": ERROR_FIXTURE}]
    assert result["status"] == "error"  # Strands sends the status to Claude models only


def test_openai_chat_moves_images_out_behind_a_note_naming_no_call(target: StrandsTarget) -> None:
    """What the deviations file says of OpenAI chat, observed: each tool message holds a fixed
    note, the images follow in user messages with no text naming their call."""
    payload = target.render(ROWS["openai-chat/gpt-6"], scenario("image", "inline", "result"))
    tools = [m for m in payload["messages"] if m["role"] == "tool"]
    assert [t["tool_call_id"] for t in tools] == [CALL_ID, "call_2"]
    assert "Tool successfully returned an image" in tools[0]["content"][0]["text"]
    users = [m for m in payload["messages"][3:] if m["role"] == "user"]
    assert [[p["type"] for p in u["content"]] for u in users] == [["image_url"], ["image_url"]]


def test_a_formatter_refusal_is_the_typeerror_strands_raised(target: StrandsTarget) -> None:
    with pytest.raises(TypeError, match="content_type=<audio>"):
        target.render(ROWS["gemini/gemini-3"], scenario("audio", "inline", "result"))


def test_render_stored_sends_what_render_sent(target: StrandsTarget) -> None:
    row = ROWS["bedrock-converse/nova"]
    history = scenario("document", "inline", "result")
    assert target.render_stored(row, history) == target.render(row, history)


def _imports(script: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names)


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: StrandsTarget, tmp_path: Path
) -> None:
    """mistral image inline result: Strands' Mistral model drops the image from the tool
    message (a declared deviation); the script shows it on its own, offline, in this venv."""
    row = ROWS["mistral/mistral-medium"]
    history = scenario("image", "inline", "result")
    script = target.repro(row, history)
    assert _imports(script) == {"strands"}
    path = tmp_path / "repro.py"
    path.write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == "POST /api/v1/chat/completions"
    printed = json.loads(body)
    assert printed == target.render(row, history)
    assert [m["content"] for m in printed["messages"] if m["role"] == "tool"] == ["", ""]


GEMINI_VERTEX = "gemini-vertex/gemini-3"


def test_gemini_on_vertex_reaches_the_vertex_path_of_its_model(
    target: StrandsTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`GeminiModel(client_args={"vertexai": True, "project", "location", "credentials"})`:
    `_get_client` passes them to `genai.Client`, whose Vertex mode sends the model's
    `/v1beta1/projects/.../publishers/google/models/...` path with the access token."""
    import vertex_checks

    payload = vertex_checks.reaches_vertex(target, ROWS[GEMINI_VERTEX], monkeypatch)
    assert payload["contents"][2]["parts"][0]["functionResponse"]["id"] == CALL_ID


def test_the_vertex_checks_fail_on_the_plain_gemini_client(
    target: StrandsTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant that builds the row's model as the `gemini` row does (an API key, no Vertex
    mode) fails the checks the target passes."""
    from dataclasses import replace

    import vertex_checks
    from conformance.targets.strands._models import MODELS

    row = ROWS[GEMINI_VERTEX]
    monkeypatch.setitem(MODELS, row.api, replace(MODELS[row.api], build=MODELS["gemini"].build))
    with pytest.raises(AssertionError):
        vertex_checks.reaches_vertex(target, row, monkeypatch)


def test_gemini_on_vertex_sends_what_the_developer_api_row_sends(target: StrandsTarget) -> None:
    """`GeminiModel` formats the request the same way for both clients (`_format_request`):
    only the client, and so the URL, differs."""
    history = scenario("document", "inline", "result")
    vertex = target.render(ROWS[GEMINI_VERTEX], history)
    assert vertex == target.render(ROWS["gemini/gemini-3"], history)


def test_the_gemini_vertex_repro_prints_the_payload(target: StrandsTarget, tmp_path: Path) -> None:
    import vertex_checks

    vertex_checks.repro_prints_the_payload(target, ROWS[GEMINI_VERTEX], tmp_path)
