"""The canonical history in the OpenAI Agents SDK's own terms: input items and tool outputs.

- A tool's return value (`tool_output`) is what the SDK documents for function tools that
  return media (`agents.tool`): a lone text part is the plain string (byte for byte); a media
  part is `ToolOutputImage` (`image_url`: the URL, or a data URL for bytes) or
  `ToolOutputFileContent` (`file_url`, or `file_data` as a data URL with the part's
  `filename`); several parts are a list of those, text as `ToolOutputText`. The SDK has no
  audio or video output type: its only output for other media is the file one, so audio and
  video are `ToolOutputFileContent` too, as a user returning a recording or a clip writes it.
- A stored history is the list of Responses-style input items `Runner.run` takes
  (`to_input_items`): easy input messages (`{"role", "content"}`, content a string or
  `input_text` / `input_image` / `input_file` parts), `function_call` items, and one
  `function_call_output` item per result, made by the SDK's own `ItemHelpers.
  tool_call_output_item` from the tool output above (a failed call's too: the items have no
  error status, so its output is what the call said). The SDK keeps no provenance for user
  content, so tool-produced user content is a user message after the turn's outputs, without
  a marker (an Agents SDK user has nowhere to put one).
- `plan` splits a history into the stored items before its last tool-call turn and what each
  pending call's tool returns, so that the run produces that turn itself.

Everything here imports the SDK lazily, so the package imports without it.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
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
    ToolResult,
    Video,
)

__all__ = [
    "Call",
    "Plan",
    "dump_items",
    "load_items",
    "plan",
    "text_of",
    "to_input_items",
    "tool_names",
    "tool_output",
]


def _data_url(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _media_output(part: Image | Document | Audio | Video) -> Any:
    """One media item as the SDK's tool output models declare it."""
    from agents import ToolOutputFileContent, ToolOutputImage

    if isinstance(part, Image):
        url = part.url if part.url is not None else _data_url(part.media_type, part.data or b"")
        return ToolOutputImage(image_url=url)
    if part.url is not None:
        return ToolOutputFileContent(file_url=part.url)
    return ToolOutputFileContent(
        file_data=_data_url(part.media_type, part.data or b""), filename=part.identifier
    )


def _output_part(part: Part) -> Any:
    from agents import ToolOutputText

    match part:
        case Text():
            return ToolOutputText(text=part.text)
        case Image() | Document() | Audio() | Video():
            return _media_output(part)
        case _:
            assert_never(part)


def tool_output(parts: list[Part]) -> Any:
    """What a function tool returns for these parts: the exact string for a lone text part,
    the one output model for a lone media part, else a list of output models; nothing is the
    empty string (an empty list would be stringified by the SDK, as `"[]"`)."""
    if not parts:
        return ""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    if len(parts) == 1:
        return _output_part(parts[0])
    return [_output_part(p) for p in parts]


def text_of(parts: str | list[Part]) -> str:
    if isinstance(parts, str):
        return parts
    return "".join(p.text for p in parts if isinstance(p, Text))


def _input_part(part: Part) -> dict[str, Any]:
    """A user message part as the SDK's input items take it (`input_*`, Responses style)."""
    match part:
        case Text():
            return {"type": "input_text", "text": part.text}
        case Image():
            url = part.url if part.url is not None else _data_url(part.media_type, part.data or b"")
            return {"type": "input_image", "image_url": url, "detail": "auto"}
        case Document() | Audio() | Video():
            if part.url is not None:
                return {"type": "input_file", "file_url": part.url}
            return {
                "type": "input_file",
                "file_data": _data_url(part.media_type, part.data or b""),
                "filename": part.identifier,
            }
        case _:
            assert_never(part)


def _message(item: Message) -> dict[str, Any]:
    content = item.content
    if isinstance(content, str):
        return {"role": item.role, "content": content}
    if len(content) == 1 and isinstance(content[0], Text):  # the string, as a user writes it
        return {"role": item.role, "content": content[0].text}
    if item.role != "user":  # system and assistant input messages take text
        return {"role": item.role, "content": text_of(content)}
    return {"role": "user", "content": [_input_part(p) for p in content]}


def _function_call(item: ToolCall) -> Any:
    from openai.types.responses import ResponseFunctionToolCall

    return ResponseFunctionToolCall(
        type="function_call",
        call_id=item.tool_call_id,
        name=item.name,
        arguments=json.dumps(item.arguments),
    )


def to_input_items(history: History) -> list[Any]:
    """The history as the input items a user passes to `Runner.run` (a stored conversation).

    Tool-produced user content waits until the turn's run of tool outputs ends, as the SDK
    itself never puts a message between a turn's calls and their outputs.
    """
    from agents import ItemHelpers

    out: list[Any] = []
    waiting: list[dict[str, Any]] = []
    for item in history:
        if isinstance(item, ToolCall):
            out.extend(waiting)
            waiting.clear()
            call = _function_call(item)
            out.append(call.model_dump(exclude_none=True))
        elif isinstance(item, ToolResult):
            call = _function_call(ToolCall(tool_call_id=item.tool_call_id, name=item.name))
            # The SDK's items have no error status: a failed call's output is its content.
            value = tool_output(list(item.content))
            out.append(dict(ItemHelpers.tool_call_output_item(call, value)))
        elif item.source is not None:
            waiting.append(_message(item))
        else:
            out.extend(waiting)
            waiting.clear()
            out.append(_message(item))
    out.extend(waiting)
    return out


def tool_names(history: History) -> list[str]:
    return list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))


def dump_items(items: list[Any]) -> str:
    """How an Agents SDK user stores a conversation: `to_input_list()` as JSON."""
    return json.dumps(items, ensure_ascii=False)


def load_items(stored: str) -> list[Any]:
    loaded: list[Any] = json.loads(stored)
    return loaded


# --- the last turn, produced by running the tools --------------------------------------------


@dataclass
class Call:
    """One pending call of the last tool-call turn, and what its tool does."""

    tool_call_id: str
    name: str
    arguments: dict[str, Any]
    status: str = "success"
    value: list[Part] = field(default_factory=list[Part])


@dataclass
class Plan:
    head: History
    """The history before the last tool-call turn: the run's input items."""
    calls: list[Call]
    """The calls of that turn, in call order: the first model call answers with them."""


def plan(history: History) -> Plan | None:
    """A history whose tail is its last tool-call turn and that turn's results, each call
    answered once in call order (a failure with text only), as a plan; None for any other
    (tool-produced user content included: an Agents SDK tool cannot produce user content, so
    such a history is sent as stored items)."""
    last = max((i for i, item in enumerate(history) if isinstance(item, ToolCall)), default=None)
    if last is None:
        return None
    start = last
    while start > 0 and isinstance(history[start - 1], ToolCall):
        start -= 1
    calls: dict[str, Call] = {}
    for item in history[start : last + 1]:
        assert isinstance(item, ToolCall)
        if item.tool_call_id in calls:
            return None
        calls[item.tool_call_id] = Call(item.tool_call_id, item.name, dict(item.arguments))
    results = history[last + 1 :]
    if [getattr(r, "tool_call_id", None) for r in results] != list(calls):
        return None  # the run answers every call once, in call order
    for item in results:
        assert isinstance(item, ToolResult)
        call = calls[item.tool_call_id]
        if item.name != call.name:
            return None
        if item.status == "error" and not all(isinstance(p, Text) for p in item.content):
            return None  # a tool fails with an exception, which carries text only
        call.status, call.value = item.status, list(item.content)
    return Plan(history[:start], list(calls.values()))
