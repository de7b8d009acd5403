"""The render skeleton shared by the chat-shaped apis (OpenAI Chat Completions and its kin).

They all send `{"model", "messages"}`, where a planned history becomes, turn by turn:

- a message turn: one `{"role", "content"}` message; user parts mapped one by one, with
  tool-produced media behind its marker (`message_parts`), other roles as text;
- an assistant turn: one assistant message with its text and `tool_calls`
  (`{"id", "type": "function", "function": {"name", "arguments"}}`, arguments as JSON text);
- a tool turn: one `role: tool` message per result, text only, then one user message holding
  every result's fallback media, each result's behind its marker.

Content that is all text is a string when it is one text and a list of text parts otherwise.
What differs per api is small and named in a `Dialect`; each api module keeps its own profiles,
part mapping and any quirk that the skeleton does not spell (Mistral's bridging message).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    RoutedResult,
    ToolTurn,
    data_url,
    marker_text,
    message_parts,
    plan,
    text_of,
)

__all__ = ["Dialect", "chat_messages", "map_text_or_image"]


@dataclass(frozen=True)
class Dialect:
    """How one chat-shaped api differs from the shared skeleton."""

    map_part: Callable[[Part], dict[str, Any]]
    """One content part as the api spells it; called only for text and routed media."""
    assistant_null_content: bool = False
    """An assistant message without text sends `"content": null`; else the key is left out."""
    tool_name: bool = False
    """Tool messages name their tool (`"name"`) next to `tool_call_id`."""
    empty_list: bool = False
    """A non-user message with no parts sends `"content": []`; else `""`. Cohere and Groq set it,
    keeping the bodies they have always sent; tool messages with no text send `""` either way."""


def map_text_or_image(part: Part) -> dict[str, Any]:
    """The OpenAI-compatible `text` / `image_url` part, for apis that take nothing else."""
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image():
            return {"type": "image_url", "image_url": {"url": data_url(part)}}
        case Document() | Audio() | Video():
            raise AssertionError(f"routing never sends {part.type} to a text-and-image api")
        case _:
            assert_never(part)


def _map_texts(dialect: Dialect, texts: Sequence[Text]) -> str | list[dict[str, Any]]:
    if len(texts) == 1:
        return texts[0].text
    if not texts:
        return ""
    return [dialect.map_part(t) for t in texts]


def _map_message(dialect: Dialect, message: Message) -> dict[str, Any]:
    if message.role == "user" and not isinstance(message.content, str):
        return {"role": "user", "content": [dialect.map_part(p) for p in message_parts(message)]}
    texts = text_of(message.content)
    content = [] if dialect.empty_list and not texts else _map_texts(dialect, texts)
    return {"role": message.role, "content": content}


def _map_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.tool_call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }


def _map_assistant(dialect: Dialect, turn: AssistantTurn) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant"}
    if turn.text:
        out["content"] = _map_texts(dialect, turn.text)
    elif dialect.assistant_null_content:
        out["content"] = None
    if turn.calls:
        out["tool_calls"] = [_map_call(c) for c in turn.calls]
    return out


def _map_result(dialect: Dialect, routed: RoutedResult) -> dict[str, Any]:
    texts = [p for p in routed.native if isinstance(p, Text)]
    assert len(texts) == len(routed.native), "tool messages carry text only"
    out: dict[str, Any] = {"role": "tool", "tool_call_id": routed.result.tool_call_id}
    if dialect.tool_name:
        out["name"] = routed.result.name
    out["content"] = _map_texts(dialect, texts)
    return out


def _map_tool_turn(dialect: Dialect, turn: ToolTurn) -> list[dict[str, Any]]:
    messages = [_map_result(dialect, routed) for routed in turn.results]
    if turn.moved:
        content: list[dict[str, Any]] = []
        for entry in turn.moved:
            content.append(dialect.map_part(Text(text=marker_text(entry.result))))
            content.extend(dialect.map_part(m) for m in entry.media)
        messages.append({"role": "user", "content": content})
    return messages


def chat_messages(profile: Profile, history: History, dialect: Dialect) -> list[dict[str, Any]]:
    """The `messages` list for `profile`; raises `UnsupportedContent` before building."""
    messages: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message):
                messages.append(_map_message(dialect, message))
            case AssistantTurn():
                messages.append(_map_assistant(dialect, turn))
            case ToolTurn():
                messages.extend(_map_tool_turn(dialect, turn))
            case _:
                assert_never(turn)
    return messages
