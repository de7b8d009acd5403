"""The reference mappers: one pure function per api, history -> exact request body."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers import (
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
from conformance.targets.reference.mappers._common import Profile

__all__ = ["MAPPERS", "Mapper", "Profile"]

Mapper = tuple[Mapping[str, Profile], Callable[[Profile, History], dict[str, Any]]]

MAPPERS: dict[str, Mapper] = {
    "openai-chat": (openai_chat.PROFILES, openai_chat.render),
    "openai-responses": (openai_responses.PROFILES, openai_responses.render),
    "anthropic": (anthropic.PROFILES, anthropic.render),
    "cohere": (cohere.PROFILES, cohere.render),
    "gemini": (gemini.PROFILES, gemini.render),
    "bedrock-converse": (bedrock_converse.PROFILES, bedrock_converse.render),
    "mistral": (mistral.PROFILES, mistral.render),
    "groq": (groq.PROFILES, groq.render),
    "xai": (xai.PROFILES, xai.render),
    "huggingface": (huggingface.PROFILES, huggingface.render),
    "anthropic-vertex": (anthropic_vertex.PROFILES, anthropic_vertex.render),
    "gemini-vertex": (gemini_vertex.PROFILES, gemini_vertex.render),
    "anthropic-bedrock": (anthropic_bedrock.PROFILES, anthropic_bedrock.render),
}
