"""The langchain.openai-converter variant: `convert_to_openai_messages` on the langchain
target's messages, sent with the `openai` SDK's Chat Completions client."""

from __future__ import annotations

import pytest

from conformance.history import History, Message, Text, ToolCall, ToolResult
from conformance.scenarios.build import CALL_ID, scenario
from conformance.targets import resolve_target
from langchain_support import ROWS, run_repro, tool_messages

pytest.importorskip(
    "langchain_core",
    reason='LangChain is not installed: nox -s "target(langchain)"',
)

from conformance.targets.langchain import LangChainTarget
from conformance.targets.langchain._variants import (
    CONVERTER_PATHS,
    LangChainOpenAIConverterTarget,
)


def test_entry_point_is_a_variant_of_langchain_on_the_openai_sdk() -> None:
    target = resolve_target("langchain.openai-converter")
    assert isinstance(target, LangChainOpenAIConverterTarget)
    assert (target.variant_of, target.version) == ("langchain", LangChainTarget().version)
    assert set(target.sdk_versions) == {"langchain-core", "openai"}


def test_it_serves_the_chat_completions_shaped_rows_only() -> None:
    target = LangChainOpenAIConverterTarget()
    served = {row.api for row in ROWS.values() if target.supports(row) is None}
    assert served == set(CONVERTER_PATHS) == {"openai-chat", "xai", "groq", "huggingface"}
    assert "does not take" in (target.supports(ROWS["anthropic/claude-sonnet-5"]) or "")


def test_groq_gets_openai_parts_where_langchain_groq_sends_langchain_blocks() -> None:
    row, history = ROWS["groq/qwen3.6"], scenario("image", "inline", "result")
    (converted,) = tool_messages(LangChainOpenAIConverterTarget().render(row, history))[0][
        "content"
    ]
    assert converted["type"] == "image_url"
    assert converted["image_url"]["url"].startswith("data:image/png;base64,")
    (main,) = tool_messages(LangChainTarget().render(row, history))[0]["content"]
    assert main["type"] == "image"  # ChatGroq: the standard block as is


def test_tool_messages_name_their_tool_and_call() -> None:
    payload = LangChainOpenAIConverterTarget().render(
        ROWS["xai/grok-4"], scenario("text", "inline", "result")
    )
    first = tool_messages(payload)[0]
    assert (first["tool_call_id"], first["name"]) == (CALL_ID, "get_text")
    assert payload["model"] == ROWS["xai/grok-4"].model
    assert [t["function"]["name"] for t in payload["tools"]] == ["get_text"]


def test_a_document_url_is_refused_before_sending() -> None:
    with pytest.raises(ValueError, match="does not support file URLs"):
        LangChainOpenAIConverterTarget().render(
            ROWS["openai-chat/gpt-6"], scenario("document", "url", "result")
        )


def test_text_parts_of_one_result_are_joined_with_a_line_break() -> None:
    """`text_format="string"`, the default: the property failure `text-identical`."""
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="x"), Text(text="y")]),
    ]
    payload = LangChainOpenAIConverterTarget().render(ROWS["openai-chat/gpt-6"], history)
    assert tool_messages(payload)[0]["content"] == "x\ny"


def test_repro_sends_through_the_openai_sdk_on_the_provider_path() -> None:
    row, history = ROWS["groq/qwen3.6"], scenario("image", "inline", "result")
    script = LangChainOpenAIConverterTarget().repro(row, history)
    assert "from openai import OpenAI" in script
    assert "convert_to_openai_messages" in script
    path, payload = run_repro(script)
    assert path == "POST /api/openai/v1/chat/completions"
    assert payload["model"] == row.model
    assert tool_messages(payload)[0]["content"][0]["type"] == "image_url"
