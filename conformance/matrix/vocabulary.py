"""The matrix vocabulary: apis, content types, sources, styles, expectations, outcomes and the
patterns of ids and names.

Plain literals, importable without pydantic: the pytest plugin registers its options from them
at every pytest start, configured or not."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final, Literal, get_args

if TYPE_CHECKING:
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
    "anthropic-vertex",
    "gemini-vertex",
    "anthropic-bedrock",
]
"""One provider wire format; the first half of a row id."""
Source = Literal["inline", "url"]
"""How media is given: inline bytes or a URL."""
TextSource = Literal["inline"]
"""Text has one source: a URL to text is a document, and text url cells would only repeat the
inline ones."""
Style = Literal["result", "prompt"]
"""Where the tool puts media: in its return value, or as user content with provenance."""
CellStyle = Literal["result", "prompt", "error"]
"""A cell's style: the two matrix styles, or `error` for a row's error-result cell."""
Expectation = Literal["native", "fallback", "unsupported", "refuse-or-download"]
"""What the api allows for a cell. `refuse-or-download` is for url cells whose api has no URL
form for the type: a typed refusal passes, and so does downloading the URL and carrying the
bytes as the inline cell of the same row, type and style expects."""
ErrorExpectation = Literal["flag", "text"]
"""How the api carries a tool result with status error: a native error flag on the tool-result
block, or the error text as it is, with no flag."""
Outcome = Literal[
    "crashed",
    "malformed",
    "dropped",
    "noted",
    "stringified",
    "altered: bytes",
    "altered: media type",
    "altered",
    "duplicated",
    "fallback-unmarked",
    "fallback-marked",
    "native",
    "raised",
]
"""What a target was observed to do with a cell, worst first (`SEVERITY`).

- crashed: an exception that is not the target's declared refusal type (or is the suite's own);
- malformed: the payload has a shape its api does not define (the JSON path says where);
- dropped: media or text gone without a trace;
- noted: gone, and a text that is in no history item stands in the payload instead;
- stringified: gone as media, its bytes (base64 or repr) or URL inside a string;
- altered: bytes: media of its kind where it belongs, but with other bytes (changed, truncated,
  undecodable);
- altered: media type: the bytes intact, the media type the payload states is another;
- altered: text not byte-identical (changed, wrapped, given a marker);
- duplicated: the item is in the payload more than once;
- fallback-unmarked: moved out of its tool result without a marker naming its call;
- fallback-marked: in a later user message behind a marker naming its own call;
- native: in its own tool-result block, unchanged;
- raised: the target's declared refusal type, before anything was sent (whole cell).

`raised` sorts last: it describes a whole cell that sent nothing, and it is only ever the
outcome of a cell on its own. The order puts what destroys the user's data before what only
misplaces it: a cell's outcome is its worst part's."""
UrlHandling = Literal["sent-url", "downloaded", "not-fetched"]
"""What a target did with the URL of a url cell: put the URL in the payload, fetched it from the
fixture host, or neither (it refused, or lost the media without fetching it)."""
Known = Literal["doc", "sdk", "third-party", "uncertain"]
"""How an expectation is known: provider docs, official SDK types, third parties, or not yet."""

ROW_API_NAMES: Final[tuple[Api, ...]] = get_args(Api)
CONTENT_TYPES: Final[tuple[ContentType, ...]] = ("text", "image", "document", "audio", "video")
"""`conformance.history.ContentType`'s values, in its order (a self-test keeps them equal):
spelled out so that this module does not import the history models."""
SOURCES: Final[tuple[Source, ...]] = get_args(Source)
TEXT_SOURCES: Final[tuple[TextSource, ...]] = get_args(TextSource)
STYLES: Final[tuple[Style, ...]] = get_args(Style)
EXPECTATIONS: Final[tuple[Expectation, ...]] = get_args(Expectation)
ERROR_EXPECTATIONS: Final[tuple[ErrorExpectation, ...]] = get_args(ErrorExpectation)
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
SEVERITY: Final[tuple[Outcome, ...]] = OUTCOMES
"""Outcomes worst first; a cell's outcome is the worst of its parts'."""
LOSSY: Final[frozenset[Outcome]] = frozenset(SEVERITY[: SEVERITY.index("fallback-unmarked")])
"""Outcomes in which the user's data does not reach the model as given: what no-silent-loss
fails on. `crashed` and `malformed` count: nothing usable was sent, and nobody was told so in
the target's own terms."""
URL_HANDLINGS: Final[tuple[UrlHandling, ...]] = get_args(UrlHandling)
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
