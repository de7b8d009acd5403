"""AWS Bedrock Converse: history -> the input of `bedrock-runtime` `Converse` (botocore).

Follows the botocore 1.44.8 service model `bedrock-runtime/2023-09-30` (shapes
`ToolResultBlock`, `ToolResultContentBlock`, `ContentBlock`, `ImageBlock`, `DocumentBlock`,
`VideoBlock`),
https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html
and https://docs.aws.amazon.com/nova/latest/userguide/tool-use.html.

- The payload is the boto3 `converse(**payload)` keyword arguments, not wire JSON: blobs are
  raw `bytes` under `source.bytes`; botocore base64-encodes them (a base64 string there would
  be encoded twice). Media given by URL cannot be sent: Bedrock sources take bytes or an
  `s3Location`, never an https URL.
- A `toolResult` carries text, image, document and video blocks; `audio` exists only as a
  user-message block. Tool results go in a user message; fallback media follows the
  `toolResult` blocks in that same message, each tool's media behind its marker.
- Claude takes images and documents in tool results. Nova's tool-use guide names JSON, text
  and images as tool-result formats; documents and video there are undocumented for Nova,
  so they fall back to the user message, where Nova takes both (the safe choice). Claude and
  first-generation Nova take no audio.
- Errors set `status: "error"`; success omits `status` (optional, and the docs restrict it to
  some models). The text stays as it is.
- Nova 2 also takes audio, as a user-message `audio` block (`AudioBlock`); it is no
  `toolResult` member, so audio always falls back there.
- `content` may not be empty. When every part of a result moved to the user message, the
  block holds one neutral text, `MOVED_POINTER`; an empty result holds `{"json": {}}`.
- Converse wants roles to alternate, so consecutive messages of one role are merged, and it
  wants `toolConfig` whenever the messages hold tool blocks.
- Open-weight families (Llama 4, Mistral, Qwen, DeepSeek; profile flag `SEPARATE_TURN`) refuse
  a user message that holds `toolResult` blocks beside other blocks ("Conversation blocks and
  tool result blocks cannot be provided in the same turn", reported for Llama 4 Maverick in
  strands-agents/harness-sdk#1223). Their tool results get a message of their own; what follows
  them (fallback media behind its marker, a later user message) goes into the next user
  message, after an assistant message holding `BRIDGE_TEXT`, since roles must alternate. A
  result whose every part moved then holds `MOVED_NEXT_POINTER`.
- `status` is documented for Nova and Claude only; families with the profile flag `NO_STATUS`
  get the error text as it is, with no `status`.
"""

from __future__ import annotations

import re
from typing import Any, assert_never

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Media,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)
from conformance.targets.reference.mappers._common import (
    AssistantTurn,
    MessageTurn,
    Profile,
    RoutedResult,
    ToolTurn,
    marker_text,
    message_parts,
    plan,
    text_of,
)

__all__ = [
    "BRIDGE_TEXT",
    "MOVED_NEXT_POINTER",
    "MOVED_POINTER",
    "NO_STATUS",
    "PROFILES",
    "SEPARATE_TURN",
    "render",
]

API = "bedrock-converse"
MOVED_POINTER = "The output of this tool call follows in this message."
"""The text of a `toolResult` whose every part moved to the user message."""
MOVED_NEXT_POINTER = "The output of this tool call follows in the next user message."
"""The same, for a family whose tool-result message holds nothing else (`SEPARATE_TURN`)."""
BRIDGE_TEXT = "The tool output continues in the next message."
"""The assistant message between a tool-result message and the user message after it."""
SEPARATE_TURN = "separate-tool-turn"
"""Profile flag: a user message holding `toolResult` blocks may hold nothing else."""
NO_STATUS = "no-error-status"
"""Profile flag: `toolResult.status` is not documented for the family, so it is never sent."""

_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
_DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
_VIDEO_FORMATS = {
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "video/x-matroska": "mkv",
    "video/webm": "webm",
    "video/x-flv": "flv",
    "video/mpeg": "mpeg",
    "video/x-ms-wmv": "wmv",
    "video/3gpp": "three_gp",
}
_AUDIO_FORMATS = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/flac": "flac",
    "audio/ogg": "ogg",
}
"""`AudioBlock.format` for the media types a user audio block takes here."""
# DocumentBlock.name: alphanumerics, single whitespace, hyphens, parentheses, square brackets.
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9()\[\]-]+")
_NAME_MAX = 200

PROFILES = {
    "claude": Profile(
        api=API,
        model="global.anthropic.claude-sonnet-5-5",
        tool_result=frozenset({"text", "image", "document"}),
        user=frozenset({"text", "image", "document"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
        },
    ),
    "nova": Profile(
        api=API,
        model="amazon.nova-pro-v1:0",
        tool_result=frozenset({"text", "image"}),
        user=frozenset({"text", "image", "document", "video"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
            "video": frozenset(_VIDEO_FORMATS),
        },
    ),
    # Nova 2 takes audio input as well (Nova 2 user guide, core inference); audio is no
    # toolResult member, so it goes to the user message like document and video.
    "nova-2": Profile(
        api=API,
        model="global.amazon.nova-2-lite-v1:0",
        tool_result=frozenset({"text", "image"}),
        user=frozenset({"text", "image", "document", "video", "audio"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
            "video": frozenset(_VIDEO_FORMATS),
            "audio": frozenset(_AUDIO_FORMATS),
        },
    ),
    # Open-weight families: no media in toolResult (the image member is documented for Nova
    # and Claude only; no model page says these read documents there), no status, and a
    # tool-result message of its own (SEPARATE_TURN).
    "llama-4": Profile(
        api=API,
        model="us.meta.llama4-maverick-17b-instruct-v1:0",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
        },
        flags=frozenset({SEPARATE_TURN, NO_STATUS}),
    ),
    "mistral-large-3": Profile(
        api=API,
        model="mistral.mistral-large-3-675b-instruct",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
        },
        flags=frozenset({SEPARATE_TURN, NO_STATUS}),
    ),
    "qwen3-vl": Profile(
        api=API,
        model="qwen.qwen3-vl-235b-a22b",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        media_types={
            "image": frozenset(_IMAGE_FORMATS),
            "document": frozenset(_DOCUMENT_FORMATS),
        },
        flags=frozenset({SEPARATE_TURN, NO_STATUS}),
    ),
    # DeepSeek V3.2 takes text only (its Bedrock model card), so every media type raises.
    "deepseek": Profile(
        api=API,
        model="deepseek.v3.2",
        tool_result=frozenset({"text"}),
        user=frozenset({"text"}),
        flags=frozenset({SEPARATE_TURN, NO_STATUS}),
    ),
}


def _document_name(identifier: str) -> str:
    """A `DocumentBlock.name` from an identifier: its stem, restricted to the allowed set."""
    stem = identifier.rsplit(".", 1)[0] if "." in identifier[1:] else identifier
    name = _NAME_UNSAFE.sub(" ", stem).strip()[:_NAME_MAX].rstrip()
    return name or "document"


def _source(part: Media) -> dict[str, Any]:
    assert part.data is not None, "Bedrock takes no URLs; routing raises first"
    return {"bytes": part.data}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"text": part.text}
        case Image():
            return {"image": {"format": _IMAGE_FORMATS[part.media_type], "source": _source(part)}}
        case Document():
            return {
                "document": {
                    "format": _DOCUMENT_FORMATS[part.media_type],
                    "name": _document_name(part.identifier),
                    "source": _source(part),
                }
            }
        case Video():
            return {"video": {"format": _VIDEO_FORMATS[part.media_type], "source": _source(part)}}
        case Audio():
            return {"audio": {"format": _AUDIO_FORMATS[part.media_type], "source": _source(part)}}
        case _:
            assert_never(part)


def _tool_result(profile: Profile, routed: RoutedResult, moved_ids: set[str]) -> dict[str, Any]:
    content = [_map_part(p) for p in routed.native]
    if not content:
        moved = routed.result.tool_call_id in moved_ids
        empty: dict[str, Any] = {"json": {}}
        pointer = MOVED_NEXT_POINTER if SEPARATE_TURN in profile.flags else MOVED_POINTER
        content = [{"text": pointer} if moved else empty]
    block: dict[str, Any] = {"toolUseId": routed.result.tool_call_id, "content": content}
    if routed.result.status == "error" and NO_STATUS not in profile.flags:
        block["status"] = "error"
    return {"toolResult": block}


def _content(message: Message) -> list[dict[str, Any]]:
    if message.role != "user":
        return [_map_part(t) for t in text_of(message.content)]
    return [_map_part(p) for p in message_parts(message)]


def _append(
    profile: Profile, messages: list[dict[str, Any]], role: str, content: list[dict[str, Any]]
) -> None:
    """Add a message, merged into the last one when it has the same role; for a
    `SEPARATE_TURN` family, a user message holding `toolResult` blocks is never merged with
    other user content: an assistant bridge comes between them."""
    if messages and messages[-1]["role"] == role:
        last: list[dict[str, Any]] = messages[-1]["content"]
        if role == "user" and SEPARATE_TURN in profile.flags and _mixes(last, content):
            messages.append({"role": "assistant", "content": [{"text": BRIDGE_TEXT}]})
            messages.append({"role": role, "content": content})
            return
        last.extend(content)
    else:
        messages.append({"role": role, "content": content})


def _mixes(last: list[dict[str, Any]], content: list[dict[str, Any]]) -> bool:
    """Whether merging `content` into `last` would put toolResult and other blocks together."""
    blocks = [*last, *content]
    results = sum("toolResult" in block for block in blocks)
    return 0 < results < len(blocks)


def _tool_config(history: History) -> dict[str, Any] | None:
    names = dict.fromkeys(item.name for item in history if isinstance(item, ToolCall | ToolResult))
    if not names:
        return None
    specs = [
        {"toolSpec": {"name": name, "inputSchema": {"json": {"type": "object"}}}} for name in names
    ]
    return {"tools": specs}


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The `Converse` input for `profile`; raises `UnsupportedContent` before building."""
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message) if message.role == "system":
                system.extend({"text": t.text} for t in text_of(message.content))
            case MessageTurn(message=message):
                _append(profile, messages, message.role, _content(message))
            case AssistantTurn(text=text, calls=calls):
                content: list[dict[str, Any]] = [_map_part(t) for t in text]
                content.extend(
                    {"toolUse": {"toolUseId": c.tool_call_id, "name": c.name, "input": c.arguments}}
                    for c in calls
                )
                _append(profile, messages, "assistant", content)
            case ToolTurn(results=results, moved=moved):
                moved_ids = {entry.result.tool_call_id for entry in moved}
                _append(
                    profile,
                    messages,
                    "user",
                    [_tool_result(profile, routed, moved_ids) for routed in results],
                )
                fallback: list[dict[str, Any]] = []
                for entry in moved:
                    fallback.append({"text": marker_text(entry.result)})
                    fallback.extend(_map_part(m) for m in entry.media)
                if fallback:
                    _append(profile, messages, "user", fallback)
            case _:
                assert_never(turn)
    body: dict[str, Any] = {"modelId": profile.model}
    if system:
        body["system"] = system
    body["messages"] = messages
    tool_config = _tool_config(history)
    if tool_config is not None:
        body["toolConfig"] = tool_config
    return body
