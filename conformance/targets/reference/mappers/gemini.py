"""Google Gemini generateContent: history -> the JSON body of
`POST /v1beta/models/{model}:generateContent` (REST field names, camelCase).

Follows the google-genai 3.6.1 types `Content`, `Part`, `FunctionCall`, `FunctionResponse`,
`FunctionResponsePart`, `FunctionResponseBlob`, `Blob` and `FileData`, and the pages
https://ai.google.dev/gemini-api/docs/function-calling#multimodal,
https://ai.google.dev/gemini-api/docs/thought-signatures and
https://ai.google.dev/gemini-api/docs/file-input-methods.

- A tool's text goes in `functionResponse.response`, under `output`, or under `error` when
  the result is an error (the keys the `FunctionResponse.response` docstring names). One text
  part is the string itself; several stay separate, as a list of strings, each byte for byte
  (joining them would add text the tool never produced); none is the empty string.
- Gemini 3 carries images and PDFs inline in `functionResponse.parts` (`inlineData` with
  `mimeType`, base64 `data` and `displayName`, as in the documented multimodal example).
  Gemini 2.5 takes no media there (a 400 "Multimodal function responses are not supported
  for this model" is reported), so its media falls back.
- Fallback media follows the function responses in the same user turn, each tool's media
  behind its marker: Gemini wants the function responses in the turn right after the call.
- Audio and video: the SDK accepts any MIME type in `functionResponse.parts`, but no source
  says the server does, so they always fall back (the safe choice).
- URLs: user parts take `fileData {mimeType, fileUri}`. `FunctionResponseFileData` is
  documented as "not supported in Gemini API", so URL media never goes native: it falls back.
- Gemini 3 validates a thought signature on the first function call of each model turn. A
  history from elsewhere has none, so that part carries the documented sentinel
  `skip_thought_signature_validator` (Gemini 2.5 does not require one; none is sent there).
"""

from __future__ import annotations

from typing import Any, assert_never

from conformance.history import (
    Audio,
    ContentType,
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
    b64,
    marker_text,
    message_parts,
    plan,
    text_of,
)

__all__ = ["PROFILES", "render"]

API = "gemini"
SKIP_SIGNATURE = "skip-thought-signature"
"""Profile flag: send the sentinel thought signature on replayed function calls."""
_SIGNATURE_SENTINEL = "skip_thought_signature_validator"

_ALL: frozenset[ContentType] = frozenset({"text", "image", "document", "audio", "video"})
_PDF = frozenset({"application/pdf"})
# Public https URLs in fileData.fileUri are documented for images, PDF, text and JSON (Gemini
# "file input methods" page); audio and video by URL are not listed, so they raise.
_URL_TYPES: frozenset[ContentType] = frozenset({"image", "document"})
# Image types both channels are documented to take; Gemini 3's function-response list
# (png, jpeg, webp) is narrower than the user-part list (which adds heic, heif).
_FUNCTION_RESPONSE_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp"})
_USER_IMAGES = _FUNCTION_RESPONSE_IMAGES | {"image/heic", "image/heif"}
_AUDIO = frozenset(
    {"audio/wav", "audio/mp3", "audio/mpeg", "audio/aiff", "audio/aac", "audio/ogg", "audio/flac"}
)
_VIDEO = frozenset(
    {
        "video/mp4",
        "video/mpeg",
        "video/mov",
        "video/avi",
        "video/x-flv",
        "video/mpg",
        "video/webm",
        "video/wmv",
        "video/3gpp",
    }
)

PROFILES = {
    "gemini-2.5": Profile(
        api=API,
        model="gemini-2.5-flash-lite",
        tool_result=frozenset({"text"}),
        user=_ALL,
        url=_URL_TYPES,
        media_types={"image": _USER_IMAGES, "document": _PDF, "audio": _AUDIO, "video": _VIDEO},
    ),
    "gemini-3": Profile(
        api=API,
        model="gemini-3.8-flash",
        tool_result=frozenset({"text", "image", "document"}),
        user=_ALL,
        url=_URL_TYPES,
        tool_result_url=frozenset(),
        # One list for both channels: an image type the function response may not take
        # raises rather than being sent where it is undocumented.
        media_types={
            "image": _FUNCTION_RESPONSE_IMAGES,
            "document": _PDF,
            "audio": _AUDIO,
            "video": _VIDEO,
        },
        flags=frozenset({SKIP_SIGNATURE}),
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    """A user-turn `Part`."""
    match part:
        case Text():
            return {"text": part.text}
        case Image() | Document() | Audio() | Video():
            if part.url is not None:
                return {"fileData": {"mimeType": part.media_type, "fileUri": part.url}}
            assert part.data is not None
            return {"inlineData": {"mimeType": part.media_type, "data": b64(part.data)}}
        case _:
            assert_never(part)


def _map_native(part: Media) -> dict[str, Any]:
    """A `FunctionResponsePart`. Our profiles keep URL media out of function responses (its
    `fileData` form is documented as unsupported on the Gemini API), but the shape exists."""
    if part.url is not None:
        return {"fileData": {"mimeType": part.media_type, "fileUri": part.url}}
    assert part.data is not None
    return {
        "inlineData": {
            "mimeType": part.media_type,
            "data": b64(part.data),
            "displayName": part.identifier,
        }
    }


def _function_response(routed: RoutedResult) -> dict[str, Any]:
    texts = [p.text for p in routed.native if isinstance(p, Text)]
    media = [p for p in routed.native if not isinstance(p, Text)]
    value: str | list[str] = texts[0] if len(texts) == 1 else texts if texts else ""
    key = "error" if routed.result.status == "error" else "output"
    response: dict[str, Any] = {
        "id": routed.result.tool_call_id,
        "name": routed.result.name,
        "response": {key: value},
    }
    if media:
        response["parts"] = [_map_native(m) for m in media]
    return {"functionResponse": response}


def _function_call(profile: Profile, call: ToolCall, first: bool) -> dict[str, Any]:
    part: dict[str, Any] = {
        "functionCall": {"id": call.tool_call_id, "name": call.name, "args": call.arguments}
    }
    if first and SKIP_SIGNATURE in profile.flags:
        part["thoughtSignature"] = _SIGNATURE_SENTINEL
    return part


def _map_message(message: Message) -> dict[str, Any]:
    role = "model" if message.role == "assistant" else "user"
    return {"role": role, "parts": [_map_part(p) for p in message_parts(message)]}


def _tools(history: History) -> list[dict[str, Any]]:
    names = dict.fromkeys(item.name for item in history if isinstance(item, ToolCall | ToolResult))
    return [{"functionDeclarations": [{"name": name} for name in names]}] if names else []


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    for turn in plan(profile, history):
        match turn:
            case MessageTurn(message=message) if message.role == "system":
                system.extend({"text": t.text} for t in text_of(message.content))
            case MessageTurn(message=message):
                contents.append(_map_message(message))
            case AssistantTurn(text=text, calls=calls):
                parts: list[dict[str, Any]] = [{"text": t.text} for t in text]
                parts.extend(_function_call(profile, c, i == 0) for i, c in enumerate(calls))
                contents.append({"role": "model", "parts": parts})
            case ToolTurn(results=results, moved=moved):
                parts = [_function_response(routed) for routed in results]
                for entry in moved:
                    parts.append({"text": marker_text(entry.result)})
                    parts.extend(_map_part(m) for m in entry.media)
                contents.append({"role": "user", "parts": parts})
            case _:
                assert_never(turn)
    body: dict[str, Any] = {}
    if system:
        body["systemInstruction"] = {"parts": system}
    body["contents"] = contents
    tools = _tools(history)
    if tools:
        body["tools"] = tools
    return body
