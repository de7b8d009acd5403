"""Wire locator for Mistral chat completions request bodies (`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- mistralai 3.7.0 `mistralai.client.models`: `ToolMessage` (`role: "tool"`, `tool_call_id`,
  `name`, `content: Nullable[str | List[ContentChunk]]`), `UserMessage` (same `content`),
  `AssistantMessage` (`tool_calls: List[ToolCall{id, type, function: FunctionCall{name,
  arguments}, index}]`, `prefix`), and the open union `ContentChunk`: `TextChunk{text}`,
  `ImageURLChunk{image_url: str | ImageURL{url, detail}}`, `DocumentURLChunk{document_url,
  document_name}`, `AudioChunk{input_audio: str}` (base64), `FileChunk{file_id}`,
  `ReferenceChunk{reference_ids}`, `ThinkChunk{thinking: List[TextChunk | ReferenceChunk],
  closed}`, and `UnknownContentChunk{type: "UNKNOWN", raw, is_unknown: true}`, which the SDK
  puts on the wire in place of any chunk it does not recognise.
- https://docs.mistral.ai/api/#tag/chat, https://docs.mistral.ai/capabilities/function_calling,
  https://docs.mistral.ai/capabilities/vision, https://docs.mistral.ai/capabilities/document_ai
  and https://docs.mistral.ai/capabilities/audio.

The body is OpenAI-chat-shaped and read by the shared chat skeleton (positions as for
`openai-chat`); a tool message's `content` may be null (no parts). A `thinking` chunk is
reported as the parts it holds, at `...content[i].thinking[j]`. A `file` chunk names an
uploaded file of unknown type and is reported as a document. An `UNKNOWN` chunk is reported by
the type its `raw` chunk names (video or audio, else "other") with the media identity found in
`raw`: it is what the SDK sends, though no Mistral endpoint documents it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    ChatDialect,
    array,
    chat_locate,
    file_id_part,
    inline_part,
    mapping,
    string,
    text_part,
    unknown_part,
    url_part,
)
from conformance.wire.base import WirePart

if TYPE_CHECKING:
    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "mistral"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Mistral chat completions request body."""
    return chat_locate(_DIALECT, payload)


def _content(content: object, path: str) -> tuple[WirePart, ...]:
    """A string (one text part), a list of chunks, or null; thinking chunks are opened."""
    match content:
        case None:
            return ()
        case str():
            return (text_part(content, path),)
        case _:
            return tuple(_chunks(content, path))


def _chunks(chunks: object, path: str) -> list[WirePart]:
    found: list[WirePart] = []
    for index, raw in enumerate(array(chunks, path)):
        where = f"{path}[{index}]"
        found.extend(_chunk(mapping(raw, where), where))
    return found


def _chunk(chunk: Mapping[str, Any], path: str) -> list[WirePart]:
    match string(chunk, "type", path):
        case "text":
            return [text_part(string(chunk, "text", path), path)]
        case "thinking":
            return _chunks(chunk.get("thinking"), f"{path}.thinking")
        case "image_url":
            return [_image(chunk, path)]
        case "document_url":
            return [url_part("document", string(chunk, "document_url", path), path)]
        case "input_audio":
            return [inline_part("audio", string(chunk, "input_audio", path), path)]
        case "file":
            return [file_id_part("document", string(chunk, "file_id", path), path)]
        case "UNKNOWN":
            return [_unknown(chunk, path)]
        case other:
            return [unknown_part(other, chunk, path)]


def _image(chunk: Mapping[str, Any], path: str) -> WirePart:
    """`image_url`: a URL or data URL string, or an `ImageURL{url, detail}` object."""
    image = chunk.get("image_url")
    if isinstance(image, str):
        return url_part("image", image, path)
    where = f"{path}.image_url"
    return url_part("image", string(mapping(image, where), "url", where), path)


def _unknown(chunk: Mapping[str, Any], path: str) -> WirePart:
    """The SDK's rewrite of a chunk it did not recognise: `{"type": "UNKNOWN", "raw": {...}}`."""
    if not isinstance(chunk.get("raw"), Mapping):
        return WirePart("other", path)
    block = mapping(chunk["raw"], f"{path}.raw")
    named = block.get("type")
    return unknown_part(named if isinstance(named, str) else "", block, path)


_DIALECT = ChatDialect(API, _content, tool_content_required=False)
