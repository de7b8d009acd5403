"""Wire locator for Cohere Chat v2 request bodies (`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- cohere 7.3.1 `cohere.types`: `ToolChatMessageV2` (`role: "tool"`, `tool_call_id`,
  `content: str | List[ToolContent]`, `ToolContent = TextToolContent | DocumentToolContent`
  with `document: Document{data, id?}`), `UserChatMessageV2` (`content: str | List[Content]`,
  `Content = TextContent | ImageUrlContent{image_url: ImageUrl{url, detail}}`),
  `AssistantChatMessageV2` (`tool_calls: List[ToolCallV2{id, type, function{name,
  arguments}}]`, `tool_plan`, `content`), `SystemChatMessageV2`.
- https://docs.cohere.com/reference/chat and https://docs.cohere.com/docs/tool-use-overview
  (tool results as `{"type": "document", "document": {"data": ...}}`).

Where the api reads a tool's output (https://docs.cohere.com/docs/tool-use: "The Chat endpoint
accepts a string or a list of objects as the tool results"; the `Document` type of
https://docs.cohere.com/reference/chat, as generated in cohere 7.3.1 `types/document.py`:
"Metadata should be used to provide additional information, both the key name and the value
will be passed to the model"): the string `content`, each `text` block, and every value of a
`document`'s `data`. A Cohere `document` is a JSON object, not a file: each string value of its
`data` is a text part, exact, at `...document.data.<key>`, with the layout note `keyed` (the text
reaches the model beside its key name); any other value is kind "json" at its path. A tool
message defines only `text` and `document` blocks (`ToolContent`); a user message `text` and
`image_url` (`Content`); any other block type is reported by `unknown_part`.

Every message that is not `role: "tool"` is a `WireMessage`, each part at `(message index,
block index)`; a tool message is a `WireToolResult` at `(message index, 0)`. The assistant's
`tool_plan` is not content and is not located (it is in `WireView.strings`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    Found,
    array,
    mapping,
    numbered,
    own_message,
    parts,
    required,
    string,
    text_part,
    unknown_part,
    url_part,
)
from conformance.wire.base import (
    WirePart,
    WireToolCall,
    WireToolResult,
    WireView,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["API", "locate"]

API = "cohere"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Chat v2 request body."""
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
                numbers = numbered(own, f"{path}.content")
                found.messages.append(own_message(role, numbers, index, path))


def _tool_result(message: Mapping[str, Any], index: int, path: str) -> WireToolResult:
    return WireToolResult(
        call_id=string(message, "tool_call_id", path),
        parts=_tool_parts(required(message, "content", path), f"{path}.content"),
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
        function = mapping(call.get("function"), f"{call_path}.function")
        calls.append(
            WireToolCall(
                call_id=string(call, "id", call_path),
                name=string(function, "name", f"{call_path}.function"),
                position=(index, number),
                path=call_path,
            )
        )
    return calls


def _parts(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    """A block of a user, system or assistant message (`Content`: text, image_url)."""
    match string(block, "type", path):
        case "text":
            return text_part(string(block, "text", path), path)
        case "image_url":
            image = mapping(block.get("image_url"), f"{path}.image_url")
            return url_part("image", string(image, "url", f"{path}.image_url"), path)
        case other:
            return unknown_part(other, block, path)


def _tool_parts(content: object, path: str) -> tuple[WirePart, ...]:
    """A tool message's content: a string (one text part) or `ToolContent` blocks (text,
    document); any other block type is reported by `unknown_part`."""
    if isinstance(content, str):
        return (text_part(content, path),)
    found: list[WirePart] = []
    for number, raw in enumerate(array(content, path)):
        where = f"{path}[{number}]"
        block = mapping(raw, where)
        match string(block, "type", where):
            case "text":
                found.append(text_part(string(block, "text", where), where))
            case "document":
                found.extend(_document(block, where))
            case other:
                found.append(unknown_part(other, block, where))
    return tuple(found)


def _document(block: Mapping[str, Any], path: str) -> list[WirePart]:
    """A `document`'s `data`: each string value a keyed text part, any other value "json"."""
    where = f"{path}.document"
    data = mapping(required(mapping(block.get("document"), where), "data", where), f"{where}.data")
    found: list[WirePart] = []
    for key, value in data.items():
        at = f"{where}.data.{key}"
        if isinstance(value, str):
            note = f"the value of key {key!r} of a document's data (the api's own slot: text)"
            found.append(replace(text_part(value, at), keyed=note))
        elif value is not None:
            found.append(WirePart("json", at))
    return found or [WirePart("json", path)]
