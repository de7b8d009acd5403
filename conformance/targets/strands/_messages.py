"""The canonical history as Strands' own conversation types, and Strands' own storage of them.

Strands models its messages on the Bedrock Converse types (`strands/types/content.py`,
`strands/types/tools.py`, `strands/types/media.py`): a `Message` is `{"role": "user" |
"assistant", "content": [ContentBlock, ...]}`; a tool call is a `toolUse` block of an assistant
message; a tool's result is a `ToolResult` (`{"toolUseId", "status", "content"}`) in a
`toolResult` block of a user message. Its content blocks (`ToolResultContent`) are `text`,
`image`, `document` and `json`; media take raw `bytes` (or an S3 `location`, which only Bedrock
reads). Strands has no URL source and no tool-produced user content (`not_applicable` says so).

- `Text` is a `text` block, the exact string; the canonical history has no JSON part, so no
  `json` block is made.
- `Image` is `{"image": {"format": <png|jpeg|gif|webp>, "source": {"bytes": ...}}}`.
- `Document` is `{"document": {"format": <pdf|txt|...>, "name": <file name without its
  extension>, "source": {"bytes": ...}}}` (Bedrock, whose types these are, allows no dot in a
  document name).
- `Audio` and `Video` are the `audio` and `video` blocks of `ContentBlock` (`{"format": ...,
  "source": {"bytes": ...}}`, the same Bedrock shapes), which `ToolResultContent` does not list:
  a tool that returns them is what a Strands user writes to return audio or video, and what
  each model class does with them is the finding.
- System messages become the agent's `system_prompt` (Strands keeps no system role in
  `Messages`).
- Tool-produced user content (hypothesis histories only; the `prompt` cells are skipped) joins
  the user message that holds its turn's tool results, after them, as Strands stores a user
  turn that mixes `toolResult` blocks with other content; Strands keeps no provenance for it.

Storage: Strands' session format (`strands.types.session.SessionMessage`, what its file, S3 and
repository session managers write): `SessionMessage.from_message(message, index).to_dict()`
(bytes as base64) per message, as JSON, loaded with `SessionMessage.from_dict(...).to_message()`.
"""

from __future__ import annotations

import json
from typing import Any

from conformance.errors import SuiteError
from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
)

__all__ = [
    "NoStrandsForm",
    "block",
    "dump_messages",
    "load_messages",
    "system_prompt",
    "to_messages",
    "tool_result",
]

Block = dict[str, Any]
StrandsMessage = dict[str, Any]

_DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/plain": "txt",
    "text/csv": "csv",
    "text/html": "html",
    "text/markdown": "md",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
}
"""Strands' `DocumentFormat` values by media type."""

_AUDIO_FORMATS = {"audio/mpeg": "mp3", "audio/x-wav": "wav", "audio/wave": "wav"}


class NoStrandsForm(SuiteError):
    """A part Strands' content blocks cannot express (a URL: Strands has no URL source). The
    suite's own error, never a refusal of Strands; no matrix cell meets it (`not_applicable`
    skips URL cells), only hypothesis histories do."""


def _subtype(media_type: str) -> str:
    return media_type.partition("/")[2] or media_type


def _stem(identifier: str) -> str:
    stem = identifier.rsplit(".", 1)[0] if "." in identifier else identifier
    return stem or "document"


def block(part: Part) -> Block:
    """One content block for a part, in Strands' (Bedrock-modelled) shape."""
    if isinstance(part, Text):
        return {"text": part.text}
    if part.data is None:
        raise NoStrandsForm(
            f"{part.type} {part.identifier!r} is given by URL ({part.url}); Strands' content "
            "blocks take bytes or an S3 location, no URL"
        )
    source = {"bytes": part.data}
    if isinstance(part, Image):
        return {"image": {"format": _subtype(part.media_type), "source": source}}
    if isinstance(part, Document):
        fmt = _DOCUMENT_FORMATS.get(part.media_type, _subtype(part.media_type))
        return {"document": {"format": fmt, "name": _stem(part.identifier), "source": source}}
    if isinstance(part, Audio):
        fmt = _AUDIO_FORMATS.get(part.media_type, _subtype(part.media_type))
        return {"audio": {"format": fmt, "source": source}}
    return {"video": {"format": _subtype(part.media_type), "source": source}}


def _blocks(content: str | list[Part]) -> list[Block]:
    return [{"text": content}] if isinstance(content, str) else [block(p) for p in content]


def tool_result(item: ToolResult) -> dict[str, Any]:
    """The `ToolResult` a Strands tool returns for this result (without `toolUseId`, which
    Strands' tool decorator sets to the call's own)."""
    return {"status": item.status, "content": [block(p) for p in item.content]}


def system_prompt(history: History) -> str | None:
    """The system messages' text, joined, or None."""
    texts: list[str] = []
    for item in history:
        if isinstance(item, Message) and item.role == "system":
            content = item.content
            texts.append(
                content
                if isinstance(content, str)
                else "".join(p.text for p in content if isinstance(p, Text))
            )
    return "\n".join(texts) if texts else None


def to_messages(history: History) -> list[StrandsMessage]:
    """The canonical history as Strands `Messages` (system messages left out: `system_prompt`).

    Consecutive tool calls are `toolUse` blocks of one assistant message (after the assistant's
    text, where it precedes them); consecutive tool results are `toolResult` blocks of one user
    message, as Strands' event loop stores a turn; tool-produced user content joins that
    message after the results.
    """
    out: list[StrandsMessage] = []

    def last(role: str) -> StrandsMessage | None:
        return out[-1] if out and out[-1]["role"] == role else None

    for item in history:
        if isinstance(item, ToolCall):
            use = {
                "toolUse": {
                    "toolUseId": item.tool_call_id,
                    "name": item.name,
                    "input": dict(item.arguments),
                }
            }
            found = last("assistant")
            if found is not None:
                found["content"].append(use)
            else:
                out.append({"role": "assistant", "content": [use]})
        elif isinstance(item, ToolResult):
            result = {"toolResult": {"toolUseId": item.tool_call_id, **tool_result(item)}}
            found = last("user")
            if found is not None and any("toolResult" in b for b in found["content"]):
                found["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
        elif item.role == "system":
            continue
        elif item.source is not None and (found := last("user")) is not None:
            found["content"].extend(_blocks(item.content))
        else:
            out.append({"role": item.role, "content": _blocks(item.content)})
    return out


def dump_messages(messages: list[StrandsMessage]) -> str:
    """Strands' session storage of a conversation: one `SessionMessage` dict per message."""
    from strands.types.session import SessionMessage

    stored = [SessionMessage.from_message(m, i).to_dict() for i, m in enumerate(messages)]  # pyright: ignore[reportArgumentType]
    return json.dumps(stored, ensure_ascii=False)


def load_messages(stored: str) -> list[StrandsMessage]:
    from strands.types.session import SessionMessage

    return [dict(SessionMessage.from_dict(d).to_message()) for d in json.loads(stored)]
