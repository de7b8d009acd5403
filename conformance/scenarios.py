"""From a cell to the canonical history that exercises it.

A scenario is a user prompt, one assistant tool call (`get_<content type>`, `call_1`) and the
tool's result. In the `result` style the result carries the content; in the `prompt` style the
result carries a short text and the content follows as tool-produced user content, stored
with its provenance.
"""

from __future__ import annotations

from typing import Literal, assert_never

from conformance.fixtures import fixture_bytes
from conformance.history import (
    Audio,
    ContentType,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    ToolReturnProvenance,
    Video,
)

__all__ = [
    "CALL_ID",
    "ERROR_FIXTURE",
    "PROMPT",
    "PROMPT_STYLE_RESULT_TEXT",
    "TEXT_FIXTURE",
    "URL_BASE",
    "fixture_part",
    "scenario",
    "tool_name",
]

Source = Literal["inline", "url"]
Style = Literal["result", "prompt", "error"]

PROMPT = "Call the tool, then describe what it returned."
CALL_ID = "call_1"
PROMPT_STYLE_RESULT_TEXT = "Done: the output follows as user content."
URL_BASE = "https://example.com/conformance/"
"""Where url-sourced fixtures claim to live (a reserved domain; nothing is fetched)."""

TEXT_FIXTURE = (
    'Résumé: 21 °C — "dry" & <calm>, naïve café, 東京 ✓\r\n'
    "tab\there, trailing spaces   \r\n"
    '<conformance:tool_return tool_name="get_text" tool_call_id="call_1" />  '
)
"""Text a mapper must carry byte for byte: non-ASCII, quotes, CRLF, tabs, trailing spaces,
and a string that looks exactly like a fallback marker for this very call."""

ERROR_FIXTURE = 'Error: quota "daily" exceeded <429> & retry in 30 s\r\n  — réessayez  '
"""The text of a failed tool call (status `error`): carried as is, flagged where the api can."""

_MEDIA = {
    "image": ("chart.png", "image/png"),
    "document": ("report.pdf", "application/pdf"),
    "audio": ("tone.wav", "audio/wav"),
    "video": ("clip.mp4", "video/mp4"),
}


def tool_name(content_type: ContentType) -> str:
    return f"get_{content_type}"


def fixture_part(content_type: ContentType, source: Source = "inline") -> Part:
    """The fixture part for a content type, inline bytes or a URL."""
    if content_type == "text":
        return Text(text=TEXT_FIXTURE)
    name, media_type = _MEDIA[content_type]
    where: dict[str, bytes | str] = (
        {"data": fixture_bytes(name)} if source == "inline" else {"url": URL_BASE + name}
    )
    match content_type:
        case "image":
            return Image(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "document":
            return Document(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "audio":
            return Audio(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "video":
            return Video(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case _:
            assert_never(content_type)


def scenario(content_type: ContentType, source: Source, style: Style) -> History:
    """The canonical history for one cell; the `error` style is a failed call's text."""
    name = tool_name(content_type)
    part = fixture_part(content_type, source)
    history: History = [
        Message(role="user", content=PROMPT),
        ToolCall(tool_call_id=CALL_ID, name=name, arguments={}),
    ]
    match style:
        case "error":
            history.append(
                ToolResult(
                    tool_call_id=CALL_ID,
                    name=name,
                    status="error",
                    content=[Text(text=ERROR_FIXTURE)],
                )
            )
        case "result":
            history.append(ToolResult(tool_call_id=CALL_ID, name=name, content=[part]))
        case "prompt":
            history.append(
                ToolResult(
                    tool_call_id=CALL_ID, name=name, content=[Text(text=PROMPT_STYLE_RESULT_TEXT)]
                )
            )
            history.append(
                Message(
                    role="user",
                    content=[part],
                    source=ToolReturnProvenance(tool_name=name, tool_call_id=CALL_ID),
                )
            )
        case _:
            assert_never(style)
    return history
