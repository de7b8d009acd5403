"""Wire locator for OpenAI Chat Completions request bodies (`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- openai 3.57.0 `openai.types.chat`: `ChatCompletionToolMessageParam` (`role: "tool"`,
  `tool_call_id`, `content: str | Iterable[ChatCompletionContentPartTextParam]`),
  `ChatCompletionUserMessageParam` (`content: str | Iterable[ChatCompletionContentPartParam]`,
  the union `Text | Image | InputAudio | File`), `ChatCompletionAssistantMessageParam`
  (`tool_calls[].id`, `.function.name`; custom tools `.custom.name`; refusal parts).
- https://platform.openai.com/docs/api-reference/chat/create and
  https://platform.openai.com/docs/guides/function-calling.

Every message that is not `role: "tool"` is a `WireMessage` of its own role; its position is
`(message index, 0)`. A tool message is a `WireToolResult` at `(message index, 0)`. Any part
type may appear anywhere: the locator reports what is on the wire, not what is allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    Found,
    array,
    file_id_part,
    inline_part,
    mapping,
    optional_string,
    parts,
    required,
    string,
    text_part,
    unknown_part,
    url_part,
)
from conformance.wire.base import (
    WireMessage,
    WirePart,
    WireToolCall,
    WireToolResult,
    WireView,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["API", "locate"]

API = "openai-chat"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Chat Completions request body."""
    root = mapping(payload, "$")
    found = Found()
    for index, raw in enumerate(array(root.get("messages"), "messages")):
        path = f"messages[{index}]"
        _message(found, mapping(raw, path), index, path)
    return found.view(API, payload)


def _message(found: Found, message: Mapping[str, Any], index: int, path: str) -> None:
    match string(message, "role", path):
        case "tool":
            found.tool_results.append(_tool_result(message, index, path))
        case role:
            found.tool_calls.extend(_tool_calls(message, index, path))
            own = _parts(message.get("content"), f"{path}.content")
            if own:
                found.messages.append(WireMessage(role, own, (index, 0), path))


def _tool_result(message: Mapping[str, Any], index: int, path: str) -> WireToolResult:
    return WireToolResult(
        call_id=string(message, "tool_call_id", path),
        parts=_parts(required(message, "content", path), f"{path}.content"),
        position=(index, 0),
        path=path,
    )


def _tool_calls(message: Mapping[str, Any], index: int, path: str) -> list[WireToolCall]:
    raw_calls = message.get("tool_calls")
    if raw_calls is None:
        return []
    calls: list[WireToolCall] = []
    for number, raw in enumerate(array(raw_calls, f"{path}.tool_calls")):
        call_path = f"{path}.tool_calls[{number}]"
        call = mapping(raw, call_path)
        calls.append(
            WireToolCall(
                call_id=string(call, "id", call_path),
                name=_call_name(call, call_path),
                position=(index, number),
                path=call_path,
            )
        )
    return calls


def _call_name(call: Mapping[str, Any], path: str) -> str:
    """`function.name`, or `custom.name` for a custom-tool call."""
    key = "custom" if call.get("type") == "custom" else "function"
    return string(mapping(call.get(key), f"{path}.{key}"), "name", f"{path}.{key}")


def _parts(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    match string(block, "type", path):
        case "text":
            return text_part(string(block, "text", path), path)
        case "refusal":
            return text_part(string(block, "refusal", path), path)
        case "image_url":
            image = mapping(block.get("image_url"), f"{path}.image_url")
            return url_part("image", string(image, "url", f"{path}.image_url"), path)
        case "input_audio":
            return _audio(mapping(block.get("input_audio"), f"{path}.input_audio"), path)
        case "file":
            return _file(mapping(block.get("file"), f"{path}.file"), path)
        case other:
            return unknown_part(other, block, path)


def _audio(audio: Mapping[str, Any], path: str) -> WirePart:
    """`input_audio`: raw base64 `data` and a `format` (wav or mp3) that names the media type."""
    where = f"{path}.input_audio"
    audio_format = optional_string(audio, "format", where)
    media_type = f"audio/{audio_format}" if audio_format else None
    return inline_part("audio", string(audio, "data", where), path, media_type)


def _file(file: Mapping[str, Any], path: str) -> WirePart:
    """`file`: inline `file_data` (a data URL, or raw base64) or an uploaded `file_id`."""
    where = f"{path}.file"
    if (data := optional_string(file, "file_data", where)) is not None:
        return inline_part("document", data, path)
    if (file_id := optional_string(file, "file_id", where)) is not None:
        return file_id_part("document", file_id, path)
    return WirePart("document", path)
