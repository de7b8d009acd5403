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

from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers._chat import Dialect, chat_messages, map_text_or_image
from conformance.targets.reference.mappers._common import Profile

__all__ = ["PROFILES", "render"]

API = "xai"

PROFILES = {
    "grok-4": Profile(
        api=API,
        model="grok-4.3",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
        media_types={"image": frozenset({"image/jpeg", "image/png"})},
    ),
}

_DIALECT = Dialect(map_part=map_text_or_image)


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    return {"model": profile.model, "messages": chat_messages(profile, history, _DIALECT)}
