"""OpenAI Responses: history -> the JSON body of `POST /v1/responses`.

A `function_call_output` item's `output` is a string or a list of `input_text`,
`input_image` and `input_file` items (openai >= 2.0, `ResponseFunctionCallOutputItemParam`),
so images and files stay in the tool result. Responses input has no audio or video part.
"""

from __future__ import annotations

import json
from typing import Any, assert_never

from conformance.history import Audio, Document, History, Image, Message, Part, Text, Video
from conformance.targets.reference.mappers._common import (
    AssistantTurn,
    MessageTurn,
    Profile,
    ToolTurn,
    data_url,
    marker_text,
    message_parts,
    plan,
    text_of,
)

__all__ = ["PROFILES", "render"]

API = "openai-responses"

PROFILES = {
    "gpt-6": Profile(
        api=API,
        model="gpt-6.1-sol",
        tool_result=frozenset({"text", "image", "document"}),
        user=frozenset({"text", "image", "document"}),
        url=frozenset({"image", "document"}),
        media_types={"document": frozenset({"application/pdf"})},
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "input_text", "text": part.text}
        case Image():
            return {"type": "input_image", "image_url": data_url(part), "detail": "auto"}
        case Document():
            if part.url is not None:
                return {"type": "input_file", "file_url": part.url}
            return {"type": "input_file", "filename": part.identifier, "file_data": data_url(part)}
        case Audio() | Video():
            raise AssertionError("routing never sends audio or video to Responses")
        case _:
            assert_never(part)


def _map_message(message: Message) -> dict[str, Any]:
    if isinstance(message.content, str):
        return {"role": message.role, "content": message.content}
    parts = message_parts(message) if message.role == "user" else list(text_of(message.content))
    return {"type": "message", "role": message.role, "content": [_map_part(p) for p in parts]}


def _output(parts: tuple[Part, ...]) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    if not parts:
        return ""
    return [_map_part(p) for p in parts]


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    items: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message):
                items.append(_map_message(message))
            case AssistantTurn(text=text, calls=calls):
                items.extend({"role": "assistant", "content": t.text} for t in text)
                items.extend(
                    {
                        "type": "function_call",
                        "call_id": c.tool_call_id,
                        "name": c.name,
                        "arguments": json.dumps(c.arguments),
                    }
                    for c in calls
                )
            case ToolTurn(results=results, moved=moved):
                items.extend(
                    {
                        "type": "function_call_output",
                        "call_id": routed.result.tool_call_id,
                        "output": _output(routed.native),
                    }
                    for routed in results
                )
                if moved:
                    content: list[dict[str, Any]] = []
                    for entry in moved:
                        content.append({"type": "input_text", "text": marker_text(entry.result)})
                        content.extend(_map_part(m) for m in entry.media)
                    items.append({"type": "message", "role": "user", "content": content})
            case _:
                assert_never(turn)
    return {"model": profile.model, "input": items}
