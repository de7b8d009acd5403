"""The matrix vocabulary: apis, content types, sources, styles, expectations, outcomes and the
patterns of ids and names."""

from __future__ import annotations

import re
from typing import Final, Literal, get_args

from conformance.history import ContentType

Api = Literal[
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock-converse",
    "mistral",
    "cohere",
    "groq",
    "xai",
    "huggingface",
]
"""One provider wire format; the first half of a row id."""
Source = Literal["inline", "url"]
"""How media is given: inline bytes or a URL."""
Style = Literal["result", "prompt"]
CellStyle = Literal["result", "prompt", "error"]
"""A cell's style: the two matrix styles, or `error` for a row's error-result cell."""
"""Where the tool puts media: in its return value, or as user content with provenance."""
Expectation = Literal["native", "fallback", "unsupported"]
"""What the api allows for a cell."""
ErrorExpectation = Literal["flag", "text"]
"""How the api carries a tool result with status error: a native error flag on the tool-result
block, or the error text as it is, with no flag."""
Outcome = Literal[
    "native",
    "fallback-marked",
    "fallback-unmarked",
    "raised",
    "dropped",
    "noted",
    "stringified",
    "altered",
]
"""What a target was observed to do with a cell."""
Known = Literal["doc", "sdk", "third-party", "uncertain"]
"""How an expectation is known: provider docs, official SDK types, third parties, or not yet."""

ROW_API_NAMES: Final[tuple[Api, ...]] = get_args(Api)
CONTENT_TYPES: Final[tuple[ContentType, ...]] = get_args(ContentType)
SOURCES: Final[tuple[Source, ...]] = get_args(Source)
STYLES: Final[tuple[Style, ...]] = get_args(Style)
EXPECTATIONS: Final[tuple[Expectation, ...]] = get_args(Expectation)
ERROR_EXPECTATIONS: Final[tuple[ErrorExpectation, ...]] = get_args(ErrorExpectation)
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
KNOWN: Final[tuple[Known, ...]] = get_args(Known)

_NAME = r"[a-z0-9][a-z0-9._-]*"
ID_PATTERN: Final = f"^{_NAME}$"
"""Citation ids and row families: they end up in test ids and file names."""
ROW_ID_PATTERN: Final = f"^(?:{'|'.join(re.escape(a) for a in ROW_API_NAMES)})/{_NAME}$"
_PY_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
TARGET_PATTERN: Final = f"^(?:{_NAME}|{_PY_NAME}(?:\\.{_PY_NAME})*:{_PY_NAME}(?:\\.{_PY_NAME})*)$"
"""A target: a registered name such as `reference` or `pydantic-ai`, or `module:attr`."""
URL_PATTERN: Final = r"^https?://\S+$"

_API_BY_NAME: Final[dict[str, Api]] = {api: api for api in ROW_API_NAMES}
