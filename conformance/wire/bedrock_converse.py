"""Wire locator for AWS Bedrock Converse request bodies (`{"modelId"?, "messages", "system"?}`).

Written from the provider's documentation and SDK types, not from any mapper:
- botocore 1.44.8 `botocore/data/bedrock-runtime/2023-09-30/service-2.json`, operation
  `Converse`: `Message{role, content: ContentBlocks}`; the tagged union `ContentBlock{text |
  image | document | video | audio | toolUse | toolResult | guardContent | cachePoint |
  reasoningContent | citationsContent | searchResult | ...}`; `ToolUseBlock{toolUseId, name,
  input}`; `ToolResultBlock{toolUseId, content: [ToolResultContentBlock{json | text | image |
  document | video | searchResult}], status: success | error}`; `ImageBlock{format, source:
  {bytes | s3Location{uri, bucketOwner}}}`; `DocumentBlock{format, name, source: {bytes |
  s3Location | text | content[{text}]}}`; `VideoBlock` and `AudioBlock{format, source: {bytes
  | s3Location}}`; `SystemContentBlock{text | guardContent | cachePoint}`.
- https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html,
  https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html
  and https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use.html.

A `bytes` field is read either as raw Python `bytes` (the parameters given to boto3, which
encodes them) or as base64 text (the JSON on the wire); both give the digest of the same media
bytes. `s3Location.uri` is the media's URL. The media type is derived from `format` (the
payload states no MIME type). `toolUse` and `toolResult` blocks are located wherever they
appear, at `(message index, block index)`, with paths ending `.toolUse` / `.toolResult`; a
message's other blocks are its own content, each positioned at its own block, so media right
after its own `toolResult` (between two results of a parallel turn) sits after that result and
before the next. `system` is a system message at `(-1, 0)`. `cachePoint` blocks carry no
content and are skipped. A tool result's `json` is the tool's output as a JSON value
(API_runtime_ToolResultContentBlock: "A tool result that is JSON format data"): a string value
is a text part of the output, exact, and each string value of a JSON object one too, at
`...json.<key>`, both with the layout note `keyed` (the api's own slot for text is `text`); any
other `json` value is kind "json" (a `json` block outside a tool result is not defined). Blocks
with no media kind of their own (`searchResult`, `guardContent`, `reasoningContent`, ...) are
"other". `status` gives `is_error` (None when absent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from conformance.wire._common import (
    Found,
    array,
    blob_part,
    content_digest,
    fail,
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
    PartKind,
    Position,
    WireMessage,
    WirePart,
    WireToolCall,
    WireToolResult,
)

if TYPE_CHECKING:
    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "bedrock-converse"

_MEDIA: dict[str, PartKind] = {
    "image": "image",
    "document": "document",
    "video": "video",
    "audio": "audio",
}
_MEDIA_TYPES: dict[tuple[PartKind, str], str] = {
    ("image", "png"): "image/png",
    ("image", "jpeg"): "image/jpeg",
    ("image", "gif"): "image/gif",
    ("image", "webp"): "image/webp",
    ("document", "pdf"): "application/pdf",
    ("document", "csv"): "text/csv",
    ("document", "doc"): "application/msword",
    ("document", "docx"): (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    ),
    ("document", "xls"): "application/vnd.ms-excel",
    ("document", "xlsx"): "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ("document", "html"): "text/html",
    ("document", "txt"): "text/plain",
    ("document", "md"): "text/markdown",
    ("video", "mkv"): "video/x-matroska",
    ("video", "mov"): "video/quicktime",
    ("video", "mp4"): "video/mp4",
    ("video", "webm"): "video/webm",
    ("video", "flv"): "video/x-flv",
    ("video", "mpeg"): "video/mpeg",
    ("video", "mpg"): "video/mpeg",
    ("video", "wmv"): "video/x-ms-wmv",
    ("video", "three_gp"): "video/3gpp",
    ("audio", "mp3"): "audio/mpeg",
    ("audio", "mpeg"): "audio/mpeg",
    ("audio", "mpga"): "audio/mpeg",
    ("audio", "wav"): "audio/wav",
    ("audio", "flac"): "audio/flac",
    ("audio", "ogg"): "audio/ogg",
    ("audio", "opus"): "audio/opus",
    ("audio", "aac"): "audio/aac",
    ("audio", "x-aac"): "audio/aac",
    ("audio", "mp4"): "audio/mp4",
    ("audio", "m4a"): "audio/mp4",
    ("audio", "mkv"): "audio/x-matroska",
    ("audio", "mka"): "audio/x-matroska",
    ("audio", "webm"): "audio/webm",
}


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Converse request body (or the parameters given to boto3)."""
    root = mapping(payload, "$")
    found = Found()
    if (system := root.get("system")) is not None:
        own = [part for _, part in _own_blocks(found, system, -1, "system")]
        if own:
            found.messages.append(WireMessage("system", tuple(own), (-1, 0), "system"))
    for index, raw in enumerate(array(root.get("messages"), "messages")):
        path = f"messages[{index}]"
        message = mapping(raw, path)
        role = string(message, "role", path)
        own = _own_blocks(found, required(message, "content", path), index, f"{path}.content")
        if own:
            found.messages.append(own_message(role, own, index, path))
    return found.view(API, payload)


def _own_blocks(found: Found, content: object, index: int, path: str) -> list[tuple[int, WirePart]]:
    """Locate the tool blocks of a content list; return its other blocks as (index, part)."""
    own: list[tuple[int, WirePart]] = []
    for number, raw in enumerate(array(content, path)):
        block_path = f"{path}[{number}]"
        member, value = _member(mapping(raw, block_path), block_path)
        match member:
            case "toolUse":
                found.tool_calls.append(_tool_call(value, (index, number), block_path))
            case "toolResult":
                found.tool_results.append(_tool_result(value, (index, number), block_path))
            case "cachePoint":
                pass  # a cache checkpoint: no content
            case _:
                own.append((number, _part(member, value, block_path)))
    return own


def _member(union: Mapping[str, Any], path: str) -> tuple[str, Any]:
    """The one member set in a tagged-union structure (null members are unset)."""
    members = [(key, value) for key, value in union.items() if value is not None]
    if len(members) != 1:
        names = ", ".join(key for key, _ in members) or "none"
        fail(path, f"expected exactly one member of the union, got {names}")
    return members[0]


def _tool_call(value: object, position: Position, block_path: str) -> WireToolCall:
    path = f"{block_path}.toolUse"
    block = mapping(value, path)
    return WireToolCall(
        call_id=string(block, "toolUseId", path),
        name=string(block, "name", path),
        position=position,
        path=path,
    )


def _tool_result(value: object, position: Position, block_path: str) -> WireToolResult:
    path = f"{block_path}.toolResult"
    block = mapping(value, path)
    parts: list[WirePart] = []
    for number, raw in enumerate(array(required(block, "content", path), f"{path}.content")):
        item_path = f"{path}.content[{number}]"
        member, item = _member(mapping(raw, item_path), item_path)
        parts.extend(
            _json(item, item_path) if member == "json" else [_part(member, item, item_path)]
        )
    return WireToolResult(
        call_id=string(block, "toolUseId", path),
        parts=tuple(parts),
        position=position,
        path=path,
        is_error=_is_error(block, path),
    )


def _is_error(block: Mapping[str, Any], path: str) -> bool | None:
    """`status`: "error" is True, "success" False, absent None."""
    status = optional_string(block, "status", path)
    if status is None:
        return None
    if status not in ("success", "error"):
        fail(f"{path}.status", f"expected 'success' or 'error', got {status!r}")
    return status == "error"


def _part(member: str, value: object, path: str) -> WirePart:
    """One content block, given as its union member and that member's value."""
    if member == "text":
        return text_part(_text(value, f"{path}.text"), path)
    if (kind := _MEDIA.get(member)) is not None:
        return _media(kind, mapping(value, f"{path}.{member}"), path, f"{path}.{member}")
    return unknown_part(member, {member: value}, path)


_SLOT = "(the api's own slot: a text block)"


def _json(value: object, path: str) -> list[WirePart]:
    """A `json` block: its string value, or the string values of its object, as keyed text."""
    where = f"{path}.json"
    if isinstance(value, str):
        return [replace(text_part(value, where), keyed=f"a json block's string value {_SLOT}")]
    if isinstance(value, Mapping):
        obj = cast("Mapping[str, Any]", value)
        found = [
            replace(
                text_part(item, f"{where}.{key}"),
                keyed=f"the value of key {key!r} of a json block {_SLOT}",
            )
            for key, item in obj.items()
            if isinstance(item, str)
        ]
        if found:
            return found
    return [WirePart("json", path)]


def _media(kind: PartKind, block: Mapping[str, Any], path: str, where: str) -> WirePart:
    """An image, document, video or audio block, identified by its `source`."""
    media_format = optional_string(block, "format", where)
    media_type = _MEDIA_TYPES.get((kind, media_format)) if media_format else None
    source_path = f"{where}.source"
    member, value = _member(mapping(block.get("source"), source_path), source_path)
    at = f"{source_path}.{member}"
    match member:
        case "bytes":
            return blob_part(kind, value, path, at, media_type)
        case "s3Location":
            return url_part(kind, string(mapping(value, at), "uri", at), path, media_type)
        case "text":
            hashed = content_digest(_text(value, at))
            return WirePart(kind, path, digest=hashed, media_type=media_type)
        case _:
            # a `content` source (text blocks) or one not documented: no media identity
            return WirePart(kind, path, media_type=media_type)


def _text(value: object, where: str) -> str:
    """A union member whose value must be a string."""
    if not isinstance(value, str):
        fail(where, f"expected a string, got {type(value).__name__}")
    return value
