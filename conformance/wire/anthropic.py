"""Wire locator for Anthropic Messages request bodies (`{"model", "max_tokens", "messages"}`).

Written from the provider's documentation and SDK types, not from any mapper:
- anthropic 2.14.0 `anthropic.types`: `MessageParam` (`role`, `content: str | Iterable[block]`),
  `ToolUseBlockParam` (`type: "tool_use"`, `id`, `name`), `ToolResultBlockParam`
  (`type: "tool_result"`, `tool_use_id`, optional `content: str | Iterable[text | image |
  search_result | document | ...]`, optional `is_error`), `ImageBlockParam` with
  `Base64ImageSourceParam` / `URLImageSourceParam` / `FileImageSourceParam`, and
  `DocumentBlockParam` with `Base64PDFSourceParam` / `PlainTextSourceParam` /
  `ContentBlockSourceParam` / `URLPDFSourceParam` / `FileDocumentSourceParam`.
- https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls and
  https://docs.anthropic.com/en/api/messages.

`tool_use` and `tool_result` blocks are located wherever they appear, at
`(message index, block index)`. A message's other blocks are its own content, each positioned at
its own block (so media right after its own `tool_result`, between two results, is after that
result and before the next). The top-level `system` prompt is a system message at `(-1, 0)`,
before every message. A `search_result` block has no media kind of its own and is reported as
"other".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    Found,
    array,
    content_digest,
    file_id_part,
    inline_part,
    mapping,
    optional_bool,
    optional_string,
    own_message,
    parts,
    string,
    text_part,
    unknown_part,
    url_part,
)
from conformance.wire.base import (
    PartKind,
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

API = "anthropic"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Messages request body."""
    root = mapping(payload, "$")
    found = Found()
    system = _parts(root.get("system"), "system")
    if system:
        found.messages.append(WireMessage("system", system, (-1, 0), "system"))
    for index, raw in enumerate(array(root.get("messages"), "messages")):
        path = f"messages[{index}]"
        _message(found, mapping(raw, path), index, path)
    return found.view(API, payload)


def _message(found: Found, message: Mapping[str, Any], index: int, path: str) -> None:
    role = string(message, "role", path)
    content = message.get("content")
    if isinstance(content, str):
        found.messages.append(
            WireMessage(role, _parts(content, f"{path}.content"), (index, 0), path)
        )
        return
    own: list[tuple[int, WirePart]] = []
    for number, raw in enumerate(array(content, f"{path}.content")):
        block_path = f"{path}.content[{number}]"
        block = mapping(raw, block_path)
        match string(block, "type", block_path):
            case "tool_use":
                found.tool_calls.append(_tool_call(block, (index, number), block_path))
            case "tool_result":
                found.tool_results.append(_tool_result(block, (index, number), block_path))
            case _:
                own.append((number, _part(block, block_path)))
    if own:
        found.messages.append(own_message(role, own, index, path))


def _tool_call(block: Mapping[str, Any], position: Position, path: str) -> WireToolCall:
    return WireToolCall(
        call_id=string(block, "id", path),
        name=string(block, "name", path),
        position=position,
        path=path,
    )


def _tool_result(block: Mapping[str, Any], position: Position, path: str) -> WireToolResult:
    return WireToolResult(
        call_id=string(block, "tool_use_id", path),
        parts=_parts(block.get("content"), f"{path}.content"),
        position=position,
        path=path,
        is_error=optional_bool(block, "is_error", path),
    )


def _parts(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    match string(block, "type", path):
        case "text":
            return text_part(string(block, "text", path), path)
        case "image":
            return _sourced("image", block, path)
        case "document":
            return _sourced("document", block, path)
        case other:
            return unknown_part(other, block, path)


def _sourced(kind: PartKind, block: Mapping[str, Any], path: str) -> WirePart:
    """An image or document block, identified by its `source`."""
    where = f"{path}.source"
    source = mapping(block.get("source"), where)
    media_type = optional_string(source, "media_type", where)
    match source.get("type"):
        case "base64":
            return inline_part(kind, string(source, "data", where), path, media_type)
        case "text":
            hashed = content_digest(string(source, "data", where))
            return WirePart(kind, path, digest=hashed, media_type=media_type)
        case "url":
            return url_part(kind, string(source, "url", where), path, media_type)
        case "file":
            return file_id_part(kind, string(source, "file_id", where), path, media_type)
        case _:
            # a `content` source (text blocks to cite) or one not documented: no identity
            return WirePart(kind, path, media_type=media_type)
