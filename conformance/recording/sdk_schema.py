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

import importlib
import inspect
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from types import ModuleType
from typing import Any, Final, NamedTuple, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

__all__ = ["APIS", "FUNCTION_RESPONSE_MIME_TYPES", "SDK_REQUIREMENTS", "SdkMissing", "validate"]

SDK_REQUIREMENTS: Final[Mapping[str, str]] = {
    "openai": "openai>=2.0",
    "anthropic": "anthropic>=2.0",
    "google.genai": "google-genai>=3.0",
    "botocore": "botocore>=1.44",
    "mistralai": "mistralai>=3.0",
    "cohere": "cohere>=7.0",
    "groq": "groq>=1.0",
}
"""Top-level module -> the requirement that provides it (kept in step with the `sdks` group)."""

FUNCTION_RESPONSE_MIME_TYPES: Final = frozenset(
    {"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}
)
"""MIME types that Gemini takes inside `functionResponse.parts`.

Source: [3P] tutorials that summarise https://ai.google.dev/gemini-api/docs/function-calling#multimodal
(provider-facts §2.4); the official page itself could not be read, so the list is uncertain.
google-genai accepts any MIME type there, so this is our own check, not the SDK's.
"""

_BODY: Final = "<body>"
"""The place named by an error about the request body as a whole."""


class SdkMissing(ImportError):
    """The official SDK that validates an api's payloads is not installed."""


# --- loading the SDKs lazily ------------------------------------------------------------------


def _sdk(module: str) -> ModuleType:
    """Import `module` of an official SDK, or raise `SdkMissing` naming what to install."""
    top = "google.genai" if module.startswith("google.genai") else module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        requirement = SDK_REQUIREMENTS[top]
        package = re.split(r"[<>=!~\s]", requirement, maxsplit=1)[0]
        raise SdkMissing(
            f"the sdk-schema check needs the {package!r} package: pip install '{requirement}'"
            f" (or the project's 'sdks' dependency group); import {module} failed: {exc}",
            name=top,
        ) from exc


def _sdk_type(module: str, name: str) -> Any:
    """An attribute (a request type) of an SDK module."""
    return getattr(_sdk(module), name)


@cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    """One cached adapter per SDK type: building one for a large union takes milliseconds."""
    return TypeAdapter(tp)


# --- places -----------------------------------------------------------------------------------


def _key(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _item(where: str, index: int) -> str:
    return f"{where}[{index}]"


def _mapping(value: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def _sequence(value: object) -> Sequence[Any] | None:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return cast("Sequence[Any]", value)
    return None


def _dedupe(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(messages))


# --- pydantic: errors, condensed --------------------------------------------------------------

_UNKNOWN: Final = object()
"""Stands for an input value that an error location cannot be followed into."""

_PLAIN_TAGS: Final = frozenset(
    {"str", "int", "float", "bool", "bytes", "list", "dict", "set", "tuple"}
)
_DISCRIMINATORS: Final = frozenset({"type", "role"})
_CLASS_NAME: Final = re.compile(r"[A-Z]\w*")


class _Seg(NamedTuple):
    """One step of a pydantic error location: a key or index of the input, or a union tag."""

    value: str | int
    tag: bool


class _Err(NamedTuple):
    segs: tuple[_Seg, ...]
    kind: str
    """pydantic's error type, e.g. `literal_error`, or `merged` for a condensed union error."""
    msg: str
    expected: str | None
    """For `literal_error`: pydantic's list of the allowed values."""

    def render(self, where: str) -> str:
        place = where
        for seg in self.segs:
            if not seg.tag:
                place = (
                    _item(place, seg.value)
                    if isinstance(seg.value, int)
                    else _key(place, seg.value)
                )
        names = [s.value for s in self.segs if s.tag and _CLASS_NAME.fullmatch(str(s.value))]
        suffix = f" [{' > '.join(map(str, names))}]" if names else ""
        return f"{place or _BODY}: {self.msg}{suffix}"


def _looks_like_tag(part: str) -> bool:
    """pydantic names a union member by its class (`TextBlockParam`) or its schema
    (`str`, `list[...]`, `function-after[...]`); no SDK field is spelled like either."""
    return part[:1].isupper() or "[" in part or "-" in part or part in _PLAIN_TAGS


def _segments(loc: tuple[str | int, ...], value: object) -> tuple[_Seg, ...]:
    """Split a pydantic location into input steps and union tags by following the input."""
    segs: list[_Seg] = []
    current: object = value
    for part in loc:
        if isinstance(part, int):
            items = _sequence(current)
            segs.append(_Seg(part, tag=False))
            current = (
                items[part] if items is not None and -len(items) <= part < len(items) else _UNKNOWN
            )
            continue
        mapping = _mapping(current)
        if mapping is not None and part in mapping:
            segs.append(_Seg(part, tag=False))
            current = mapping[part]
        elif _looks_like_tag(part):
            segs.append(_Seg(part, tag=True))
        else:  # a missing or unknown key: the last step of its location
            segs.append(_Seg(part, tag=False))
            current = _UNKNOWN
    return tuple(segs)


def _explain(exc: ValidationError, value: object, where: str) -> list[str]:
    """The messages of a pydantic `ValidationError` raised for `value`, found at `where`."""
    errors = [
        _Err(
            _segments(tuple(error["loc"]), value),
            error["type"],
            error["msg"],
            str(error.get("ctx", {}).get("expected")) if error["type"] == "literal_error" else None,
        )
        for error in exc.errors(include_url=False, include_input=False)
    ]
    kept, _ = _condense(errors, 0)
    return _dedupe([error.render(where) for error in kept])


def _condense(errors: list[_Err], depth: int) -> tuple[list[_Err], bool]:
    """Drop the union members that plainly do not fit; merge them when none fits.

    `errors` share their first `depth` steps. Returns the errors to keep, and whether the value
    there is a union none of whose members fits (so an enclosing union can set it aside too).
    """
    kept = [error for error in errors if len(error.segs) == depth]
    by_key: dict[str | int, list[_Err]] = {}
    by_tag: dict[str | int, list[_Err]] = {}
    for error in errors:
        if len(error.segs) > depth:
            seg = error.segs[depth]
            (by_tag if seg.tag else by_key).setdefault(seg.value, []).append(error)
    for group in by_key.values():
        kept += _condense(group, depth + 1)[0]
    if not by_tag:
        return kept, False
    fitting: list[_Err] = []
    misfits: list[tuple[int, list[_Err]]] = []
    for group in by_tag.values():
        inner, inner_misfit = _condense(group, depth + 1)
        if inner_misfit:
            misfits.append((2, inner))
        elif reasons := _misfit_reasons(group, depth + 1):
            misfits.append((1 if any(len(e.segs) > depth + 1 for e in reasons) else 0, reasons))
        else:
            fitting += inner
    if fitting:
        return kept + fitting, False
    best = max(rank for rank, _ in misfits)
    merged = _merge([e for rank, group in misfits if rank == best for e in group], depth)
    return kept + merged, not kept and not by_key


def _misfit_reasons(member: list[_Err], depth: int) -> list[_Err]:
    """The errors saying that a union member plainly does not fit: wrong basic type or kind."""
    return [
        error
        for error in member
        if len(error.segs) == depth
        or (
            len(error.segs) == depth + 1
            and not error.segs[depth].tag
            and error.segs[depth].value in _DISCRIMINATORS
            and error.kind in {"literal_error", "missing"}
        )
    ]


def _merge(errors: list[_Err], depth: int) -> list[_Err]:
    """One error per place for the members of a union that none fits, tags left out."""
    places: dict[tuple[_Seg, ...], list[_Err]] = {}
    for error in errors:
        segs = error.segs[:depth] + tuple(s for s in error.segs[depth:] if not s.tag)
        places.setdefault(segs, []).append(error)
    merged: list[_Err] = []
    for segs, group in places.items():
        expected = [e.expected for e in group if e.expected is not None]
        if len(expected) == len(group) and len(group) > 1:
            values = list(dict.fromkeys(v for x in expected for v in re.split(r", | or ", x)))
            allowed = values[0] if len(values) == 1 else f"{', '.join(values[:-1])} or {values[-1]}"
            merged.append(_Err(segs, "literal_error", f"Input should be {allowed}", allowed))
        else:
            by_kind = {e.kind: e.msg for e in reversed(group)}  # the first message of each kind
            msg = " or ".join(dict.fromkeys(by_kind[e.kind] for e in group))
            merged.append(_Err(segs, group[0].kind if len(group) == 1 else "merged", msg, None))
    return merged


# --- pydantic: lazy iterables and dropped keys -------------------------------------------------

_FAILED: Final = object()
"""Stands for an item of a lazily validated iterable that failed validation."""


def _force(output: object, value: object, where: str, problems: list[str]) -> object:
    """`output` with every lazy `ValidatorIterator` consumed into a list, item errors collected.

    `pydantic_core.ValidatorIterator` is not importable from the top level of pydantic_core,
    so it is recognised by its type name. An iterator goes on after an item fails, so every
    item's errors are collected; a failed item becomes `_FAILED`.
    """
    if type(output).__name__ == "ValidatorIterator":
        iterator = cast("typing.Iterator[Any]", output)
        items = _sequence(value)
        forced: list[object] = []
        while True:
            index = len(forced)
            try:
                item = next(iterator)
            except StopIteration:
                return forced
            except ValidationError as exc:
                problems += _explain(exc, value, where)
                forced.append(_FAILED)
            else:
                child = items[index] if items is not None and index < len(items) else _UNKNOWN
                forced.append(_force(item, child, _item(where, index), problems))
    if isinstance(output, dict):
        mapping = _mapping(value) or {}
        return {
            key: _force(item, mapping.get(key, _UNKNOWN), _key(where, key), problems)
            for key, item in cast("dict[str, Any]", output).items()
        }
    if isinstance(output, list):
        items = _sequence(value) or ()
        return [
            _force(item, items[i] if i < len(items) else _UNKNOWN, _item(where, i), problems)
            for i, item in enumerate(cast("list[Any]", output))
        ]
    return output


def _dropped_keys(value: object, output: object, where: str) -> list[str]:
    """Keys of the input that validation left out (TypedDict) or kept as extras (models)."""
    mapping = _mapping(value)
    if mapping is not None and isinstance(output, BaseModel):
        extras = output.model_extra or {}
        found = [_unknown(_key(where, key)) for key in mapping if key in extras]
        for name, field in type(output).model_fields.items():
            key = next((k for k in (field.alias, name) if k is not None and k in mapping), None)
            if key is not None:
                found += _dropped_keys(mapping[key], getattr(output, name), _key(where, key))
        return found
    if mapping is not None and isinstance(output, dict):
        validated = cast("dict[str, Any]", output)
        found = [_unknown(_key(where, key)) for key in mapping if key not in validated]
        for key, item in validated.items():
            if key in mapping:
                found += _dropped_keys(mapping[key], item, _key(where, key))
        return found
    items = _sequence(value)
    if items is not None and isinstance(output, list):
        found: list[str] = []
        for index, (item, validated_item) in enumerate(
            zip(items, cast("list[Any]", output), strict=False)
        ):
            if validated_item is not _FAILED:
                found += _dropped_keys(item, validated_item, _item(where, index))
        return found
    return []


def _unknown(place: str) -> str:
    return f"{place}: Unknown key: no field of the SDK's request type has this name"


def _check(tp: Any, value: object, where: str) -> list[str]:
    """Validate `value` as the SDK type `tp`, surfacing lazy item errors and unknown keys."""
    try:
        output = _adapter(tp).validate_python(value)
    except ValidationError as exc:
        return _explain(exc, value, where)
    problems: list[str] = []
    forced = _force(output, value, where, problems)
    problems += _dropped_keys(value, forced, where)
    return _dedupe(problems)


def _check_items(tp: Any, items: object, where: str) -> list[str]:
    """Validate each item of the list at `where` as `tp`; nothing if it is not a list."""
    sequence = _sequence(items)
    if sequence is None:
        return []
    return [m for i, item in enumerate(sequence) for m in _check(tp, item, _item(where, i))]


def _check_body(
    body_type: Any, payload: Mapping[str, Any], listed: str, item_type: Any
) -> list[str]:
    """The body as `body_type` with the list under `listed` emptied, then each of its items.

    Items are checked one by one so that each error names its item; the body check still sees
    that the list is there (and reports it when it is missing or not a list).
    """
    items = payload.get(listed)
    empty: list[Any] = []
    body = {**payload, listed: empty} if _sequence(items) is not None else payload
    return _check(body_type, body, "") + _check_items(item_type, items, listed)


def _streaming(payload: Mapping[str, Any]) -> bool:
    return payload.get("stream") is True


# --- the apis ---------------------------------------------------------------------------------


def _openai_chat(payload: Mapping[str, Any]) -> list[str]:
    module = "openai.types.chat.completion_create_params"
    body = (
        "CompletionCreateParamsStreaming"
        if _streaming(payload)
        else "CompletionCreateParamsNonStreaming"
    )
    return _check_body(
        _sdk_type(module, body),
        payload,
        "messages",
        _sdk_type("openai.types.chat", "ChatCompletionMessageParam"),
    )


def _openai_compatible(payload: Mapping[str, Any]) -> list[str]:
    """xAI and Hugging Face: the openai Chat types as a stand-in, body keys beyond them allowed."""
    module = "openai.types.chat.completion_create_params"
    body_type = _sdk_type(module, "CompletionCreateParamsNonStreaming")
    fields = body_type.__required_keys__ | body_type.__optional_keys__
    return _openai_chat({key: value for key, value in payload.items() if key in fields})


def _openai_responses(payload: Mapping[str, Any]) -> list[str]:
    module = "openai.types.responses.response_create_params"
    body = (
        "ResponseCreateParamsStreaming"
        if _streaming(payload)
        else "ResponseCreateParamsNonStreaming"
    )
    return _check_body(
        _sdk_type(module, body),
        payload,
        "input",
        _sdk_type("openai.types.responses", "ResponseInputItemParam"),
    )


def _anthropic(payload: Mapping[str, Any]) -> list[str]:
    module = "anthropic.types.message_create_params"
    body = (
        "MessageCreateParamsStreaming" if _streaming(payload) else "MessageCreateParamsNonStreaming"
    )
    return _check_body(
        _sdk_type(module, body),
        payload,
        "messages",
        _sdk_type("anthropic.types", "MessageParam"),
    )


def _groq(payload: Mapping[str, Any]) -> list[str]:
    return _check_body(
        _sdk_type("groq.types.chat.completion_create_params", "CompletionCreateParams"),
        payload,
        "messages",
        _sdk_type("groq.types.chat", "ChatCompletionMessageParam"),
    )


def _mistral(payload: Mapping[str, Any]) -> list[str]:
    """Mistral's TypedDicts, not its models: the models turn an unknown chunk into
    `UnknownContentChunk` instead of rejecting it (provider-facts §3.4)."""
    models = "mistralai.client.models"
    return _check_body(
        _sdk_type(models, "ChatCompletionRequestTypedDict"),
        payload,
        "messages",
        _sdk_type(models, "ChatCompletionRequestMessageTypedDict"),
    )


@cache
def _cohere_chat_parameters() -> tuple[Mapping[str, Any], frozenset[str]]:
    """The type of each parameter of `V2Client.chat`, and the names sent in the body."""
    chat = _sdk_type("cohere.v2.client", "V2Client").chat
    hints = typing.get_type_hints(chat, include_extras=True)
    return hints, frozenset(inspect.signature(chat).parameters) - {"self", "request_options"}


def _cohere(payload: Mapping[str, Any]) -> list[str]:
    """Cohere v2 chat: messages as `ChatMessageV2`, every other body key as typed by the
    parameter of the same name of `V2Client.chat`, which sends each under that name."""
    hints, parameters = _cohere_chat_parameters()
    problems: list[str] = []
    for key, value in payload.items():
        if key == "messages":
            if _sequence(value) is None:
                problems += _check(hints[key], value, key)
            problems += _check_items(_sdk_type("cohere", "ChatMessageV2"), value, key)
        elif key in parameters:
            problems += _check(hints[key], value, key)
        elif key == "stream":  # set by the client itself, not a parameter
            problems += _check(bool, value, key)
        else:
            problems.append(_unknown(key))
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
    types = _sdk("google.genai.types")
    problems: list[str] = []
    contents = payload.get("contents")
    if contents is None:
        problems.append("contents: Field required")
    elif _sequence(contents) is None:
        problems += _check(list[types.Content], contents, "contents")
    for index, content in enumerate(_sequence(contents) or ()):
        where = _item("contents", index)
        found = _check(types.Content, content, where)
        problems += found or _function_response_mime_types(content, where)
    config = {key: value for key, value in payload.items() if key in _GEMINI_CONFIG_KEYS}
    if config:
        problems += _check(types.GenerateContentConfig, config, "")
    for key, value in payload.items():
        if key == "config":
            problems += _check(types.GenerateContentConfig, value, key)
        elif key in ("generationConfig", "generation_config"):
            problems += _check(types.GenerationConfig, value, key)
        elif key == "model":
            problems += _check(str, value, key)
        elif key != "contents" and key not in _GEMINI_CONFIG_KEYS:
            problems.append(_unknown(key))
    return problems


def _spelled(mapping: Mapping[str, Any], camel: str, snake: str) -> str | None:
    """Which spelling of a google-genai field the input uses, if either."""
    return camel if camel in mapping else snake if snake in mapping else None


def _function_response_mime_types(content: object, where: str) -> list[str]:
    """Each media part of a function response whose MIME type is not in the allowlist.

    Runs on a content that `Content` accepted, so the shapes are known good.
    """
    problems: list[str] = []
    parts = _sequence((_mapping(content) or {}).get("parts")) or ()
    for p, part in enumerate(parts):
        part_map = _mapping(part) or {}
        response_key = _spelled(part_map, "functionResponse", "function_response")
        response = _mapping(part_map.get(response_key)) if response_key else None
        if response_key is None or response is None:
            continue
        base = _key(_item(_key(where, "parts"), p), response_key)
        for r, media in enumerate(_sequence(response.get("parts")) or ()):
            media_map = _mapping(media) or {}
            for camel, snake in (("inlineData", "inline_data"), ("fileData", "file_data")):
                data_key = _spelled(media_map, camel, snake)
                data = _mapping(media_map.get(data_key)) if data_key else None
                if data_key is None or data is None:
                    continue
                mime_key = _spelled(data, "mimeType", "mime_type") or "mimeType"
                mime = data.get(mime_key)
                if mime not in FUNCTION_RESPONSE_MIME_TYPES:
                    place = _key(_key(_item(_key(base, "parts"), r), data_key), mime_key)
                    allowed = ", ".join(sorted(FUNCTION_RESPONSE_MIME_TYPES))
                    problems.append(
                        f"{place}: MIME type {mime!r} is not one Gemini documents for function"
                        f" responses (allowed: {allowed}; google-genai does not check this)"
                    )
    return problems


@cache
def _converse_input_shape() -> Any:
    """botocore's shape of the Converse input (needs no credentials; loading it takes ~0.1 s)."""
    session = _sdk_type("botocore.session", "get_session")()
    return session.get_service_model("bedrock-runtime").operation_model("Converse").input_shape


def _bedrock_converse(payload: Mapping[str, Any]) -> list[str]:
    """botocore's own validation of the Converse input, then the enum and blob checks it skips."""
    shape = _converse_input_shape()
    report = _sdk_type("botocore.validate", "ParamValidator")().validate(payload, shape)
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
    mapping = _mapping(value)
    items = _sequence(value)
    if kind == "structure" and mapping is not None:
        members = cast("Mapping[str, Any]", shape.members)
        return [
            problem
            for key, member in members.items()
            if key in mapping
            for problem in _bedrock_values(mapping[key], member, _key(where, key))
        ]
    if kind == "list" and items is not None:
        return [
            p
            for i, item in enumerate(items)
            for p in _bedrock_values(item, shape.member, _item(where, i))
        ]
    if kind == "map" and mapping is not None:
        return [
            p
            for k, item in mapping.items()
            for p in _bedrock_values(item, shape.value, _key(where, k))
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
    if _mapping(payload) is None:
        return [f"{_BODY}: Input should be a valid dictionary (a JSON object)"]
    return _dedupe(validator(payload))
