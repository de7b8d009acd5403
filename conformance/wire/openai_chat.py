"""Wire locator for OpenAI Chat Completions request bodies (`{"model", "messages": [...]}`).

Written from the provider's documentation and SDK types, not from any mapper:
- openai 3.57.0 `openai.types.chat`: `ChatCompletionToolMessageParam` (`role: "tool"`,
  `tool_call_id`, `content: str | Iterable[ChatCompletionContentPartTextParam]`),
  `ChatCompletionUserMessageParam` (`content: str | Iterable[ChatCompletionContentPartParam]`,
  the union `Text | Image | InputAudio | File`), `ChatCompletionAssistantMessageParam`
  (`tool_calls[].id`, `.function.name`; custom tools `.custom.name`; refusal parts).
- https://platform.openai.com/docs/api-reference/chat/create and
  https://platform.openai.com/docs/guides/function-calling.

Every message that is not `role: "tool"` is a `WireMessage` of its own role; its position is
`(message index, 0)`. A tool message is a `WireToolResult` at `(message index, 0)`. Any part
type may appear anywhere: the locator reports what is on the wire, not what is allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.wire._common import (
    ChatDialect,
    chat_locate,
    function_name,
    mapping,
    openai_part,
    parts,
    string,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WirePart, WireView

__all__ = ["API", "locate"]

API = "openai-chat"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Chat Completions request body."""
    return chat_locate(_DIALECT, payload)


def _content(content: object, path: str) -> tuple[WirePart, ...]:
    return parts(content, path, openai_part)


def _call_name(call: Mapping[str, Any], path: str) -> str:
    """`function.name`, or `custom.name` for a custom-tool call."""
    if call.get("type") == "custom":
        return string(mapping(call.get("custom"), f"{path}.custom"), "name", f"{path}.custom")
    return function_name(call, path)


_DIALECT = ChatDialect(API, _content, _call_name)
