"""The reference mappers: exact payload shapes on small histories, per api.

Shapes are checked here against what each mapper's docstring says it follows; whether a
payload is what the matrix expects is the suite's job, not these tests'.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest

from conformance import marker
from conformance.errors import UnsupportedContent
from conformance.history import (
    ContentType,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
)
from conformance.scenarios.build import (
    CALL_ID,
    PROMPT,
    TEXT_FIXTURE,
    fixture_part,
    fixture_url,
    scenario,
    tool_name,
)
from conformance.scenarios.fixtures import fixture_bytes
from conformance.targets.reference.mappers import MAPPERS, Profile, bedrock_converse, mistral

Source = Literal["inline", "url"]
Style = Literal["result", "prompt"]
Status = Literal["success", "error"]

CONTENT_TYPES: list[ContentType] = ["text", "image", "document", "audio", "video"]
ROWS = [(api, family) for api, (profiles, _) in MAPPERS.items() for family in profiles]
IMAGE_ROWS = [
    (api, family)
    for api, (profiles, _) in MAPPERS.items()
    for family, p in profiles.items()
    if "image" in p.tool_result | p.user
]
COMPATIBLE = [("groq", "qwen3.6"), ("xai", "grok-4"), ("huggingface", "qwen3.6")]
PNG = fixture_bytes("chart.png")
PDF = fixture_bytes("report.pdf")
WAV = fixture_bytes("tone.wav")
MP4 = fixture_bytes("clip.mp4")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def render(api: str, family: str, history: History) -> dict[str, Any]:
    profiles, mapper = MAPPERS[api]
    return mapper(profiles[family], history)


def profile(api: str, family: str) -> Profile:
    return MAPPERS[api][0][family]


def cell(
    api: str,
    family: str,
    content_type: ContentType,
    source: Source = "inline",
    style: Style = "result",
) -> dict[str, Any]:
    return render(api, family, scenario(content_type, source, style, calls=1))


def mark(content_type: ContentType) -> str:
    """The fallback marker of the scenario's one call."""
    return marker.render(tool_name(content_type), CALL_ID)


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar of a payload, in document order."""
    if isinstance(value, dict):
        for item in value.values():  # pyright: ignore[reportUnknownVariableType]
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            yield from leaves(item)
    else:
        yield value


def with_result(content: list[Part], *, status: Status = "success", name: str = "get_x") -> History:
    return [
        Message(role="user", content=PROMPT),
        ToolCall(tool_call_id=CALL_ID, name=name),
        ToolResult(tool_call_id=CALL_ID, name=name, status=status, content=content),
    ]


# --- every mapper -----------------------------------------------------------------------


@pytest.mark.parametrize(("api", "family"), ROWS)
def test_text_result_is_byte_identical_and_unmarked(api: str, family: str) -> None:
    payload = cell(api, family, "text")
    strings = [v for v in leaves(payload) if isinstance(v, str)]
    assert strings.count(TEXT_FIXTURE) == 1
    assert mark("text") not in strings, "text gets no marker"


def unsupported_cells() -> Iterator[tuple[str, str, ContentType, Source, Style]]:
    """Every media cell some profile cannot carry, found by rendering it (mappers are pure)."""
    sources: list[Source] = ["inline", "url"]
    styles: list[Style] = ["result", "prompt"]
    for api, family in ROWS:
        for content_type in CONTENT_TYPES[1:]:
            for source in sources:
                for style in styles:
                    try:
                        cell(api, family, content_type, source, style)
                    except UnsupportedContent:
                        yield api, family, content_type, source, style


@pytest.mark.parametrize(
    ("api", "family", "content_type", "source", "style"), list(unsupported_cells())
)
def test_unsupported_names_api_model_type_and_call(
    api: str, family: str, content_type: ContentType, source: Source, style: Style
) -> None:
    with pytest.raises(UnsupportedContent) as raised:
        cell(api, family, content_type, source, style)
    error = raised.value
    assert (error.api, error.model) == (api, profile(api, family).model)
    assert (error.content_type, error.tool_name, error.tool_call_id) == (
        content_type,
        tool_name(content_type),
        CALL_ID,
    )


@pytest.mark.parametrize(("api", "family"), IMAGE_ROWS)
def test_parallel_calls_keep_order_and_own_markers(api: str, family: str) -> None:
    first, second = b"first image bytes", b"second image bytes"
    history: History = [
        Message(role="user", content=PROMPT),
        ToolCall(tool_call_id="call_a", name="get_a"),
        ToolCall(tool_call_id="call_b", name="get_b"),
    ]
    for call_id, name, data in [("call_a", "get_a", first), ("call_b", "get_b", second)]:
        image = Image(media_type="image/png", data=data, identifier="chart.png")
        history.append(ToolResult(tool_call_id=call_id, name=name, content=[image]))
    payload = render(api, family, history)
    a, b = (mistral.mistral_call_id(i) if api == "mistral" else i for i in ("call_a", "call_b"))
    labels = {
        marker.render("get_a", a): "marker a",
        marker.render("get_b", b): "marker b",
        a: "call a",
        b: "call b",
    }
    seen: list[str] = []
    for leaf in leaves(payload):
        if isinstance(leaf, str) and leaf in labels:
            seen.append(labels[leaf])
        elif leaf == first or (isinstance(leaf, str) and b64(first) in leaf):
            seen.append("data a")
        elif leaf == second or (isinstance(leaf, str) and b64(second) in leaf):
            seen.append("data b")
    calls = [s for s in seen if s.startswith("call")]
    assert calls == ["call a", "call b", "call a", "call b"], "calls, then results, in order"
    if "marker a" in seen:
        assert [s for s in seen if s.startswith(("marker", "data"))] == [
            "marker a",
            "data a",
            "marker b",
            "data b",
        ]
    else:
        assert "marker b" not in seen
        assert seen.index("data a") < seen.index("data b")


@pytest.mark.parametrize(("api", "family"), ROWS)
def test_error_result_keeps_its_text(api: str, family: str) -> None:
    payload = render(api, family, with_result([Text(text=TEXT_FIXTURE)], status="error"))
    assert [v for v in leaves(payload) if isinstance(v, str)].count(TEXT_FIXTURE) == 1


# --- gemini -----------------------------------------------------------------------------


def gemini_tool_turn(payload: dict[str, Any]) -> list[dict[str, Any]]:
    assert payload["contents"][-1]["role"] == "user"
    return payload["contents"][-1]["parts"]


def test_gemini_text_in_response_output() -> None:
    payload = cell("gemini", "gemini-2.5", "text")
    assert payload["contents"][1] == {
        "role": "model",
        "parts": [{"functionCall": {"id": CALL_ID, "name": "get_text", "args": {}}}],
    }
    assert gemini_tool_turn(payload) == [
        {
            "functionResponse": {
                "id": CALL_ID,
                "name": "get_text",
                "response": {"output": TEXT_FIXTURE},
            }
        }
    ]
    assert payload["tools"] == [{"functionDeclarations": [{"name": "get_text"}]}]


def test_gemini_several_texts_stay_separate_and_errors_use_error_key() -> None:
    parts: list[Part] = [Text(text="a \r\n"), Text(text="b")]
    payload = render("gemini", "gemini-2.5", with_result(parts, status="error"))
    response = gemini_tool_turn(payload)[0]["functionResponse"]["response"]
    assert response == {"error": ["a \r\n", "b"]}


def test_gemini_3_image_native_in_function_response() -> None:
    payload = cell("gemini", "gemini-3", "image")
    call_part = payload["contents"][1]["parts"][0]
    assert call_part["thoughtSignature"] == "skip_thought_signature_validator"
    assert gemini_tool_turn(payload) == [
        {
            "functionResponse": {
                "id": CALL_ID,
                "name": "get_image",
                "response": {"output": ""},
                "parts": [
                    {
                        "inlineData": {
                            "mimeType": "image/png",
                            "data": b64(PNG),
                            "displayName": "chart.png",
                        }
                    }
                ],
            }
        }
    ]


@pytest.mark.parametrize(
    ("family", "content_type", "media_type", "data"),
    [
        ("gemini-2.5", "image", "image/png", PNG),
        ("gemini-2.5", "document", "application/pdf", PDF),
        ("gemini-3", "audio", "audio/wav", WAV),
        ("gemini-3", "video", "video/mp4", MP4),
    ],
)
def test_gemini_fallback_follows_function_response_in_same_turn(
    family: str, content_type: ContentType, media_type: str, data: bytes
) -> None:
    payload = cell("gemini", family, content_type)
    parts = gemini_tool_turn(payload)
    assert "parts" not in parts[0]["functionResponse"]
    assert parts[1:] == [
        {"text": mark(content_type)},
        {"inlineData": {"mimeType": media_type, "data": b64(data)}},
    ]
    assert len(payload["contents"]) == 3


def test_gemini_2_5_sends_no_thought_signature() -> None:
    payload = cell("gemini", "gemini-2.5", "text")
    assert "thoughtSignature" not in payload["contents"][1]["parts"][0]


def test_gemini_url_falls_back_as_file_data_even_on_gemini_3() -> None:
    parts = gemini_tool_turn(cell("gemini", "gemini-3", "image", "url"))
    assert parts[1:] == [
        {"text": mark("image")},
        {"fileData": {"mimeType": "image/png", "fileUri": fixture_url("chart.png")}},
    ]


def test_gemini_system_instruction() -> None:
    history = [
        Message(role="system", content="Be brief."),
        *scenario("text", "inline", "result", calls=1),
    ]
    payload = render("gemini", "gemini-2.5", history)
    assert payload["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert [c["role"] for c in payload["contents"]] == ["user", "model", "user"]


def test_gemini_3_rejects_image_types_function_responses_do_not_list() -> None:
    heic = Image(media_type="image/heic", data=PNG, identifier="x.heic")
    with pytest.raises(UnsupportedContent, match="image/heic"):
        render("gemini", "gemini-3", with_result([heic]))
    render("gemini", "gemini-2.5", with_result([heic]))


# --- bedrock converse -------------------------------------------------------------------


def bedrock_tool_message(payload: dict[str, Any]) -> list[dict[str, Any]]:
    assert payload["messages"][-1]["role"] == "user"
    return payload["messages"][-1]["content"]


def test_bedrock_text_result_and_tool_config() -> None:
    payload = cell("bedrock-converse", "claude", "text")
    assert payload["modelId"] == "global.anthropic.claude-sonnet-5-5"
    assert payload["messages"][1] == {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": CALL_ID, "name": "get_text", "input": {}}}],
    }
    assert bedrock_tool_message(payload) == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"text": TEXT_FIXTURE}]}}
    ]
    assert payload["toolConfig"] == {
        "tools": [{"toolSpec": {"name": "get_text", "inputSchema": {"json": {"type": "object"}}}}]
    }


@pytest.mark.parametrize("family", ["claude", "nova"])
def test_bedrock_image_native_as_raw_bytes(family: str) -> None:
    content = bedrock_tool_message(cell("bedrock-converse", family, "image"))
    assert content == [
        {
            "toolResult": {
                "toolUseId": CALL_ID,
                "content": [{"image": {"format": "png", "source": {"bytes": PNG}}}],
            }
        }
    ]
    assert isinstance(content[0]["toolResult"]["content"][0]["image"]["source"]["bytes"], bytes)


def test_bedrock_claude_document_native_with_safe_name() -> None:
    content = bedrock_tool_message(cell("bedrock-converse", "claude", "document"))
    block = content[0]["toolResult"]["content"][0]
    assert block == {"document": {"format": "pdf", "name": "report", "source": {"bytes": PDF}}}


@pytest.mark.parametrize(
    ("identifier", "name"),
    [
        ("report.pdf", "report"),
        ("Q3 report_v2 (final).pdf", "Q3 report v2 (final)"),
        ("  a..b\t\tc [x].pdf", "a b c [x]"),
        ("東京.pdf", "document"),
        (".pdf", "pdf"),
        ("", "document"),
        ("x" * 300 + ".pdf", "x" * 200),
    ],
)
def test_bedrock_document_names_keep_to_the_allowed_characters(identifier: str, name: str) -> None:
    pdf = fixture_part("document").model_copy(update={"identifier": identifier})
    content = bedrock_tool_message(render("bedrock-converse", "claude", with_result([pdf])))
    assert content[0]["toolResult"]["content"][0]["document"]["name"] == name


@pytest.mark.parametrize(("content_type", "fmt"), [("document", "pdf"), ("video", "mp4")])
def test_bedrock_nova_falls_back_with_pointer(content_type: ContentType, fmt: str) -> None:
    content = bedrock_tool_message(cell("bedrock-converse", "nova", content_type))
    assert content[0] == {
        "toolResult": {
            "toolUseId": CALL_ID,
            "content": [{"text": bedrock_converse.MOVED_POINTER}],
        }
    }
    assert content[1] == {"text": mark(content_type)}
    assert content[2][content_type]["format"] == fmt
    assert len(content) == 3


def test_bedrock_prompt_style_keeps_the_tool_text_and_no_pointer() -> None:
    content = bedrock_tool_message(cell("bedrock-converse", "nova", "video", style="prompt"))
    result_content = content[0]["toolResult"]["content"]
    assert bedrock_converse.MOVED_POINTER not in [b.get("text") for b in result_content]
    assert content[1] == {"text": mark("video")}


@pytest.mark.parametrize(
    ("family", "content_type", "source"),
    [
        ("claude", "image", "url"),
        ("claude", "document", "url"),
        ("nova", "video", "url"),
        ("claude", "audio", "inline"),
        ("nova", "audio", "inline"),
        ("claude", "video", "inline"),
    ],
)
def test_bedrock_unsupported(family: str, content_type: ContentType, source: Source) -> None:
    with pytest.raises(UnsupportedContent) as raised:
        cell("bedrock-converse", family, content_type, source)
    assert raised.value.content_type == content_type


def test_bedrock_error_status_only_on_error() -> None:
    payload = render("bedrock-converse", "nova", with_result([Text(text="boom")], status="error"))
    assert bedrock_tool_message(payload) == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"text": "boom"}], "status": "error"}}
    ]


def test_bedrock_system_and_merged_user_messages() -> None:
    history = [
        Message(role="system", content="Be brief."),
        *with_result([]),
        Message(role="user", content="And now?"),
    ]
    payload = render("bedrock-converse", "claude", history)
    assert payload["system"] == [{"text": "Be brief."}]
    assert [m["role"] for m in payload["messages"]] == ["user", "assistant", "user"]
    assert bedrock_tool_message(payload) == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"json": {}}]}},
        {"text": "And now?"},
    ]


OPEN_WEIGHT = ["llama-4", "mistral-large-3", "qwen3-vl", "deepseek"]


@pytest.mark.parametrize("family", ["llama-4", "mistral-large-3", "qwen3-vl"])
def test_bedrock_open_weight_media_gets_a_user_message_of_its_own(family: str) -> None:
    payload = cell("bedrock-converse", family, "image")
    roles = [m["role"] for m in payload["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    results, bridge, media = payload["messages"][2:]
    assert results["content"] == [
        {
            "toolResult": {
                "toolUseId": CALL_ID,
                "content": [{"text": bedrock_converse.MOVED_NEXT_POINTER}],
            }
        }
    ]
    assert bridge["content"] == [{"text": bedrock_converse.BRIDGE_TEXT}]
    assert media["content"] == [
        {"text": mark("image")},
        {"image": {"format": "png", "source": {"bytes": PNG}}},
    ]


@pytest.mark.parametrize("family", OPEN_WEIGHT)
def test_bedrock_open_weight_text_only_result_stays_one_message(family: str) -> None:
    payload = cell("bedrock-converse", family, "text")
    assert [m["role"] for m in payload["messages"]] == ["user", "assistant", "user"]
    assert bedrock_tool_message(payload) == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"text": TEXT_FIXTURE}]}}
    ]


@pytest.mark.parametrize("family", OPEN_WEIGHT)
def test_bedrock_open_weight_sends_no_status(family: str) -> None:
    payload = render("bedrock-converse", family, with_result([Text(text="boom")], status="error"))
    assert bedrock_tool_message(payload) == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"text": "boom"}]}}
    ]


@pytest.mark.parametrize("family", OPEN_WEIGHT)
def test_bedrock_open_weight_later_user_message_is_bridged(family: str) -> None:
    history = [*with_result([]), Message(role="user", content="And now?")]
    payload = render("bedrock-converse", family, history)
    assert [m["role"] for m in payload["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert payload["messages"][2]["content"] == [
        {"toolResult": {"toolUseId": CALL_ID, "content": [{"json": {}}]}}
    ]
    assert payload["messages"][-1]["content"] == [{"text": "And now?"}]


@pytest.mark.parametrize(
    ("family", "content_type"),
    [
        ("llama-4", "audio"),
        ("llama-4", "video"),
        ("mistral-large-3", "video"),
        ("qwen3-vl", "video"),
        ("deepseek", "image"),
        ("deepseek", "document"),
    ],
)
def test_bedrock_open_weight_unsupported(family: str, content_type: ContentType) -> None:
    with pytest.raises(UnsupportedContent) as raised:
        cell("bedrock-converse", family, content_type)
    assert raised.value.content_type == content_type


# --- mistral ----------------------------------------------------------------------------


MISTRAL_ID = mistral.mistral_call_id(CALL_ID)


def test_mistral_call_ids_are_nine_letters_or_digits() -> None:
    assert MISTRAL_ID != CALL_ID
    assert re.fullmatch(r"[A-Za-z0-9]{9}", MISTRAL_ID)
    assert mistral.mistral_call_id(CALL_ID) == MISTRAL_ID, "stable across renderings"
    assert mistral.mistral_call_id("aB3xK9mP2") == "aB3xK9mP2", "a valid id is kept"
    history: History = [
        Message(role="user", content=PROMPT),
        ToolCall(tool_call_id="call_1", name="get_text"),
        ToolCall(tool_call_id="call_1 ", name="get_text"),
        ToolResult(tool_call_id="call_1", name="get_text", content=[Text(text="a")]),
        ToolResult(tool_call_id="call_1 ", name="get_text", content=[Text(text="b")]),
    ]
    messages = render("mistral", "mistral-medium", history)["messages"]
    ids = [c["id"] for c in messages[1]["tool_calls"]]
    assert len(set(ids)) == 2
    assert [m["tool_call_id"] for m in messages[2:]] == ids


def test_mistral_text_tool_message() -> None:
    payload = cell("mistral", "mistral-medium", "text")
    assert payload["messages"][1:] == [
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": MISTRAL_ID,
                    "type": "function",
                    "function": {"name": "get_text", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": MISTRAL_ID, "name": "get_text", "content": TEXT_FIXTURE},
    ]


@pytest.mark.parametrize(
    ("source", "url"),
    [("inline", f"data:image/png;base64,{b64(PNG)}"), ("url", fixture_url("chart.png"))],
)
def test_mistral_image_falls_back_after_an_assistant_bridge(source: Source, url: str) -> None:
    messages = cell("mistral", "mistral-medium", "image", source)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "user"]
    assert messages[2]["content"] == ""
    assert messages[3] == mistral.ASSISTANT_BRIDGE
    assert messages[4]["content"] == [
        {"type": "text", "text": marker.render("get_image", MISTRAL_ID)},
        {"type": "image_url", "image_url": url},
    ]


def test_mistral_document_only_by_url() -> None:
    with pytest.raises(UnsupportedContent, match="by URL"):
        cell("mistral", "mistral-medium", "document")
    messages = cell("mistral", "mistral-medium", "document", "url")["messages"]
    assert messages[-1]["content"][1] == {
        "type": "document_url",
        "document_url": fixture_url("report.pdf"),
        "document_name": "report.pdf",
    }


def test_mistral_voxtral_audio_falls_back_as_base64() -> None:
    messages = cell("mistral", "voxtral-small", "audio", style="prompt")["messages"]
    assert messages[2]["content"] == "Done: the output follows as user content."
    assert messages[-1]["content"] == [
        {"type": "text", "text": marker.render("get_audio", MISTRAL_ID)},
        {"type": "input_audio", "input_audio": b64(WAV)},
    ]


@pytest.mark.parametrize(
    ("family", "content_type", "source"),
    [
        ("voxtral-small", "image", "inline"),
        ("voxtral-small", "audio", "url"),
        ("mistral-medium", "audio", "inline"),
        ("mistral-medium", "video", "inline"),
    ],
)
def test_mistral_unsupported(family: str, content_type: ContentType, source: Source) -> None:
    with pytest.raises(UnsupportedContent):
        cell("mistral", family, content_type, source)


# --- groq, xai, huggingface -------------------------------------------------------------


def test_groq_tool_texts_stay_separate() -> None:
    """Joining two texts would send a third text that is neither; each stays its own part."""
    parts: list[Part] = [Text(text="a\r\n"), Text(text=" b ")]
    messages = render("groq", "qwen3.6", with_result(parts))["messages"]
    assert messages[-1] == {
        "role": "tool",
        "tool_call_id": CALL_ID,
        "content": [{"type": "text", "text": "a\r\n"}, {"type": "text", "text": " b "}],
    }
    one = render("groq", "qwen3.6", with_result([Text(text="a\r\n")]))["messages"]
    assert one[-1]["content"] == "a\r\n"


@pytest.mark.parametrize(("api", "family"), COMPATIBLE)
@pytest.mark.parametrize(
    ("source", "url"),
    [("inline", f"data:image/png;base64,{b64(PNG)}"), ("url", fixture_url("chart.png"))],
)
def test_openai_compatible_image_fallback(api: str, family: str, source: Source, url: str) -> None:
    messages = cell(api, family, "image", source)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[2]["content"] == ""
    assert messages[3]["content"] == [
        {"type": "text", "text": mark("image")},
        {"type": "image_url", "image_url": {"url": url}},
    ]


@pytest.mark.parametrize(("api", "family"), COMPATIBLE)
@pytest.mark.parametrize("content_type", ["document", "audio", "video"])
@pytest.mark.parametrize("source", ["inline", "url"])
def test_openai_compatible_unsupported(
    api: str, family: str, content_type: ContentType, source: Source
) -> None:
    with pytest.raises(UnsupportedContent):
        cell(api, family, content_type, source)


def test_xai_takes_only_jpeg_and_png() -> None:
    gif = Image(media_type="image/gif", data=b"GIF89a", identifier="x.gif")
    with pytest.raises(UnsupportedContent, match="image/gif"):
        render("xai", "grok-4", with_result([gif]))


# --- the existing four: audio model and URL sources --------------------------------------


def test_openai_chat_audio_preview_takes_audio_only() -> None:
    messages = cell("openai-chat", "gpt-audio", "audio")["messages"]
    assert messages[-1]["content"] == [
        {"type": "text", "text": mark("audio")},
        {"type": "input_audio", "input_audio": {"data": b64(WAV), "format": "wav"}},
    ]
    cases: list[tuple[ContentType, Source]] = [
        ("image", "inline"),
        ("image", "url"),
        ("document", "inline"),
        ("audio", "url"),
    ]
    for content_type, source in cases:
        with pytest.raises(UnsupportedContent):
            cell("openai-chat", "gpt-audio", content_type, source)


def test_openai_chat_image_url_and_no_file_url() -> None:
    messages = cell("openai-chat", "gpt-6", "image", "url")["messages"]
    assert messages[-1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": fixture_url("chart.png")},
    }
    with pytest.raises(UnsupportedContent, match="inline"):
        cell("openai-chat", "gpt-6", "document", "url")


def test_openai_responses_urls_stay_in_the_function_output() -> None:
    image = cell("openai-responses", "gpt-6", "image", "url")["input"][-1]
    assert image["output"] == [
        {"type": "input_image", "image_url": fixture_url("chart.png"), "detail": "auto"}
    ]
    document = cell("openai-responses", "gpt-6", "document", "url")["input"][-1]
    assert document["output"] == [{"type": "input_file", "file_url": fixture_url("report.pdf")}]


@pytest.mark.parametrize(
    ("content_type", "name"), [("image", "chart.png"), ("document", "report.pdf")]
)
def test_anthropic_url_sources(content_type: ContentType, name: str) -> None:
    message = cell("anthropic", "claude-sonnet-5", content_type, "url")["messages"][-1]
    block = message["content"][0]["content"][0]
    assert block["source"] == {"type": "url", "url": fixture_url(name)}


def test_cohere_image_url() -> None:
    messages = cell("cohere", "command-a-vision", "image", "url")["messages"]
    assert messages[-1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": fixture_url("chart.png")},
    }
