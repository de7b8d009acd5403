"""The neutral view of a request payload that the classifier reads.

Each api module in this package turns one api's request body into a `WireView`: where the
tool calls, the tool-result blocks and the other messages are, and what parts each holds
(text verbatim, media by the digest of its decoded bytes or by URL). Locators are written
from the providers' documentation and SDK types, never from our mappers: they must be able
to read any framework's payload, and a mapper bug must not be able to confirm itself.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "PartKind",
    "Position",
    "WireFormatError",
    "WireMessage",
    "WirePart",
    "WireToolCall",
    "WireToolResult",
    "WireView",
    "b64_digest",
    "data_url_digest",
    "digest",
    "iter_strings",
]

PartKind = Literal["text", "image", "document", "audio", "video", "json", "other"]
Position = tuple[int, int]
"""(index of the message or input item, index of the block inside it)."""


class WireFormatError(ValueError):
    """The payload does not have the shape the api documents; says where."""


@dataclass(frozen=True)
class WirePart:
    kind: PartKind
    path: str
    """Where the part sits in the payload, e.g. `messages[3].content[1]`."""
    text: str | None = None
    """For text parts: the exact string."""
    digest: str | None = None
    """For inline media: sha256 hex of the decoded bytes."""
    url: str | None = None
    """For media given by reference (an http(s), gs:// or s3:// URL, or a file id)."""
    media_type: str | None = None
    """The media type the payload states, if it states one."""
    undocumented: str | None = None
    """For a block of a type the api does not define there: that type's name (the classifier
    calls media found in one, or in place of one, `malformed`); None for every documented part."""
    keyed: str | None = None
    """For a text the api reads as the tool's output although it is not in the api's own text
    slot: how it is held, and that slot (e.g. `the value of key 'return_value' of response
    (the api's own slot: output)`), a layout note; None where the text is in the slot the api
    documents for it."""


@dataclass(frozen=True)
class WireToolCall:
    call_id: str
    name: str
    position: Position
    path: str


@dataclass(frozen=True)
class WireToolResult:
    call_id: str
    parts: tuple[WirePart, ...]
    position: Position
    path: str
    is_error: bool | None = None
    """The api's native error flag, None where the api has none or it is absent."""
    name: str | None = None
    """The tool name the result states (Gemini `functionResponse.name`, Mistral's tool message
    `name`, ...); None where the api's result block has no name."""


@dataclass(frozen=True)
class WireMessage:
    """A message's own content, outside any tool-result block."""

    role: str
    parts: tuple[WirePart, ...]
    position: Position
    """Where the message's first own block sits."""
    path: str
    positions: tuple[Position, ...] = ()
    """Where each of `parts` sits, one per part (a message whose blocks are interleaved with
    tool blocks has a position per block); empty means every part sits at `position`."""

    def position_of(self, index: int) -> Position:
        """The position of `parts[index]`."""
        return self.positions[index] if self.positions else self.position


@dataclass(frozen=True)
class WireView:
    api: str
    tool_calls: tuple[WireToolCall, ...] = ()
    tool_results: tuple[WireToolResult, ...] = ()
    messages: tuple[WireMessage, ...] = ()
    strings: tuple[tuple[str, str], ...] = field(default=())
    """Every string leaf of the payload with its path, for finding stringified media."""

    def results_for(self, call_id: str) -> list[WireToolResult]:
        return [r for r in self.tool_results if r.call_id == call_id]


def digest(data: bytes) -> str:
    """The identity of a media item on the wire: sha256 of its bytes, hex."""
    return hashlib.sha256(data).hexdigest()


def b64_digest(value: str) -> str | None:
    """Digest of a standard base64 string, or None if it is not valid base64."""
    try:
        return digest(base64.b64decode(value, validate=True))
    except (binascii.Error, ValueError):
        return None


def data_url_digest(url: str) -> tuple[str | None, str | None]:
    """(media type, digest) of a `data:<type>;base64,<data>` URL; (None, None) otherwise."""
    if not url.startswith("data:"):
        return None, None
    header, sep, payload = url[5:].partition(",")
    if not sep or not header.endswith(";base64"):
        return None, None
    return header.removesuffix(";base64") or None, b64_digest(payload)


def iter_strings(value: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """Every string leaf under `value` with its JSON path (bytes are decoded as UTF-8)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, bytes | bytearray):
        yield path, bytes(value).decode("utf-8", "replace")
    elif isinstance(value, Mapping):
        for key, item in value.items():  # type: ignore[misc]
            yield from iter_strings(item, f"{path}.{key}")
    elif isinstance(value, Sequence):
        for index, item in enumerate(value):  # type: ignore[misc]
            yield from iter_strings(item, f"{path}[{index}]")
