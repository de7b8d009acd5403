"""Self-tests of the sdk-schema check, on hand-written payloads in each api's documented shape.

The official SDKs come from the `sdks` dependency group; each test that needs one skips
when it is missing (the `test` group includes them, for the cassette check).
"""

from __future__ import annotations

import base64
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from conformance.history import History
from conformance.judging.checks import evaluate, run_cell
from conformance.matrix import CellSpec, load_matrix
from conformance.recording import sdk_schema
from conformance.recording.sdk_schema import APIS, SdkMissing, validate
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget
from mutants import NativeEverywhere

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01"
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
WAV = b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
PNG_B64 = base64.b64encode(PNG).decode()
PDF_B64 = base64.b64encode(PDF).decode()
WAV_B64 = base64.b64encode(WAV).decode()
PNG_URL = f"data:image/png;base64,{PNG_B64}"
PDF_URL = f"data:application/pdf;base64,{PDF_B64}"
MARKER = '<conformance:tool_return tool_name="get_chart" tool_call_id="call_1" />'

SDK_MODULE = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "google.genai",
    "bedrock-converse": "botocore",
    "mistral": "mistralai.client",
    "cohere": "cohere",
    "groq": "groq",
    "xai": "openai",
    "huggingface": "openai",
    "anthropic-vertex": "anthropic",
    "gemini-vertex": "google.genai",
    "anthropic-bedrock": "anthropic",
}
"""The module whose absence skips a test of an api."""


def _needs_sdk(api: str) -> None:
    pytest.importorskip(SDK_MODULE[api])


def _naming(problems: list[str], place: str) -> list[str]:
    """The problems that name `place`; asserts there is one and that none is about elsewhere."""
    assert problems, "expected the SDK to reject the payload"
    assert all(place in problem for problem in problems), problems
    return problems


# -- valid payloads, one per api -------------------------------------------------------------

OPENAI_CHAT_VALID: dict[str, Any] = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Chart it."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_chart", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "ok"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": MARKER},
                {"type": "image_url", "image_url": {"url": PNG_URL, "detail": "auto"}},
                {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
                {"type": "file", "file": {"file_data": PDF_URL, "filename": "r.pdf"}},
            ],
        },
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "get_chart", "parameters": {"type": "object", "properties": {}}},
        }
    ],
}

VALID: dict[str, dict[str, Any]] = {
    "openai-chat": OPENAI_CHAT_VALID,
    "openai-responses": {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "Chart it."},
            {"type": "function_call", "call_id": "call_1", "name": "get_chart", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [
                    {"type": "input_text", "text": "chart attached"},
                    {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
                    {"type": "input_file", "filename": "r.pdf", "file_data": PDF_URL},
                ],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": MARKER},
                    {"type": "input_image", "image_url": PNG_URL, "detail": "auto"},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "name": "get_chart",
                "parameters": {"type": "object", "properties": {}},
                "strict": False,
            }
        ],
    },
    "anthropic": {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Chart it."},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "get_chart", "input": {}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "is_error": False,
                        "content": [
                            {"type": "text", "text": "chart attached"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG_B64,
                                },
                            },
                            {
                                "type": "document",
                                "source": {
                                    "type": "base64",
                                    "media_type": "application/pdf",
                                    "data": PDF_B64,
                                },
                                "title": "r.pdf",
                            },
                        ],
                    }
                ],
            },
        ],
        "tools": [{"name": "get_chart", "input_schema": {"type": "object", "properties": {}}}],
    },
    "gemini": {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Chart it."}]},
            {
                "role": "model",
                "parts": [{"functionCall": {"id": "call_1", "name": "get_chart", "args": {}}}],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_1",
                            "name": "get_chart",
                            "response": {"output": "chart attached"},
                            "parts": [
                                {"inlineData": {"mimeType": "image/png", "data": PNG_B64}},
                                {"inlineData": {"mimeType": "application/pdf", "data": PDF_B64}},
                            ],
                        }
                    }
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"text": MARKER},
                    {"inlineData": {"mimeType": "audio/wav", "data": WAV_B64}},
                ],
            },
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "get_chart", "parametersJsonSchema": {"type": "object"}}
                ]
            }
        ],
        "generationConfig": {"maxOutputTokens": 256},
    },
    "bedrock-converse": {
        "modelId": "amazon.nova-pro-v1:0",
        "system": [{"text": "Be brief."}],
        "messages": [
            {"role": "user", "content": [{"text": "Chart it."}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "get_chart", "input": {}}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "status": "success",
                            "content": [
                                {"text": "chart attached"},
                                {"json": {"points": 3}},
                                {"image": {"format": "png", "source": {"bytes": PNG}}},
                                {
                                    "document": {
                                        "format": "pdf",
                                        "name": "r",
                                        "source": {"bytes": PDF},
                                    }
                                },
                                {
                                    "video": {
                                        "format": "mp4",
                                        "source": {"s3Location": {"uri": "s3://b/v.mp4"}},
                                    }
                                },
                            ],
                        }
                    },
                    {"text": MARKER},
                    {"audio": {"format": "wav", "source": {"bytes": WAV}}},
                ],
            },
        ],
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": "get_chart", "inputSchema": {"json": {"type": "object"}}}}
            ]
        },
        "inferenceConfig": {"maxTokens": 256},
    },
    "mistral": {
        "model": "mistral-medium-latest",
        "messages": [
            {"role": "user", "content": "Chart it."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_chart", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "name": "get_chart", "content": "ok"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": MARKER},
                    {"type": "image_url", "image_url": PNG_URL},
                    {"type": "document_url", "document_url": "https://example.com/r.pdf"},
                    {"type": "input_audio", "input_audio": WAV_B64},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_chart", "parameters": {"type": "object"}},
            }
        ],
    },
    "cohere": {
        "model": "command-a-03-2025",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Chart it."},
            {
                "role": "assistant",
                "tool_plan": "Call get_chart.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_chart", "arguments": "{}"},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [
                    {"type": "text", "text": "chart attached"},
                    {"type": "document", "document": {"data": {"points": 3}, "id": "doc1"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": MARKER},
                    {"type": "image_url", "image_url": {"url": PNG_URL, "detail": "auto"}},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_chart", "parameters": {"type": "object"}},
            }
        ],
    },
    "groq": {
        "model": "meta-llama/llama-4-scout-17b-16e-instruct",
        "messages": [
            {"role": "user", "content": "Chart it."},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_chart", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "chart attached"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": MARKER},
                    {"type": "image_url", "image_url": {"url": PNG_URL, "detail": "auto"}},
                ],
            },
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_chart", "parameters": {"type": "object"}},
            }
        ],
    },
    "xai": {**OPENAI_CHAT_VALID, "model": "grok-4", "search_parameters": {"mode": "off"}},
    "huggingface": {**OPENAI_CHAT_VALID, "model": "Qwen/Qwen2.5-VL-7B-Instruct"},
}
VALID["anthropic-vertex"] = {
    "anthropic_version": "vertex-2023-10-16",
    **{k: v for k, v in VALID["anthropic"].items() if k != "model"},
}
VALID["gemini-vertex"] = VALID["gemini"]
VALID["anthropic-bedrock"] = {
    "anthropic_version": "bedrock-2023-05-31",
    **{k: v for k, v in VALID["anthropic"].items() if k != "model"},
}


def test_apis_are_the_ten_of_the_design_the_vertex_ones_and_bedrock_invoke() -> None:
    assert APIS == tuple(VALID) == tuple(SDK_MODULE)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"model": "claude-sonnet-5-5"}, "model: not part of a Vertex body"),
        ({"anthropic_version": "2023-06-01"}, "anthropic_version: Input should be"),
        ({"anthropic_version": None}, "anthropic_version: Field required"),
    ],
)
def test_anthropic_vertex_checks_its_two_differences(change: dict[str, Any], expected: str) -> None:
    _needs_sdk("anthropic-vertex")
    payload = {**VALID["anthropic-vertex"], **change}
    payload = {k: v for k, v in payload.items() if v is not None}
    problems = validate("anthropic-vertex", payload)
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("api", APIS)
def test_valid_payload_passes(api: str) -> None:
    _needs_sdk(api)
    assert validate(api, VALID[api]) == []


def test_responses_input_may_be_a_string() -> None:
    _needs_sdk("openai-responses")
    assert validate("openai-responses", {"model": "gpt-5", "input": "hello"}) == []


def test_gemini_accepts_snake_case_and_the_sdk_call_shape() -> None:
    _needs_sdk("gemini")
    payload: dict[str, Any] = {
        "model": "gemini-3-pro-preview",
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "function_response": {
                            "name": "get_chart",
                            "response": {"output": "ok"},
                            "parts": [{"inline_data": {"mime_type": "image/webp", "data": PNG}}],
                        }
                    }
                ],
            }
        ],
        "config": {"system_instruction": "Be brief.", "max_output_tokens": 256},
    }
    assert validate("gemini", payload) == []


# -- broken payloads: each names the place ---------------------------------------------------


def test_openai_chat_tool_message_takes_text_parts_only() -> None:
    _needs_sdk("openai-chat")
    payload: dict[str, Any] = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Chart it."},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_chart", "arguments": "{}"},
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "image_url", "image_url": {"url": PNG_URL}}],
            },
        ],
    }
    # Found only by consuming the lazily validated `content` iterable (provider-facts §3.1).
    problems = _naming(validate("openai-chat", payload), "messages[2].content[0]")
    assert "messages[2].content[0].type: Input should be 'text'" in problems


@pytest.mark.parametrize("api", ["xai", "huggingface"])
def test_openai_stand_ins_reject_what_openai_chat_rejects(api: str) -> None:
    _needs_sdk(api)
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c",
                "content": [{"type": "input_audio", "input_audio": {}}],
            }
        ],
    }
    _naming(validate(api, payload), "messages[0].content[0]")


def test_bedrock_tool_result_has_no_audio_block() -> None:
    _needs_sdk("bedrock-converse")
    payload: dict[str, Any] = {
        "modelId": "amazon.nova-pro-v1:0",
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"audio": {"format": "wav", "source": {"bytes": WAV}}}],
                        }
                    }
                ],
            }
        ],
    }
    (problem,) = _naming(
        validate("bedrock-converse", payload), "messages[0].content[0].toolResult.content[0]"
    )
    assert '"audio"' in problem


def test_bedrock_blob_given_as_base64_str() -> None:
    _needs_sdk("bedrock-converse")
    payload: dict[str, Any] = {
        "modelId": "amazon.nova-pro-v1:0",
        "messages": [
            {
                "role": "user",
                "content": [{"image": {"format": "png", "source": {"bytes": PNG_B64}}}],
            }
        ],
    }
    # botocore itself accepts the str, then base64-encodes it a second time on the wire.
    (problem,) = _naming(
        validate("bedrock-converse", payload), "messages[0].content[0].image.source.bytes"
    )
    assert "raw bytes" in problem


def test_bedrock_enum_value_botocore_does_not_check() -> None:
    _needs_sdk("bedrock-converse")
    payload: dict[str, Any] = {
        "modelId": "amazon.nova-pro-v1:0",
        "messages": [
            {"role": "user", "content": [{"image": {"format": "bmp", "source": {"bytes": PNG}}}]}
        ],
    }
    (problem,) = _naming(
        validate("bedrock-converse", payload), "messages[0].content[0].image.format"
    )
    assert "'bmp'" in problem


def test_anthropic_tool_result_has_no_audio_block() -> None:
    _needs_sdk("anthropic")
    payload: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [
                            {"type": "text", "text": "ok"},
                            {
                                "type": "audio",
                                "source": {
                                    "type": "base64",
                                    "media_type": "audio/wav",
                                    "data": WAV_B64,
                                },
                            },
                        ],
                    }
                ],
            }
        ],
    }
    # One finding for the block, not one per member of the SDK's content-block union.
    (problem,) = _naming(validate("anthropic", payload), "messages[0].content[0].content[1].type")
    assert "'image'" in problem


def test_anthropic_misspelled_key_is_reported_not_dropped() -> None:
    _needs_sdk("anthropic")
    payload: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_contrl": {"type": "ephemeral"}}],
            }
        ],
    }
    (problem,) = _naming(validate("anthropic", payload), "messages[0].content[0].cache_contrl")
    assert "Unknown key" in problem


def test_anthropic_body_keys_are_checked() -> None:
    _needs_sdk("anthropic")
    payload: dict[str, Any] = {"model": "claude-sonnet-4-5", "messages": [], "system": 3}
    problems = validate("anthropic", payload)
    assert any(p.startswith("max_tokens: ") for p in problems), problems
    assert any(p.startswith("system") for p in problems), problems


def test_responses_function_output_has_no_audio_item() -> None:
    _needs_sdk("openai-responses")
    payload: dict[str, Any] = {
        "model": "gpt-5",
        "input": [
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [
                    {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}}
                ],
            }
        ],
    }
    (problem,) = _naming(validate("openai-responses", payload), "input[0].output[0].type")
    assert "'input_image'" in problem


def test_mistral_has_no_video_chunk() -> None:
    _needs_sdk("mistral")
    payload: dict[str, Any] = {
        "model": "mistral-medium-latest",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "video_url", "video_url": "https://example.com/v.mp4"}],
            }
        ],
    }
    # Mistral's model classes would take this as an `UnknownContentChunk`; its TypedDicts reject it.
    (problem,) = _naming(validate("mistral", payload), "messages[0].content[0].type")
    assert "'image_url'" in problem


def test_cohere_tool_message_has_no_image() -> None:
    _needs_sdk("cohere")
    payload: dict[str, Any] = {
        "model": "command-a-03-2025",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "image_url", "image_url": {"url": PNG_URL}}],
            }
        ],
    }
    (problem,) = _naming(validate("cohere", payload), "messages[0].content[0].type")
    assert "'document'" in problem


def test_cohere_extra_key_is_reported() -> None:
    _needs_sdk("cohere")
    payload: dict[str, Any] = {
        "model": "command-a-03-2025",
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c",
                "content": [{"type": "text", "txt": "x", "text": "x"}],
            }
        ],
    }
    (problem,) = _naming(validate("cohere", payload), "messages[0].content[0].txt")
    assert "Unknown key" in problem


def test_gemini_function_response_part_has_no_text() -> None:
    _needs_sdk("gemini")
    payload: dict[str, Any] = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "get_chart",
                            "response": {"output": "ok"},
                            "parts": [{"text": "chart attached"}],
                        }
                    }
                ],
            }
        ]
    }
    (problem,) = _naming(
        validate("gemini", payload), "contents[0].parts[0].functionResponse.parts[0].text"
    )
    assert "Extra inputs are not permitted" in problem


def test_gemini_function_response_mime_type_outside_the_allowlist() -> None:
    _needs_sdk("gemini")
    payload: dict[str, Any] = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "name": "get_chart",
                            "response": {"output": "ok"},
                            "parts": [{"inlineData": {"mimeType": "audio/wav", "data": WAV_B64}}],
                        }
                    }
                ],
            }
        ]
    }
    place = "contents[0].parts[0].functionResponse.parts[0].inlineData.mimeType"
    (problem,) = _naming(validate("gemini", payload), place)
    assert "'audio/wav'" in problem


def test_groq_rejects_audio_part() -> None:
    _needs_sdk("groq")
    payload: dict[str, Any] = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": WAV_B64}}]}
        ],
    }
    _naming(validate("groq", payload), "messages[0].content[0]")


# -- without the SDKs ------------------------------------------------------------------------


def _hide(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """Make `package` and its submodules unimportable for the test's duration."""
    for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, package, None)


def test_missing_sdk_raises_sdk_missing_naming_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    _hide(monkeypatch, "anthropic")
    with pytest.raises(SdkMissing, match=r"pip install 'anthropic>=") as info:
        validate("anthropic", VALID["anthropic"])
    assert isinstance(info.value, ImportError)
    assert info.value.name == "anthropic"


def test_requirements_name_every_sdk_module() -> None:
    for module in SDK_MODULE.values():
        top = "google.genai" if module.startswith("google.") else module.partition(".")[0]
        assert top in sdk_schema.SDK_REQUIREMENTS


def test_requirements_are_the_sdks_dependency_group() -> None:
    """The `sdks` group holds every SDK the check names, plus boto3, which only sending
    (conformance/recording/send.py, the cassette check) needs on top of botocore."""
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    group = pyproject["dependency-groups"]["sdks"]
    assert sorted(r for r in group if isinstance(r, str)) == sorted(
        [*sdk_schema.SDK_REQUIREMENTS.values(), "boto3>=1.44"]
    )


def test_unknown_api_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="known apis: openai-chat"):
        validate("openai-chatt", {})


def test_body_must_be_an_object() -> None:
    assert validate("openai-chat", cast("Mapping[str, Any]", [])) == [
        "<body>: Input should be a valid dictionary (a JSON object)"
    ]


# --- the sdk-schema check on targets that break a payload ------------------------------------


class _AudioInToolResult:
    """Renders the Bedrock image cell, then relabels the tool-result image as audio."""

    name = "broken-bedrock"
    version = "0"

    def supports(self, row: RowRef) -> str | None:
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        payload = ReferenceTarget().render(row, history)
        block = payload["messages"][2]["content"][0]["toolResult"]["content"][0]
        block["audio"] = {"format": "wav", "source": block.pop("image")["source"]}
        return payload

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self.render(row, history)


def _cell(cell_id: str) -> CellSpec:
    return load_matrix(Path(__file__).resolve().parent.parent / "matrix.yaml").cell(cell_id)


def test_the_check_fails_on_an_image_in_an_openai_chat_tool_message() -> None:
    pytest.importorskip("openai")
    run = run_cell(NativeEverywhere(), _cell("openai-chat/gpt-6/image/inline/result"))
    result = evaluate(run, "sdk-schema")
    assert not result.passed
    assert "messages[2].content[0]" in result.detail


def test_the_check_fails_on_audio_in_a_bedrock_tool_result() -> None:
    pytest.importorskip("botocore")
    run = run_cell(_AudioInToolResult(), _cell("bedrock-converse/claude/image/inline/result"))
    result = evaluate(run, "sdk-schema")
    assert not result.passed
    assert '"audio"' in result.detail


def test_the_check_passes_the_reference_payload() -> None:
    pytest.importorskip("openai")
    run = run_cell(ReferenceTarget(), _cell("openai-chat/gpt-6/image/inline/result"))
    assert evaluate(run, "sdk-schema").passed
