"""Wire locator for Gemini generateContent request bodies (`{"contents", "systemInstruction"?}`).

Written from the provider's documentation and SDK types, not from any mapper:
- https://ai.google.dev/api/generate-content and https://ai.google.dev/api/caching#Content
  (`Content{role: "user" | "model", parts[]}`; `Part` holds one data field: `text`,
  `inlineData: Blob{mimeType, data}`, `fileData: FileData{mimeType, fileUri}`, `functionCall`,
  `functionResponse`, ... next to metadata such as `thought`, `thoughtSignature` and
  `videoMetadata`), https://ai.google.dev/gemini-api/docs/function-calling (and its
  `#multimodal` section) and
  https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#mm-fr.
- google-genai 3.6.1 `google.genai.types`: `FunctionCall{id, name, args}`,
  `FunctionResponse{id, name, response: dict, parts: list[FunctionResponsePart], ...}` whose
  `response` is documented as "Use "output" key to specify function output and "error" key to
  specify error details", `FunctionResponsePart{inline_data: FunctionResponseBlob{mime_type,
  data, display_name}, file_data: FunctionResponseFileData{file_uri, mime_type}, ...}` (no
  text field). The SDK sends `functionResponse.parts` in snake_case while the outer keys are
  camelCase, so every key is read in either spelling (both at once is an error).

Positions are `(content index, part index)`; a content's parts other than function calls and
responses are its own message content, each positioned at its own part (a content without a
`role` is a user turn). `systemInstruction` is a system message at `(-1, 0)`.

Tool results. A `functionResponse` is a `WireToolResult` at its part, path ending
`.functionResponse`, with the `name` it states. Where the api reads the output (the
`FunctionResponse.response` docstring of google-genai 3.6.1 and
https://googleapis.github.io/js-genai/classes/types.FunctionResponse.html: "Use "output" key to
specify function output and "error" key to specify error details (if any). If "output" and
"error" keys are not specified, then whole "response" is treated as function output"; the
v1beta reference, https://ai.google.dev/api/caching#FunctionResponse: "Callers can use any keys
of their choice that fit the function's syntax to return the function output, e.g. "output",
"result", etc."):
- `response` has `output` or `error`: the string value of each is a text part, exact, at
  `....response.output` / `.error` (a list of strings is one text part per string); every other
  key is kind "json" (not read as the output).
- neither: the whole `response` is the output, so the string value of every key is a text part
  of that output, exact, with the layout note `keyed` naming its key (the api's own slot is
  `output`); any other value is kind "json".
Null values are skipped. Then the media of its `parts`, with the kind its MIME type names
(image/*, audio/*, video/*; PDF and text/* are documents); a `FunctionResponsePart` holds only
`inlineData` or `fileData`, so any other field there (`text` included) is a block the api does
not define there (`undocumented`). `is_error` is True when
`response.error` is set, else None (Gemini has no other error flag).

Call ids. Gemini often omits `id`. A `functionCall` without one (or with an empty one) is given
`<name>#<n>`, n being its 0-based index among the payload's function calls of that name. A
`functionResponse` without one takes the id of the function call of its name at the same index
among the payload's function responses of that name (`<name>#<n>` when there is no such call).
This pairs calls and responses by order and name, as the api itself does.

Inline `data` is base64 text (standard or URL-safe, padded or not, as proto3 JSON allows) or raw
`bytes` (a dict given to the SDK); both give the digest of the decoded bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from conformance.wire._common import (
    Found,
    array,
    blob_part,
    fail,
    kind_from_media_type,
    mapping,
    optional_string,
    own_message,
    required,
    string,
    text_part,
    unknown_part,
    url_part,
)
from conformance.wire.base import (
    Position,
    WireMessage,
    WirePart,
    WireToolCall,
    WireToolResult,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "gemini"

_SLOTS = ("output", "error")
"""`response` keys the api documents for the function's output and its error details."""
_RESPONSE_MEDIA = frozenset({"inlineData", "fileData"})
"""The data fields of a `FunctionResponsePart` (google-genai 3.6.1): no text, no other kind."""
_METADATA = frozenset({"thought", "thoughtSignature", "mediaResolution", "mediaProcessing"})
"""Part keys that describe the data field rather than being one (with any `...Metadata`)."""

_Call = tuple[str | None, WireToolCall]
_Result = tuple[str | None, str, WireToolResult]


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a generateContent request body."""
    root = mapping(payload, "$")
    found = Found()
    key, system = _field(root, "systemInstruction", "system_instruction", "$")
    if system is not None and (instruction := _system(system, key)):
        found.messages.append(WireMessage("system", instruction, (-1, 0), key))
    calls: list[_Call] = []
    results: list[_Result] = []
    for index, raw in enumerate(array(root.get("contents"), "contents")):
        path = f"contents[{index}]"
        content = mapping(raw, path)
        role = optional_string(content, "role", path) or "user"
        own: list[tuple[int, WirePart]] = []
        for number, raw_part in enumerate(array(content.get("parts"), f"{path}.parts")):
            part_path = f"{path}.parts[{number}]"
            name, key, value = _data_field(mapping(raw_part, part_path), part_path)
            where = f"{part_path}.{key}"
            match name:
                case "functionCall":
                    calls.append(_call(value, (index, number), where))
                case "functionResponse":
                    results.append(_result(value, (index, number), where))
                case _:
                    own.append((number, _data_part(name, key, value, part_path)))
        if own:
            found.messages.append(own_message(role, own, index, path))
    _pair(found, calls, results)
    return found.view(API, payload)


def _system(system: object, path: str) -> tuple[WirePart, ...]:
    """`systemInstruction`: a `Content` (its parts), or a plain string as the SDK allows."""
    if isinstance(system, str):
        return (text_part(system, path),)
    content = mapping(system, path)
    found: list[WirePart] = []
    for number, raw in enumerate(array(content.get("parts"), f"{path}.parts")):
        part_path = f"{path}.parts[{number}]"
        found.append(_data_part(*_data_field(mapping(raw, part_path), part_path), part_path))
    return tuple(found)


def _camel(key: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)


def _field(obj: Mapping[str, Any], camel: str, snake: str, path: str) -> tuple[str, Any]:
    """(the key as spelled, its value) of a field given in camelCase or snake_case; when it is
    absent, the key in the spelling of the object's own key (for error paths)."""
    given = [key for key in (camel, snake) if obj.get(key) is not None]
    if len(given) == 2:
        fail(f"{path}.{snake}", f"given twice, also as {camel}")
    if given:
        return given[0], obj[given[0]]
    return (snake if "_" in path.rsplit(".", 1)[-1] else camel), None


def _data_field(part: Mapping[str, Any], path: str) -> tuple[str, str, Any]:
    """(camelCase name, key as spelled, value) of the one data field a `Part` holds."""
    data = [
        (_camel(key), key, value)
        for key, value in part.items()
        if value is not None
        and _camel(key) not in _METADATA
        and not _camel(key).endswith("Metadata")
    ]
    if len(data) != 1:
        names = ", ".join(key for _, key, _ in data) or "none"
        fail(path, f"expected exactly one data field (text, inlineData, ...), got {names}")
    return data[0]


def _data_part(name: str, key: str, value: Any, path: str) -> WirePart:
    """A part that is content: text, inline data, file data, or a kind not documented here."""
    where = f"{path}.{key}"
    match name:
        case "text":
            if not isinstance(value, str):
                fail(where, f"expected a string, got {type(value).__name__}")
            return text_part(value, path)
        case "inlineData":
            return _inline(mapping(value, where), path, where)
        case "fileData":
            return _file(mapping(value, where), path, where)
        case _:
            return unknown_part(key, {key: value}, path)


def _inline(blob: Mapping[str, Any], path: str, where: str) -> WirePart:
    """`inlineData`: a `mimeType` and base64 (or raw bytes) `data`."""
    mime_key, _ = _field(blob, "mimeType", "mime_type", where)
    media_type = string(blob, mime_key, where)
    data = required(blob, "data", where)
    kind = kind_from_media_type(media_type)
    return blob_part(kind, data, path, f"{where}.data", media_type, urlsafe=True)


def _file(file: Mapping[str, Any], path: str, where: str) -> WirePart:
    """`fileData`: a `fileUri` (Files API, gs:// or https://) and an optional `mimeType`."""
    mime_key, _ = _field(file, "mimeType", "mime_type", where)
    uri_key, _ = _field(file, "fileUri", "file_uri", where)
    media_type = optional_string(file, mime_key, where)
    uri = string(file, uri_key, where)
    return url_part(kind_from_media_type(media_type), uri, path, media_type)


def _call(value: object, position: Position, path: str) -> _Call:
    call = mapping(value, path)
    explicit = optional_string(call, "id", path) or None
    name = string(call, "name", path)
    return explicit, WireToolCall(explicit or "", name, position, path)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in cast("list[object]", value))


def _result(value: object, position: Position, path: str) -> _Result:
    response = mapping(value, path)
    explicit = optional_string(response, "id", path) or None
    name = string(response, "name", path)
    parts: list[WirePart] = []
    is_error: bool | None = None
    if (output := response.get("response")) is not None:
        where = f"{path}.response"
        items = {k: v for k, v in mapping(output, where).items() if v is not None}
        slotted = any(key in _SLOTS for key in items)
        is_error = True if "error" in items else None
        for key, item in items.items():
            read = key in _SLOTS or not slotted
            keyed = None
            if key not in _SLOTS:
                keyed = f"the value of key {key!r} of response (the api's own slot: output)"
            if read and isinstance(item, str):
                parts.append(replace(text_part(item, f"{where}.{key}"), keyed=keyed))
            elif read and _strings(item):
                # Several text outputs as a JSON list of strings: each is one text part.
                parts.extend(
                    replace(text_part(text, f"{where}.{key}[{n}]"), keyed=keyed)
                    for n, text in enumerate(cast("list[str]", item))
                )
            else:
                parts.append(WirePart("json", f"{where}.{key}"))
    if (media := response.get("parts")) is not None:
        for number, raw in enumerate(array(media, f"{path}.parts")):
            part_path = f"{path}.parts[{number}]"
            field_name, key, item = _data_field(mapping(raw, part_path), part_path)
            if field_name in _RESPONSE_MEDIA:
                parts.append(_data_part(field_name, key, item, part_path))
            else:
                parts.append(unknown_part(key, {key: item}, part_path))
    result = WireToolResult(explicit or "", tuple(parts), position, path, is_error, name)
    return explicit, name, result


def _pair(found: Found, calls: list[_Call], results: list[_Result]) -> None:
    """Give id-less calls and responses their derived ids (see the module docstring)."""
    ids: dict[str, list[str]] = {}
    for explicit, call in calls:
        named = ids.setdefault(call.name, [])
        call_id = explicit or f"{call.name}#{len(named)}"
        named.append(call_id)
        found.tool_calls.append(replace(call, call_id=call_id))
    seen: Counter[str] = Counter()
    for explicit, name, result in results:
        number = seen[name]
        seen[name] += 1
        named = ids.get(name, [])
        call_id = explicit or (named[number] if number < len(named) else f"{name}#{number}")
        found.tool_results.append(replace(result, call_id=call_id))
