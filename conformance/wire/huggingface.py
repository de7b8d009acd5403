"""Wire locator for Hugging Face Inference chat completion request bodies (router and TGI
`/v1/chat/completions`: `{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- huggingface_hub 2.4.0 `huggingface_hub.inference._generated.types.chat_completion`:
  `ChatCompletionInputMessage{role, content: str | list[ChatCompletionInputMessageChunk] | None,
  name, tool_calls}`, `ChatCompletionInputMessageChunk{type: "text" | "image_url", text,
  image_url: ChatCompletionInputURL{url}}`, `ChatCompletionInputToolCall{id, type, function:
  {name, arguments}}`. The dataclass has no `tool_call_id`, but extra keys pass through and the
  OpenAI-compatible endpoint takes the OpenAI tool message (`role: "tool"`, `tool_call_id`).
- https://huggingface.co/docs/inference-providers/tasks/chat-completion and
  https://huggingface.co/docs/text-generation-inference/basic_tutorials/using_guidance.

The body is OpenAI-chat-shaped and read by the shared chat skeleton (positions as for
`openai-chat`). HF documents only `text` and `image_url` chunks; other OpenAI part types
(input_audio, file) are still read as OpenAI defines them, since which ones work depends on
the routed backend and the locator reports what is on the wire.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import ChatDialect, chat_locate, openai_part, parts

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WirePart, WireView

__all__ = ["API", "locate"]

API = "huggingface"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Hugging Face chat completion request body."""
    return chat_locate(_DIALECT, payload)


def _content(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, openai_part)


_DIALECT = ChatDialect(API, _content)
