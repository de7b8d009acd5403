"""The canonical history as LlamaIndex `ChatMessage`s with content blocks, and their storage.

The messages are the ones a LlamaIndex `FunctionAgent` keeps in its memory for the same
conversation (`llama_index.core.agent.workflow.function_agent`, `handle_tool_call_results`):

- the user prompt: `ChatMessage(role=USER, blocks=[TextBlock(...)])`;
- a tool-call turn: one assistant message whose blocks are a `ToolCallBlock` per call (how the
  integrations return calls since core 0.14, and read them back);
- a tool result: `ChatMessage(role=TOOL, blocks=<the tool output's blocks>,
  additional_kwargs={"tool_call_id": <the call id>})`, exactly as the agent writes it from a
  `FunctionTool`'s `ToolOutput`. A tool that returns a string gives one `TextBlock`; a tool that
  returns blocks (`ImageBlock`, `DocumentBlock`, `AudioBlock`, `VideoBlock`, `TextBlock`) gives
  those blocks, inline bytes or a URL as the block holds them;
- a failed call: the tool message with the error's text, as the agent writes the `ToolOutput`
  of a tool that raised (`is_error` stays on the `ToolOutput`; no message field carries it).

LlamaIndex has no tool-produced user content (a tool's output is the tool message, and the
agent adds nothing beside it), so the `prompt` style is declared not applicable by the target.
"""

from __future__ import annotations

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

__all__ = [
    "CallTurn",
    "call_blocks",
    "dump_messages",
    "load_messages",
    "to_block",
    "to_messages",
    "tool_names",
]


def _audio_format(media_type: str) -> str:
    subtype = media_type.partition("/")[2]
    return {"mpeg": "mp3", "x-wav": "wav", "wave": "wav"}.get(subtype, subtype)


def to_block(part: Part) -> Any:
    """One part as the LlamaIndex content block a tool returns for it."""
    from llama_index.core.base.llms import types

    if isinstance(part, Text):
        return types.TextBlock(text=part.text)
    return _media_block(types, part)


def _media_block(types: Any, part: Image | Document | Audio | Video) -> Any:
    where: dict[str, Any] = {"url": part.url} if part.url is not None else {}
    if isinstance(part, Image):
        data = {"image": part.data} if part.data is not None else {}
        return types.ImageBlock(**data, **where, image_mimetype=part.media_type)
    if isinstance(part, Document):
        data = {"data": part.data} if part.data is not None else {}
        return types.DocumentBlock(
            **data, **where, title=part.identifier, document_mimetype=part.media_type
        )
    if isinstance(part, Audio):
        data = {"audio": part.data} if part.data is not None else {}
        return types.AudioBlock(**data, **where, format=_audio_format(part.media_type))
    video = getattr(types, "VideoBlock", None)
    if video is None:  # older cores define no video block: the target declares video n/a
        raise LookupError("this llama-index-core defines no VideoBlock")
    data = {"video": part.data} if part.data is not None else {}
    return video(**data, **where, video_mimetype=part.media_type)


def _blocks(content: str | list[Part]) -> list[Any]:
    if isinstance(content, str):
        return [to_block(Text(text=content))]
    return [to_block(p) for p in content]


CallTurn = Callable[[list[ToolCall]], Any]
"""How an integration's own response holds a tool-call turn: the assistant `ChatMessage` a
`FunctionAgent` keeps after the model asked for these calls."""


def call_blocks(calls: list[ToolCall]) -> Any:
    """The turn as the integrations of core 0.14 return it: a `ToolCallBlock` per call."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock

    blocks = [
        ToolCallBlock(tool_call_id=c.tool_call_id, tool_name=c.name, tool_kwargs=dict(c.arguments))
        for c in calls
    ]
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks)


def to_messages(history: History, turn: CallTurn = call_blocks) -> list[Any]:
    """The canonical history as `ChatMessage`s, as a `FunctionAgent`'s memory holds it; each
    tool-call turn as `turn` says the row's integration returned it."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    out: list[Any] = []
    calls: list[ToolCall] = []

    def flush_calls() -> None:
        if calls:
            out.append(turn(list(calls)))
            calls.clear()

    for item in history:
        if isinstance(item, ToolCall):
            calls.append(item)
            continue
        flush_calls()
        if isinstance(item, ToolResult):
            out.append(
                ChatMessage(
                    role=MessageRole.TOOL,
                    blocks=_blocks(item.content),
                    additional_kwargs={"tool_call_id": item.tool_call_id},
                )
            )
        else:
            out.append(_message(item, ChatMessage, MessageRole))
    flush_calls()
    return out


def _message(item: Message, chat_message: Any, role: Any) -> Any:
    roles = {"system": role.SYSTEM, "user": role.USER, "assistant": role.ASSISTANT}
    return chat_message(role=roles[item.role], blocks=_blocks(item.content))


def tool_names(history: History) -> list[str]:
    """The tools of the history, in order of first use: the ones given to the model."""
    return list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))


def dump_messages(messages: list[Any]) -> str:
    """LlamaIndex's own serialization of chat messages: each `ChatMessage.model_dump_json()`
    (what its chat stores, `SimpleChatStore.persist`, write), as one JSON list."""
    return json.dumps([json.loads(m.model_dump_json()) for m in messages], ensure_ascii=False)


def load_messages(stored: str) -> list[Any]:
    """The messages back, `ChatMessage.model_validate` per stored message (as the chat stores
    load them)."""
    from llama_index.core.base.llms.types import ChatMessage

    return [ChatMessage.model_validate(m) for m in json.loads(stored)]
