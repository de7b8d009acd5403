"""The langchain.native-blocks variant: the tools' media as each provider's own blocks,
through the langchain target's integrations."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conformance.history import Image
from conformance.scenarios.build import scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef
from langchain_support import ROWS

pytest.importorskip(
    "langchain_core",
    reason='LangChain is not installed: nox -s "target(langchain)"',
)

from conformance.targets.langchain import LangChainTarget
from conformance.targets.langchain._formats import NATIVE_FORMS, native_block
from conformance.targets.langchain._variants import LangChainNativeBlocksTarget


def _render(row: str, content_type: str, source: str, style: str = "result") -> Any:
    history = scenario(content_type, source, style)  # type: ignore[arg-type]
    return LangChainNativeBlocksTarget().render(ROWS[row], history)


def test_entry_point_is_a_variant_of_langchain() -> None:
    target = resolve_target("langchain.native-blocks")
    assert isinstance(target, LangChainNativeBlocksTarget)
    assert (target.variant_of, target.version) == ("langchain", LangChainTarget().version)


def test_it_serves_the_rows_of_an_api_with_a_native_format() -> None:
    main, variant = LangChainTarget(), LangChainNativeBlocksTarget()
    served = {row.api for row in ROWS.values() if variant.supports(row) is None}
    assert served == {row.api for row in ROWS.values() if main.supports(row) is None} & set(
        NATIVE_FORMS
    )
    other = RowRef(id="unknown/x", api="unknown-api", family="x", model="m")
    assert "no native block format" in (variant.supports(other) or "")


def test_anthropic_blocks_pass_into_the_tool_result() -> None:
    payload = _render("anthropic/claude-sonnet-5", "document", "url")
    (block,) = payload["messages"][2]["content"][0]["content"]
    assert block["type"] == "document"
    assert block["source"]["type"] == "url"
    assert block["source"]["url"].endswith("/conformance/report.pdf")


def test_vertex_gemini_takes_media_file_uris_and_standard_inline_blocks() -> None:
    """ChatVertexAI documents `media` blocks with a `file_uri` only: a URL part is one, an
    inline part stays the standard block."""
    block = native_block("gemini-vertex")
    assert block is not None
    url = block(Image(media_type="image/png", url="https://example.test/a.png", identifier="a"))
    assert url == {
        "type": "media",
        "file_uri": "https://example.test/a.png",
        "mime_type": "image/png",
    }
    inline = block(Image(media_type="image/png", data=b"\x89PNG", identifier="a"))
    assert inline["type"] == "image"
    assert "base64" in inline


def test_gemini_media_blocks_stay_json_in_the_function_response() -> None:
    """langchain-google-genai's `media` block is no data block to `_convert_tool_message_to_parts`:
    it stays in the function response as JSON (`stringified`), where the main target's standard
    block becomes an inlineData Part."""
    parts = _render("gemini/gemini-3", "image", "inline")["contents"][2]["parts"]
    response = next(p["functionResponse"] for p in parts if "functionResponse" in p)
    (block,) = response["response"]["output"]
    assert (block["type"], block["mime_type"]) == ("media", "image/png")
    assert not any("inlineData" in p for p in parts)


def test_openai_parts_are_rewritten_into_langchain_blocks_before_groq_sends_them() -> None:
    """`_normalize_messages` turns the OpenAI input_audio part into a standard block with an id;
    langchain-groq sends a ToolMessage's content as is. The ids are numbered per render."""
    first, again = (_render("groq/qwen3.6", "audio", "inline") for _ in range(2))
    (block,) = first["messages"][2]["content"]
    assert (block["type"], block["mime_type"]) == ("audio", "audio/wav")
    assert block["id"] == "lc_00000000-0000-0000-0000-000000000001"
    assert json.dumps(first) == json.dumps(again)
    (image,) = _render("groq/qwen3.6", "image", "inline")["messages"][2]["content"]
    assert image["type"] == "image_url"  # image_url passes through unchanged


def test_ids_are_random_outside_a_render() -> None:
    from langchain_core.utils.utils import ensure_id

    _render("groq/qwen3.6", "audio", "inline")
    assert ensure_id(None) != ensure_id(None)


def test_cohere_keeps_a_native_image_the_main_target_loses() -> None:
    row, history = ROWS["cohere/command-a-vision"], scenario("image", "inline", "prompt")
    native = LangChainNativeBlocksTarget().render(row, history)["messages"][-1]["content"]
    assert native[0]["type"] == "image_url"
    assert native[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert LangChainTarget().render(row, history)["messages"][-1]["content"] == ""  # dropped


def test_mistral_chunks_reach_the_tool_message() -> None:
    (chunk,) = _render("mistral/mistral-medium", "image", "url")["messages"][2]["content"]
    assert chunk["type"] == "image_url"
    assert chunk["image_url"].endswith("/conformance/chart.png")  # Mistral's string form


def test_stored_rendering_is_byte_identical() -> None:
    target = LangChainNativeBlocksTarget()
    row, history = ROWS["bedrock-converse/nova"], scenario("video", "inline", "result")
    assert repr(target.render_stored(row, history)) == repr(target.render(row, history))
