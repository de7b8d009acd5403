"""Mistral chat completions: history -> the JSON body of `POST /v1/chat/completions`.

Follows mistralai 3.7.0 (`mistralai.client.models`: `ToolMessage`, `UserMessage`,
`AssistantMessage`, `TextChunk`, `ImageURLChunk`, `DocumentURLChunk`, `AudioChunk`) and
https://docs.mistral.ai/capabilities/vision/,
https://docs.mistral.ai/capabilities/audio_transcription and
https://docs.mistral.ai/studio-api/document-processing/document_qna.

- Tool messages carry text. The SDK lets chunks of any kind into a tool message, but no
  Mistral page says chat completions accepts media there, so media falls back to a user
  message behind its marker (the safe choice).
- Images: `image_url` chunks take an https URL or a base64 data URL.
- PDFs: `document_url` takes a URL. A data URL is documented for the OCR endpoint only, so an
  inline PDF cannot be carried (unsupported, the safe choice); a PDF by URL falls back.
- Audio: `input_audio` is a bare base64 string, on Voxtral only; Voxtral takes text and audio,
  no images or documents. No URL form is documented for chat. There is no video chunk.
- Mistral rejects a user message right after a tool message (400 "Unexpected role 'user'
  after role 'tool'", code 3230, widely reported), so an empty assistant message
  (`ASSISTANT_BRIDGE`) is placed between them; it adds no text.
- An assistant message sends `content` only when it has text: Mistral has rejected
  assistant messages with both `content` and `tool_calls`.
- Tool call ids must be exactly nine letters or digits (400 "Tool call id was call_1 but must
  be a-z, A-Z, 0-9, with a length of 9", reported by many third parties, e.g. LangChain PR
  #24668). Other ids are rewritten to nine characters derived from a digest of the original,
  the same in the call, its tool message and its marker, so the request is stable and every
  call keeps its own id (`mistral_call_id`).
"""

from __future__ import annotations

import hashlib
import re
import string
from typing import Any, assert_never

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Item,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)
from conformance.targets.reference.mappers._chat import Dialect, chat_messages
from conformance.targets.reference.mappers._common import Profile, b64, data_url, plan

__all__ = ["ASSISTANT_BRIDGE", "PROFILES", "mistral_call_id", "render"]

API = "mistral"
ASSISTANT_BRIDGE: dict[str, Any] = {"role": "assistant", "content": ""}
"""Placed between a tool message and a following user message."""

PROFILES = {
    "mistral-medium": Profile(
        api=API,
        model="mistral-medium-3.5",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        url=frozenset({"image", "document"}),
        url_only=frozenset({"document"}),
        media_types={
            # The vision page lists PNG, JPEG, WEBP and non-animated GIF.
            "image": frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"}),
            "document": frozenset({"application/pdf"}),
        },
    ),
    # Mistral Large 3 takes text and image (its model card); documents by document_url, as
    # the document QnA page shows for chat models.
    "mistral-large-3": Profile(
        api=API,
        model="mistral-large-2512",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        url=frozenset({"image", "document"}),
        url_only=frozenset({"document"}),
        media_types={
            "image": frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"}),
            "document": frozenset({"application/pdf"}),
        },
    ),
    "voxtral-small": Profile(
        api=API,
        model="voxtral-small-2507",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "audio"}),
        # The chunk sends no format, so only the common formats the docs show are let through.
        media_types={"audio": frozenset({"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3"})},
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image():
            return {"type": "image_url", "image_url": data_url(part)}
        case Document():
            assert part.url is not None, "routing raises on inline documents"
            return {
                "type": "document_url",
                "document_url": part.url,
                "document_name": part.identifier,
            }
        case Audio():
            assert part.data is not None, "routing raises on audio URLs"
            return {"type": "input_audio", "input_audio": b64(part.data)}
        case Video():
            raise AssertionError("routing never sends video to Mistral")
        case _:
            assert_never(part)


def _bridged(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "user" and out and out[-1]["role"] == "tool":
            out.append(dict(ASSISTANT_BRIDGE))
        out.append(message)
    return out


# Tool messages name their tool (`ToolMessage.name`).
_DIALECT = Dialect(map_part=_map_part, tool_name=True)


_VALID_ID = re.compile(r"[A-Za-z0-9]{9}")
_ALPHABET = string.ascii_letters + string.digits


def mistral_call_id(call_id: str, salt: int = 0) -> str:
    """`call_id` if Mistral accepts it, else nine letters and digits from its digest."""
    if _VALID_ID.fullmatch(call_id) and not salt:
        return call_id
    number = int.from_bytes(hashlib.sha256(f"{salt}:{call_id}".encode()).digest()[:8])
    out = ""
    for _ in range(9):
        number, index = divmod(number, len(_ALPHABET))
        out += _ALPHABET[index]
    return out


def _ids(history: History) -> dict[str, str]:
    """One Mistral id per call id of the history, distinct from each other."""
    found: dict[str, str] = {}
    for item in history:
        if isinstance(item, ToolCall | ToolResult) and item.tool_call_id not in found:
            salt, new = 0, mistral_call_id(item.tool_call_id)
            while new in found.values():
                salt += 1
                new = mistral_call_id(item.tool_call_id, salt)
            found[item.tool_call_id] = new
    return found


def _with_ids(history: History, ids: dict[str, str]) -> History:
    out: list[Item] = []
    for item in history:
        if isinstance(item, ToolCall | ToolResult):
            item = item.model_copy(update={"tool_call_id": ids[item.tool_call_id]})
        elif item.source and item.source.tool_call_id in ids:  # a Message
            source = item.source.model_copy(update={"tool_call_id": ids[item.source.tool_call_id]})
            item = item.model_copy(update={"source": source})
        out.append(item)
    return out


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    plan(profile, history)  # raises naming the caller's own call ids, before any rewrite
    history = _with_ids(history, _ids(history))
    return {"model": profile.model, "messages": _bridged(chat_messages(profile, history, _DIALECT))}
