"""Wire locator for OpenAI Responses request bodies (`{"model", "input": str | [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- openai 3.57.0 `openai.types.responses`: `response_input_item_param.FunctionCallOutput`
  (`type: "function_call_output"`, `call_id`,
  `output: str | ResponseFunctionCallOutputItemListParam` of `input_text | input_image |
  input_file`), `ResponseFunctionToolCallParam`
  (`type: "function_call"`, `call_id`, `name`), `EasyInputMessageParam` (`{"role", "content"}`,
  `type` optional), `response_input_param.Message`, `ResponseOutputMessageParam`
  (`output_text`, `refusal`), and the custom-tool pair `custom_tool_call` /
  `custom_tool_call_output`.
- https://platform.openai.com/docs/api-reference/responses/create,
  https://platform.openai.com/docs/guides/function-calling, and the announcement
  https://community.openai.com/t/images-and-files-as-function-call-outputs/1360081.

Positions are `(input item index, block index)` (a message's parts each at their own block; a
tool call or output at `(input item index, 0)`). A `function_call_output`'s list `output` is a
`ResponseFunctionCallOutputItemListParam` of `input_text | input_image | input_file` only
("Text, image, or file output of the function tool call"): any other type there (an
`input_audio`, an `output_text`) is a block the api does not define there (`unknown_part`). A
string `input` is one user message at `(0, 0)` with path `input`; the top-level `instructions`
string is a system message at `(-1, 0)`, before every item. Other item types (reasoning,
built-in tool calls, references) are not located; their strings are still in `WireView.strings`.
`input` is optional in the API (a request may continue `previous_response_id`), so a body
without it has no items.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    Found,
    array,
    fail,
    file_id_part,
    inline_part,
    mapping,
    numbered,
    optional_string,
    own_message,
    parts,
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
    WireView,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["API", "locate"]

API = "openai-responses"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Responses request body."""
    root = mapping(payload, "$")
    found = Found()
    if (instructions := optional_string(root, "instructions", "$")) is not None:
        found.messages.append(_text_message("system", instructions, (-1, 0), "instructions"))
    if isinstance(text := root.get("input"), str):
        found.messages.append(_text_message("user", text, (0, 0), "input"))
    for index, item, path in _items(root.get("input")):
        _item(found, item, index, path)
    return found.view(API, payload)


def _item(found: Found, item: Mapping[str, Any], index: int, path: str) -> None:
    match item.get("type"):
        case "function_call" | "custom_tool_call":
            found.tool_calls.append(_tool_call(item, index, path))
        case "function_call_output" | "custom_tool_call_output":
            found.tool_results.append(_tool_result(item, index, path))
        case "message" | None:
            role = string(item, "role", path)
            own = _parts(required(item, "content", path), f"{path}.content")
            if own:
                numbers = numbered(own, f"{path}.content")
                found.messages.append(own_message(role, numbers, index, path))
        case str():
            pass  # an item kind that carries no tool result and no message content
        case other:
            fail(f"{path}.type", f"expected a string, got {type(other).__name__}")


def _items(value: object) -> list[tuple[int, Mapping[str, Any], str]]:
    """The input items with their index and path (none for a missing or string input)."""
    if value is None or isinstance(value, str):
        return []
    return [
        (index, mapping(item, f"input[{index}]"), f"input[{index}]")
        for index, item in enumerate(array(value, "input"))
    ]


def _text_message(role: str, text: str, position: Position, path: str) -> WireMessage:
    return WireMessage(role, (text_part(text, path),), position, path)


def _tool_call(item: Mapping[str, Any], index: int, path: str) -> WireToolCall:
    return WireToolCall(
        call_id=string(item, "call_id", path),
        name=string(item, "name", path),
        position=(index, 0),
        path=path,
    )


def _tool_result(item: Mapping[str, Any], index: int, path: str) -> WireToolResult:
    return WireToolResult(
        call_id=string(item, "call_id", path),
        parts=parts(required(item, "output", path), f"{path}.output", _output_part),
        position=(index, 0),
        path=path,
    )


def _parts(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    match string(block, "type", path):
        case "input_text" | "output_text":
            return text_part(string(block, "text", path), path)
        case "refusal":
            return text_part(string(block, "refusal", path), path)
        case "input_image":
            return _image(block, path)
        case "input_file":
            return _file(block, path)
        case other:
            return unknown_part(other, block, path)


def _output_part(block: Mapping[str, Any], path: str) -> WirePart:
    """An item of a function call's list `output`: input_text, input_image, input_file."""
    match string(block, "type", path):
        case "input_text":
            return text_part(string(block, "text", path), path)
        case "input_image":
            return _image(block, path)
        case "input_file":
            return _file(block, path)
        case other:
            return unknown_part(other, block, path)


def _image(block: Mapping[str, Any], path: str) -> WirePart:
    """`input_image`: `image_url` (a URL or a data URL) or an uploaded `file_id`."""
    if (url := optional_string(block, "image_url", path)) is not None:
        return url_part("image", url, path)
    if (file_id := optional_string(block, "file_id", path)) is not None:
        return file_id_part("image", file_id, path)
    return WirePart("image", path)


def _file(block: Mapping[str, Any], path: str) -> WirePart:
    """`input_file`: inline `file_data`, a `file_url`, or an uploaded `file_id`."""
    if (data := optional_string(block, "file_data", path)) is not None:
        return inline_part("document", data, path)
    if (url := optional_string(block, "file_url", path)) is not None:
        return url_part("document", url, path)
    if (file_id := optional_string(block, "file_id", path)) is not None:
        return file_id_part("document", file_id, path)
    return WirePart("document", path)
