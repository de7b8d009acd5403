"""The llamaindex target: translation into ChatMessages with content blocks, storage round
trip, capture through the llama-index-llms integrations, typed refusals, rows an integration
cannot serve, and the standalone reproducer."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import invoke_checks
from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.recording.send import FAKE_KEYS
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "llama_index.core",
    reason="LlamaIndex is not installed: pip install llama-index-core llama-index-llms-openai "
    '... (the `llamaindex` dependency group), or nox -s "target(llamaindex)"',
)

from llama_index.core.base.llms.types import (
    AudioBlock,
    ChatMessage,
    DocumentBlock,
    ImageBlock,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)

from conformance.targets import llamaindex
from conformance.targets.llamaindex import (
    LlamaIndexTarget,
    dump_messages,
    load_messages,
    to_messages,
)
from conformance.targets.llamaindex._models import (
    AWS_EXAMPLE_KEYS,
    BEDROCK_BASE_ENV,
    MODELS,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


def test_entry_point_names_the_target_its_versions_refusals_and_na() -> None:
    target = resolve_target("llamaindex")
    assert isinstance(target, LlamaIndexTarget)
    assert target.unavailable is None
    assert target.version[0].isdigit()
    assert target.sdk_versions["llama-index-core"] == target.version
    assert {"llama-index-llms-openai", "openai", "llama-index-llms-bedrock-converse", "boto3"} <= (
        set(target.sdk_versions)
    )
    assert target.refusal_types == (ValueError,)
    assert set(target.not_applicable) >= {"style:prompt"}


def test_rows_are_served_or_skipped_with_the_integrations_reason() -> None:
    target = LlamaIndexTarget()
    reasons = {row.id: target.supports(row) for row in ROWS.values()}
    assert reasons["openai-chat/gpt-6"] is None
    assert reasons["anthropic/claude-sonnet-5"] is None
    assert reasons["bedrock-converse/nova"] is None
    assert reasons["cohere/command-a"] is None
    # mistralai_modelname_to_contextsize knows no such model: every request would fail alike
    assert "refuses the model: Unknown model: mistral-medium-3.5" in (
        reasons["mistral/mistral-medium"] or ""
    )
    assert "no integration for api 'xai'" in (reasons["xai/grok-4"] or "")
    # anthropic_modelname_to_contextsize knows Bedrock ids with `us.`/`eu.` only, none `global.`
    assert "refuses the model: Unknown model: global.anthropic.claude-opus-4-6-v1" in (
        reasons[invoke_checks.INVOKE_ROW] or ""
    )


INVOKE_MODEL = "us.anthropic.claude-opus-4-7"
"""A Bedrock id llama-index-llms-anthropic 0.12 knows (`us.` + `BEDROCK_INFERENCE_PROFILE_CLAUDE_
MODELS`) and sends no `temperature` for (`ANTHROPIC_NO_TEMP_MODELS`): the route of the
anthropic-bedrock row, with a model it can send at all."""


def _invoke_row(model: str = INVOKE_MODEL) -> RowRef:
    return RowRef(id=f"anthropic-bedrock/{model}", api="anthropic-bedrock", family="x", model=model)


@pytest.fixture
def fresh_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """No LLM built by an earlier test on this thread is reused."""
    monkeypatch.setattr(llamaindex._MODELS, "built", {})  # pyright: ignore[reportPrivateUsage]


@pytest.mark.usefixtures("fresh_models")
def test_anthropic_bedrock_reaches_invoke_model_signed_with_the_messages_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`Anthropic(aws_region=...)` is anthropic's `AnthropicBedrock`: the model's `/invoke`
    path, SigV4 with the fake AWS key, `anthropic_version` in the body and no `model`."""
    monkeypatch.setenv(BEDROCK_BASE_ENV, "http://127.0.0.1:9/a-base-of-the-user")
    invoke_checks.reaches_invoke_model(
        LlamaIndexTarget(), _invoke_row(), monkeypatch, invoke_checks.invoke_path(INVOKE_MODEL)
    )
    # the recorder's base was set only while the client was built
    assert os.environ[BEDROCK_BASE_ENV] == "http://127.0.0.1:9/a-base-of-the-user"


@pytest.mark.usefixtures("fresh_models")
@pytest.mark.parametrize("wrong", ["anthropic", "bedrock-converse"])
def test_the_invoke_checks_fail_on_another_route(
    wrong: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Anthropic api's own client (`/v1/messages`, the model in the body) or Converse, built
    for the anthropic-bedrock row, fails the checks the target passes."""
    spec = replace(MODELS["anthropic-bedrock"], build=MODELS[wrong].build)
    monkeypatch.setitem(MODELS, "anthropic-bedrock", spec)
    payload, exchange = invoke_checks.invoke_exchange(
        LlamaIndexTarget(), _invoke_row(), monkeypatch
    )
    with pytest.raises(AssertionError):
        invoke_checks.assert_invoke_model(
            payload, exchange, invoke_checks.invoke_path(INVOKE_MODEL)
        )


@pytest.mark.usefixtures("fresh_models")
def test_anthropic_bedrock_sends_temperature_to_a_model_it_knows_for_sampling() -> None:
    """Opus 4.6 under an id the integration knows is not in `ANTHROPIC_NO_TEMP_MODELS`, so
    `_model_kwargs` passes `temperature`, a keyword anthropic 1's `Messages.create` no longer
    has: a TypeError before anything is sent (Arize-ai/openinference#3672)."""
    from anthropic.resources.messages import Messages

    if "temperature" in inspect.signature(Messages.create).parameters:
        pytest.skip("this anthropic SDK still takes temperature")
    with pytest.raises(TypeError, match="unexpected keyword argument 'temperature'"):
        LlamaIndexTarget().render(
            _invoke_row("us.anthropic.claude-opus-4-6-v1:0"), scenario("text", "inline", "result")
        )


def test_anthropic_bedrock_repro_prints_the_invoke_payload(tmp_path: Path) -> None:
    invoke_checks.repro_prints_the_invoke_payload(
        LlamaIndexTarget(), _invoke_row(), tmp_path, invoke_checks.invoke_path(INVOKE_MODEL)
    )


def test_the_bedrock_keys_are_the_recording_layers_fake_aws_keys() -> None:
    assert (FAKE_KEYS["aws_access_key_id"], FAKE_KEYS["aws_secret_access_key"]) == (
        AWS_EXAMPLE_KEYS
    )


def test_result_style_media_is_a_block_of_a_tool_message() -> None:
    user, turn, result, second = to_messages(scenario("image", "inline", "result"))
    assert (user.role, turn.role, result.role) == (
        MessageRole.USER,
        MessageRole.ASSISTANT,
        MessageRole.TOOL,
    )
    assert [(b.tool_name, b.tool_call_id) for b in turn.blocks] == [
        ("get_image", CALL_ID),
        ("get_image", "call_2"),
    ]
    assert all(isinstance(b, ToolCallBlock) and b.tool_kwargs == {} for b in turn.blocks)
    assert result.additional_kwargs == {"tool_call_id": CALL_ID}
    assert second.additional_kwargs == {"tool_call_id": "call_2"}
    (block,) = result.blocks
    assert isinstance(block, ImageBlock)
    assert block.image_mimetype == "image/png"
    assert isinstance(block.image, bytes)
    assert block.image.startswith(b"iVBORw0KGgo")  # the PNG signature, base64


def test_documents_audio_and_urls_keep_their_kind_and_source() -> None:
    (document,) = to_messages(scenario("document", "url", "result"))[2].blocks
    assert isinstance(document, DocumentBlock)
    assert (document.document_mimetype, document.title) == ("application/pdf", "report.pdf")
    assert str(document.url).endswith("/conformance/report.pdf")
    assert document.data is None
    (audio,) = to_messages(scenario("audio", "inline", "result"))[2].blocks
    assert isinstance(audio, AudioBlock)
    assert audio.format == "wav"


def test_text_and_error_results_are_one_text_block() -> None:
    (text,) = to_messages(scenario("text", "inline", "result"))[2].blocks
    assert isinstance(text, TextBlock)
    assert text.text == TEXT_FIXTURE
    error = to_messages(scenario("text", "inline", "error"))[2]
    assert error.content == ERROR_FIXTURE
    assert error.additional_kwargs == {"tool_call_id": CALL_ID}  # as FunctionAgent writes it


def test_parallel_calls_are_one_assistant_message_and_a_tool_message_each() -> None:
    history: History = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolCall(tool_call_id="b", name="two"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        ToolResult(
            tool_call_id="b",
            name="two",
            content=[Text(text="2"), Image(media_type="image/png", data=b"x", identifier="x")],
        ),
        Message(role="assistant", content="done"),
    ]
    messages = to_messages(history)
    assert [m.role.value for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
    assert [b.tool_call_id for b in messages[2].blocks] == ["a", "b"]
    assert [m.additional_kwargs["tool_call_id"] for m in messages[3:5]] == ["a", "b"]
    assert isinstance(messages[4].blocks[1], ImageBlock)


@pytest.mark.parametrize("style", ["result", "error"])
def test_storage_round_trip_keeps_every_message(style: str) -> None:
    messages = to_messages(scenario("image", "inline", style))  # type: ignore[arg-type]
    again = load_messages(dump_messages(messages))
    assert all(isinstance(m, ChatMessage) for m in again)
    assert dump_messages(again) == dump_messages(messages)


def test_payload_is_the_body_the_integration_sent() -> None:
    payload = LlamaIndexTarget().render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    assert [t["name"] for t in payload["tools"]] == ["get_image"]
    result, _second = payload["messages"][2]["content"]  # two parallel calls
    assert (result["type"], result["tool_use_id"]) == ("tool_result", CALL_ID)
    assert result["content"][0]["type"] == "image"
    assert result["content"][0]["source"]["type"] == "base64"


VERTEX_ROWS = ("anthropic-vertex/claude-sonnet-5", "gemini-vertex/gemini-3")


@pytest.mark.usefixtures("fresh_models")
@pytest.mark.parametrize("row_id", VERTEX_ROWS)
def test_vertex_rows_reach_the_vertex_path_of_their_model(
    row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Anthropic(project_id=..., region=...)` (anthropic's `AnthropicVertex`) and
    `GoogleGenAI(vertexai_config=...)` reach the model's Vertex path with the stand-in token
    (Claude's from the local token server), Claude's body without `model` and with its
    `anthropic_version`; what the target put in the environment is gone after."""
    import os

    import vertex_checks

    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.delenv("ANTHROPIC_VERTEX_BASE_URL", raising=False)
    vertex_checks.reaches_vertex(LlamaIndexTarget(), ROWS[row_id], monkeypatch)
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in os.environ
    assert "ANTHROPIC_VERTEX_BASE_URL" not in os.environ


@pytest.mark.usefixtures("fresh_models")
@pytest.mark.parametrize(
    ("row_id", "plain"), [(VERTEX_ROWS[0], "anthropic"), (VERTEX_ROWS[1], "gemini")]
)
def test_the_vertex_checks_fail_on_the_plain_client(
    row_id: str, plain: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant target that builds the row's LLM as the provider's own api does (`Anthropic`
    with `base_url`, `GoogleGenAI` with an API key) fails the checks the target passes."""
    from dataclasses import replace

    import vertex_checks
    from conformance.targets.llamaindex._models import MODELS

    row = ROWS[row_id]
    monkeypatch.setitem(MODELS, row.api, replace(MODELS[row.api], build=MODELS[plain].build))
    with pytest.raises(AssertionError):
        vertex_checks.reaches_vertex(LlamaIndexTarget(), row, monkeypatch)


@pytest.mark.usefixtures("fresh_models")
def test_claude_on_vertex_is_the_anthropic_body_less_the_model() -> None:
    """The integration maps the messages as for the Anthropic api (`messages_to_anthropic_
    messages`, no `is_error` on a failed call); `AnthropicVertex` moves the model to the URL and
    adds `anthropic_version` (anthropic's `lib/vertex/_client.py`, `_prepare_options`)."""
    target, history = LlamaIndexTarget(), scenario("text", "inline", "error")
    row = ROWS["anthropic-vertex/claude-sonnet-5"]
    vertex = target.render(row, history)
    anthropic = target.render(ROWS["anthropic/claude-sonnet-5"], history)
    assert vertex.pop("anthropic_version") == "vertex-2023-10-16"
    assert anthropic.pop("model") == row.model
    assert vertex == anthropic
    result, _second = vertex["messages"][2]["content"]  # two parallel calls
    assert result["content"] == [{"type": "text", "text": ERROR_FIXTURE}]
    assert "is_error" not in result


@pytest.mark.usefixtures("fresh_models")
def test_gemini_on_vertex_throws_a_document_away_as_the_developer_api_does() -> None:
    """`chat_message_to_gemini` is the same for both clients: a tool message's document is
    converted and then left out of the function response (docs/llamaindex.md)."""
    target, history = LlamaIndexTarget(), scenario("document", "inline", "result")
    vertex = target.render(ROWS["gemini-vertex/gemini-3"], history)
    assert vertex["contents"] == target.render(ROWS["gemini/gemini-3"], history)["contents"]
    response = vertex["contents"][2]["parts"][0]["functionResponse"]
    assert response["response"] == {"result": None}
    assert "parts" not in response


@pytest.mark.parametrize("row_id", VERTEX_ROWS)
def test_the_vertex_repro_prints_the_payload(row_id: str, tmp_path: Path) -> None:
    import vertex_checks

    vertex_checks.repro_prints_the_payload(LlamaIndexTarget(), ROWS[row_id], tmp_path)


def test_openai_chat_keeps_only_the_text_of_a_tool_message() -> None:
    """`to_openai_message_dict` sends a tool message's text blocks only: the image is gone."""
    payload = LlamaIndexTarget().render(
        ROWS["openai-chat/gpt-6"], scenario("image", "inline", "result")
    )
    tool = payload["messages"][2]
    assert tool == {"role": "tool", "content": "", "tool_call_id": CALL_ID}


def test_bedrock_payload_names_the_model_and_sends_no_error_status() -> None:
    payload = LlamaIndexTarget().render(
        ROWS["bedrock-converse/nova"], scenario("text", "inline", "error")
    )
    assert payload["modelId"] == "amazon.nova-pro-v1:0"
    tool_result = payload["messages"][2]["content"][0]["toolResult"]
    assert tool_result["content"] == [{"text": ERROR_FIXTURE}]
    assert "status" not in tool_result  # read from additional_kwargs["status"], never written


def test_a_refusal_is_a_value_error_before_sending() -> None:
    with pytest.raises(ValueError, match="AudioBlock"):
        LlamaIndexTarget().render(
            ROWS["openai-responses/gpt-6"], scenario("audio", "inline", "result")
        )


def test_stored_rendering_is_byte_identical() -> None:
    target = LlamaIndexTarget()
    row, history = ROWS["gemini/gemini-3"], scenario("image", "inline", "result")
    assert json.dumps(target.render_stored(row, history)) == json.dumps(target.render(row, history))


def test_cohere_reads_its_own_tool_calls_and_loses_them_in_storage() -> None:
    target = LlamaIndexTarget()
    row, history = ROWS["cohere/command-a"], scenario("text", "inline", "result")
    payload = target.render(row, history)
    assert payload["tool_results"][0]["call"] == {"name": "get_text", "parameters": {}}
    with pytest.raises(AttributeError):
        target.render_stored(row, history)


def _repro(row: str, content_type: str, source: str, style: str) -> tuple[str, str]:
    history = scenario(content_type, source, style)  # type: ignore[arg-type]
    script = LlamaIndexTarget().repro(ROWS[row], history)
    run = subprocess.run(
        [sys.executable, "-I", "-c", script],  # -I: no cwd on the path, so no suite import
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return script, run.stdout


def test_repro_of_a_failing_cell_runs_standalone_and_prints_the_payload() -> None:
    """OpenAI chat drops a tool image (a `dropped` cell): the script shows the request."""
    script, out = _repro("openai-chat/gpt-6", "image", "inline", "result")
    assert "conformance" not in script.replace("conformance/", "")
    path, _, body = out.partition("\n")
    assert path == "POST /api/v1/chat/completions"
    payload: dict[str, Any] = json.loads(body)
    assert payload["model"] == "gpt-6-luna"
    assert payload["messages"][2] == {"role": "tool", "content": "", "tool_call_id": CALL_ID}


def test_repro_serves_url_media_itself_and_reports_a_refusal() -> None:
    _, out = _repro("anthropic/claude-sonnet-5", "image", "url", "result")
    body = json.loads(out.partition("\n")[2])
    assert body["messages"][2]["content"][0]["content"][0]["type"] == "image"
    _, out = _repro("openai-responses/gpt-6", "audio", "inline", "result")
    assert out.startswith("nothing sent; raised ValueError: Unsupported content block type")


def test_a_url_off_the_loopback_is_never_resolved() -> None:
    history: History = [
        Message(role="user", content="Describe it."),
        ToolCall(tool_call_id=CALL_ID, name="get_image"),
        ToolResult(
            tool_call_id=CALL_ID,
            name="get_image",
            content=[
                Image(
                    media_type="image/png",
                    url="https://example.com/conformance/chart.png",
                    identifier="chart.png",
                )
            ],
        ),
    ]
    with pytest.raises(Exception, match="resolves loopback hosts only"):
        LlamaIndexTarget().render(ROWS["gemini/gemini-2.5"], history)


def test_the_results_record_llamaindex_and_its_sdk_versions(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    run = pytester.runpytest(
        "-k", "llamaindex:anthropic/claude-sonnet-5/image/inline/result:outcome",
        "--conformance-target", "llamaindex", "--conformance-results", "r.jsonl",
    )  # fmt: skip
    run.assert_outcomes(passed=1)
    lines = [json.loads(x) for x in (pytester.path / "r.jsonl").read_text("utf-8").splitlines()]
    target = LlamaIndexTarget()
    assert lines[0]["targets"] == {"llamaindex": target.version}
    assert lines[0]["sdk_versions"] == {"llamaindex": target.sdk_versions}
    assert lines[1]["outcome"] == "native"
