"""Shape checks and part builders shared by the wire locators.

Private to `conformance.wire`. Everything here is api-neutral: reading a JSON value as the
shape a provider documents (failing with the path when it is not), and building `WirePart`s
from the ways media is given on the wire (data URL, raw base64, URL, file id).
"""

from __future__ import annotations

import base64
import binascii
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
    "ChatDialect",
    "ContentReader",
    "Found",
    "PartReader",
    "array",
    "blob_part",
    "chat_locate",
    "content_digest",
    "fail",
    "file_id_part",
    "function_name",
    "inline_part",
    "kind_from_media_type",
    "kind_from_name",
    "mapping",
    "numbered",
    "openai_part",
    "optional_bool",
    "optional_string",
    "own_message",
    "parts",
    "required",
    "string",
    "text_part",
    "unknown_part",
    "url_part",
]

PartReader = Callable[[Mapping[str, Any], str], WirePart]
"""Reads one content block (already known to be an object) found at a path."""

ContentReader = Callable[[object, str], tuple[WirePart, ...]]
"""Reads a message's whole `content` value (string, list of blocks or null) found at a path."""

CallNamer = Callable[[Mapping[str, Any], str], str]
"""The tool name of one entry of an assistant message's `tool_calls`, found at a path."""


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


def own_message(
    role: str, own: Sequence[tuple[int, WirePart]], index: int, path: str
) -> WireMessage:
    """A message's own blocks, each given with its index in the message's content, as a
    `WireMessage` positioned per block at `(index, block index)`."""
    positions = tuple((index, number) for number, _ in own)
    return WireMessage(role, tuple(part for _, part in own), positions[0], path, positions)


def numbered(parts: Sequence[WirePart], content_path: str) -> list[tuple[int, WirePart]]:
    """Parts read from the `content` at `content_path`, each with the index of the block it
    comes from (`content[j]...` in its path; 0 for a string content)."""
    prefix = f"{content_path}["
    out: list[tuple[int, WirePart]] = []
    for part in parts:
        number = 0
        if part.path.startswith(prefix):
            number = int(part.path[len(prefix) :].split("]", 1)[0])
        out.append((number, part))
    return out


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
    """Inline media given as a data URL or as raw base64; an http(s) URL where the api wants
    bytes is reported as the reference it is (the classifier judges whether the api takes it)."""
    if data.startswith(("http://", "https://")):
        return WirePart(kind, path, url=data, media_type=media_type)
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
    block, or an object holding base64 `data` (or `base64`, as framework-neutral blocks such
    as LangChain's name it) next to a `media_type`/`mime_type`.
    """
    found = _sniff(block)
    return WirePart(
        kind_from_name(type_name),
        path,
        digest=found.get("digest"),
        url=found.get("url"),
        media_type=found.get("media_type"),
        undocumented=type_name or "a block with no type",
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
            data = obj.get("data", obj.get("base64"))
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


def kind_from_media_type(media_type: str | None) -> PartKind:
    """The kind a stated media type names: image/*, audio/*, video/*; PDF and text/* are
    documents; anything else (or nothing) is "other"."""
    if media_type is None:
        return "other"
    major, _, minor = media_type.lower().partition("/")
    match major:
        case "image" | "audio" | "video":
            return major
        case "text":
            return "document"
        case "application" if minor == "pdf":
            return "document"
        case _:
            return "other"


def blob_part(
    kind: PartKind,
    value: object,
    path: str,
    where: str,
    media_type: str | None = None,
    *,
    urlsafe: bool = False,
) -> WirePart:
    """Inline media held by a bytes field at `where`: raw `bytes` (the dict an SDK client
    encodes itself), a data URL, or base64 text (JSON). With `urlsafe`, base64 text may also
    use the URL-safe alphabet and omit its padding, as proto3 JSON allows."""
    if isinstance(value, bytes | bytearray):
        return WirePart(kind, path, digest=digest(bytes(value)), media_type=media_type)
    if not isinstance(value, str):
        fail(where, f"expected base64 text or bytes, got {_described(value)}")
    if value.startswith("data:") or not urlsafe:
        return inline_part(kind, value, path, media_type)
    return WirePart(kind, path, digest=_lenient_b64_digest(value), media_type=media_type)


def _lenient_b64_digest(value: str) -> str | None:
    """Digest of standard or URL-safe base64, padded or not; None if it is neither."""
    if (hashed := b64_digest(value)) is not None:
        return hashed
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None
    return digest(decoded)


# -- OpenAI-chat-style request bodies -------------------------------------------------------
#
# Several apis take the Chat Completions body shape: `{"messages": [...]}` with `role: "tool"`
# messages holding one tool result each (`tool_call_id`, `content`), and assistant messages
# holding `tool_calls[]` (`id`, `function.name`). `chat_locate` reads that skeleton; an api
# module supplies its own content reader and call namer.


def function_name(call: Mapping[str, Any], path: str) -> str:
    """`function.name` of a `tool_calls` entry."""
    return string(mapping(call.get("function"), f"{path}.function"), "name", f"{path}.function")


@dataclass(frozen=True)
class ChatDialect:
    """How one OpenAI-chat-style api spells what differs from the common skeleton."""

    api: str
    content: ContentReader
    """Reads the `content` of any message, tool messages included."""
    call_name: CallNamer = function_name
    tool_content_required: bool = True
    """Whether a tool message must have non-null `content` (else it has no parts)."""
    tool_reader: ContentReader | None = None
    """Reads a tool message's `content`, where the api defines fewer block types there than in
    other messages; None reads it like any message's."""

    def tool_content(self, content: object, path: str) -> tuple[WirePart, ...]:
        return (self.tool_reader or self.content)(content, path)


def chat_locate(dialect: ChatDialect, payload: Mapping[str, Any]) -> WireView:
    """The neutral view of an OpenAI-chat-style request body.

    Every message that is not `role: "tool"` is a `WireMessage` of its own role, holding its
    `content`, each part at `(message index, block index)`; its `tool_calls` are located at
    `(message index, call index)`. A tool message is a `WireToolResult` at `(message index, 0)`,
    with the `name` the message states, if any.
    """
    root = mapping(payload, "$")
    found = Found()
    for index, raw in enumerate(array(root.get("messages"), "messages")):
        path = f"messages[{index}]"
        message = mapping(raw, path)
        match string(message, "role", path):
            case "tool":
                content = message.get("content")
                if dialect.tool_content_required:
                    content = required(message, "content", path)
                found.tool_results.append(
                    WireToolResult(
                        call_id=string(message, "tool_call_id", path),
                        parts=dialect.tool_content(content, f"{path}.content"),
                        position=(index, 0),
                        path=path,
                        name=optional_string(message, "name", path),
                    )
                )
            case role:
                found.tool_calls.extend(_chat_tool_calls(dialect, message, index, path))
                own = dialect.content(message.get("content"), f"{path}.content")
                if own:
                    numbers = numbered(own, f"{path}.content")
                    found.messages.append(own_message(role, numbers, index, path))
    return found.view(dialect.api, payload)


def _chat_tool_calls(
    dialect: ChatDialect, message: Mapping[str, Any], index: int, path: str
) -> list[WireToolCall]:
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
                name=dialect.call_name(call, call_path),
                position=(index, number),
                path=call_path,
            )
        )
    return calls


def openai_part(block: Mapping[str, Any], path: str) -> WirePart:
    """A Chat Completions content part (openai `ChatCompletionContentPartParam`: text,
    image_url, input_audio, file; and the assistant's refusal). Any other type is reported by
    `unknown_part`. Apis that copy this shape add their own types before falling back here."""
    match string(block, "type", path):
        case "text":
            return text_part(string(block, "text", path), path)
        case "refusal":
            return text_part(string(block, "refusal", path), path)
        case "image_url":
            image = mapping(block.get("image_url"), f"{path}.image_url")
            return url_part("image", string(image, "url", f"{path}.image_url"), path)
        case "input_audio":
            return _openai_audio(mapping(block.get("input_audio"), f"{path}.input_audio"), path)
        case "file":
            return _openai_file(mapping(block.get("file"), f"{path}.file"), path)
        case other:
            return unknown_part(other, block, path)


def _openai_audio(audio: Mapping[str, Any], path: str) -> WirePart:
    """`input_audio`: raw base64 `data` and a `format` (wav or mp3) that names the media type."""
    where = f"{path}.input_audio"
    audio_format = optional_string(audio, "format", where)
    media_type = f"audio/{audio_format}" if audio_format else None
    return inline_part("audio", string(audio, "data", where), path, media_type)


def _openai_file(file: Mapping[str, Any], path: str) -> WirePart:
    """`file`: inline `file_data` (a data URL, or raw base64) or an uploaded `file_id`."""
    where = f"{path}.file"
    if (data := optional_string(file, "file_data", where)) is not None:
        return inline_part("document", data, path)
    if (file_id := optional_string(file, "file_id", where)) is not None:
        return file_id_part("document", file_id, path)
    return WirePart("document", path)
