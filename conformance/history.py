"""The canonical, model-neutral conversation history that every target is given.

A history is a list of items: messages, tool calls and tool results. Tool results and
tool-produced user content carry parts (text or media). One `TypeAdapter` dumps and loads
a history as JSON, with media bytes as base64, and `load(dump(h)) == h` always.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "Audio",
    "ContentType",
    "Document",
    "ExecutionEvent",
    "History",
    "Image",
    "Item",
    "Media",
    "Message",
    "Part",
    "Text",
    "ToolCall",
    "ToolResult",
    "ToolReturnProvenance",
    "Video",
    "content_type_of",
    "dump",
    "dump_trace",
    "load",
    "load_trace",
    "texts",
]

ContentType = Literal["text", "image", "document", "audio", "video"]
"""What a tool returns; the columns of the matrix."""


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        ser_json_bytes="base64",
        val_json_bytes="base64",
    )


class Text(_Model):
    """A text part. Its string is carried byte for byte."""

    type: Literal["text"] = "text"
    text: str


class _MediaBase(_Model):
    media_type: str
    """The IANA media type, for example `image/png`."""
    data: bytes | None = Field(default=None, exclude_if=lambda v: v is None)
    """Inline bytes (base64 in JSON); exactly one of `data` and `url` is set."""
    url: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """Where the media can be fetched; the mapper never fetches it."""
    identifier: str
    """A short name for the item, used as a file name where an API wants one."""

    def model_post_init(self, context: Any, /) -> None:
        if (self.data is None) == (self.url is None):
            raise ValueError("a media part needs exactly one of `data` and `url`")


class Image(_MediaBase):
    type: Literal["image"] = "image"


class Document(_MediaBase):
    type: Literal["document"] = "document"


class Audio(_MediaBase):
    type: Literal["audio"] = "audio"


class Video(_MediaBase):
    type: Literal["video"] = "video"


Media = Image | Document | Audio | Video
Part = Annotated[Text | Image | Document | Audio | Video, Field(discriminator="type")]


def content_type_of(part: Text | Media) -> ContentType:
    """The matrix column a part belongs to."""
    return part.type


class ToolReturnProvenance(_Model):
    """Marks user content as produced by a tool call, so it can be routed and marked."""

    tool_name: str
    tool_call_id: str


class Message(_Model):
    type: Literal["message"] = "message"
    role: Literal["system", "user", "assistant"]
    content: str | list[Part]
    source: ToolReturnProvenance | None = Field(default=None, exclude_if=lambda v: v is None)
    """Set on user content that a tool produced; omitted from JSON when None."""


class ToolCall(_Model):
    """An assistant's request to run a tool; consecutive calls form one parallel turn."""

    type: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict[str, Any])


class ToolResult(_Model):
    """What a tool returned, tied to its call by `tool_call_id`."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    name: str
    status: Literal["success", "error"] = "success"
    content: list[Part]


Item = Annotated[Message | ToolCall | ToolResult, Field(discriminator="type")]
History = list[Item]


class ExecutionEvent(_Model):
    """One item of a history as it happened: who produced it, when, in which run."""

    type: Literal["event"] = "event"
    execution_id: str
    author: str
    timestamp: datetime
    item: Item


_HISTORY: TypeAdapter[list[Item]] = TypeAdapter(list[Item])
_TRACE: TypeAdapter[list[ExecutionEvent]] = TypeAdapter(list[ExecutionEvent])


def texts(history: History) -> list[str]:
    """Every text of a history's messages and tool results, in order (a string content is one)."""
    found: list[str] = []
    for item in history:
        if isinstance(item, ToolCall):
            continue
        if isinstance(item.content, str):
            found.append(item.content)
        else:
            found.extend(p.text for p in item.content if isinstance(p, Text))
    return found


def dump(history: History) -> bytes:
    """Serialize a history to JSON bytes (media as base64)."""
    return _HISTORY.dump_json(history)


def load(data: bytes | str) -> History:
    """Parse JSON produced by `dump`; raises `pydantic.ValidationError` on bad input."""
    return _HISTORY.validate_json(data)


def dump_trace(events: list[ExecutionEvent]) -> bytes:
    """Serialize an execution trace to JSON bytes."""
    return _TRACE.dump_json(events)


def load_trace(data: bytes | str) -> list[ExecutionEvent]:
    """Parse JSON produced by `dump_trace`."""
    return _TRACE.validate_json(data)
