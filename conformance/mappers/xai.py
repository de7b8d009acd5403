"""xAI Grok (OpenAI-compatible chat): history -> the JSON body of `POST /v1/chat/completions`
at https://api.x.ai.

Follows the OpenAI-compatible REST surface described at https://docs.x.ai/docs/guides/chat-completions
and https://docs.x.ai/docs/guides/image-understanding; the xai-sdk 1.21.0 protobuf
(`xai_sdk.proto.chat_pb2.Message`, `Content`) is the reference for what a message can hold.

- Tool messages carry text. The protobuf does not forbid an image in a tool message, but
  third-party reports disagree on whether the server takes one, so images fall back to a user
  message (`image_url`, https URL or data URL) behind the marker (the safe choice). Image
  understanding takes JPEG and PNG.
- Documents: whether chat completions takes an OpenAI-style `file` part is uncertain, and a
  part the server ignores would lose the document silently, so they are unsupported (the safe
  choice). There is no audio or video input.
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

API = "xai"

PROFILES = {
    "grok-4": Profile(
        api=API,
        model="grok-4",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
        media_types={"image": frozenset({"image/jpeg", "image/png"})},
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image():
            return {"type": "image_url", "image_url": {"url": data_url(part)}}
        case Document() | Audio() | Video():
            raise AssertionError("routing never sends documents, audio or video to xAI")
        case _:
            assert_never(part)


def _text_content(texts: list[Text]) -> str | list[dict[str, Any]]:
    if len(texts) == 1:
        return texts[0].text
    if not texts:
        return ""
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
                            "content": _text_content(texts),
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
