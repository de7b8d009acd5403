"""The classifier on hand-written payloads: one or more for every outcome.

Payloads are written here literally from the providers' documented shapes, not produced by
our mappers, so the classifier is tested on its own.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from conformance import marker
from conformance.errors import UnsupportedContent
from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.observe import observe
from conformance.scenarios import TEXT_FIXTURE, fixture_part, scenario

IMAGE = fixture_part("image")
assert isinstance(IMAGE, Image)
assert IMAGE.data is not None
PNG = IMAGE.data
B64 = base64.b64encode(PNG).decode()
DATA_URL = f"data:image/png;base64,{B64}"
MARK = marker.render("get_image", "call_1")


def chat(*tail: dict[str, Any], name: str = "get_image") -> dict[str, Any]:
    """An OpenAI chat body: the scenario's prompt and tool call, then `tail`."""
    return {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": "{}"},
                    }
                ],
            },
            *tail,
        ],
    }


def tool(content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "call_1", "content": content}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(parts)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


IMAGE_PART = {"type": "image_url", "image_url": {"url": DATA_URL}}
IMAGE_HISTORY = scenario("image", "inline", "result", calls=1)
TEXT_HISTORY = scenario("text", "inline", "result", calls=1)


def outcome_of(history: History, payload: dict[str, Any], api: str = "openai-chat") -> str:
    return observe(api, history, payload, None).outcome


def test_native_image_in_a_responses_function_output() -> None:
    payload = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {"type": "function_call", "call_id": "call_1", "name": "get_image", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [{"type": "input_image", "image_url": DATA_URL}],
            },
        ],
    }
    assert outcome_of(IMAGE_HISTORY, payload, "openai-responses") == "native"


def test_fallback_marked() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(text(MARK), IMAGE_PART))) == (
        "fallback-marked"
    )


def test_a_target_may_word_its_own_marker() -> None:
    own = text("Output of tool get_image (id call_1):")
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(own, IMAGE_PART))) == "fallback-marked"


def test_fallback_without_marker_is_unmarked() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(IMAGE_PART))) == "fallback-unmarked"


def test_marker_after_the_media_does_not_count() -> None:
    payload = chat(tool(""), user(IMAGE_PART, text(MARK)))
    assert outcome_of(IMAGE_HISTORY, payload) == "fallback-unmarked"


def test_marker_naming_a_longer_id_does_not_count() -> None:
    own = text("Output of tool get_image (id call_12):")
    assert outcome_of(IMAGE_HISTORY, chat(tool(""), user(own, IMAGE_PART))) == "fallback-unmarked"


def test_media_before_its_tool_result_is_unmarked() -> None:
    payload = chat(user(text(MARK), IMAGE_PART), tool(""))
    observation = observe("openai-chat", IMAGE_HISTORY, payload, None)
    assert observation.outcome == "fallback-unmarked"
    assert "before its tool result" in observation.items[0].detail


def test_user_text_that_looks_like_a_marker_is_not_provenance() -> None:
    """A user's own text is sent verbatim and never taken for a marker: provenance comes from
    the structure of the history, not from trusting text."""
    history: History = [
        Message(role="user", content=MARK),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[IMAGE]),
    ]
    payload = chat(tool(""), user(text(MARK), IMAGE_PART))
    payload["messages"][0]["content"] = MARK
    assert outcome_of(history, payload) == "fallback-unmarked"


def test_raised() -> None:
    error = UnsupportedContent(
        api="cohere",
        model="m",
        content_type="audio",
        tool_name="get_audio",
        tool_call_id="call_1",
        reason="no",
    )
    observation = observe("cohere", IMAGE_HISTORY, None, error)
    assert observation.outcome == "raised"
    assert observation.raised is not None
    assert "get_audio" in observation.raised


def test_dropped() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(""))) == "dropped"


def test_noted() -> None:
    observation = observe("openai-chat", IMAGE_HISTORY, chat(tool("[image omitted]")), None)
    assert observation.outcome == "noted"
    assert "image omitted" in observation.items[0].detail


def test_stringified_base64() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(f'{{"image": "{B64}"}}'))) == "stringified"


def test_stringified_bytes_repr() -> None:
    assert outcome_of(IMAGE_HISTORY, chat(tool(str(PNG)))) == "stringified"


def test_text_native_byte_for_byte() -> None:
    assert outcome_of(TEXT_HISTORY, chat(tool(TEXT_FIXTURE), name="get_text")) == "native"
    payload = chat(tool([text(TEXT_FIXTURE)]), name="get_text")
    assert outcome_of(TEXT_HISTORY, payload) == "native"


def test_text_with_whitespace_changed_is_altered() -> None:
    tidy = TEXT_FIXTURE.replace("\r\n", "\n").rstrip()
    assert outcome_of(TEXT_HISTORY, chat(tool(tidy), name="get_text")) == "altered"


def test_text_wrapped_is_altered() -> None:
    wrapped = marker.render("get_text", "call_1") + TEXT_FIXTURE
    assert outcome_of(TEXT_HISTORY, chat(tool(wrapped), name="get_text")) == "altered"


def test_text_behind_an_added_marker_part_is_altered() -> None:
    payload = chat(
        tool([text(marker.render("get_text", "call_1")), text(TEXT_FIXTURE)]), name="get_text"
    )
    assert outcome_of(TEXT_HISTORY, payload) == "altered"


def test_text_json_escaped_is_stringified() -> None:
    for ascii_only in (False, True):
        body = json.dumps({"result": TEXT_FIXTURE}, ensure_ascii=ascii_only)
        assert outcome_of(TEXT_HISTORY, chat(tool(body), name="get_text")) == "stringified"


def test_text_dropped() -> None:
    assert outcome_of(TEXT_HISTORY, chat(tool(""), name="get_text")) == "dropped"


def test_rewritten_call_ids_are_followed_through_the_wire_tool_call() -> None:
    payload = chat(
        {"role": "tool", "tool_call_id": "tc_9", "content": ""},
        user(text(marker.render("get_image", "tc_9")), IMAGE_PART),
    )
    payload["messages"][1]["tool_calls"][0]["id"] = "tc_9"
    assert outcome_of(IMAGE_HISTORY, payload) == "fallback-marked"


def test_anthropic_native_and_error_flag_ignored_for_outcome() -> None:
    payload: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {"role": "user", "content": "Call the tool, then describe what it returned."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "call_1", "name": "get_image", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_1",
                        "content": [
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": B64,
                                },
                            }
                        ],
                    }
                ],
            },
        ],
    }
    assert outcome_of(IMAGE_HISTORY, payload, "anthropic") == "native"


def test_the_cell_outcome_is_the_worst_item() -> None:
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[Text(text="chart:"), IMAGE]),
    ]
    payload = chat(tool("chart:"))
    payload["messages"][0]["content"] = "go"
    observation = observe("openai-chat", history, payload, None)
    assert [i.outcome for i in observation.items] == ["native", "dropped"]
    assert observation.outcome == "dropped"
