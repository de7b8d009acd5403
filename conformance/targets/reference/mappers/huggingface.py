"""Hugging Face Inference Providers: history -> the JSON body of the OpenAI-compatible
`POST https://router.huggingface.co/v1/chat/completions`.

Follows huggingface_hub 2.4.0 (`ChatCompletionInputMessage`, `ChatCompletionInputMessageChunk`
with `type: Literal["text", "image_url"]`) and
https://huggingface.co/docs/inference-providers/tasks/chat-completion.

- Tool messages carry text. Whether a tool message may hold an image depends on the backend
  the router picks, and nothing guarantees it, so images fall back to a user message
  (`image_url`, https URL or data URL) behind the marker (the safe choice) on vision models.
- The message chunk type knows only text and images: documents, audio and video cannot be
  carried.
"""

from __future__ import annotations

from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers._chat import Dialect, chat_messages, map_text_or_image
from conformance.targets.reference.mappers._common import Profile

__all__ = ["PROFILES", "render"]

API = "huggingface"

PROFILES = {
    "qwen3.6": Profile(
        api=API,
        model="Qwen/Qwen3.6-27B",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
    ),
}

_DIALECT = Dialect(map_part=map_text_or_image)


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    return {"model": profile.model, "messages": chat_messages(profile, history, _DIALECT)}
