"""Wire locator for Claude on Vertex AI (`POST .../publishers/anthropic/models/{model}:rawPredict`).

Written from https://docs.anthropic.com/en/api/claude-on-vertex-ai: the body "is nearly
identical to the Messages API", with two differences: `model` is not in the body (it is in
the endpoint URL) and `anthropic_version` is in the body, set to `vertex-2023-10-16`. Neither
difference touches where tool calls, tool results and user content sit, so the Messages
locator reads the body; the view is named for this api.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.wire import anthropic

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "anthropic-vertex"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Claude-on-Vertex request body."""
    return replace(anthropic.locate(payload), api=API)
