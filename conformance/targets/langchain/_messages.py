"""The canonical history as LangChain messages, and LangChain's storage for chat history.

The shapes are langchain-core's standard content blocks (1.x, `langchain_core.messages.content`),
written as the plain dicts its documentation shows, without the `create_*_block` factories
(those add a random `id` to every block, which would make every payload differ run to run):

- image: `{"type": "image", "base64": ..., "mime_type": ...}` or `{"type": "image", "url": ...}`
- document: `{"type": "file", ...}` with the same keys plus `filename` (the key
  `convert_to_openai_data_block` reads and asks for in its warning when it is missing)
- audio / video: `{"type": "audio" | "video", ...}`
- text: a tool that returns a string gives `ToolMessage(content=<the string>)`; text beside
  media is a `{"type": "text", "text": ...}` block.

A tool result is a `ToolMessage` (`status="error"` for a failed call); tool-produced user
content (style `prompt`) is a `HumanMessage` after the tool messages, as a LangChain user adds
it: LangChain has no field for its provenance, so none is passed.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)

__all__ = ["Block", "dump_messages", "load_messages", "to_block", "to_messages", "tool_names"]

Block = Callable[[Part], dict[str, Any]]
"""How one part is written as a content block: LangChain's standard blocks (`to_block`) here,
another input format LangChain accepts in a variant (`_formats.py`)."""

_BLOCK_TYPE = {"image": "image", "document": "file", "audio": "audio", "video": "video"}


def to_block(part: Part) -> dict[str, Any]:
    """One part as a langchain-core 1.x standard content block."""
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    return _media_block(part)


def _media_block(part: Image | Document | Audio | Video) -> dict[str, Any]:
    block: dict[str, Any] = {"type": _BLOCK_TYPE[part.type]}
    if part.data is not None:
        block["base64"] = base64.b64encode(part.data).decode("ascii")
    else:
        assert part.url is not None
        block["url"] = part.url
    block["mime_type"] = part.media_type
    if isinstance(part, Document):
        block["filename"] = part.identifier
    return block


def _content(parts: list[Part], block: Block = to_block) -> str | list[str | dict[str, Any]]:
    """A lone text part is the string itself (what a tool returning `str` gives)."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [block(p) for p in parts]


def _text(content: str | list[Part]) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.text for p in content if isinstance(p, Text))


def to_messages(history: History, block: Block = to_block) -> list[Any]:
    """The canonical history as `langchain_core.messages` objects, each part written by
    `block` (standard content blocks unless a variant says otherwise).

    Consecutive tool calls are one `AIMessage` with `tool_calls` (a parallel turn); each tool
    result is its own `ToolMessage`; tool-produced user content is a `HumanMessage`.
    """
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out: list[Any] = []
    calls: list[dict[str, Any]] = []

    def flush_calls() -> None:
        if calls:
            out.append(AIMessage(content="", tool_calls=list(calls)))
            calls.clear()

    for item in history:
        if isinstance(item, ToolCall):
            calls.append(
                {
                    "type": "tool_call",
                    "name": item.name,
                    "args": dict(item.arguments),
                    "id": item.tool_call_id,
                }
            )
            continue
        flush_calls()
        if isinstance(item, ToolResult):
            out.append(
                ToolMessage(
                    content=_content(item.content, block),
                    tool_call_id=item.tool_call_id,
                    name=item.name,
                    status=item.status,
                )
            )
        else:
            out.append(_message(item, block, (AIMessage, HumanMessage, SystemMessage)))
    flush_calls()
    return out


def _message(item: Message, block: Block, classes: tuple[Any, Any, Any]) -> Any:
    ai, human, system = classes
    if item.role == "system":
        return system(content=_text(item.content))
    if item.role == "assistant":
        return ai(content=_text(item.content))
    content = item.content if isinstance(item.content, str) else _content(item.content, block)
    return human(content=content)


def tool_names(history: History) -> list[str]:
    """The tools of the history, in order of first use: the ones bound to the model."""
    return list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))


def dump_messages(messages: list[Any]) -> str:
    """LangChain's documented storage for chat history: `messages_to_dict`, as JSON (what
    `FileChatMessageHistory` and the database-backed histories write)."""
    from langchain_core.messages import messages_to_dict

    return json.dumps(messages_to_dict(messages), ensure_ascii=False)


def load_messages(data: str) -> list[Any]:
    from langchain_core.messages import messages_from_dict

    return list(messages_from_dict(json.loads(data)))
