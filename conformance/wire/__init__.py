"""Wire locators: independent readers of each api's request payload.

`locate(api, payload)` turns a request body into the neutral `WireView` that the classifier
reads. Each locator is written from its provider's documentation and SDK types and never
imports mapper or target code, so a mapper bug cannot confirm itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.wire import (
    anthropic,
    anthropic_bedrock,
    anthropic_vertex,
    bedrock_converse,
    cohere,
    gemini,
    gemini_vertex,
    groq,
    huggingface,
    mistral,
    openai_chat,
    openai_responses,
    xai,
)
from conformance.wire.base import (
    PartKind,
    Position,
    WireFormatError,
    WireMessage,
    WirePart,
    WireToolCall,
    WireToolResult,
    WireView,
    b64_digest,
    data_url_digest,
    digest,
    iter_strings,
)

__all__ = [
    "LOCATORS",
    "Locator",
    "PartKind",
    "Position",
    "WireFormatError",
    "WireMessage",
    "WirePart",
    "WireToolCall",
    "WireToolResult",
    "WireView",
    "b64_digest",
    "data_url_digest",
    "digest",
    "iter_strings",
    "locate",
]

Locator = Callable[[Mapping[str, Any]], WireView]
"""Reads one api's request body into a `WireView`; raises `WireFormatError` on a bad shape."""

LOCATORS: dict[str, Locator] = {
    openai_chat.API: openai_chat.locate,
    openai_responses.API: openai_responses.locate,
    anthropic.API: anthropic.locate,
    gemini.API: gemini.locate,
    bedrock_converse.API: bedrock_converse.locate,
    mistral.API: mistral.locate,
    cohere.API: cohere.locate,
    groq.API: groq.locate,
    xai.API: xai.locate,
    huggingface.API: huggingface.locate,
    anthropic_vertex.API: anthropic_vertex.locate,
    gemini_vertex.API: gemini_vertex.locate,
    anthropic_bedrock.API: anthropic_bedrock.locate,
}


def locate(api: str, payload: Mapping[str, Any]) -> WireView:
    """The neutral view of `payload`, a request body of `api`."""
    try:
        locator = LOCATORS[api]
    except KeyError:
        known = ", ".join(sorted(LOCATORS))
        raise KeyError(f"no wire locator for api {api!r}; known apis: {known}") from None
    return locator(payload)
