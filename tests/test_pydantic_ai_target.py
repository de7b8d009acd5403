"""The pydantic-ai target: translation, storage round trip, capture, and a missing install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip("pydantic_ai", reason="the pydantic-ai dependency group is not installed")

from pydantic_ai import messages as m

from conformance.targets.pydantic_ai import (
    PydanticAITarget,
    dump_messages,
    load_messages,
    to_messages,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


def test_entry_point_names_the_target() -> None:
    target = resolve_target("pydantic-ai")
    assert isinstance(target, PydanticAITarget)
    assert target.name == "pydantic-ai"
    assert target.version[0].isdigit()
    assert target.unavailable is None


def test_result_style_media_is_the_tool_return_value() -> None:
    messages = to_messages(scenario("image", "inline", "result"))
    assert [type(x) for x in messages] == [m.ModelRequest, m.ModelResponse, m.ModelRequest]
    (prompt,) = messages[0].parts
    assert isinstance(prompt, m.UserPromptPart)
    (call,) = messages[1].parts
    assert isinstance(call, m.ToolCallPart)
    assert (call.tool_name, call.tool_call_id, call.args) == ("get_image", CALL_ID, {})
    (ret,) = messages[2].parts
    assert isinstance(ret, m.ToolReturnPart)
    assert ret.tool_call_id == CALL_ID
    assert isinstance(ret.content, m.BinaryContent)
    assert ret.content.media_type == "image/png"
    assert ret.content.identifier == "chart.png"


def test_text_result_is_the_exact_string() -> None:
    (ret,) = to_messages(scenario("text", "inline", "result"))[2].parts
    assert isinstance(ret, m.ToolReturnPart)
    assert ret.content == TEXT_FIXTURE


def test_prompt_style_is_a_user_prompt_after_the_tool_return() -> None:
    request = to_messages(scenario("document", "url", "prompt"))[2]
    ret, user = request.parts
    assert isinstance(ret, m.ToolReturnPart)
    assert isinstance(user, m.UserPromptPart)
    (doc,) = user.content
    assert isinstance(doc, m.DocumentUrl)
    assert doc.url.endswith("report.pdf")


def test_error_result_is_a_failed_tool_return_or_a_retry_prompt() -> None:
    (part,) = to_messages(scenario("text", "inline", "error"))[2].parts
    if "outcome" in getattr(m.ToolReturnPart, "__dataclass_fields__", {}):
        assert isinstance(part, m.ToolReturnPart)
        assert part.outcome == "failed"  # pyright: ignore[reportUnknownMemberType]
    assert part.content == ERROR_FIXTURE  # pyright: ignore[reportUnknownMemberType]


def test_parallel_calls_share_one_response_and_one_request() -> None:
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
    first, calls, results, answer = to_messages(history)
    assert [type(p) for p in first.parts] == [m.SystemPromptPart, m.UserPromptPart]
    assert [p.tool_call_id for p in calls.parts] == ["a", "b"]
    assert [p.tool_call_id for p in results.parts] == ["a", "b"]
    assert results.parts[1].content[0] == "2"
    assert isinstance(answer.parts[0], m.TextPart)


@pytest.mark.parametrize("style", ["result", "prompt", "error"])
def test_storage_round_trip_keeps_every_message(style: str) -> None:
    messages = to_messages(scenario("audio", "inline", style))  # type: ignore[arg-type]
    again = load_messages(dump_messages(messages))
    assert dump_messages(again) == dump_messages(messages)
    assert [type(x) for x in again] == [type(x) for x in messages]


def test_payload_is_the_body_the_sdk_sent() -> None:
    target = PydanticAITarget()
    payload = target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    result = payload["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == CALL_ID
    assert result["content"][0]["type"] == "image"


def test_rewritten_call_ids_are_paired_by_order() -> None:
    """Mistral ids must be 9 characters: pydantic-ai rewrites `call_1`; the classifier still
    finds the result of the call through the assistant's tool call on the wire."""
    from conformance.observe import observe

    history = scenario("text", "inline", "result")
    payload = PydanticAITarget().render(ROWS["mistral/mistral-medium"], history)
    wire_id = payload["messages"][1]["tool_calls"][0]["id"]
    assert wire_id != CALL_ID
    assert payload["messages"][2]["tool_call_id"] == wire_id
    assert observe("mistral", history, payload, None).outcome == "native"


def test_url_downloads_are_refused_and_raise() -> None:
    from conformance.targets.pydantic_ai import DownloadRefused

    with pytest.raises(DownloadRefused, match=r"example\.com"):
        PydanticAITarget().render(ROWS["gemini/gemini-2.5"], scenario("image", "url", "result"))


def _plugin_project(pytester: pytest.Pytester, conftest: str) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makeconftest(conftest)
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())


_CELL = "pydantic-ai:openai-chat/gpt-6/image/inline/result:outcome"


def test_a_results_line_names_the_pydantic_ai_version(pytester: pytest.Pytester) -> None:
    _plugin_project(pytester, "")
    (pytester.path / "snapshots").symlink_to(ROOT / "snapshots")
    run = pytester.runpytest(
        "-k", _CELL, "--conformance-target", "pydantic-ai", "--conformance-results", "r.jsonl"
    )
    run.assert_outcomes(passed=1)
    lines: list[dict[str, Any]] = [
        json.loads(x) for x in (pytester.path / "r.jsonl").read_text("utf-8").splitlines()
    ]
    assert lines[0]["targets"] == {"pydantic-ai": PydanticAITarget().version}
    assert lines[1]["outcome"] == "fallback-marked"
