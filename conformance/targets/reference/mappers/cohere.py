"""Cohere Chat v2: history -> the JSON body of `POST /v2/chat`.

A tool message's content is a string or `text` / `document` items, where a document is a
JSON object, not a file (`ToolChatMessageV2`, cohere 7.3.1). User messages take `text` and,
on vision models, `image_url`. There is no PDF, audio or video input.
"""

from __future__ import annotations

from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers._chat import Dialect, chat_messages, map_text_or_image
from conformance.targets.reference.mappers._common import Profile

__all__ = ["PROFILES", "render"]

API = "cohere"

PROFILES = {
    # Command A takes text only; images need the vision model.
    "command-a": Profile(
        api=API,
        model="command-a-03-2025",
        tool_result=frozenset({"text"}),
        user=frozenset({"text"}),
    ),
    "command-a-vision": Profile(
        api=API,
        model="command-a-vision-07-2025",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image"}),
        url=frozenset({"image"}),
    ),
}

_DIALECT = Dialect(map_part=map_text_or_image, empty_list=True)


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    return {"model": profile.model, "messages": chat_messages(profile, history, _DIALECT)}
