"""The other input formats LangChain takes for message content, for the langchain target's
variants (`_variants.py`): what a user's tool returns when it does not write langchain-core 1.x
standard blocks (`_messages.to_block`).

- **v0 multimodal blocks** (`source_type_block`): langchain-core 0.3's data blocks, which 1.x
  still reads (`is_data_content_block` and `_convert_legacy_v0_content_block_to_v1` in
  `langchain_core/messages/`): `{"type": "image" | "audio" | "file", "source_type": "base64",
  "data": ..., "mime_type": ...}` or `"source_type": "url", "url": ...`, a file's name in
  `filename` (which `convert_to_openai_data_block` reads first). v0 has no video block: video
  is the standard block.
- **provider-native blocks** (`native_block`): each provider's own content shape, as its API
  documentation shows it and its LangChain integration documents passing it through. A part
  the provider has no native form for is written as the standard block, the one form such a
  user has; `NATIVE_FORMS` says which parts of each api are native.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, Final

from conformance.history import Audio, Document, Image, Part, Text, Video
from conformance.targets.langchain._messages import Block, to_block

__all__ = ["NATIVE_FORMS", "native_block", "source_type_block"]


_V0_TYPE = {"image": "image", "document": "file", "audio": "audio"}


def _b64(part: Image | Document | Audio | Video) -> str:
    assert part.data is not None
    return base64.b64encode(part.data).decode("ascii")


def _data_url(part: Image | Document | Audio | Video) -> str:
    return f"data:{part.media_type};base64,{_b64(part)}"


def source_type_block(part: Part) -> dict[str, Any]:
    """One part as a langchain-core v0 multimodal block. Text is the text block v0 and 1.x
    share; v0 has no video type, so video is the 1.x standard block, the one form LangChain has
    for it (the matrix's video cells are n/a for this variant; generated histories of the
    property search still hold video, and the search goes on through them)."""
    if isinstance(part, Text | Video):
        return to_block(part)
    block: dict[str, Any] = {"type": _V0_TYPE[part.type]}
    if part.data is not None:
        block |= {"source_type": "base64", "data": _b64(part)}
    else:
        block |= {"source_type": "url", "url": part.url}
    block["mime_type"] = part.media_type
    if isinstance(part, Document):
        block["filename"] = part.identifier
    return block


_Native = Callable[[Image | Document | Audio | Video], dict[str, Any] | None]


def _openai_chat(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """Chat Completions content parts (openai `ChatCompletionContentPartParam`): image_url
    with a URL or a data URL, file with file_data (no URL form), input_audio with base64 and
    wav or mp3 (no URL form); no video part."""
    if isinstance(part, Image):
        return {"type": "image_url", "image_url": {"url": part.url or _data_url(part)}}
    if part.data is None:
        return None
    if isinstance(part, Document):
        return {"type": "file", "file": {"filename": part.identifier, "file_data": _data_url(part)}}
    if isinstance(part, Audio):
        fmt = "mp3" if part.media_type in {"audio/mpeg", "audio/mp3"} else "wav"
        return {"type": "input_audio", "input_audio": {"data": _b64(part), "format": fmt}}
    return None


def _openai_responses(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """Responses input content (openai `ResponseInputContentParam`, the items a
    `function_call_output` list holds): input_image (URL or data URL, `detail` required),
    input_file with file_data or file_url; no audio or video item."""
    if isinstance(part, Image):
        return {"type": "input_image", "image_url": part.url or _data_url(part), "detail": "auto"}
    if isinstance(part, Document):
        if part.url is not None:
            return {"type": "input_file", "file_url": part.url}
        return {"type": "input_file", "filename": part.identifier, "file_data": _data_url(part)}
    return None


def _anthropic(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """Anthropic image and document blocks with a base64 or url source (a tool_result's
    content takes both); Anthropic has no audio or video block."""
    if not isinstance(part, Image | Document):
        return None
    kind = "image" if isinstance(part, Image) else "document"
    if part.url is not None:
        return {"type": kind, "source": {"type": "url", "url": part.url}}
    source = {"type": "base64", "media_type": part.media_type, "data": _b64(part)}
    return {"type": kind, "source": source}


def _gemini(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """langchain-google-genai's `media` block, the form its documentation gives for audio,
    video and PDF input (and any mime type): inline `data` or a `file_uri`, with `mime_type`."""
    if part.url is not None:
        return {"type": "media", "file_uri": part.url, "mime_type": part.media_type}
    return {"type": "media", "data": _b64(part), "mime_type": part.media_type}


def _gemini_vertex(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """ChatVertexAI's `media` block as its docstring shows it (`file_uri` with `mime_type`, for
    images, PDF, audio and video; `_convert_to_prompt` in langchain-google-vertexai's
    `chat_models.py`). Its docstring gives no inline form (its `data` goes into a protobuf
    `Blob` as is), so inline parts stay standard blocks."""
    if part.url is None:
        return None
    return {"type": "media", "file_uri": part.url, "mime_type": part.media_type}


def _bedrock(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """The blocks ChatBedrockConverse's docstring shows ("Image input": a `source` of type
    base64 with `media_type`), which `_lc_content_to_bedrock` also reads for video. Converse's
    own blocks carry raw bytes, which LangChain's JSON chat-history storage cannot hold, and
    it has no URL source but S3."""
    if part.data is None or not isinstance(part, Image | Video):
        return None
    kind = "image" if isinstance(part, Image) else "video"
    source = {"type": "base64", "media_type": part.media_type, "data": _b64(part)}
    return {"type": kind, "source": source}


def _mistral(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """Mistral chunks (mistralai `ContentChunk`): image_url as a URL or data URL string,
    document_url with a URL (no inline form for chat), input_audio as a base64 string."""
    if isinstance(part, Image):
        return {"type": "image_url", "image_url": part.url or _data_url(part)}
    if isinstance(part, Document) and part.url is not None:
        return {"type": "document_url", "document_url": part.url}
    if isinstance(part, Audio) and part.data is not None:
        return {"type": "input_audio", "input_audio": _b64(part)}
    return None


def _cohere(part: Image | Document | Audio | Video) -> dict[str, Any] | None:
    """Cohere v2 content: image_url {url} (a data URL or an HTTP URL) only."""
    if isinstance(part, Image):
        return {"type": "image_url", "image_url": {"url": part.url or _data_url(part)}}
    return None


_NATIVE: Final[dict[str, _Native]] = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "anthropic-vertex": _anthropic,  # ChatAnthropicVertex keeps a block with a `source` as is
    # ChatBedrock's `_format_anthropic_messages` keeps an `image` block, a block of a type it
    # does not know (`document`) and any block inside a tool_result's list as is.
    "anthropic-bedrock": _anthropic,
    "gemini": _gemini,
    "gemini-vertex": _gemini_vertex,
    "bedrock-converse": _bedrock,
    "mistral": _mistral,
    "cohere": _cohere,
    "groq": _openai_chat,  # OpenAI-compatible: Groq documents OpenAI's content parts
    "xai": _openai_chat,  # OpenAI-compatible, through ChatXAI (a BaseChatOpenAI)
    "huggingface": _openai_chat,  # the chat-completion api huggingface_hub types as OpenAI's
}

NATIVE_FORMS: Final[dict[str, str]] = {
    "openai-chat": "image_url, file (inline), input_audio (inline)",
    "openai-responses": "input_image, input_file",
    "anthropic": "image, document (base64 or url source)",
    "anthropic-vertex": "as anthropic",
    "anthropic-bedrock": "as anthropic",
    "gemini": "media (data or file_uri), every type",
    "gemini-vertex": "media (file_uri), every type",
    "bedrock-converse": "image, video (base64 source)",
    "mistral": "image_url, document_url (url), input_audio (inline)",
    "cohere": "image_url",
    "groq": "as openai-chat",
    "xai": "as openai-chat",
    "huggingface": "as openai-chat",
}
"""Which parts each api has a native form for (the rest are standard blocks)."""


def native_block(api: str) -> Block | None:
    """How a part is written in `api`'s native format, or None where the variant has none."""
    native = _NATIVE.get(api)
    if native is None:
        return None

    def block(part: Part) -> dict[str, Any]:
        if isinstance(part, Text):
            return to_block(part)
        return native(part) or to_block(part)

    return block
