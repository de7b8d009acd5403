"""Claude on Vertex AI: history -> the JSON body of `...models/{model}:rawPredict`.

https://docs.anthropic.com/en/api/claude-on-vertex-ai: the body is the Messages body, except
that `model` is not in it (the endpoint URL names the model) and `anthropic_version` is, set
to `vertex-2023-10-16`. Everything else, tool results included, is the Messages mapper's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers import anthropic
from conformance.targets.reference.mappers._common import Profile

__all__ = ["ANTHROPIC_VERSION", "PROFILES", "render"]

API = "anthropic-vertex"
ANTHROPIC_VERSION = "vertex-2023-10-16"

PROFILES = {
    # Claude Sonnet 5.5 takes on Vertex what it takes on Anthropic's own api, except that no
    # Vertex page read documents `url` sources: media given by URL is refused, not sent.
    "claude-sonnet-5": replace(
        anthropic.PROFILES["claude-sonnet-5"], api=API, model="claude-sonnet-5-5", url=frozenset()
    ),
}


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The Vertex body for `profile`; raises `UnsupportedContent` before building."""
    body = anthropic.render(profile, history)
    del body["model"]
    return {"anthropic_version": ANTHROPIC_VERSION, **body}
