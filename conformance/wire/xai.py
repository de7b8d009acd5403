"""Wire locator for xAI chat completions request bodies (`https://api.x.ai/v1/chat/completions`,
`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- https://docs.x.ai/docs/guides/chat-completions (OpenAI-compatible, marked deprecated in favour
  of the Responses API) and https://docs.x.ai/docs/guides/files/chat-with-files (a file given
  as `{"type": "input_file", "file_url" | "file_id"}`).
- xai-sdk 1.21.0 `xai_sdk.proto.chat_pb2`: `Content` is a oneof `{text, image_url:
  ImageUrlContent{image_url, detail}, file: FileContent{file_id | data | url, filename,
  mime_type}}`; `Message{role, content[], tool_call_id}`; `xai_sdk.chat.tool_result` builds a
  text-only tool message.

The body is OpenAI-chat-shaped and read by the shared chat skeleton (positions as for
`openai-chat`). A `file` part is read with the OpenAI fields (`file_data`, `file_id`) and the
xAI ones (`data`, `url`, `file_url`, `mime_type`); its kind is the one its stated `mime_type`
names (else the data URL's, else "document").
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    ChatDialect,
    chat_locate,
    file_id_part,
    inline_part,
    kind_from_media_type,
    mapping,
    openai_part,
    optional_string,
    parts,
    url_part,
)
from conformance.wire.base import WirePart

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "xai"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of an xAI chat completions request body."""
    return chat_locate(_DIALECT, payload)


def _content(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    match block.get("type"):
        case "file":
            return _file(mapping(block.get("file"), f"{path}.file"), path, f"{path}.file")
        case "input_file":
            return _file(block, path, path)
        case _:
            return openai_part(block, path)


def _file(file: Mapping[str, Any], path: str, where: str) -> WirePart:
    """A file: inline (`file_data` or `data`: a data URL or raw base64), by URL (`file_url`,
    `url`) or by uploaded `file_id`. Its kind is named by `mime_type`, else by the data URL's
    media type, else "document"."""
    stated = optional_string(file, "mime_type", where)
    part = WirePart("document", path, media_type=stated)
    if (data := _first(file, ("file_data", "data"), where)) is not None:
        part = inline_part("document", data, path, stated)
    elif (url := _first(file, ("file_url", "url"), where)) is not None:
        part = url_part("document", url, path, stated)
    elif (file_id := optional_string(file, "file_id", where)) is not None:
        part = file_id_part("document", file_id, path, stated)
    named = kind_from_media_type(part.media_type)
    return replace(part, kind=named) if named != "other" else part


def _first(obj: Mapping[str, Any], keys: tuple[str, ...], where: str) -> str | None:
    """The value of the first of `keys` that is present."""
    for key in keys:
        if (value := optional_string(obj, key, where)) is not None:
            return value
    return None


_DIALECT = ChatDialect(API, _content)
