"""OpenAI Chat Completions: history -> the JSON body of `POST /v1/chat/completions`.

Tool messages carry text only (`ChatCompletionToolMessageParam.content` is a string or text
parts, openai 3.57.0). Images (`image_url`), PDFs (`file`) and, on audio models, WAV/MP3
(`input_audio`) go into one user message after the turn's tool messages, each tool's media
behind its marker. There is no video part. By URL only images can be given (`image_url.url`
takes an https URL); a `file` part takes `file_data` or `file_id`, never a URL, and
`input_audio` takes base64 data only.
"""

from __future__ import annotations

from typing import Any, assert_never

from conformance.history import Audio, Document, History, Image, Part, Text, Video
from conformance.targets.reference.mappers._chat import Dialect, chat_messages
from conformance.targets.reference.mappers._common import Profile, b64, data_url

__all__ = ["PROFILES", "render"]

API = "openai-chat"
_WAV_MP3 = frozenset({"audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3"})

PROFILES = {
    # GPT-6 Luna: text and image input (the successor OpenAI names for gpt-4o).
    "gpt-6": Profile(
        api=API,
        model="gpt-6-luna",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "image", "document"}),
        url=frozenset({"image"}),
        media_types={"document": frozenset({"application/pdf"})},
    ),
    # The audio models (gpt-audio-1.5) take text and audio input only (OpenAI model page:
    # image and video not supported), so images and PDFs cannot be carried at all.
    # `input_audio` takes inline base64 WAV or MP3 (`InputAudio.format: Literal["wav", "mp3"]`),
    # never a URL.
    "gpt-audio": Profile(
        api=API,
        model="gpt-audio-1.5",
        tool_result=frozenset({"text"}),
        user=frozenset({"text", "audio"}),
        media_types={"audio": _WAV_MP3},
    ),
}


def _map_part(part: Part) -> dict[str, Any]:
    match part:
        case Text():
            return {"type": "text", "text": part.text}
        case Image():
            return {"type": "image_url", "image_url": {"url": data_url(part)}}
        case Document():
            return {
                "type": "file",
                "file": {"filename": part.identifier, "file_data": data_url(part)},
            }
        case Audio():
            assert part.data is not None
            audio_format = "mp3" if part.media_type in {"audio/mpeg", "audio/mp3"} else "wav"
            return {
                "type": "input_audio",
                "input_audio": {"data": b64(part.data), "format": audio_format},
            }
        case Video():
            raise AssertionError("routing never sends video to OpenAI chat")
        case _:
            assert_never(part)


# An assistant message without text sends `"content": null` rather than leaving the key out.
_DIALECT = Dialect(map_part=_map_part, assistant_null_content=True)


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The request body for `profile`; raises `UnsupportedContent` before building."""
    return {"model": profile.model, "messages": chat_messages(profile, history, _DIALECT)}
