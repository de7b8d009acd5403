"""The canonical history as Anthropic Messages params, the format LiteLLM's Anthropic-messages
interface (`litellm.anthropic.messages.create`/`acreate`) takes.

A user holding an Anthropic-format conversation has: a `system` string, alternating user and
assistant messages, the assistant's (parallel) calls as `tool_use` blocks of one assistant
message, and the results as `tool_result` blocks of the next user message. Anthropic requires
the `tool_result` blocks to come first in that message; tool-produced user content (style
`prompt`) follows them there, as a client like Claude Code sends text after its results. Media
is an `image` or `document` block with a `base64` or `url` source (LiteLLM's
`AnthropicMessagesImageParam` and `AnthropicMessagesDocumentParam`,
`litellm/types/llms/anthropic.py`); a document carries its file name as `title`. A failed call
sets `is_error: true` on its `tool_result`. The format has no audio or video block
(`NoAnthropicForm`).
"""

from __future__ import annotations

import base64
from typing import Any

from conformance.errors import SuiteError
from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)

__all__ = ["MAX_TOKENS", "NoAnthropicForm", "anthropic_tools", "to_anthropic"]

MAX_TOKENS = 1024
"""`max_tokens`, which the Anthropic format requires."""


class NoAnthropicForm(SuiteError):
    """A part the Anthropic Messages format has no block for (audio, video). The suite's own
    error, never a refusal of LiteLLM: no matrix cell meets it (`not_applicable` skips audio and
    video cells), only generated histories of the property search do."""


def _block(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Audio | Video):
        raise NoAnthropicForm(
            f"{part.type} {part.identifier!r}: the Anthropic Messages format has image and "
            "document blocks only, no audio or video"
        )
    if part.url is not None:
        source: dict[str, Any] = {"type": "url", "url": part.url}
    else:
        data = base64.b64encode(part.data or b"").decode("ascii")
        source = {"type": "base64", "media_type": part.media_type, "data": data}
    block: dict[str, Any] = {"type": part.type, "source": source}
    if isinstance(part, Document):
        block["title"] = part.identifier
    assert isinstance(part, Image | Document)
    return block


def _content(content: str | list[Part]) -> str | list[dict[str, Any]]:
    """A string stays the string; a lone text part is its plain string (byte for byte)."""
    if isinstance(content, str):
        return content
    if len(content) == 1 and isinstance(content[0], Text):
        return content[0].text
    return [_block(p) for p in content]


def _blocks(content: str | list[Part]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [_block(p) for p in content]


def to_anthropic(history: History) -> tuple[str | None, list[dict[str, Any]]]:
    """The history as `(system, messages)`: Anthropic Messages params.

    System messages join the `system` string; consecutive tool calls share one assistant
    message; consecutive results share one user message, the tool-produced user content of
    the turn after their `tool_result` blocks.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] | None = None  # the tool_use blocks of the open assistant turn
    results: list[dict[str, Any]] = []  # the tool_result blocks of the current turn
    waiting: list[dict[str, Any]] = []  # its tool-produced user content

    def flush() -> None:
        if results or waiting:
            out.append({"role": "user", "content": [*results, *waiting]})
        results.clear()
        waiting.clear()

    for item in history:
        if isinstance(item, ToolCall):
            if calls is None:
                flush()
                calls = []
                out.append({"role": "assistant", "content": calls})
            calls.append(
                {
                    "type": "tool_use",
                    "id": item.tool_call_id,
                    "name": item.name,
                    "input": item.arguments,
                }
            )
            continue
        calls = None
        if isinstance(item, ToolResult):
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": item.tool_call_id,
                "content": _content(item.content),
            }
            if item.status == "error":
                block["is_error"] = True
            results.append(block)
        elif item.source is not None:
            waiting.extend(_blocks(item.content))
        elif item.role == "system":
            flush()
            system.extend(b["text"] for b in _blocks(item.content) if _text_only(b))
        else:
            flush()
            out.append({"role": item.role, "content": _content(item.content)})
    flush()
    return ("\n\n".join(system) if system else None), out


def _text_only(block: dict[str, Any]) -> bool:
    if block["type"] != "text":
        raise NoAnthropicForm("a system prompt holds text only in the Anthropic Messages format")
    return True


def anthropic_tools(history: History) -> list[dict[str, Any]]:
    """An Anthropic tool per tool the history calls, taking no arguments."""
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [
        {
            "name": name,
            "description": f"The scenario's {name} tool.",
            "input_schema": {"type": "object", "properties": {}},
        }
        for name in names
    ]
