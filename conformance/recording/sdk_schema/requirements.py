"""The official SDK each api's request types come from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["SDK_REQUIREMENTS"]

SDK_REQUIREMENTS: Final[Mapping[str, str]] = {
    "openai": "openai>=2.0",
    "anthropic": "anthropic>=2.0",
    "google.genai": "google-genai>=3.0",
    "botocore": "botocore>=1.44",
    "mistralai": "mistralai>=3.0",
    "cohere": "cohere>=7.0",
    "groq": "groq>=1.0",
}
"""Top-level module -> the requirement that provides it (kept in step with the `sdks` group)."""
