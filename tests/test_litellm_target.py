"""The LiteLLM target: translation, storage, capture, URL downloads, the reproducer, a missing
install."""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "litellm", reason='the litellm dependency group is not installed: nox -s "target(litellm)"'
)

import litellm

import invoke_checks
from conformance.targets import kit
from conformance.targets import litellm as target_module
from conformance.targets.kit import Exchange, fixture_host
from conformance.targets.litellm import (
    INSTALL_HINT,
    LiteLLMTarget,
    dump_messages,
    load_messages,
    to_messages,
)
from conformance.targets.litellm._anthropic_format import (
    NoAnthropicForm,
    anthropic_tools,
    to_anthropic,
)
from conformance.targets.litellm._anthropic_messages import (
    CHAT_SWITCH,
    LiteLLMAnthropicMessagesTarget,
    dump_params,
    load_params,
)
from conformance.targets.litellm._responses import LiteLLMResponsesTarget
from conformance.targets.litellm._responses import dump_params as dump_responses
from conformance.targets.litellm._responses import load_params as load_responses
from conformance.targets.litellm._responses_format import (
    NoResponsesForm,
    responses_tools,
    to_responses,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


@pytest.fixture(scope="module")
def target() -> LiteLLMTarget:
    return LiteLLMTarget()


def test_entry_point_names_the_target(target: LiteLLMTarget) -> None:
    found = resolve_target("litellm")
    assert isinstance(found, LiteLLMTarget)
    assert found.name == "litellm"
    assert found.version[0].isdigit()
    assert found.unavailable is None
    assert "openai" in target.sdk_versions
    assert target.refusal_types == (litellm.exceptions.BadRequestError,)


def test_a_missing_install_is_unavailable_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise ImportError("No module named 'litellm'")

    monkeypatch.setattr(target_module, "import_litellm", missing)
    absent = LiteLLMTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable
    assert absent.supports(ROWS["openai-chat/gpt-6"]) == absent.unavailable
    assert absent.refusal_types == ()


def test_result_style_media_is_a_content_part_of_the_tool_message() -> None:
    user, assistant, tool, _second = to_messages(scenario("image", "inline", "result"))
    assert user == {"role": "user", "content": "Call the tool, then describe what it returned."}
    assert assistant["tool_calls"][0]["id"] == CALL_ID
    assert assistant["tool_calls"][0]["function"] == {"name": "get_image", "arguments": "{}"}
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == CALL_ID
    (part,) = tool["content"]
    assert part["type"] == "image_url"
    assert part["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


@pytest.mark.parametrize(
    ("content_type", "source", "kind"),
    [
        ("document", "inline", "file"),
        ("audio", "inline", "input_audio"),
        ("video", "inline", "file"),
        ("document", "url", "file"),
        ("audio", "url", "file"),
    ],
)
def test_each_media_kind_has_the_part_litellm_documents(
    content_type: str, source: str, kind: str
) -> None:
    tool = to_messages(scenario(content_type, source, "result"))[2]  # type: ignore[arg-type]
    (part,) = tool["content"]
    assert part["type"] == kind
    if kind == "input_audio":
        assert part["input_audio"]["format"] == "wav"
    elif source == "url":
        assert part["file"]["file_id"].endswith(".wav" if content_type == "audio" else ".pdf")
    else:
        assert part["file"]["file_data"].startswith("data:")


def test_text_result_is_the_exact_string() -> None:
    assert to_messages(scenario("text", "inline", "result"))[2]["content"] == TEXT_FIXTURE


def test_error_result_flags_the_message_where_litellm_declares_the_key() -> None:
    flagged = to_messages(scenario("text", "inline", "error"), error_flag=True)[2]
    assert flagged == {
        "role": "tool",
        "tool_call_id": CALL_ID,
        "content": ERROR_FIXTURE,
        "is_error": True,
    }
    assert "is_error" not in to_messages(scenario("text", "inline", "error"), error_flag=False)[2]


def test_parallel_calls_share_one_assistant_message_and_user_content_waits() -> None:
    image = Image(media_type="image/png", data=b"x", identifier="x.png")
    history: History = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolCall(tool_call_id="b", name="two"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        Message(role="user", content=[image], source={"tool_name": "one", "tool_call_id": "a"}),  # type: ignore[arg-type]
        ToolResult(tool_call_id="b", name="two", content=[Text(text="2")]),
        Message(role="assistant", content="done"),
    ]
    messages = to_messages(history)
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "user",
        "assistant",
    ]
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["a", "b"]
    assert [m["tool_call_id"] for m in messages[3:5]] == ["a", "b"]
    assert messages[5]["content"][0]["type"] == "image_url"


@pytest.mark.parametrize("style", ["result", "prompt", "error"])
def test_storage_round_trip_is_the_json_a_user_stores(style: str) -> None:
    messages = to_messages(scenario("audio", "inline", style))  # type: ignore[arg-type]
    stored = dump_messages(messages)
    assert json.loads(stored) == messages
    assert load_messages(stored) == messages


def test_payload_is_the_body_litellm_sent(target: LiteLLMTarget) -> None:
    payload = target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    result = payload["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == CALL_ID
    assert result["content"][0]["type"] == "image"


def test_bedrock_is_signed_and_sent_to_the_recorder(target: LiteLLMTarget) -> None:
    row = ROWS["bedrock-converse/nova"]
    payload = target.render(row, scenario("text", "inline", "result"))
    assert payload["modelId"] == row.model
    tool_result = payload["messages"][2]["content"][0]["toolResult"]
    assert tool_result["toolUseId"] == CALL_ID
    assert tool_result["content"] == [{"text": TEXT_FIXTURE}]


def test_openai_route_moves_media_out_of_the_tool_message(target: LiteLLMTarget) -> None:
    """What the deviations file says of the OpenAI route, observed: the tool message keeps a
    placeholder, the image follows in a user message led by a text naming no call."""
    payload = target.render(ROWS["openai-chat/gpt-6"], scenario("image", "inline", "result"))
    tool, _second, user = payload["messages"][2:]  # two parallel calls, then the media
    assert tool["role"] == "tool"
    assert isinstance(tool["content"], str)
    assert user["role"] == "user"
    lead, *images = user["content"]
    assert lead["type"] == "text"
    assert CALL_ID not in lead["text"]
    assert [image["type"] for image in images] == ["image_url", "image_url"]


def _served_locally(history: History) -> History:
    host = fixture_host()
    out: History = []
    for item in history:
        if isinstance(item, ToolResult):
            parts = [
                p.model_copy(update={"url": host.url(p.url.rsplit("/", 1)[1])})
                if not isinstance(p, Text) and p.url is not None
                else p
                for p in item.content
            ]
            item = item.model_copy(update={"content": parts})
        out.append(item)
    return out


def test_fixture_urls_are_downloaded_and_the_allowlist_restored(target: LiteLLMTarget) -> None:
    history = _served_locally(scenario("document", "url", "result"))
    before = litellm.user_url_allowed_hosts
    with fixture_host().watch() as fetches:
        payload = target.render(ROWS["bedrock-converse/claude"], history)
    assert sorted(f.path for f in fetches) == [
        "/conformance/report-2.pdf",
        "/conformance/report.pdf",
    ]
    block = payload["messages"][2]["content"][0]["toolResult"]["content"][0]
    assert block["document"]["format"] == "pdf"
    assert litellm.user_url_allowed_hosts == before


def test_repro_script_uses_only_litellm_and_the_stdlib(target: LiteLLMTarget) -> None:
    script = target.repro(ROWS["anthropic/claude-sonnet-5"], scenario("audio", "inline", "result"))
    imported: set[str] = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"litellm"}


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: LiteLLMTarget, tmp_path: Path
) -> None:
    """anthropic audio inline result: LiteLLM drops the audio (a declared deviation); the script
    shows it on its own, offline, in this venv."""
    row = ROWS["anthropic/claude-sonnet-5"]
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
    assert first == "POST /v1/messages"
    printed = json.loads(body)
    assert printed == target.render(row, history)
    assert printed["messages"][2]["content"][0]["content"] == []  # the audio is gone


def test_repro_serves_url_media_itself(target: LiteLLMTarget, tmp_path: Path) -> None:
    row = ROWS["bedrock-converse/nova"]
    script = target.repro(row, scenario("image", "url", "result"))
    assert "http://conformance.recording.media/conformance/chart.png" in script
    path = tmp_path / "repro.py"
    path.write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == "POST /model/amazon.nova-pro-v1%3A0/converse"
    block = json.loads(body)["messages"][2]["content"][0]["toolResult"]["content"][0]
    assert block["image"]["format"] == "png"


# --- the litellm.anthropic-messages variant: litellm.anthropic.messages.acreate ------------------


_LITELLM: Any = litellm


@pytest.fixture(scope="module")
def variant() -> LiteLLMAnthropicMessagesTarget:
    return LiteLLMAnthropicMessagesTarget()


def test_the_variant_is_an_entry_point_of_litellm(variant: LiteLLMAnthropicMessagesTarget) -> None:
    found = resolve_target("litellm.anthropic-messages")
    assert isinstance(found, LiteLLMAnthropicMessagesTarget)
    assert found.name == "litellm.anthropic-messages"
    assert found.variant_of == "litellm"
    assert found.version == LiteLLMTarget().version  # the framework's version
    assert found.unavailable is None
    assert variant.refusal_types == (litellm.exceptions.BadRequestError,)
    assert set(variant.not_applicable) == {"content:audio", "content:video"}


def test_a_litellm_without_the_interface_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(litellm, "anthropic", object())
    absent = LiteLLMAnthropicMessagesTarget()
    assert absent.unavailable is not None
    assert "litellm.anthropic.messages.acreate" in absent.unavailable


def test_the_history_is_anthropic_messages_params() -> None:
    system, messages = to_anthropic(scenario("image", "inline", "result"))
    assert system is None
    user, assistant, results = messages
    assert user == {"role": "user", "content": "Call the tool, then describe what it returned."}
    assert [b["type"] for b in assistant["content"]] == ["tool_use", "tool_use"]
    assert assistant["content"][0] == {
        "type": "tool_use",
        "id": CALL_ID,
        "name": "get_image",
        "input": {},
    }
    assert results["role"] == "user"
    first = results["content"][0]
    assert (first["type"], first["tool_use_id"]) == ("tool_result", CALL_ID)
    (image,) = first["content"]
    assert image["type"] == "image"
    assert image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert anthropic_tools(scenario("image", "inline", "result")) == [
        {
            "name": "get_image",
            "description": "The scenario's get_image tool.",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]


def test_text_errors_urls_and_tool_produced_content_in_the_anthropic_format() -> None:
    _, text = to_anthropic(scenario("text", "inline", "result"))
    assert text[2]["content"][0]["content"] == TEXT_FIXTURE  # the exact string
    _, error = to_anthropic(scenario("text", "inline", "error"))
    assert error[2]["content"][0]["is_error"] is True
    assert "is_error" not in error[2]["content"][1]
    _, url = to_anthropic(scenario("document", "url", "result"))
    document = url[2]["content"][0]["content"][0]
    assert document["type"] == "document"
    assert document["source"]["type"] == "url"
    assert document["title"] == "report.pdf"
    # Tool-produced content follows the turn's tool_result blocks in the same user message.
    _, prompt = to_anthropic(scenario("image", "inline", "prompt"))
    assert len(prompt) == 3
    assert [b["type"] for b in prompt[2]["content"]] == [
        "tool_result",
        "tool_result",
        "image",
        "image",
    ]


@pytest.mark.parametrize("content_type", ["audio", "video"])
def test_audio_and_video_have_no_anthropic_form(content_type: str) -> None:
    with pytest.raises(NoAnthropicForm, match=content_type):
        to_anthropic(scenario(content_type, "inline", "result"))  # type: ignore[arg-type]


def test_stored_params_are_the_json_a_user_stores() -> None:
    system, messages = to_anthropic(
        [Message(role="system", content="Be brief."), *scenario("image", "inline", "prompt")]
    )
    assert system == "Be brief."
    assert load_params(dump_params(system, messages)) == (system, messages)


class _Spied:
    """What an interface (`owner.name`, e.g. `litellm.anthropic.messages.acreate`) and
    `litellm.completion` were called with, and the path of each request the payload was taken
    from."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> None:
        self.calls: list[dict[str, Any]] = []
        self.completions: list[dict[str, Any]] = []
        self.paths: list[str] = []
        entry = getattr(owner, name)
        completion = litellm.completion
        payload_of = kit.payload_of

        async def entry_spy(**kwargs: Any) -> Any:
            self.calls.append(copy.deepcopy(kwargs))
            return await entry(**kwargs)

        def completion_spy(**kwargs: Any) -> Any:
            self.completions.append(kwargs)
            return completion(**kwargs)

        def payload_spy(api: str, exchange: Exchange) -> Any:
            self.paths.append(exchange.path)
            return payload_of(api, exchange)

        monkeypatch.setattr(owner, name, entry_spy)
        monkeypatch.setattr(litellm, "completion", completion_spy)
        monkeypatch.setattr(kit, "payload_of", payload_spy)


def _acreate_spied(monkeypatch: pytest.MonkeyPatch) -> _Spied:
    return _Spied(monkeypatch, _LITELLM.anthropic.messages, "acreate")  # not in LiteLLM's stubs


def _drives_the_interface(
    target: LiteLLMTarget, spied: _Spied, row: RowRef, history: History
) -> dict[str, Any]:
    """Render, then check it went through `litellm.anthropic.messages.acreate` with the
    history's Anthropic params and the row's route, never through `litellm.completion`."""
    payload = target.render(row, history)
    assert len(spied.calls) == 1, f"acreate was called {len(spied.calls)} times"
    (call,) = spied.calls
    assert (call["system"], call["messages"]) == to_anthropic(history)
    assert call["tools"] == anthropic_tools(history)
    assert call["max_tokens"] > 0
    assert not spied.completions, "litellm.completion was called"
    return payload


_PATHS = {
    "anthropic/claude-sonnet-5": "/v1/messages",
    "openai-chat/gpt-6": "/chat/completions",
    "openai-responses/gpt-6": "/responses",
    "gemini/gemini-3": "/models/gemini-3.8-flash:generateContent",
    "bedrock-converse/nova": "/model/amazon.nova-pro-v1%3A0/converse",
    "mistral/mistral-medium": "/chat/completions",
}


@pytest.mark.parametrize("row_id", sorted(_PATHS))
def test_the_variant_calls_the_interface_and_reaches_the_provider(
    variant: LiteLLMAnthropicMessagesTarget, monkeypatch: pytest.MonkeyPatch, row_id: str
) -> None:
    spied = _acreate_spied(monkeypatch)
    row = ROWS[row_id]
    before = getattr(litellm, CHAT_SWITCH)
    _drives_the_interface(variant, spied, row, scenario("image", "inline", "result"))
    assert spied.paths[0].endswith(_PATHS[row_id])
    model = spied.calls[0]["model"]
    assert model.endswith(row.model)
    assert not model.startswith("openai/responses/")
    assert getattr(litellm, CHAT_SWITCH) == before  # the switch is restored


def test_a_variant_that_calls_completion_instead_fails_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A mutant that sends the OpenAI-format messages with `litellm.completion` (what the base
    target does) is caught: the interface was never called."""

    class CompletionInDisguise(LiteLLMAnthropicMessagesTarget):
        def render(self, row: RowRef, history: History) -> Any:
            return LiteLLMTarget.render(self, row, history)

    spied = _acreate_spied(monkeypatch)
    with pytest.raises(AssertionError, match="acreate was called 0 times"):
        _drives_the_interface(
            CompletionInDisguise(),
            spied,
            ROWS["anthropic/claude-sonnet-5"],
            scenario("image", "inline", "result"),
        )
    assert spied.completions  # it did call litellm.completion


def test_the_payload_is_the_interfaces_not_completions(
    variant: LiteLLMAnthropicMessagesTarget, target: LiteLLMTarget
) -> None:
    """Where the two paths differ on the wire, the variant's payload is the interface's: for
    Anthropic a document URL stays a URL source (passed through; `completion` sends a
    Files-API id), for an `openai/` model the interface's own Responses translation moves tool
    images into a user message (`completion`'s bridge keeps them in the output)."""
    document = scenario("document", "url", "result")
    row = ROWS["anthropic/claude-sonnet-5"]
    sent = variant.render(row, document)["messages"][2]["content"][0]["content"][0]["source"]
    assert sent["type"] == "url"
    assert (
        target.render(row, document)["messages"][2]["content"][0]["content"][0]["source"]["type"]
        == "file"
    )
    image = scenario("image", "inline", "result")
    row = ROWS["openai-responses/gpt-6"]
    kinds = [(i["type"], i.get("role")) for i in variant.render(row, image)["input"]]
    assert kinds[-1] == ("message", "user")
    assert [(i["type"], i.get("role")) for i in target.render(row, image)["input"]][-1] == (
        "function_call_output",
        None,
    )


def test_a_document_in_a_tool_result_reaches_openai_as_an_image(
    variant: LiteLLMAnthropicMessagesTarget,
) -> None:
    """What the deviations say of documents in a tool_result (docs/litellm.md
    #am-documents-as-images), observed: the PDF travels in an `image_url` part."""
    payload = variant.render(ROWS["openai-chat/gpt-6"], scenario("document", "inline", "result"))
    user = payload["messages"][-1]
    assert user["role"] == "user"
    parts = [p for p in user["content"] if p["type"] != "text"]
    assert [p["type"] for p in parts] == ["image_url", "image_url"]
    assert parts[0]["image_url"]["url"].startswith("data:application/pdf;base64,")


def test_variant_repro_runs_and_prints_the_payload(
    variant: LiteLLMAnthropicMessagesTarget, tmp_path: Path
) -> None:
    """The Responses row (its images moved to a user message, a declared deviation), shown by
    a script that needs litellm alone and calls the interface."""
    row = ROWS["openai-responses/gpt-6"]
    history = scenario("image", "inline", "result")
    script = variant.repro(row, history)
    assert "litellm.anthropic.messages.acreate(" in script
    assert "litellm.completion(" not in script
    imported: set[str] = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
    assert imported - set(sys.stdlib_module_names) == {"litellm"}
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
    assert first == "POST /responses"
    assert json.loads(body) == variant.render(row, history)


# --- the litellm.responses variant: litellm.aresponses ------------------------------------------


@pytest.fixture(scope="module")
def responses() -> LiteLLMResponsesTarget:
    return LiteLLMResponsesTarget()


def test_the_responses_variant_is_an_entry_point_of_litellm(
    responses: LiteLLMResponsesTarget,
) -> None:
    found = resolve_target("litellm.responses")
    assert isinstance(found, LiteLLMResponsesTarget)
    assert found.variant_of == "litellm"
    assert found.version == LiteLLMTarget().version
    assert found.unavailable is None
    assert responses.refusal_types == (litellm.exceptions.BadRequestError,)
    assert set(responses.not_applicable) == {"content:audio", "content:video"}
    assert "xAI's own Responses api" in (responses.supports(ROWS["xai/grok-4"]) or "")
    assert responses.supports(ROWS["gemini/gemini-3"]) is None


def test_the_history_is_responses_input() -> None:
    instructions, items = to_responses(
        [Message(role="system", content="Be brief."), *scenario("image", "inline", "prompt")]
    )
    assert instructions == "Be brief."
    assert [i["type"] for i in items] == [
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
        "message",
    ]
    assert items[1] == {
        "type": "function_call",
        "call_id": CALL_ID,
        "name": "get_image",
        "arguments": "{}",
    }
    assert items[5]["role"] == "user"
    assert items[5]["content"][0]["type"] == "input_image"
    _, result = to_responses(scenario("image", "inline", "result"))
    (image,) = result[3]["output"]
    assert image["type"] == "input_image"
    assert image["image_url"].startswith("data:image/png;base64,")
    _, text = to_responses(scenario("text", "inline", "result"))
    assert text[3]["output"] == TEXT_FIXTURE
    _, url = to_responses(scenario("document", "url", "result"))
    assert url[3]["output"][0]["type"] == "input_file"
    assert url[3]["output"][0]["file_url"].endswith("/report.pdf")
    assert responses_tools(scenario("text", "inline", "result"))[0]["type"] == "function"
    assert load_responses(dump_responses(instructions, items)) == (instructions, items)
    with pytest.raises(NoResponsesForm, match="audio"):
        to_responses(scenario("audio", "inline", "result"))


def _calls_aresponses(
    target: LiteLLMTarget, spied: _Spied, row: RowRef, history: History
) -> dict[str, Any]:
    """Render, then check it went through `litellm.aresponses` with the history's Responses
    params, never through `litellm.completion`."""
    payload = target.render(row, history)
    assert len(spied.calls) == 1, f"aresponses was called {len(spied.calls)} times"
    (call,) = spied.calls
    assert (call["instructions"], call["input"]) == to_responses(history)
    assert call["tools"] == responses_tools(history)
    assert not spied.completions, "litellm.completion was called"
    return payload


_RESPONSES_PATHS = {
    "anthropic/claude-sonnet-5": "/v1/messages",
    "openai-chat/gpt-6": "/chat/completions",
    "openai-responses/gpt-6": "/responses",
    "bedrock-converse/nova": "/model/amazon.nova-pro-v1%3A0/converse",
}


@pytest.mark.parametrize("row_id", sorted(_RESPONSES_PATHS))
def test_the_responses_variant_calls_aresponses_and_reaches_the_provider(
    responses: LiteLLMResponsesTarget, monkeypatch: pytest.MonkeyPatch, row_id: str
) -> None:
    spied = _Spied(monkeypatch, litellm, "aresponses")
    _calls_aresponses(responses, spied, ROWS[row_id], scenario("image", "inline", "result"))
    assert spied.paths[0].endswith(_RESPONSES_PATHS[row_id])
    assert spied.calls[0].get("use_chat_completions_api", False) is (row_id == "openai-chat/gpt-6")


def test_a_responses_variant_that_calls_completion_instead_fails_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class CompletionInDisguise(LiteLLMResponsesTarget):
        def render(self, row: RowRef, history: History) -> Any:
            return LiteLLMTarget.render(self, row, history)

    spied = _Spied(monkeypatch, litellm, "aresponses")
    with pytest.raises(AssertionError, match="aresponses was called 0 times"):
        _calls_aresponses(
            CompletionInDisguise(),
            spied,
            ROWS["gemini/gemini-3"],
            scenario("image", "inline", "result"),
        )
    assert spied.completions


def test_a_document_url_stays_a_url_through_the_responses_variant(
    responses: LiteLLMResponsesTarget, target: LiteLLMTarget
) -> None:
    """Where the paths differ on the wire: `input_file.file_url` reaches Anthropic as a URL
    source (docs/litellm.md#rs-file-url); `completion` with LiteLLM's `file_id` and `format`
    sends a Files-API id."""
    document = scenario("document", "url", "result")
    row = ROWS["anthropic/claude-sonnet-5"]
    blocks = responses.render(row, document)["messages"][2]["content"][0]["content"]
    assert blocks[0]["source"]["type"] == "url"
    sent = target.render(row, document)["messages"][2]["content"][0]["content"][0]["source"]
    assert sent["type"] == "file"


def test_responses_repro_runs_and_prints_the_payload(
    responses: LiteLLMResponsesTarget, tmp_path: Path
) -> None:
    row = ROWS["anthropic/claude-sonnet-5"]
    history = scenario("text", "inline", "error")  # no error flag in the format: a deviation
    script = responses.repro(row, history)
    assert "litellm.aresponses(" in script
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
    assert first == "POST /v1/messages"
    printed = json.loads(body)
    assert printed == responses.render(row, history)
    assert "is_error" not in printed["messages"][2]["content"][0]


@pytest.mark.parametrize("name", ["litellm", "litellm.anthropic-messages", "litellm.responses"])
def test_a_url_rendered_before_is_fetched_again(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """LiteLLM keeps downloaded URL media for the process, so a URL an earlier render fetched
    would not be fetched again (the fixture host sees nothing) and a cell would be judged by
    what ran before it. Every render has download caches of its own
    (`kit.litellm_fresh_downloads`), and the process's are put back after; without them the
    second render fetches nothing."""
    from conformance.targets import recipes

    downloads: Any = importlib.import_module(
        "litellm.litellm_core_utils.prompt_templates.image_handling"
    )
    found = resolve_target(name)
    history = _served_locally(scenario("image", "url", "result"))
    row = ROWS["gemini/gemini-3"]  # LiteLLM downloads tool images for Gemini
    found.render(row, history)
    cache = downloads.in_memory_cache
    with fixture_host().watch() as fetches:
        found.render(row, history)
    assert sorted(f.path for f in fetches) == [
        "/conformance/chart-2.png",
        "/conformance/chart.png",
    ]
    assert downloads.in_memory_cache is cache  # the process's cache is back
    with recipes.litellm_fresh_downloads():
        assert downloads.in_memory_cache is not cache
    monkeypatch.setattr(recipes, "litellm_fresh_downloads", contextlib.nullcontext)
    found.render(row, history)
    with fixture_host().watch() as fetches:
        found.render(row, history)
    assert not fetches  # served from the process's cache: what the fresh caches prevent


# --- Vertex AI: `vertex_ai/<model>` with a service account key kept on 127.0.0.1 ---------------

_VERTEX_PATHS = {
    "anthropic-vertex/claude-sonnet-5": (
        "/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-5-5:rawPredict"
    ),
    "gemini-vertex/gemini-3": (
        "/v1/projects/conformance-project/locations/us-central1/publishers/google/models/"
        "gemini-3.8-flash:generateContent"
    ),
}


def _entry_points() -> list[LiteLLMTarget]:
    return [LiteLLMTarget(), LiteLLMAnthropicMessagesTarget(), LiteLLMResponsesTarget()]


@pytest.mark.parametrize("entry", _entry_points(), ids=lambda t: t.name)
@pytest.mark.parametrize("row_id", sorted(_VERTEX_PATHS))
def test_vertex_rows_reach_the_vertex_endpoint_of_their_model(
    entry: LiteLLMTarget, row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each entry point sends a Vertex row to the path AnthropicVertex and google-genai use (the
    double's routes, the locators' apis), with the stand-in token google-auth got from the
    local token server, and nothing else reaches the recorder (the token exchange does not);
    the Claude body has no `model` and an `anthropic_version`, as the Vertex page says."""
    from conformance.targets.gcp_credentials import TOKEN

    seen: list[Exchange] = []
    payload_of = kit.payload_of

    def keep(api: str, exchange: Exchange) -> Any:
        seen.append(exchange)
        return payload_of(api, exchange)

    monkeypatch.setattr(kit, "payload_of", keep)
    row = ROWS[row_id]
    assert entry.supports(row) is None
    payload = entry.render(row, scenario("image", "inline", "result"))
    assert [e.path.split("?")[0] for e in seen] == [_VERTEX_PATHS[row_id]]
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"
    if row.api == "anthropic-vertex":
        assert "model" not in payload
        assert payload["anthropic_version"] == "vertex-2023-10-16"
    else:
        assert "contents" in payload


def test_the_vertex_credentials_are_a_service_account_key_exchanged_locally() -> None:
    """The key LiteLLM loads names a token endpoint on 127.0.0.1 (google-auth exchanges its
    signed JWT there), never Google's; the route passes it as `vertex_credentials`."""
    from conformance.targets.litellm._routes import ROUTES

    for api in ("anthropic-vertex", "gemini-vertex"):
        row = next(r for r in ROWS.values() if r.api == api)
        kwargs = ROUTES[api](row, "http://base")
        key = json.loads(kwargs["vertex_credentials"])
        assert key["type"] == "service_account"
        assert key["token_uri"].startswith("http://127.0.0.1:")
        assert "googleapis" not in kwargs["vertex_credentials"]
        assert kwargs["model"] == f"vertex_ai/{row.model}"
        assert kwargs["api_base"].startswith("http://base/v1/projects/conformance-project/")


def test_without_google_auth_the_vertex_rows_say_what_to_install(
    target: LiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    real = metadata.version

    def version(name: str) -> str:
        if name == "google-auth":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    reason = target.supports(ROWS["gemini-vertex/gemini-3"])
    assert reason is not None
    assert "pip install 'google-auth[requests]'" in reason
    assert target.supports(ROWS["gemini/gemini-3"]) is None


@pytest.mark.parametrize("entry", _entry_points(), ids=lambda t: t.name)
def test_vertex_repro_runs_and_prints_the_payload(entry: LiteLLMTarget, tmp_path: Path) -> None:
    """The reproducer makes its own key and token server (the key is never in the script) and
    prints what the entry point sent to the model's Vertex path."""
    from vertex_checks import run_vertex_repro

    row = ROWS["anthropic-vertex/claude-sonnet-5"]
    history = scenario("document", "inline", "result")
    first, _, body = run_vertex_repro(entry, row, tmp_path).partition("\n")
    assert first == f"POST {_VERTEX_PATHS[row.id]}"
    assert json.loads(body) == entry.render(row, history)


# --- Claude through Bedrock InvokeModel: `bedrock/invoke/<model id>` ----------------------------


@pytest.mark.parametrize("entry", _entry_points(), ids=lambda t: t.name)
def test_the_invoke_row_reaches_invoke_model_with_claudes_messages_body(
    entry: LiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each entry point sends the anthropic-bedrock row through `bedrock/invoke/`: the double's
    InvokeModel route, never Converse's."""
    invoke_checks.reaches_invoke_model(entry, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


@pytest.mark.parametrize("entry", _entry_points(), ids=lambda t: t.name)
def test_the_invoke_row_through_the_converse_route_fails_the_check(
    entry: LiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mutant that routes the row as `bedrock-converse` rows go (`bedrock/converse/<id>`) is
    caught: its request reaches `/converse` with a Converse body. (The variants' route tables
    are copies of the target's, so each is given the mutant.)"""
    from conformance.targets.litellm import _anthropic_messages, _responses, _routes

    converse = _routes.ROUTES["bedrock-converse"]
    for routes in (_routes.ROUTES, _anthropic_messages.ROUTE_OF, _responses.ROUTE_OF):
        monkeypatch.setitem(routes, "anthropic-bedrock", converse)
    with pytest.raises(AssertionError, match="/converse"):
        invoke_checks.reaches_invoke_model(entry, ROWS[invoke_checks.INVOKE_ROW], monkeypatch)


def test_the_invoke_route_signs_with_the_doubles_fake_keys() -> None:
    from conformance.recording.send import FAKE_KEYS
    from conformance.targets.litellm._routes import ROUTES

    row = ROWS[invoke_checks.INVOKE_ROW]
    kwargs = ROUTES["anthropic-bedrock"](row, "http://base")
    assert kwargs["model"] == f"bedrock/invoke/{row.model}"
    assert kwargs["aws_access_key_id"] == FAKE_KEYS["aws_access_key_id"]
    assert kwargs["aws_secret_access_key"] == FAKE_KEYS["aws_secret_access_key"]
    assert kwargs["aws_bedrock_runtime_endpoint"] == "http://base"


def test_without_boto3_the_invoke_row_says_what_to_install(
    target: LiteLLMTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_checks.says_what_to_install_without_boto3(
        target, ROWS[invoke_checks.INVOKE_ROW], target_module, "_installed", monkeypatch
    )


@pytest.mark.parametrize("entry", _entry_points(), ids=lambda t: t.name)
def test_invoke_repro_runs_and_prints_the_payload(entry: LiteLLMTarget, tmp_path: Path) -> None:
    """The reproducer aims the invoke route's runtime endpoint at its own recorder and prints
    what the entry point sent to the model's `/invoke` path."""
    invoke_checks.repro_prints_the_invoke_payload(entry, ROWS[invoke_checks.INVOKE_ROW], tmp_path)
