"""The pydantic-ai target's translation: the canonical history as pydantic-ai messages
(`to_messages`), their storage (`dump_messages`, `load_messages`), and the split of a history's
last tool-call turn into stored messages and what each pending call's tool returns (`plan`).
Imports pydantic-ai only inside the functions that need it."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
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

# --- history -> pydantic-ai messages ---------------------------------------------------------


def _media(part: Image | Document | Audio | Video) -> Any:
    from pydantic_ai import messages as m

    if part.data is not None:
        return m.BinaryContent(part.data, media_type=part.media_type, identifier=part.identifier)
    assert part.url is not None
    url_type: type[Any] = {
        "image": m.ImageUrl,
        "document": m.DocumentUrl,
        "audio": m.AudioUrl,
        "video": m.VideoUrl,
    }[part.type]
    return url_type(part.url, media_type=part.media_type, identifier=part.identifier)


def content_of(part: Part) -> Any:
    return part.text if isinstance(part, Text) else _media(part)


def value_of(parts: list[Part]) -> Any:
    """A tool's return value: the one item itself, else the list."""
    values = [content_of(p) for p in parts]
    return values[0] if len(values) == 1 else values


def text_of(content: str | list[Part]) -> str:
    return (
        content
        if isinstance(content, str)
        else "".join(p.text for p in content if isinstance(p, Text))
    )


def _failed_returns_carry_files() -> bool:
    """Whether the release sends a failed tool return's files (2.x: `ERROR_OUTCOMES`, the
    outcomes whose content is wrapped as an error with the part's files after it)."""
    from pydantic_ai import messages as m

    return hasattr(m, "ERROR_OUTCOMES")


def _has_outcome() -> bool:
    from pydantic_ai import messages as m

    return "outcome" in getattr(m.ToolReturnPart, "__dataclass_fields__", {})


def _tool_return(item: ToolResult) -> Any:
    """A stored tool result: `ToolReturnPart`, failed as the version stores a failed call.

    2.x stores a failed call as `ToolReturnPart(outcome='failed')` whose content is any tool
    return, media included: an MCP tool result with `is_error` keeps every part
    (`pydantic_ai._mcp`: `content=_map_mcp_tool_results(...)`, `outcome='failed' if is_error`),
    and `ToolReturnPart.content_items` sends a failed part's files after its `{"error": ...}`
    text (`ERROR_OUTCOMES`). So there a failed result is its whole content, each part as it
    is, as a success is (a single text is the string a `ToolFailed` message gives).

    Before that, a failure is text wherever the release makes one: a tool's `ModelRetry`
    message (`RetryPromptPart`, a string), a UI adapter's `error_text` (1.85's
    `ToolReturnPart(outcome='failed')`), a failed MCP result's text parts joined and raised as
    `ModelRetry` (1.85's `MCPServer.direct_call_tool`, which drops its other parts). No path of
    such a release stores media in a failed call, so its stored failure is the text."""
    from pydantic_ai import messages as m

    if item.status == "error":
        if _failed_returns_carry_files():
            return m.ToolReturnPart(
                tool_name=item.name,
                content=value_of(list(item.content)),
                tool_call_id=item.tool_call_id,
                outcome="failed",
            )
        text = text_of(list(item.content))
        if _has_outcome():
            return m.ToolReturnPart(
                tool_name=item.name, content=text, tool_call_id=item.tool_call_id, outcome="failed"
            )
        retry: Any = getattr(m, "RetryPromptPart")  # noqa: B009 (deprecated in 2.x)
        return retry(content=text, tool_name=item.name, tool_call_id=item.tool_call_id)
    return m.ToolReturnPart(
        tool_name=item.name, content=value_of(list(item.content)), tool_call_id=item.tool_call_id
    )


def to_messages(history: History) -> list[Any]:
    """The canonical history as stored pydantic-ai `ModelMessage`s.

    Consecutive request-side items (user and system messages, tool results, tool-produced user
    content) share one `ModelRequest`; consecutive tool calls and assistant text share one
    `ModelResponse`, as pydantic-ai itself stores a turn. Tool-produced user content is a
    `UserPromptPart` (pydantic-ai keeps no provenance on it).
    """
    from pydantic_ai import messages as m

    out: list[Any] = []
    request: list[Any] = []
    response: list[Any] = []

    def flush(parts: list[Any], kind: Any) -> None:
        if parts:
            out.append(kind(parts=list(parts)))
            parts.clear()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # RetryPromptPart in 2.x
        for item in history:
            if isinstance(item, ToolCall):
                flush(request, m.ModelRequest)
                response.append(
                    m.ToolCallPart(
                        tool_name=item.name,
                        args=dict(item.arguments),
                        tool_call_id=item.tool_call_id,
                    )
                )
            elif isinstance(item, ToolResult):
                flush(response, m.ModelResponse)
                request.append(_tool_return(item))
            elif item.role == "assistant":
                flush(request, m.ModelRequest)
                response.append(m.TextPart(content=text_of(item.content)))
            else:
                flush(response, m.ModelResponse)
                if item.role == "system":
                    request.append(m.SystemPromptPart(content=text_of(item.content)))
                else:
                    content = item.content
                    value = (
                        content if isinstance(content, str) else [content_of(p) for p in content]
                    )
                    request.append(m.UserPromptPart(content=value))
    flush(request, m.ModelRequest)
    flush(response, m.ModelResponse)
    return out


def dump_messages(messages: list[Any]) -> bytes:
    """pydantic-ai's own storage format for a message history."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(messages)


def load_messages(data: bytes) -> list[Any]:
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return list(ModelMessagesTypeAdapter.validate_json(data))


# --- the last turn, produced by running the tools --------------------------------------------


@dataclass
class Call:
    """What one pending call's tool does when the agent runs it."""

    name: str
    arguments: dict[str, Any]
    status: str = "success"
    value: list[Part] = field(default_factory=list[Part])
    produced: list[Part] = field(default_factory=list[Part])


@dataclass
class Plan:
    head: History
    """The history up to and including the last tool-call turn: stored messages."""
    calls: dict[str, Call]
    """The pending calls of that turn, in call order, and what each tool returns."""


def plan(history: History) -> Plan | None:
    """Split a history whose tail is the results of its last tool-call turn (and content those
    tools produced) into stored messages and the tools' behaviour; None if it has no such tail
    or a result no tool can produce (an error carrying anything but text)."""
    last = max((i for i, item in enumerate(history) if isinstance(item, ToolCall)), default=None)
    if last is None:
        return None
    start = last
    while start > 0 and isinstance(history[start - 1], ToolCall):
        start -= 1
    calls: dict[str, Call] = {}
    for item in history[start : last + 1]:
        assert isinstance(item, ToolCall)
        calls[item.tool_call_id] = Call(item.name, dict(item.arguments))
    answered: set[str] = set()
    for item in history[last + 1 :]:
        if isinstance(item, ToolResult) and item.tool_call_id in calls:
            call = calls[item.tool_call_id]
            if item.tool_call_id in answered or item.name != call.name:
                return None
            if item.status == "error" and not all(isinstance(p, Text) for p in item.content):
                return None
            answered.add(item.tool_call_id)
            call.status, call.value = item.status, list(item.content)
        elif (
            isinstance(item, Message)
            and item.role == "user"
            and item.source is not None
            and item.source.tool_call_id in calls
            and item.source.tool_call_id in answered
            and not isinstance(item.content, str)
        ):
            calls[item.source.tool_call_id].produced += item.content
        else:
            return None
    if answered != set(calls):
        return None
    return Plan(history[: last + 1], calls)


TOOL_DOC = "Return what the scenario's tool returned for this call."
"""Every tool's description (a user's tool has one)."""
