"""The canonical history as Responses input, the format `litellm.responses`/`aresponses` takes.

A user holding a Responses-format conversation has: `instructions` (the system prompt), input
items of type `message` (user and assistant), `function_call` per call and
`function_call_output` per result, whose `output` is the exact string for text alone or a list
of `input_text`, `input_image` and `input_file` parts (openai `ResponseInputItemParam`,
`ResponseFunctionCallOutputItemListParam`). An image is an `input_image` with a data URI or
the URL; a document an `input_file` with `file_data` (a data URI) and `filename`, or its
`file_url`. Tool-produced user content waits until the run of outputs ends (nothing may come
between a call and its output) and is a user message. The Responses content types have no
audio or video part (`NoResponsesForm`); a failed call has no flag in this format, its text is
the output.
"""

from __future__ import annotations

import base64
import json
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

__all__ = ["NoResponsesForm", "responses_tools", "to_responses"]


class NoResponsesForm(SuiteError):
    """A part the Responses input format has no content type for (audio, video). The suite's
    own error, never a refusal of LiteLLM: no matrix cell meets it (`not_applicable` skips
    audio and video cells), only generated histories of the property search do."""


def _data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, Audio | Video):
        raise NoResponsesForm(
            f"{part.type} {part.identifier!r}: the Responses input format has text, image and "
            "file parts only, no audio or video"
        )
    assert isinstance(part, Image | Document)
    if isinstance(part, Image):
        url = part.url if part.url is not None else _data_uri(part.media_type, part.data or b"")
        return {"type": "input_image", "image_url": url, "detail": "auto"}
    if part.url is not None:
        return {"type": "input_file", "file_url": part.url}
    return {
        "type": "input_file",
        "file_data": _data_uri(part.media_type, part.data or b""),
        "filename": part.identifier,
    }


def _output(parts: list[Part]) -> str | list[dict[str, Any]]:
    """A lone text part is the plain string (byte for byte); anything else a parts list."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_part(p) for p in parts]


def _message(role: str, content: str | list[Part]) -> dict[str, Any]:
    if isinstance(content, str):
        return {"type": "message", "role": role, "content": content}
    if role == "assistant":
        text = "".join(p.text for p in content if isinstance(p, Text))
        if any(not isinstance(p, Text) for p in content):
            raise NoResponsesForm("an assistant message holds text only in the Responses format")
        return {"type": "message", "role": role, "content": text}
    return {"type": "message", "role": role, "content": [_part(p) for p in content]}


def to_responses(history: History) -> tuple[str | None, list[dict[str, Any]]]:
    """The history as `(instructions, input)`: Responses params."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # tool-produced user content of the current turn

    def flush() -> None:
        items.extend(waiting)
        waiting.clear()

    for item in history:
        if isinstance(item, ToolCall):
            flush()
            items.append(
                {
                    "type": "function_call",
                    "call_id": item.tool_call_id,
                    "name": item.name,
                    "arguments": json.dumps(item.arguments),
                }
            )
        elif isinstance(item, ToolResult):
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": item.tool_call_id,
                    "output": _output(item.content),
                }
            )
        elif item.source is not None:
            waiting.append(_message("user", item.content))
        elif item.role == "system":
            flush()
            content = item.content
            if not isinstance(content, str) and any(not isinstance(p, Text) for p in content):
                raise NoResponsesForm("instructions hold text only in the Responses format")
            instructions.append(
                content
                if isinstance(content, str)
                else "".join(p.text for p in content if isinstance(p, Text))
            )
        else:
            flush()
            items.append(_message(item.role, item.content))
    flush()
    return ("\n\n".join(instructions) if instructions else None), items


def responses_tools(history: History) -> list[dict[str, Any]]:
    """A Responses function tool per tool the history calls, taking no arguments."""
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [
        {
            "type": "function",
            "name": name,
            "description": f"The scenario's {name} tool.",
            "parameters": {"type": "object", "properties": {}},
        }
        for name in names
    ]
