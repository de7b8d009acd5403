"""The toy-framework target of tool-result-conformance.

It drives toyfw the way its users do (`toyfw.provider(...).complete(items)`), against the
suite's loopback recorder (`conformance.targets.kit`), so what is judged is the request toyfw
really sends.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import ClassVar

import toyfw

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, render_script

APIS = {"openai-chat": "openai", "anthropic": "anthropic"}
ROWS = frozenset({"openai-chat/gpt-6", "anthropic/claude-sonnet-5"})


class Target:
    name = "toy-framework"
    version = version("toy-framework")
    refusal_types = (toyfw.Unsupported,)
    not_applicable: ClassVar[dict[str, str]] = {
        "style:prompt": "toyfw has no tool-produced user content: a tool's whole output is its"
        " ToolOutput",
    }

    def supports(self, row: RowRef) -> str | None:
        return None if row.id in ROWS else f"toyfw does not speak {row.id}"

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, _items(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send(row, toyfw.loads(toyfw.dumps(_items(history))))

    def repro(self, row: RowRef, history: History) -> str:
        """The template's stub, kept: the script renders the cell with this target."""
        return render_script(row, history, f"{__name__}:Target")

    def _send(self, row: RowRef, items: list[toyfw.messages.Item]) -> Payload:
        def send(base_url: str) -> object:
            return toyfw.provider(APIS[row.api], row.model, base_url).complete(items)

        return body_or_raise(row.api, send)


def _part(part: Part) -> str | toyfw.Media:
    match part:
        case Text():
            return part.text
        case Image() | Document() | Audio() | Video():
            return toyfw.Media(part.type, part.media_type, part.identifier, part.data, part.url)


def _items(history: History) -> list[toyfw.messages.Item]:
    """The canonical history in toyfw's own types."""
    items: list[toyfw.messages.Item] = []
    for item in history:
        if isinstance(item, ToolCall):
            items.append(toyfw.ToolCall(item.tool_call_id, item.name, dict(item.arguments)))
        elif isinstance(item, ToolResult):
            parts = [_part(p) for p in item.content]
            items.append(
                toyfw.ToolOutput(item.tool_call_id, item.name, parts, item.status == "error")
            )
        else:
            parts = (
                [item.content]
                if isinstance(item.content, str)
                else [_part(p) for p in item.content]
            )
            # toyfw has no field for a message's provenance (`item.source`): such a message is
            # a plain one there, as its users would send it (the prompt style is n/a above).
            items.append(toyfw.Message(item.role, parts))
    return items
