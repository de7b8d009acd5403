"""Self-tests of the wire locators for gemini, bedrock-converse, mistral, groq, xai and
huggingface, on hand-written payloads in each api's documented shape."""

from __future__ import annotations

import base64
import hashlib
from typing import Any, TypeVar

import pytest

from conformance.wire import (
    LOCATORS,
    WireFormatError,
    WireMessage,
    WireToolResult,
    WireView,
    bedrock_converse,
    gemini,
    groq,
    huggingface,
    locate,
    mistral,
    xai,
)

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\xfb\xff\xfe"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
PNG_B64 = base64.b64encode(PNG).decode()
PNG_B64_URLSAFE = base64.urlsafe_b64encode(PNG).decode().rstrip("=")
PDF_B64 = base64.b64encode(PDF).decode()
WAV_B64 = base64.b64encode(WAV).decode()
MP4_B64 = base64.b64encode(MP4).decode()
PNG_SHA = hashlib.sha256(PNG).hexdigest()
PDF_SHA = hashlib.sha256(PDF).hexdigest()
WAV_SHA = hashlib.sha256(WAV).hexdigest()
MP4_SHA = hashlib.sha256(MP4).hexdigest()
ODD_TEXT = "  Température: 21 °C  \r\n\tcafe\u0301 \u2028 終わり  "
"""Text a normalizer would touch: outer and trailing spaces, CRLF, tab, combining accent,
U+2028 and CJK."""
MARK = '<conformance:tool_return tool_name="get_chart" tool_call_id="c1" />'

T = TypeVar("T")


def _only(items: tuple[T, ...]) -> T:
    assert len(items) == 1, items
    return items[0]


def _texts(result: WireToolResult | WireMessage) -> list[str | None]:
    return [p.text for p in result.parts]


def _fails_at(api: str, payload: dict[str, Any], path: str) -> None:
    with pytest.raises(WireFormatError) as caught:
        locate(api, payload)
    assert str(caught.value).startswith(f"{path}: "), str(caught.value)


# -- registry -----------------------------------------------------------------------------

NEW_APIS = {
    "gemini": gemini.locate,
    "bedrock-converse": bedrock_converse.locate,
    "mistral": mistral.locate,
    "groq": groq.locate,
    "xai": xai.locate,
    "huggingface": huggingface.locate,
}


def test_registry_lists_all_thirteen_apis() -> None:
    assert sorted(LOCATORS) == [
        "anthropic",
        "anthropic-bedrock",
        "anthropic-vertex",
        "bedrock-converse",
        "cohere",
        "gemini",
        "gemini-vertex",
        "groq",
        "huggingface",
        "mistral",
        "openai-chat",
        "openai-responses",
        "xai",
    ]


@pytest.mark.parametrize(("api", "locator"), NEW_APIS.items(), ids=list(NEW_APIS))
def test_new_apis_are_registered_under_their_names(api: str, locator: object) -> None:
    assert LOCATORS[api] is locator


@pytest.mark.parametrize(
    ("api", "payload"),
    [
        pytest.param("gemini", {"contents": []}, id="gemini"),
        pytest.param("bedrock-converse", {"modelId": "m", "messages": []}, id="bedrock"),
        pytest.param("mistral", {"model": "m", "messages": []}, id="mistral"),
        pytest.param("groq", {"model": "m", "messages": []}, id="groq"),
        pytest.param("xai", {"model": "m", "messages": []}, id="xai"),
        pytest.param("huggingface", {"model": "m", "messages": []}, id="huggingface"),
    ],
)
def test_an_empty_conversation_is_an_empty_view(api: str, payload: dict[str, Any]) -> None:
    view = locate(api, payload)
    assert view == WireView(api=api, strings=view.strings)


# -- Gemini generateContent ---------------------------------------------------------------


def test_gemini_text_response_is_exact() -> None:
    payload: dict[str, Any] = {
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "contents": [
            {"role": "user", "parts": [{"text": "weather?"}]},
            {
                "role": "model",
                "parts": [
                    {
                        "functionCall": {"id": "c1", "name": "get_weather", "args": {}},
                        "thoughtSignature": "c2ln",
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "get_weather",
                            "response": {"output": ODD_TEXT},
                        }
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "get_weather",
                            "response": {"result": ODD_TEXT, "unit": "C", "raw": {"t": 21}},
                        }
                    }
                ],
            },
        ],
    }
    view = locate("gemini", payload)
    output, result = view.tool_results
    part = _only(output.parts)
    assert (part.kind, part.text, part.path) == (
        "text",
        ODD_TEXT,
        "contents[2].parts[0].functionResponse.response.output",
    )
    assert (output.call_id, output.position, output.path, output.is_error) == (
        "c1",
        (2, 0),
        "contents[2].parts[0].functionResponse",
        None,
    )
    assert part.keyed is None, "`output` is the api's own slot"
    # No `output`/`error` key: the whole response is the output, every string value exact.
    assert [(p.kind, p.text, p.path.rsplit(".", 1)[1], p.keyed) for p in result.parts] == [
        (
            "text",
            ODD_TEXT,
            "result",
            "the value of key 'result' of response (the api's own slot: output)",
        ),
        ("text", "C", "unit", "the value of key 'unit' of response (the api's own slot: output)"),
        ("json", None, "raw", None),
    ]
    assert [(c.call_id, c.name, c.position, c.path) for c in view.tool_calls] == [
        ("c1", "get_weather", (1, 0), "contents[1].parts[0].functionCall")
    ]
    assert [(m.role, m.position, m.path, _texts(m)) for m in view.messages] == [
        ("system", (-1, 0), "systemInstruction", ["be brief"]),
        ("user", (0, 0), "contents[0]", ["weather?"]),
    ]
    assert view.messages[0].parts[0].path == "systemInstruction.parts[0]"


def test_gemini_non_string_output_is_json() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {
                "parts": [
                    {
                        "functionResponse": {
                            "name": "f",
                            "response": {"output": {"temp": 21}, "error": None},
                        }
                    }
                ]
            }
        ]
    }
    result = _only(locate("gemini", payload).tool_results)
    part = _only(result.parts)
    assert (part.kind, part.path, result.is_error) == (
        "json",
        "contents[0].parts[0].functionResponse.response.output",
        None,
    )


def test_gemini_media_in_function_response_camel_case() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get_chart"}}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "get_chart",
                            "response": {"output": "chart attached"},
                            "parts": [
                                {
                                    "inlineData": {
                                        "mimeType": "image/png",
                                        "data": PNG_B64,
                                        "displayName": "chart.png",
                                    }
                                },
                                {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}},
                                {
                                    "fileData": {
                                        "mimeType": "video/mp4",
                                        "fileUri": "gs://bucket/clip.mp4",
                                    },
                                    "videoMetadata": {"fps": 1},
                                },
                            ],
                        }
                    }
                ],
            },
        ]
    }
    result = _only(locate("gemini", payload).tool_results)
    text, image, pdf, video = result.parts
    assert (text.kind, text.text) == ("text", "chart attached")
    assert (image.kind, image.digest, image.media_type, image.path) == (
        "image",
        PNG_SHA,
        "image/png",
        "contents[1].parts[0].functionResponse.parts[0]",
    )
    assert (pdf.kind, pdf.digest, pdf.media_type) == ("document", PDF_SHA, "application/pdf")
    assert (video.kind, video.url, video.digest) == ("video", "gs://bucket/clip.mp4", None)


def test_gemini_media_in_function_response_snake_case() -> None:
    """google-genai sends `functionResponse.parts` in snake_case; URL-safe base64 and raw bytes
    give the same digest as standard base64."""
    payload: dict[str, Any] = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "function_response": {
                            "id": "c1",
                            "name": "get_chart",
                            "response": {"output": ""},
                            "parts": [
                                {"inline_data": {"mime_type": "image/png", "data": PNG_B64}},
                                {
                                    "inline_data": {
                                        "mime_type": "image/png",
                                        "data": PNG_B64_URLSAFE,
                                        "display_name": "chart.png",
                                    }
                                },
                                {"inline_data": {"mime_type": "image/png", "data": PNG}},
                                {"inline_data": {"mime_type": "audio/wav", "data": WAV_B64}},
                                {
                                    "file_data": {
                                        "mime_type": "text/plain",
                                        "file_uri": "https://e.x/notes.txt",
                                    }
                                },
                            ],
                        }
                    }
                ],
            }
        ]
    }
    assert "-" in PNG_B64_URLSAFE or "_" in PNG_B64_URLSAFE
    result = _only(locate("gemini", payload).tool_results)
    assert result.path == "contents[0].parts[0].function_response"
    empty, standard, urlsafe, raw, audio, notes = result.parts
    assert (empty.kind, empty.text) == ("text", "")
    assert [p.digest for p in (standard, urlsafe, raw)] == [PNG_SHA] * 3
    assert {p.kind for p in (standard, urlsafe, raw)} == {"image"}
    assert urlsafe.path == "contents[0].parts[0].function_response.parts[1]"
    assert (audio.kind, audio.digest, audio.media_type) == ("audio", WAV_SHA, "audio/wav")
    assert (notes.kind, notes.url, notes.media_type) == (
        "document",
        "https://e.x/notes.txt",
        "text/plain",
    )


def test_gemini_media_in_later_user_turn() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "get_chart", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_chart", "response": {"output": "below"}}},
                    {"text": MARK},
                    {"inlineData": {"mimeType": "image/png", "data": PNG_B64}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"inline_data": {"mime_type": "video/mp4", "data": MP4_B64}},
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "https://e.x/r.pdf"}},
                    {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                ],
            },
        ]
    }
    view = locate("gemini", payload)
    result = _only(view.tool_results)
    same, later = view.messages
    assert result.position == (1, 0)
    assert result.position < same.position == (1, 1) < later.position == (2, 0)
    assert (same.role, same.path, _texts(same)[0]) == ("user", "contents[1]", MARK)
    assert (same.parts[1].kind, same.parts[1].digest, same.parts[1].path) == (
        "image",
        PNG_SHA,
        "contents[1].parts[2]",
    )
    video, pdf, code = later.parts
    assert (video.kind, video.digest, video.media_type) == ("video", MP4_SHA, "video/mp4")
    assert (pdf.kind, pdf.url) == ("document", "https://e.x/r.pdf")
    assert (code.kind, code.path) == ("other", "contents[2].parts[2]")


def test_gemini_error_response() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "f", "response": {"error": "boom\r\n"}}},
                    {"functionResponse": {"name": "f", "response": {"error": {"code": 3}}}},
                    {"functionResponse": {"name": "f", "response": {"output": "ok"}}},
                    {"functionResponse": {"name": "f"}},
                ],
            }
        ]
    }
    failed, failed_json, succeeded, bare = locate("gemini", payload).tool_results
    assert (failed.is_error, _texts(failed)) == (True, ["boom\r\n"])
    assert failed.parts[0].path == "contents[0].parts[0].functionResponse.response.error"
    assert (failed_json.is_error, [p.kind for p in failed_json.parts]) == (True, ["json"])
    assert (succeeded.is_error, bare.is_error, bare.parts) == (None, None, ())


def test_gemini_parallel_calls_keep_their_order() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {"role": "user", "parts": [{"text": "two cities"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"id": "a", "name": "weather", "args": {"c": "Oslo"}}},
                    {"functionCall": {"id": "b", "name": "weather", "args": {"c": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "a",
                            "name": "weather",
                            "response": {"output": "cold"},
                        }
                    },
                    {
                        "functionResponse": {
                            "id": "b",
                            "name": "weather",
                            "response": {"output": "warm"},
                        }
                    },
                ],
            },
        ]
    }
    view = locate("gemini", payload)
    assert [(c.call_id, c.name, c.position) for c in view.tool_calls] == [
        ("a", "weather", (1, 0)),
        ("b", "weather", (1, 1)),
    ]
    assert [(r.call_id, r.position, _texts(r)) for r in view.tool_results] == [
        ("a", (2, 0), ["cold"]),
        ("b", (2, 1), ["warm"]),
    ]
    assert [m.role for m in view.messages] == ["user"]


def test_gemini_calls_without_ids_pair_by_order_and_name() -> None:
    payload: dict[str, Any] = {
        "contents": [
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "weather", "args": {"c": "Oslo"}}},
                    {"functionCall": {"name": "time", "args": {}}},
                    {"functionCall": {"name": "weather", "args": {"c": "Rome"}, "id": ""}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "weather", "response": {"output": "cold"}}},
                    {"functionResponse": {"name": "time", "response": {"output": "noon"}}},
                    {"functionResponse": {"name": "weather", "response": {"output": "warm"}}},
                    {"functionResponse": {"name": "weather", "response": {"output": "extra"}}},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"id": "x9", "name": "time"}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "time", "response": {}}}]},
        ]
    }
    view = locate("gemini", payload)
    assert [(c.call_id, c.name) for c in view.tool_calls] == [
        ("weather#0", "weather"),
        ("time#0", "time"),
        ("weather#1", "weather"),
        ("x9", "time"),
    ]
    assert [(r.call_id, _texts(r)) for r in view.tool_results] == [
        ("weather#0", ["cold"]),
        ("time#0", ["noon"]),
        ("weather#1", ["warm"]),
        ("weather#2", ["extra"]),
        ("x9", []),
    ]
    assert _texts(_only(tuple(view.results_for("weather#1")))) == ["warm"]


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        pytest.param({"systemInstruction": {"parts": []}}, "contents", id="no-contents"),
        pytest.param({"contents": [{"role": "user"}]}, "contents[0].parts", id="no-parts"),
        pytest.param(
            {"contents": [{"parts": ["hi"]}]}, "contents[0].parts[0]", id="part-not-object"
        ),
        pytest.param(
            {"contents": [{"parts": [{"thought": True}]}]},
            "contents[0].parts[0]",
            id="no-data-field",
        ),
        pytest.param(
            {"contents": [{"parts": [{"text": "a", "inlineData": {"data": PNG_B64}}]}]},
            "contents[0].parts[0]",
            id="two-data-fields",
        ),
        pytest.param(
            {"contents": [{"parts": [{"text": 3}]}]}, "contents[0].parts[0].text", id="text-int"
        ),
        pytest.param(
            {"contents": [{"parts": [{"functionResponse": {"response": {"output": "x"}}}]}]},
            "contents[0].parts[0].functionResponse.name",
            id="response-without-name",
        ),
        pytest.param(
            {"contents": [{"parts": [{"function_call": {"id": "c"}}]}]},
            "contents[0].parts[0].function_call.name",
            id="call-without-name",
        ),
        pytest.param(
            {"contents": [{"parts": [{"functionResponse": {"name": "f", "response": "x"}}]}]},
            "contents[0].parts[0].functionResponse.response",
            id="response-not-object",
        ),
        pytest.param(
            {
                "contents": [
                    {
                        "parts": [
                            {
                                "functionResponse": {
                                    "name": "f",
                                    "parts": [{"inline_data": {"data": PNG_B64}}],
                                }
                            }
                        ]
                    }
                ]
            },
            "contents[0].parts[0].functionResponse.parts[0].inline_data.mime_type",
            id="inline-without-mime-type",
        ),
        pytest.param(
            {
                "contents": [
                    {"parts": [{"inlineData": {"mimeType": "image/png", "mime_type": "image/png"}}]}
                ]
            },
            "contents[0].parts[0].inlineData.mime_type",
            id="both-spellings",
        ),
        pytest.param(
            {"contents": [{"parts": [{"inlineData": {"mimeType": "image/png", "data": 7}}]}]},
            "contents[0].parts[0].inlineData.data",
            id="data-not-text-or-bytes",
        ),
    ],
)
def test_gemini_malformed_payload_names_the_path(payload: dict[str, Any], path: str) -> None:
    _fails_at("gemini", payload, path)


# -- Bedrock Converse ---------------------------------------------------------------------


def test_bedrock_text_tool_result_is_exact() -> None:
    payload: dict[str, Any] = {
        "modelId": "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "system": [{"text": "be brief"}, {"cachePoint": {"type": "default"}}],
        "messages": [
            {"role": "user", "content": [{"text": "weather?"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": ODD_TEXT}, {"json": {"temp": 21}}],
                        }
                    },
                    {"cachePoint": {"type": "default"}},
                ],
            },
        ],
        "toolConfig": {"tools": []},
    }
    view = locate("bedrock-converse", payload)
    result = _only(view.tool_results)
    text, data = result.parts
    assert (text.kind, text.text, text.path) == (
        "text",
        ODD_TEXT,
        "messages[2].content[0].toolResult.content[0]",
    )
    assert (data.kind, data.path) == ("json", "messages[2].content[0].toolResult.content[1]")
    assert (result.call_id, result.position, result.path, result.is_error) == (
        "t1",
        (2, 0),
        "messages[2].content[0].toolResult",
        None,
    )
    assert [(c.call_id, c.name, c.position, c.path) for c in view.tool_calls] == [
        ("t1", "get_weather", (1, 0), "messages[1].content[0].toolUse")
    ]
    assert [(m.role, m.position, m.path, _texts(m)) for m in view.messages] == [
        ("system", (-1, 0), "system", ["be brief"]),
        ("user", (0, 0), "messages[0]", ["weather?"]),
    ]
    assert view.messages[0].parts[0].path == "system[0]"


def test_bedrock_native_media_raw_bytes_and_base64_give_the_same_digest() -> None:
    payload: dict[str, Any] = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "status": "success",
                            "content": [
                                {"image": {"format": "png", "source": {"bytes": PNG}}},
                                {"image": {"format": "png", "source": {"bytes": PNG_B64}}},
                                {
                                    "document": {
                                        "format": "pdf",
                                        "name": "report",
                                        "source": {"bytes": PDF},
                                    }
                                },
                                {
                                    "document": {
                                        "format": "txt",
                                        "name": "notes",
                                        "source": {"text": "héllo"},
                                    }
                                },
                                {
                                    "video": {
                                        "format": "mp4",
                                        "source": {"s3Location": {"uri": "s3://b/clip.mp4"}},
                                    }
                                },
                                {"video": {"format": "mp4", "source": {"bytes": MP4_B64}}},
                            ],
                        }
                    }
                ],
            }
        ]
    }
    view = locate("bedrock-converse", payload)
    raw, encoded, pdf, notes, linked, video = _only(view.tool_results).parts
    assert (raw.kind, raw.digest, raw.media_type) == ("image", PNG_SHA, "image/png")
    assert (encoded.kind, encoded.digest, encoded.media_type) == ("image", PNG_SHA, "image/png")
    assert raw.path == "messages[0].content[0].toolResult.content[0]"
    assert (pdf.kind, pdf.digest, pdf.media_type) == ("document", PDF_SHA, "application/pdf")
    notes_sha = hashlib.sha256("héllo".encode()).hexdigest()
    assert (notes.kind, notes.digest, notes.media_type) == ("document", notes_sha, "text/plain")
    assert (linked.kind, linked.url) == ("video", "s3://b/clip.mp4")
    assert (video.kind, video.digest, video.media_type) == ("video", MP4_SHA, "video/mp4")
    assert any(value == PNG_B64 for _, value in view.strings)


def test_bedrock_media_in_user_content_after_tool_results() -> None:
    payload: dict[str, Any] = {
        "messages": [
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "c1", "name": "get_chart", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": "c1", "content": [{"text": "below"}]}},
                    {"text": MARK},
                    {"image": {"format": "png", "source": {"bytes": PNG}}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"audio": {"format": "wav", "source": {"bytes": WAV_B64}}},
                    {"reasoningContent": {"reasoningText": {"text": "hm"}}},
                ],
            },
        ]
    }
    view = locate("bedrock-converse", payload)
    result = _only(view.tool_results)
    same, later = view.messages
    assert result.position == (1, 0)
    assert result.position < same.position == (1, 1) < later.position == (2, 0)
    assert [p.path for p in same.parts] == ["messages[1].content[1]", "messages[1].content[2]"]
    assert (same.parts[0].text, same.parts[1].kind, same.parts[1].digest) == (
        MARK,
        "image",
        PNG_SHA,
    )
    audio, reasoning = later.parts
    assert (audio.kind, audio.digest, audio.media_type) == ("audio", WAV_SHA, "audio/wav")
    assert (reasoning.kind, reasoning.path) == ("other", "messages[2].content[1]")


def test_bedrock_status_is_the_error_flag() -> None:
    payload: dict[str, Any] = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "a",
                            "status": "error",
                            "content": [{"text": "boom"}],
                        }
                    },
                    {"toolResult": {"toolUseId": "b", "status": "success", "content": []}},
                    {"toolResult": {"toolUseId": "c", "content": [{"text": "ok"}]}},
                ],
            }
        ]
    }
    view = locate("bedrock-converse", payload)
    assert [(r.call_id, r.is_error, _texts(r)) for r in view.tool_results] == [
        ("a", True, ["boom"]),
        ("b", False, []),
        ("c", None, ["ok"]),
    ]


def test_bedrock_parallel_tool_use_keeps_its_order() -> None:
    payload: dict[str, Any] = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {"text": "checking"},
                    {"toolUse": {"toolUseId": "a", "name": "weather", "input": {"c": "Oslo"}}},
                    {"toolUse": {"toolUseId": "b", "name": "weather", "input": {"c": "Rome"}}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": "a", "content": [{"text": "cold"}]}},
                    {"toolResult": {"toolUseId": "b", "content": [{"text": "warm"}]}},
                ],
            },
        ]
    }
    view = locate("bedrock-converse", payload)
    assert [(c.call_id, c.position) for c in view.tool_calls] == [("a", (0, 1)), ("b", (0, 2))]
    assert [(r.call_id, r.position, _texts(r)) for r in view.tool_results] == [
        ("a", (1, 0), ["cold"]),
        ("b", (1, 1), ["warm"]),
    ]
    assistant = _only(view.messages)
    assert (assistant.role, assistant.position, _texts(assistant)) == (
        "assistant",
        (0, 0),
        ["checking"],
    )


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        pytest.param({"modelId": "m"}, "messages", id="no-messages"),
        pytest.param({"messages": [{"role": "user"}]}, "messages[0].content", id="no-content"),
        pytest.param(
            {
                "messages": [
                    {"role": "user", "content": [{"text": "a", "image": {"format": "png"}}]}
                ]
            },
            "messages[0].content[0]",
            id="two-union-members",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"text": None}]}]},
            "messages[0].content[0]",
            id="no-union-member",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"text": ["a"]}]}]},
            "messages[0].content[0].text",
            id="text-not-string",
        ),
        pytest.param(
            {
                "messages": [
                    {"role": "user", "content": [{"toolResult": {"content": [{"text": "x"}]}}]}
                ]
            },
            "messages[0].content[0].toolResult.toolUseId",
            id="result-without-tool-use-id",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"toolResult": {"toolUseId": "t"}}]}]},
            "messages[0].content[0].toolResult.content",
            id="result-without-content",
        ),
        pytest.param(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "toolResult": {
                                    "toolUseId": "t",
                                    "content": [{"text": "x"}],
                                    "status": "failed",
                                }
                            }
                        ],
                    }
                ]
            },
            "messages[0].content[0].toolResult.status",
            id="unknown-status",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"image": {"format": "png"}}]}]},
            "messages[0].content[0].image.source",
            id="image-without-source",
        ),
        pytest.param(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"image": {"format": "png", "source": {"bytes": 12}}}],
                    }
                ]
            },
            "messages[0].content[0].image.source.bytes",
            id="bytes-not-bytes",
        ),
        pytest.param(
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"toolUse": {"toolUseId": "t", "input": {"q": 1}}}],
                    }
                ]
            },
            "messages[0].content[0].toolUse.name",
            id="tool-use-without-name",
        ),
        pytest.param(
            {"system": [{"text": 1}], "messages": []}, "system[0].text", id="system-text-int"
        ),
    ],
)
def test_bedrock_malformed_payload_names_the_path(payload: dict[str, Any], path: str) -> None:
    _fails_at("bedrock-converse", payload, path)


# -- Mistral chat completions -------------------------------------------------------------


def _mistral_call(*ids: str, name: str = "get_chart") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}
            for i in ids
        ],
    }


def test_mistral_text_tool_result_is_exact() -> None:
    payload: dict[str, Any] = {
        "model": "mistral-large-latest",
        "messages": [
            {"role": "system", "content": "be brief"},
            _mistral_call("c1"),
            {"role": "tool", "tool_call_id": "c1", "name": "get_chart", "content": ODD_TEXT},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "text", "text": ODD_TEXT}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": None},
        ],
    }
    view = locate("mistral", payload)
    string_form, list_form, empty = view.tool_results
    assert (_only(string_form.parts).text, _only(string_form.parts).path) == (
        ODD_TEXT,
        "messages[2].content",
    )
    assert (_only(list_form.parts).text, _only(list_form.parts).path) == (
        ODD_TEXT,
        "messages[3].content[0]",
    )
    assert (empty.parts, string_form.is_error, string_form.position) == ((), None, (2, 0))
    assert [(c.call_id, c.name, c.path) for c in view.tool_calls] == [
        ("c1", "get_chart", "messages[1].tool_calls[0]")
    ]
    assert [(m.role, m.position) for m in view.messages] == [("system", (0, 0))]


def test_mistral_chunks_in_tool_message() -> None:
    payload: dict[str, Any] = {
        "model": "mistral-medium-latest",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": "chart"},
                    {"type": "image_url", "image_url": f"data:image/png;base64,{PNG_B64}"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://e.x/c.png", "detail": "low"},
                    },
                    {
                        "type": "document_url",
                        "document_url": "https://e.x/r.pdf",
                        "document_name": "r.pdf",
                    },
                    {
                        "type": "document_url",
                        "document_url": f"data:application/pdf;base64,{PDF_B64}",
                    },
                    {"type": "input_audio", "input_audio": WAV_B64},
                    {"type": "file", "file_id": "f-123"},
                    {"type": "reference", "reference_ids": [1, 2]},
                ],
            }
        ],
    }
    result = _only(locate("mistral", payload).tool_results)
    text, image, linked, pdf_url, pdf, audio, uploaded, reference = result.parts
    assert text.text == "chart"
    assert (image.kind, image.digest, image.media_type, image.path) == (
        "image",
        PNG_SHA,
        "image/png",
        "messages[0].content[1]",
    )
    assert (linked.kind, linked.url) == ("image", "https://e.x/c.png")
    assert (pdf_url.kind, pdf_url.url) == ("document", "https://e.x/r.pdf")
    assert (pdf.kind, pdf.digest) == ("document", PDF_SHA)
    assert (audio.kind, audio.digest) == ("audio", WAV_SHA)
    assert (uploaded.kind, uploaded.url) == ("document", "file-id:f-123")
    assert (reference.kind, reference.path) == ("other", "messages[0].content[7]")


def test_mistral_media_in_later_user_message_and_thinking() -> None:
    payload: dict[str, Any] = {
        "model": "magistral-medium-latest",
        "messages": [
            _mistral_call("c1"),
            {"role": "tool", "tool_call_id": "c1", "content": "below"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": MARK},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": [
                            {"type": "text", "text": "look"},
                            {"type": "text", "text": "ok"},
                        ],
                    },
                    {"type": "text", "text": "done"},
                ],
            },
        ],
    }
    view = locate("mistral", payload)
    result = _only(view.tool_results)
    user, assistant = view.messages
    assert result.position < user.position == (2, 0)
    assert (user.parts[0].text, user.parts[1].kind, user.parts[1].digest) == (
        MARK,
        "image",
        PNG_SHA,
    )
    assert [(p.text, p.path) for p in assistant.parts] == [
        ("look", "messages[3].content[0].thinking[0]"),
        ("ok", "messages[3].content[0].thinking[1]"),
        ("done", "messages[3].content[1]"),
    ]


def test_mistral_sdk_rewritten_unknown_chunks() -> None:
    payload: dict[str, Any] = {
        "model": "mistral-large-latest",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {
                        "type": "UNKNOWN",
                        "raw": {
                            "type": "video_url",
                            "video_url": {"url": f"data:video/mp4;base64,{MP4_B64}"},
                        },
                        "is_unknown": True,
                    },
                    {
                        "type": "UNKNOWN",
                        "raw": {"type": "image_url"},
                        "is_unknown": True,
                    },
                    {"type": "UNKNOWN", "raw": "garbage", "is_unknown": True},
                    {"type": "input_video", "input_video": "x"},
                ],
            }
        ],
    }
    video, broken, garbage, made_up = _only(locate("mistral", payload).tool_results).parts
    assert (video.kind, video.digest, video.media_type, video.path) == (
        "video",
        MP4_SHA,
        "video/mp4",
        "messages[0].content[0]",
    )
    assert (broken.kind, broken.digest, broken.url) == ("other", None, None)
    assert (garbage.kind, garbage.path) == ("other", "messages[0].content[2]")
    assert made_up.kind == "video"


def test_mistral_parallel_tool_calls_keep_their_order() -> None:
    payload: dict[str, Any] = {
        "model": "mistral-large-latest",
        "messages": [
            _mistral_call("a", "b", name="weather"),
            {"role": "tool", "tool_call_id": "a", "name": "weather", "content": "cold"},
            {"role": "tool", "tool_call_id": "b", "name": "weather", "content": "warm"},
        ],
    }
    view = locate("mistral", payload)
    assert [(c.call_id, c.position) for c in view.tool_calls] == [("a", (0, 0)), ("b", (0, 1))]
    assert [(r.call_id, r.position, _texts(r)) for r in view.tool_results] == [
        ("a", (1, 0), ["cold"]),
        ("b", (2, 0), ["warm"]),
    ]


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        pytest.param({"model": "m"}, "messages", id="no-messages"),
        pytest.param(
            {"messages": [{"role": "tool", "content": "x"}]},
            "messages[0].tool_call_id",
            id="tool-without-call-id",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages[0].content[0].image_url",
            id="image-without-url",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"type": "input_audio"}]}]},
            "messages[0].content[0].input_audio",
            id="audio-without-data",
        ),
        pytest.param(
            {"messages": [{"role": "user", "content": [{"type": "thinking", "thinking": "x"}]}]},
            "messages[0].content[0].thinking",
            id="thinking-not-list",
        ),
        pytest.param(
            {"messages": [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}]},
            "messages[0].tool_calls[0].id",
            id="call-without-id",
        ),
    ],
)
def test_mistral_malformed_payload_names_the_path(payload: dict[str, Any], path: str) -> None:
    _fails_at("mistral", payload, path)


# -- Groq, xAI and Hugging Face: OpenAI-chat-shaped bodies ----------------------------------


def _chat_call(*ids: str, name: str = "get_chart") -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}
            for i in ids
        ],
    }


@pytest.mark.parametrize("api", ["groq", "xai", "huggingface"])
def test_chat_apis_text_tool_result_is_exact(api: str) -> None:
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "chart?"},
            _chat_call("c1"),
            {"role": "tool", "tool_call_id": "c1", "content": ODD_TEXT},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": ODD_TEXT}]},
        ],
    }
    view = locate(api, payload)
    assert view.api == api
    string_form, list_form = view.tool_results
    assert (_only(string_form.parts).text, _only(string_form.parts).path) == (
        ODD_TEXT,
        "messages[3].content",
    )
    assert (_only(list_form.parts).text, _only(list_form.parts).path) == (
        ODD_TEXT,
        "messages[4].content[0]",
    )
    assert (string_form.call_id, string_form.position, string_form.is_error) == (
        "c1",
        (3, 0),
        None,
    )
    assert [(c.call_id, c.name, c.position) for c in view.tool_calls] == [
        ("c1", "get_chart", (2, 0))
    ]
    assert [(m.role, m.position) for m in view.messages] == [("system", (0, 0)), ("user", (1, 0))]


@pytest.mark.parametrize("api", ["groq", "xai", "huggingface"])
def test_chat_apis_image_in_later_user_message(api: str) -> None:
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            _chat_call("c1"),
            {"role": "tool", "tool_call_id": "c1", "content": "below"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": MARK},
                    {
                        "type": "image_url",
                        "image_url": {"url": f"data:image/png;base64,{PNG_B64}", "detail": "auto"},
                    },
                    {"type": "image_url", "image_url": {"url": "https://e.x/c.png"}},
                ],
            },
        ],
    }
    view = locate(api, payload)
    user = _only(view.messages)
    assert _only(view.tool_results).position < user.position == (2, 0)
    marker, image, linked = user.parts
    assert marker.text == MARK
    assert (image.kind, image.digest, image.media_type, image.path) == (
        "image",
        PNG_SHA,
        "image/png",
        "messages[2].content[1]",
    )
    assert (linked.kind, linked.url) == ("image", "https://e.x/c.png")


@pytest.mark.parametrize("api", ["groq", "xai", "huggingface"])
def test_chat_apis_parallel_calls_keep_their_order(api: str) -> None:
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            _chat_call("a", "b", name="weather"),
            {"role": "tool", "tool_call_id": "a", "content": "cold"},
            {"role": "tool", "tool_call_id": "b", "content": [{"type": "text", "text": "warm"}]},
        ],
    }
    view = locate(api, payload)
    assert [(c.call_id, c.position, c.path) for c in view.tool_calls] == [
        ("a", (0, 0), "messages[0].tool_calls[0]"),
        ("b", (0, 1), "messages[0].tool_calls[1]"),
    ]
    assert [(r.call_id, r.position, _texts(r)) for r in view.tool_results] == [
        ("a", (1, 0), ["cold"]),
        ("b", (2, 0), ["warm"]),
    ]


@pytest.mark.parametrize("api", ["groq", "xai", "huggingface"])
def test_chat_apis_image_in_tool_message_is_reported_where_it_is(api: str) -> None:
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": "chart"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
                    {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
                ],
            }
        ],
    }
    _, image, audio = _only(locate(api, payload).tool_results).parts
    assert (image.kind, image.digest, image.path) == ("image", PNG_SHA, "messages[0].content[1]")
    assert (audio.kind, audio.digest) == ("audio", WAV_SHA)


def test_groq_document_part_is_json() -> None:
    payload: dict[str, Any] = {
        "model": "llama-3.3-70b-versatile",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [
                    {"type": "text", "text": ODD_TEXT},
                    {"type": "document", "document": {"data": {"temp": 21}, "id": "d1"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "document", "document": {"data": {"k": "v"}}}],
            },
        ],
    }
    view = locate("groq", payload)
    text, document = _only(view.tool_results).parts
    assert (text.kind, text.text) == ("text", ODD_TEXT)
    assert (document.kind, document.path) == ("json", "messages[0].content[1]")
    assert [(p.kind, p.path) for p in _only(view.messages).parts] == [
        ("json", "messages[1].content[0]")
    ]


def test_xai_file_parts() -> None:
    payload: dict[str, Any] = {
        "model": "grok-4",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "file", "file": {"file_id": "file-abc"}},
                    {
                        "type": "file",
                        "file": {"data": PNG_B64, "mime_type": "image/png", "filename": "c.png"},
                    },
                    {
                        "type": "file",
                        "file": {
                            "file_data": f"data:application/pdf;base64,{PDF_B64}",
                            "filename": "r.pdf",
                        },
                    },
                    {"type": "file", "file": {"url": "https://e.x/r.pdf"}},
                    {"type": "input_file", "file_url": "https://e.x/notes.txt"},
                    {"type": "input_file", "file_id": "file-def", "mime_type": "video/mp4"},
                ],
            }
        ],
    }
    uploaded, image, pdf, linked, notes, video = _only(locate("xai", payload).messages).parts
    assert (uploaded.kind, uploaded.url, uploaded.path) == (
        "document",
        "file-id:file-abc",
        "messages[0].content[0]",
    )
    assert (image.kind, image.digest, image.media_type) == ("image", PNG_SHA, "image/png")
    assert (pdf.kind, pdf.digest, pdf.media_type) == ("document", PDF_SHA, "application/pdf")
    assert (linked.kind, linked.url) == ("document", "https://e.x/r.pdf")
    assert (notes.kind, notes.url) == ("document", "https://e.x/notes.txt")
    assert (video.kind, video.url) == ("video", "file-id:file-def")


@pytest.mark.parametrize(
    ("api", "payload", "path"),
    [
        pytest.param("groq", {"model": "m"}, "messages", id="groq-no-messages"),
        pytest.param(
            "groq",
            {
                "messages": [
                    {"role": "tool", "tool_call_id": "c", "content": [{"type": "document"}]}
                ]
            },
            "messages[0].content[0].document",
            id="groq-document-without-document",
        ),
        pytest.param(
            "groq",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "document", "document": {"id": "d"}}],
                    }
                ]
            },
            "messages[0].content[0].document.data",
            id="groq-document-without-data",
        ),
        pytest.param(
            "xai",
            {"messages": [{"role": "user", "content": [{"type": "file"}]}]},
            "messages[0].content[0].file",
            id="xai-file-without-file",
        ),
        pytest.param(
            "xai",
            {"messages": [{"role": "user", "content": [{"type": "file", "file": {"data": 1}}]}]},
            "messages[0].content[0].file.data",
            id="xai-file-data-not-string",
        ),
        pytest.param(
            "huggingface",
            {"messages": [{"role": "tool", "content": "x"}]},
            "messages[0].tool_call_id",
            id="hf-tool-without-call-id",
        ),
        pytest.param(
            "huggingface",
            {"messages": [{"role": "tool", "tool_call_id": "c"}]},
            "messages[0].content",
            id="hf-tool-without-content",
        ),
        pytest.param(
            "huggingface",
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"detail": "auto"}}],
                    }
                ]
            },
            "messages[0].content[0].image_url.url",
            id="hf-image-without-url",
        ),
    ],
)
def test_chat_apis_malformed_payload_names_the_path(
    api: str, payload: dict[str, Any], path: str
) -> None:
    _fails_at(api, payload, path)


_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n interleaved").decode("ascii")


def _interleaved(api: str) -> dict[str, Any]:
    """Two parallel calls' results, each followed by its own image, in one user message."""
    calls: list[dict[str, Any]]
    result: list[dict[str, Any]]
    image: dict[str, Any]
    match api:
        case "bedrock-converse":
            image = {"image": {"format": "png", "source": {"bytes": _PNG}}}
            result = [
                {"toolResult": {"toolUseId": f"c{n}", "content": [{"text": "ok"}]}} for n in (1, 2)
            ]
            calls = [{"toolUse": {"toolUseId": f"c{n}", "name": "t", "input": {}}} for n in (1, 2)]
            return {
                "messages": [
                    {"role": "assistant", "content": calls},
                    {"role": "user", "content": [result[0], image, result[1], image]},
                ]
            }
        case "anthropic":
            source = {"type": "base64", "media_type": "image/png", "data": _PNG}
            image = {"type": "image", "source": source}
            calls = [{"type": "tool_use", "id": f"c{n}", "name": "t", "input": {}} for n in (1, 2)]
            result = [{"type": "tool_result", "tool_use_id": f"c{n}"} for n in (1, 2)]
            return {
                "messages": [
                    {"role": "assistant", "content": calls},
                    {"role": "user", "content": [result[0], image, result[1], image]},
                ]
            }
        case _:
            image = {"inlineData": {"mimeType": "image/png", "data": _PNG}}
            calls = [{"functionCall": {"id": f"c{n}", "name": "t", "args": {}}} for n in (1, 2)]
            result = [
                {"functionResponse": {"id": f"c{n}", "name": "t", "response": {"output": "ok"}}}
                for n in (1, 2)
            ]
            return {
                "contents": [
                    {"role": "model", "parts": calls},
                    {"role": "user", "parts": [result[0], image, result[1], image]},
                ]
            }


@pytest.mark.parametrize("api", ["bedrock-converse", "anthropic", "gemini"])
def test_positions_are_per_block_in_an_interleaved_turn(api: str) -> None:
    """Media right after its own result sits after that result and before the next one (it
    used to be positioned at the message's first own block, "before" the second result)."""
    view = locate(api, _interleaved(api))
    first, second = (r.position for r in view.tool_results)
    message = _only_message(view)
    assert [message.position_of(i) for i in range(len(message.parts))] == [(1, 1), (1, 3)]
    assert first < message.position_of(0) < second < message.position_of(1)


def _only_message(view: WireView) -> WireMessage:
    (message,) = view.messages
    return message
