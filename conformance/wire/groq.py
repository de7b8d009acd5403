"""Wire locator for Groq chat completions request bodies (`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- groq 1.7.0 `groq.types.chat`: `ChatCompletionToolMessageParam` (`role: "tool"`,
  `tool_call_id`, `content: str | Iterable[ChatCompletionContentPartParam]`, the same union as
  user messages, unlike OpenAI), `ChatCompletionContentPartParam = Text | Image(image_url{url,
  detail}) | ChatCompletionRequestMessageContentPartDocument{type: "document", document:
  {data: Dict[str, object], id?}}`, `ChatCompletionAssistantMessageParam` (`tool_calls[].id`,
  `.function.name`).
- https://console.groq.com/docs/api-reference#chat-create, https://console.groq.com/docs/tool-use
  and https://console.groq.com/docs/vision.

The body is OpenAI-chat-shaped and read by the shared chat skeleton (positions as for
`openai-chat`: `(message index, 0)`, tool calls at `(message index, call index)`). A Groq
`document` part is a JSON object, not a file: it is reported as kind "json". OpenAI part types
Groq does not document (input_audio, file) are still read as OpenAI defines them, because the
locator reports what is on the wire, not what the api allows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    ChatDialect,
    chat_locate,
    mapping,
    openai_part,
    parts,
    required,
)
from conformance.wire.base import WirePart

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "groq"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Groq chat completions request body."""
    return chat_locate(_DIALECT, payload)


def _content(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, _part)


def _part(block: Mapping[str, Any], path: str) -> WirePart:
    if block.get("type") == "document":
        document = mapping(block.get("document"), f"{path}.document")
        required(document, "data", f"{path}.document")
        return WirePart("json", path)
    return openai_part(block, path)


_DIALECT = ChatDialect(API, _content)
