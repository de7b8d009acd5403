"""Shape checks and part builders shared by the wire locators.

Private to `conformance.wire`. Everything here is api-neutral: reading a JSON value as the
shape a provider documents (failing with the path when it is not), and building `WirePart`s
from the ways media is given on the wire (data URL, raw base64, URL, file id).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, cast

from conformance.wire.base import (
    PartKind,
    WireFormatError,
    WireMessage,
    WirePart,
    WireToolCall,
    WireToolResult,
    WireView,
    b64_digest,
    data_url_digest,
    digest,
    iter_strings,
)

__all__ = [
    "Found",
    "array",
    "content_digest",
    "fail",
    "file_id_part",
    "inline_part",
    "kind_from_name",
    "mapping",
    "optional_bool",
    "optional_string",
    "parts",
    "required",
    "string",
    "text_part",
    "unknown_part",
    "url_part",
]

PartReader = Callable[[Mapping[str, Any], str], WirePart]
"""Reads one content block (already known to be an object) found at a path."""


@dataclass
class Found:
    """What a locator has found so far, in payload order."""

    tool_calls: list[WireToolCall] = field(default_factory=list[WireToolCall])
    tool_results: list[WireToolResult] = field(default_factory=list[WireToolResult])
    messages: list[WireMessage] = field(default_factory=list[WireMessage])

    def view(self, api: str, payload: Mapping[str, Any]) -> WireView:
        """The finished view, with every string leaf of the payload."""
        return WireView(
            api=api,
            tool_calls=tuple(self.tool_calls),
            tool_results=tuple(self.tool_results),
            messages=tuple(self.messages),
            strings=tuple(iter_strings(payload)),
        )


def fail(path: str, problem: str) -> NoReturn:
    """Raise `WireFormatError` for the value at `path`."""
    raise WireFormatError(f"{path}: {problem}")


def _described(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


def mapping(value: object, path: str) -> Mapping[str, Any]:
    """`value` as a JSON object."""
    if not isinstance(value, Mapping):
        fail(path, f"expected an object, got {_described(value)}")
    return cast("Mapping[str, Any]", value)


def array(value: object, path: str) -> Sequence[Any]:
    """`value` as a JSON array (a string is not one)."""
    if isinstance(value, str | bytes | bytearray) or not isinstance(value, Sequence):
        fail(path, f"expected a list, got {_described(value)}")
    return cast("Sequence[Any]", value)


def required(obj: Mapping[str, Any], key: str, path: str) -> Any:
    """The value of a key that must be present and not null."""
    value = obj.get(key)
    if value is None:
        fail(f"{path}.{key}", "required, missing")
    return value


def string(obj: Mapping[str, Any], key: str, path: str) -> str:
    """The value of a required string key."""
    value = required(obj, key, path)
    if not isinstance(value, str):
        fail(f"{path}.{key}", f"expected a string, got {_described(value)}")
    return value


def optional_string(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    """The value of an optional string key, None when absent or null."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        fail(f"{path}.{key}", f"expected a string, got {_described(value)}")
    return value


def optional_bool(obj: Mapping[str, Any], key: str, path: str) -> bool | None:
    """The value of an optional boolean key, None when absent or null."""
    value = obj.get(key)
    if value is not None and not isinstance(value, bool):
        fail(f"{path}.{key}", f"expected a boolean, got {_described(value)}")
    return value


def parts(content: object, path: str, part: PartReader) -> tuple[WirePart, ...]:
    """The parts of a `content` that is a string (one text part), a list of blocks, or null."""
    match content:
        case None:
            return ()
        case str():
            return (text_part(content, path),)
        case _:
            blocks = array(content, path)
            return tuple(
                part(mapping(block, f"{path}[{i}]"), f"{path}[{i}]")
                for i, block in enumerate(blocks)
            )


def text_part(text: str, path: str) -> WirePart:
    """A text part: the exact string, never normalized."""
    return WirePart("text", path, text=text)


def inline_part(kind: PartKind, data: str, path: str, media_type: str | None = None) -> WirePart:
    """Inline media given as a data URL or as raw base64."""
    if data.startswith("data:"):
        stated, hashed = data_url_digest(data)
        return WirePart(kind, path, digest=hashed, media_type=stated or media_type)
    return WirePart(kind, path, digest=b64_digest(data), media_type=media_type)


def url_part(kind: PartKind, url: str, path: str, media_type: str | None = None) -> WirePart:
    """Media given by a URL field: a data URL is inline data, any other URL a reference."""
    if url.startswith("data:"):
        return inline_part(kind, url, path, media_type)
    return WirePart(kind, path, url=url, media_type=media_type)


def file_id_part(
    kind: PartKind, file_id: str, path: str, media_type: str | None = None
) -> WirePart:
    """Media given by a provider file id, kept as `file-id:<id>`."""
    return WirePart(kind, path, url=f"file-id:{file_id}", media_type=media_type)


def kind_from_name(name: str) -> PartKind:
    """The kind an undocumented block type names plainly (video, audio), else "other"."""
    lowered = name.lower()
    if "video" in lowered:
        return "video"
    if "audio" in lowered:
        return "audio"
    return "other"


def unknown_part(type_name: str, block: Mapping[str, Any], path: str) -> WirePart:
    """A block of a type the api does not document, with its media identity if recognisable.

    The identity is found best-effort: the first data URL or http(s) URL anywhere in the
    block, or an object holding base64 `data` next to a `media_type`/`mime_type`.
    """
    found = _sniff(block)
    return WirePart(
        kind_from_name(type_name),
        path,
        digest=found.get("digest"),
        url=found.get("url"),
        media_type=found.get("media_type"),
    )


def _sniff(value: object) -> dict[str, str]:
    found: dict[str, str] = {}
    match value:
        case str() if value.startswith("data:"):
            stated, hashed = data_url_digest(value)
            found |= {k: v for k, v in (("media_type", stated), ("digest", hashed)) if v}
        case str() if value.startswith(("http://", "https://")):
            found["url"] = value
        case Mapping():
            obj = cast("Mapping[str, Any]", value)
            stated = obj.get("media_type", obj.get("mime_type"))
            data = obj.get("data")
            if isinstance(stated, str) and isinstance(data, str) and not data.startswith("data:"):
                hashed = b64_digest(data)
                found |= {"media_type": stated, "digest": hashed} if hashed else {}
            for item in obj.values():
                found = _sniff(item) | found
        case list() | tuple():
            for item in cast("Sequence[Any]", value):
                found = _sniff(item) | found
        case _:
            pass
    return found


def content_digest(text: str) -> str:
    """Digest of inline plain-text media (its UTF-8 bytes)."""
    return digest(text.encode("utf-8"))
