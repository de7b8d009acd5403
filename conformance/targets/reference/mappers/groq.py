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

from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers._chat import Dialect, chat_messages, map_text_or_image
from conformance.targets.reference.mappers._common import Profile

__all__ = ["PROFILES", "render"]

API = "groq"

PROFILES = {
    "qwen3.6": Profile(
        api=API,
        model="qwen/qwen3.6-27b",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
    ),
}

_DIALECT = Dialect(map_part=map_text_or_image, empty_list=True)


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    return {"model": profile.model, "messages": chat_messages(profile, history, _DIALECT)}
