"""Anthropic Messages: history -> the JSON body of `POST /v1/messages`.

A `tool_result` block's content is a string or text, image and document blocks
(`ToolResultBlockParam`, anthropic 2.14.0); errors set `is_error`. Tool results go in a user
message; fallback media follows the `tool_result` blocks in that same message. There is no
audio or video block. Requests that hold `tool_use` blocks must declare their tools.
"""

from __future__ import annotations

from typing import Any, assert_never

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    Video,
)
from conformance.targets.reference.mappers._common import (
    AssistantTurn,
    MessageTurn,
    Profile,
    ToolTurn,
    b64,
    marker_text,
    message_parts,
    plan,
    text_of,
)

__all__ = ["PROFILES", "render"]

API = "anthropic"
MAX_TOKENS = 1024
_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})

PROFILES = {
    "claude-sonnet-5": Profile(
        api=API,
        model="claude-sonnet-5-5",
        tool_result=frozenset({"text", "image", "document"}),
        user=frozenset({"text", "image", "document"}),
        url=frozenset({"image", "document"}),
        media_types={"image": _IMAGE_TYPES, "document": frozenset({"application/pdf"})},
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image() | Document():
            if part.url is not None:
                source: dict[str, Any] = {"type": "url", "url": part.url}
            else:
                assert part.data is not None
                source = {"type": "base64", "media_type": part.media_type, "data": b64(part.data)}
            block: dict[str, Any] = {"type": part.type, "source": source}
            if isinstance(part, Document):
                block["title"] = part.identifier
            return block
        case Audio() | Video():
            raise AssertionError("routing never sends audio or video to Anthropic")
        case _:
            assert_never(part)


def _map_message(message: Message) -> dict[str, Any]:
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    parts = message_parts(message) if message.role == "user" else list(text_of(message.content))
    return {"role": message.role, "content": [_map_part(p) for p in parts]}


def _tool_content(parts: tuple[Part, ...]) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_map_part(p) for p in parts]


def _tools(history: History) -> list[dict[str, Any]]:
    names = dict.fromkeys(item.name for item in history if isinstance(item, ToolCall))
    return [{"name": name, "input_schema": {"type": "object"}} for name in names]


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message) if message.role == "system":
                system.extend(t.text for t in text_of(message.content))
            case MessageTurn(message=message):
                messages.append(_map_message(message))
            case AssistantTurn(text=text, calls=calls):
                content: list[dict[str, Any]] = [_map_part(t) for t in text]
                content.extend(
                    {"type": "tool_use", "id": c.tool_call_id, "name": c.name, "input": c.arguments}
                    for c in calls
                )
                messages.append({"role": "assistant", "content": content})
            case ToolTurn(results=results, moved=moved):
                blocks: list[dict[str, Any]] = []
                for routed in results:
                    block: dict[str, Any] = {
                        "type": "tool_result",
                        "tool_use_id": routed.result.tool_call_id,
                        "content": _tool_content(routed.native),
                    }
                    if routed.result.status == "error":
                        block["is_error"] = True
                    blocks.append(block)
                for entry in moved:
                    blocks.append({"type": "text", "text": marker_text(entry.result)})
                    blocks.extend(_map_part(m) for m in entry.media)
                messages.append({"role": "user", "content": blocks})
            case _:
                assert_never(turn)
    body: dict[str, Any] = {"model": profile.model, "max_tokens": MAX_TOKENS}
    if system:
        body["system"] = "\n\n".join(system)
    body["messages"] = messages
    tools = _tools(history)
    if tools:
        body["tools"] = tools
    return body
