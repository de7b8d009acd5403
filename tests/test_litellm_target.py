"""The LiteLLM target: translation, storage, capture, URL downloads, the reproducer, a missing
install."""

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
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "litellm", reason='the litellm dependency group is not installed: nox -s "target(litellm)"'
)

import litellm

from conformance.targets import litellm as target_module
from conformance.targets.kit import fixture_host
from conformance.targets.litellm import (
    INSTALL_HINT,
    LiteLLMTarget,
    dump_messages,
    load_messages,
    to_messages,
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
