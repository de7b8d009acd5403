"""Groq (OpenAI-compatible): history -> the JSON body of `POST /openai/v1/chat/completions`.

Follows groq 1.7.0 (`groq.types.chat`: `ChatCompletionToolMessageParam`,
`ChatCompletionUserMessageParam`, `ChatCompletionContentPartImageParam`) and
https://console.groq.com/docs/vision and https://console.groq.com/docs/tool-use.

- Tool message content is a string when the result is one text, else a list of text parts:
  concatenating would turn several texts into one that is none of them. The SDK union admits
  parts there; a server 400 "content must be a string" is reported [3P] for image parts on
  non-vision models, so a multi-text result is the one uncertain shape here.
- Tool messages carry `tool_call_id` and `content` only: Groq's tool-use guide shows a `name`
  too, but the SDK's `ChatCompletionToolMessageParam` has no such field (the sdk-schema check
  reports it as an unknown key), and the call id already ties the result to its call.
- Images fall back to a user message (`image_url`, https URL or data URL) behind the
  marker, on vision models. Chat has no PDF, audio or video input.
"""

from __future__ import annotations

import json
from typing import Any, assert_never

from conformance.history import Audio, Document, History, Image, Message, Part, Text, Video
from conformance.mappers._common import (
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

API = "groq"

PROFILES = {
    "llama-4-scout": Profile(
        api=API,
        model="meta-llama/llama-4-scout-17b-16e-instruct",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image():
            return {"type": "image_url", "image_url": {"url": data_url(part)}}
        case Document() | Audio() | Video():
            raise AssertionError("routing never sends documents, audio or video to Groq")
        case _:
            assert_never(part)


def _text_content(texts: list[Text]) -> str | list[dict[str, Any]]:
    if len(texts) == 1:
        return texts[0].text
    return [_map_part(t) for t in texts]


def _map_message(message: Message) -> dict[str, Any]:
    if message.role != "user" or isinstance(message.content, str):
        return {"role": message.role, "content": _text_content(text_of(message.content))}
    return {"role": "user", "content": [_map_part(p) for p in message_parts(message)]}


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    messages: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message):
                messages.append(_map_message(message))
            case AssistantTurn(text=text, calls=calls):
                out: dict[str, Any] = {"role": "assistant"}
                if text:
                    out["content"] = _text_content(list(text))
                if calls:
                    out["tool_calls"] = [
                        {
                            "id": c.tool_call_id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for c in calls
                    ]
                messages.append(out)
            case ToolTurn(results=results, moved=moved):
                for routed in results:
                    texts = [p for p in routed.native if isinstance(p, Text)]
                    assert len(texts) == len(routed.native), "tool messages carry text only"
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": routed.result.tool_call_id,
                            "content": _text_content(texts) if texts else "",
                        }
                    )
                if moved:
                    content: list[dict[str, Any]] = []
                    for entry in moved:
                        content.append({"type": "text", "text": marker_text(entry.result)})
                        content.extend(_map_part(m) for m in entry.media)
                    messages.append({"role": "user", "content": content})
            case _:
                assert_never(turn)
    return {"model": profile.model, "messages": messages}
