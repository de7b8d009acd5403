"""The sdk-schema check: does a request payload validate against the official SDK's own types?

`validate(api, payload)` returns the SDK's own error messages for one whole request body, each
prefixed with the place it is about (`messages[2].content[0].type: Input should be 'text'`);
an empty list means the SDK's request types accept the payload. Every recipe follows
provider-facts §3.7 ("Practical validator per provider"), because most SDK clients send a bad
payload verbatim and validating it means calling the SDK's types directly:

- TypedDict SDKs (openai, anthropic, groq) and mistral's TypedDicts: `pydantic.TypeAdapter`.
  Two pitfalls (provider-facts §3.1) are handled here. `Iterable[...]` fields validate lazily
  into a `ValidatorIterator`, so every one is consumed, recursively, to surface item errors;
  and TypedDict validation silently drops keys it does not know, so the input keys are
  compared with the validated output's and each dropped key is reported.
- Pydantic-model SDKs (google-genai, cohere): the model classes; cohere's models keep unknown
  keys (`extra="allow"`), which are reported the same way. Gemini gets our own MIME allowlist
  for `functionResponse.parts`, which the SDK does not check.
- Claude and Gemini on Vertex AI: the Messages and generateContent recipes (the Vertex bodies
  are theirs, the model in the URL); Claude's body is checked first for its two documented
  differences, no `model` and `anthropic_version: "vertex-2023-10-16"`.
- Claude through Bedrock InvokeModel: the Messages recipe, after the body's two documented
  differences are checked, no `model` and `anthropic_version: "bedrock-2023-05-31"`.
- botocore (Bedrock Converse): `ParamValidator` against the Converse input shape, plus the two
  checks botocore skips: enum values, and blobs given as `str` (double-encoded on the wire).

xAI and Hugging Face ship no usable request types for their OpenAI-compatible chat endpoints
(the xai-sdk is gRPC; huggingface_hub's dataclasses validate nothing), so their payloads are
checked against the openai Chat Completions types as a stand-in. That is an assumption, per
provider-facts §3.6 and §3.7: both servers may accept keys or parts that OpenAI's types don't.

Union errors are condensed so that a bad block reads as one finding, not one per union member:
members whose discriminator (`type` or `role`) or basic type does not fit the input are left
out when another member fits it, and when none fits, their discriminator messages are merged
into one (`type: Input should be 'text', 'image' or 'document'`). The wording stays pydantic's
and botocore's; a trailing `[Name]` names the SDK type an error was raised in.

The SDKs are imported only when their api is validated; a missing one raises `SdkMissing`.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, Final, cast

from conformance.recording.sdk_schema import validation as v
from conformance.recording.sdk_schema.requirements import SDK_REQUIREMENTS
from conformance.recording.sdk_schema.validation import SdkMissing

__all__ = ["APIS", "FUNCTION_RESPONSE_MIME_TYPES", "SDK_REQUIREMENTS", "SdkMissing", "validate"]


FUNCTION_RESPONSE_MIME_TYPES: Final = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
"""MIME types that Gemini takes inside `functionResponse.parts`.

Source: [3P] tutorials that summarise https://ai.google.dev/gemini-api/docs/function-calling#multimodal
(provider-facts §2.4); the official page itself could not be read, so the list is uncertain.
google-genai accepts any MIME type there, so this is our own check, not the SDK's.
"""

# --- the apis ---------------------------------------------------------------------------------


def _openai_chat(payload: Mapping[str, Any]) -> list[str]:
    module = "openai.types.chat.completion_create_params"
    body = (
        "CompletionCreateParamsStreaming"
        if v.is_streaming(payload)
        else "CompletionCreateParamsNonStreaming"
    )
    return v.check_body(
        v.sdk_type(module, body),
        payload,
        "messages",
        v.sdk_type("openai.types.chat", "ChatCompletionMessageParam"),
    )


def _openai_compatible(payload: Mapping[str, Any]) -> list[str]:
    """xAI and Hugging Face: the openai Chat types as a stand-in, body keys beyond them allowed."""
    module = "openai.types.chat.completion_create_params"
    body_type = v.sdk_type(module, "CompletionCreateParamsNonStreaming")
    fields = body_type.__required_keys__ | body_type.__optional_keys__
    return _openai_chat({key: value for key, value in payload.items() if key in fields})


def _openai_responses(payload: Mapping[str, Any]) -> list[str]:
    module = "openai.types.responses.response_create_params"
    body = (
        "ResponseCreateParamsStreaming"
        if v.is_streaming(payload)
        else "ResponseCreateParamsNonStreaming"
    )
    return v.check_body(
        v.sdk_type(module, body),
        payload,
        "input",
        v.sdk_type("openai.types.responses", "ResponseInputItemParam"),
    )


def _anthropic(payload: Mapping[str, Any]) -> list[str]:
    module = "anthropic.types.message_create_params"
    body = (
        "MessageCreateParamsStreaming"
        if v.is_streaming(payload)
        else "MessageCreateParamsNonStreaming"
    )
    return v.check_body(
        v.sdk_type(module, body),
        payload,
        "messages",
        v.sdk_type("anthropic.types", "MessageParam"),
    )


ANTHROPIC_VERTEX_VERSION: Final = "vertex-2023-10-16"
"""The `anthropic_version` Anthropic's Vertex page documents for the body
(https://docs.anthropic.com/en/api/claude-on-vertex-ai)."""


def _anthropic_vertex_versions() -> frozenset[str]:
    """The documented version, and the one the installed anthropic SDK's `AnthropicVertex`
    sends when the caller gives none (anthropic 2.15.0 sends its `ANTHROPIC_API_VERSION`,
    2026-10-21): a body the official client builds is not a finding."""
    constants = v.sdk_module("anthropic._constants")
    own = getattr(constants, "ANTHROPIC_API_VERSION", None)
    return frozenset({ANTHROPIC_VERTEX_VERSION, *([own] if isinstance(own, str) else [])})


def _anthropic_vertex(payload: Mapping[str, Any]) -> list[str]:
    """The Messages types, after the two documented differences are checked: no `model` in
    the body (the endpoint URL names it) and an `anthropic_version` in it."""
    problems: list[str] = []
    if "model" in payload:
        problems.append("model: not part of a Vertex body; the endpoint URL names the model")
    version = payload.get("anthropic_version")
    allowed = " or ".join(repr(x) for x in sorted(_anthropic_vertex_versions()))
    if version is None:
        problems.append(
            f"anthropic_version: Field required (Vertex takes it in the body: {allowed})"
        )
    elif version not in _anthropic_vertex_versions():
        problems.append(f"anthropic_version: Input should be {allowed}")
    rest = {k: value for k, value in payload.items() if k not in ("model", "anthropic_version")}
    return problems + _anthropic({"model": "vertex-url-model", **rest})


ANTHROPIC_BEDROCK_VERSION: Final = "bedrock-2023-05-31"
"""The `anthropic_version` Amazon Bedrock's Claude Messages request page requires in an
InvokeModel body ("The value must be bedrock-2023-05-31",
https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).
Unlike Vertex, the SDK's own default is not accepted: Anthropic's legacy Bedrock page warns
that its SDK sends 2026-10-21 through Bedrock too, which the models served by InvokeModel do
not take (a 400; https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock-legacy)."""


def _anthropic_bedrock(payload: Mapping[str, Any]) -> list[str]:
    """The Messages types, after the two documented differences are checked: no `model` in
    the body (the URL names it) and `anthropic_version: "bedrock-2023-05-31"` in it."""
    problems: list[str] = []
    if "model" in payload:
        problems.append("model: not part of an InvokeModel body; the URL names the model")
    version = payload.get("anthropic_version")
    if version is None:
        problems.append(
            f"anthropic_version: Field required (InvokeModel takes {ANTHROPIC_BEDROCK_VERSION!r}"
            " in the body)"
        )
    elif version != ANTHROPIC_BEDROCK_VERSION:
        problems.append(
            f"anthropic_version: Input should be {ANTHROPIC_BEDROCK_VERSION!r} (got {version!r};"
            " Bedrock's Claude models answer another version with a 400)"
        )
    rest = {k: value for k, value in payload.items() if k not in ("model", "anthropic_version")}
    return problems + _anthropic({"model": "bedrock-url-model", **rest})


def _groq(payload: Mapping[str, Any]) -> list[str]:
    return v.check_body(
        v.sdk_type("groq.types.chat.completion_create_params", "CompletionCreateParams"),
        payload,
        "messages",
        v.sdk_type("groq.types.chat", "ChatCompletionMessageParam"),
    )


def _mistral(payload: Mapping[str, Any]) -> list[str]:
    """Mistral's TypedDicts, not its models: the models turn an unknown chunk into
    `UnknownContentChunk` instead of rejecting it (provider-facts §3.4)."""
    models = "mistralai.client.models"
    return v.check_body(
        v.sdk_type(models, "ChatCompletionRequestTypedDict"),
        payload,
        "messages",
        v.sdk_type(models, "ChatCompletionRequestMessageTypedDict"),
    )


@cache
def _cohere_chat_parameters() -> tuple[Mapping[str, Any], frozenset[str]]:
    """The type of each parameter of `V2Client.chat`, and the names sent in the body."""
    chat = v.sdk_type("cohere.v2.client", "V2Client").chat
    hints = typing.get_type_hints(chat, include_extras=True)
    return hints, frozenset(inspect.signature(chat).parameters) - {"self", "request_options"}


def _cohere(payload: Mapping[str, Any]) -> list[str]:
    """Cohere v2 chat: messages as `ChatMessageV2`, every other body key as typed by the
    parameter of the same name of `V2Client.chat`, which sends each under that name."""
    hints, parameters = _cohere_chat_parameters()
    problems: list[str] = []
    for key, value in payload.items():
        if key == "messages":
            if v.as_sequence(value) is None:
                problems += v.check_value(hints[key], value, key)
            problems += v.check_items(v.sdk_type("cohere", "ChatMessageV2"), value, key)
        elif key in parameters:
            problems += v.check_value(hints[key], value, key)
        elif key == "stream":  # set by the client itself, not a parameter
            problems += v.check_value(bool, value, key)
        else:
            problems.append(v.unknown_place(key))
    problems += [f"{name}: Field required" for name in ("model", "messages") if name not in payload]
    return problems


_GEMINI_CONFIG_KEYS: Final = frozenset(
    {
        "systemInstruction",
        "system_instruction",
        "tools",
        "toolConfig",
        "tool_config",
        "safetySettings",
        "safety_settings",
        "cachedContent",
        "cached_content",
        "labels",
    }
)
"""Top-level keys of a REST generateContent body that `GenerateContentConfig` also has."""


def _gemini(payload: Mapping[str, Any]) -> list[str]:
    """A REST `generateContent` body (camelCase or snake_case), or the SDK's call shape
    `{model, contents, config}`: contents as `Content`, the rest as `GenerateContentConfig`
    and `GenerationConfig`, plus our MIME allowlist for function-response parts."""
    types = v.sdk_module("google.genai.types")
    problems: list[str] = []
    contents = payload.get("contents")
    if contents is None:
        problems.append("contents: Field required")
    elif v.as_sequence(contents) is None:
        problems += v.check_value(list[types.Content], contents, "contents")
    for index, content in enumerate(v.as_sequence(contents) or ()):
        where = v.item_place("contents", index)
        found = v.check_value(types.Content, content, where)
        problems += found or _function_response_mime_types(content, where)
    config = {key: value for key, value in payload.items() if key in _GEMINI_CONFIG_KEYS}
    if config:
        problems += v.check_value(types.GenerateContentConfig, config, "")
    for key, value in payload.items():
        if key == "config":
            problems += v.check_value(types.GenerateContentConfig, value, key)
        elif key in ("generationConfig", "generation_config"):
            problems += v.check_value(types.GenerationConfig, value, key)
        elif key == "model":
            problems += v.check_value(str, value, key)
        elif key != "contents" and key not in _GEMINI_CONFIG_KEYS:
            problems.append(v.unknown_place(key))
    return problems


def _spelled(mapping: Mapping[str, Any], camel: str, snake: str) -> str | None:
    """Which spelling of a google-genai field the input uses, if either."""
    return camel if camel in mapping else snake if snake in mapping else None


def _function_response_mime_types(content: object, where: str) -> list[str]:
    """Each media part of a function response whose MIME type is not in the allowlist.

    Runs on a content that `Content` accepted, so the shapes are known good.
    """
    problems: list[str] = []
    parts = v.as_sequence((v.as_mapping(content) or {}).get("parts")) or ()
    for p, part in enumerate(parts):
        part_map = v.as_mapping(part) or {}
        response_key = _spelled(part_map, "functionResponse", "function_response")
        response = v.as_mapping(part_map.get(response_key)) if response_key else None
        if response_key is None or response is None:
            continue
        base = v.key_place(v.item_place(v.key_place(where, "parts"), p), response_key)
        for r, media in enumerate(v.as_sequence(response.get("parts")) or ()):
            media_map = v.as_mapping(media) or {}
            for camel, snake in (("inlineData", "inline_data"), ("fileData", "file_data")):
                data_key = _spelled(media_map, camel, snake)
                data = v.as_mapping(media_map.get(data_key)) if data_key else None
                if data_key is None or data is None:
                    continue
                mime_key = _spelled(data, "mimeType", "mime_type") or "mimeType"
                mime = data.get(mime_key)
                if mime not in FUNCTION_RESPONSE_MIME_TYPES:
                    place = v.key_place(
                        v.key_place(v.item_place(v.key_place(base, "parts"), r), data_key), mime_key
                    )
                    allowed = ", ".join(sorted(FUNCTION_RESPONSE_MIME_TYPES))
                    problems.append(
                        f"{place}: MIME type {mime!r} is not one Gemini documents for function"
                        f" responses (allowed: {allowed}; google-genai does not check this)"
                    )
    return problems


@cache
def _converse_input_shape() -> Any:
    """botocore's shape of the Converse input (needs no credentials; loading it takes ~0.1 s)."""
    session = v.sdk_type("botocore.session", "get_session")()
    return session.get_service_model("bedrock-runtime").operation_model("Converse").input_shape


def _bedrock_converse(payload: Mapping[str, Any]) -> list[str]:
    """botocore's own validation of the Converse input, then the enum and blob checks it skips."""
    shape = _converse_input_shape()
    report = v.sdk_type("botocore.validate", "ParamValidator")().validate(payload, shape)
    problems = _botocore_messages(str(report.generate_report())) if report.has_errors() else []
    return problems + _bedrock_values(payload, shape, "")


_BOTOCORE_OPENINGS: Final = ("Missing ", "Unknown ", "Invalid ", "Must ")


def _botocore_messages(report: str) -> list[str]:
    """botocore's report, one message a line; a value shown in a message may span lines."""
    messages: list[str] = []
    for line in report.splitlines():
        if messages and not line.startswith(_BOTOCORE_OPENINGS):
            messages[-1] += "\n" + line
        else:
            messages.append(line)
    return messages


def _bedrock_values(value: object, shape: Any, where: str) -> list[str]:
    """Enum values and blob types, following botocore's shape of the Converse input."""
    kind = shape.type_name
    mapping = v.as_mapping(value)
    items = v.as_sequence(value)
    if kind == "structure" and mapping is not None:
        members = cast("Mapping[str, Any]", shape.members)
        return [
            problem
            for key, member in members.items()
            if key in mapping
            for problem in _bedrock_values(mapping[key], member, v.key_place(where, key))
        ]
    if kind == "list" and items is not None:
        return [
            p
            for i, item in enumerate(items)
            for p in _bedrock_values(item, shape.member, v.item_place(where, i))
        ]
    if kind == "map" and mapping is not None:
        return [
            p
            for k, item in mapping.items()
            for p in _bedrock_values(item, shape.value, v.key_place(where, k))
        ]
    enum = cast("list[str]", getattr(shape, "enum", None) or [])
    if kind == "string" and enum and isinstance(value, str) and value not in enum:
        return [
            f"{where}: Invalid value {value!r}, must be one of: {', '.join(enum)}"
            " (from botocore's service model; botocore itself does not check enums)"
        ]
    if kind == "blob" and isinstance(value, str):
        return [
            f"{where}: Invalid type str for a blob: pass raw bytes; botocore base64-encodes"
            " blobs itself, so a base64 str would be encoded twice on the wire"
        ]
    return []


_VALIDATORS: Final[Mapping[str, Callable[[Mapping[str, Any]], list[str]]]] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock-converse": _bedrock_converse,
    "mistral": _mistral,
    "cohere": _cohere,
    "groq": _groq,
    "xai": _openai_compatible,
    "huggingface": _openai_compatible,
    "anthropic-vertex": _anthropic_vertex,
    "gemini-vertex": _gemini,
    "anthropic-bedrock": _anthropic_bedrock,
}

APIS: Final = tuple(_VALIDATORS)
"""The apis `validate` knows."""


def validate(api: str, payload: Mapping[str, Any]) -> list[str]:
    """The official SDK's error messages for the request body `payload` of `api`; [] if valid.

    Each message names the place it is about: pydantic-based ones start with it
    (`messages[2].content[0].type: Input should be 'text'`), botocore's name it in their own
    words (`Unknown parameter in messages[0].content[0].toolResult.content[0]: "audio", ...`).
    Raises `SdkMissing` when the SDK for `api` is not installed, `KeyError` for an unknown api.
    """
    try:
        validator = _VALIDATORS[api]
    except KeyError:
        raise KeyError(
            f"no sdk-schema validator for api {api!r}; known apis: {', '.join(APIS)}"
        ) from None
    if v.as_mapping(payload) is None:
        return [f"{v.BODY}: Input should be a valid dictionary (a JSON object)"]
    return v.dedupe(validator(payload))
