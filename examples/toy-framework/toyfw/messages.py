"""toyfw's own conversation model and its storage format (JSON)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, Literal


class Unsupported(ValueError):
    """Raised before sending when a provider cannot carry a piece of content."""


@dataclass(frozen=True)
class Media:
    kind: Literal["image", "document", "audio", "video"]
    mime: str
    name: str
    data: bytes | None = None
    url: str | None = None


Part = str | Media


@dataclass(frozen=True)
class Message:
    """A user, system or assistant message. A tool's output is a `ToolOutput`: toyfw has no
    notion of content a tool adds to the conversation as a user message."""

    role: Literal["system", "user", "assistant"]
    parts: list[Part]


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class ToolOutput:
    call_id: str
    name: str
    parts: list[Part]
    failed: bool = False


Item = Message | ToolCall | ToolOutput


def _part(part: Part) -> Any:
    if isinstance(part, str):
        return part
    data = base64.b64encode(part.data).decode() if part.data is not None else None
    return {"kind": part.kind, "mime": part.mime, "name": part.name, "data": data, "url": part.url}


def _unpart(raw: Any) -> Part:
    if isinstance(raw, str):
        return raw
    data = base64.b64decode(raw["data"]) if raw["data"] is not None else None
    return Media(raw["kind"], raw["mime"], raw["name"], data, raw["url"])


def dumps(items: list[Item]) -> str:
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Message):
            parts = [_part(p) for p in item.parts]
            out.append({"type": "message", "role": item.role, "parts": parts})
        elif isinstance(item, ToolCall):
            out.append(
                {"type": "call", "id": item.call_id, "name": item.name, "arguments": item.arguments}
            )
        else:
            out.append(
                {
                    "type": "output",
                    "id": item.call_id,
                    "name": item.name,
                    "parts": [_part(p) for p in item.parts],
                    "failed": item.failed,
                }
            )
    return json.dumps(out, ensure_ascii=False)


def loads(text: str) -> list[Item]:
    items: list[Item] = []
    for raw in json.loads(text):
        if raw["type"] == "message":
            items.append(Message(raw["role"], [_unpart(p) for p in raw["parts"]]))
        elif raw["type"] == "call":
            items.append(ToolCall(raw["id"], raw["name"], raw["arguments"]))
        else:
            parts = [_unpart(p) for p in raw["parts"]]
            items.append(ToolOutput(raw["id"], raw["name"], parts, raw["failed"]))
    return items
