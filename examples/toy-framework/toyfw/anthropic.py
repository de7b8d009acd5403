"""Anthropic Messages (`POST /v1/messages`)."""

from __future__ import annotations

import base64
from typing import Any

from toyfw.messages import Item, Message, Part, ToolCall, ToolOutput, Unsupported
from toyfw.providers import turns


def _block(part: Part) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if part.kind not in ("image", "document"):
        raise Unsupported(f"Anthropic cannot carry {part.kind}: {part.name}")
    if part.url is not None:
        source: dict[str, Any] = {"type": "url", "url": part.url}
    else:
        assert part.data is not None
        data = base64.b64encode(part.data).decode()
        source = {"type": "base64", "media_type": part.mime, "data": data}
    block: dict[str, Any] = {"type": part.kind, "source": source}
    if part.kind == "document":
        block["title"] = part.name
    return block


def _content(parts: list[Part]) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and isinstance(parts[0], str):
        return parts[0]
    return [_block(p) for p in parts]


class Adapter:
    path = "/v1/messages"

    def body(self, model: str, items: list[Item]) -> dict[str, Any]:
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        tools: dict[str, dict[str, Any]] = {}
        for entry in turns(items):
            if isinstance(entry, list):
                messages.append({"role": "user", "content": self._results(entry)})
            elif isinstance(entry, ToolCall):
                tools[entry.name] = {"name": entry.name, "input_schema": {"type": "object"}}
                use = {
                    "type": "tool_use",
                    "id": entry.call_id,
                    "name": entry.name,
                    "input": entry.arguments,
                }
                if messages and messages[-1]["role"] == "assistant":
                    last = messages[-1]
                    if isinstance(last["content"], str):  # the assistant's text came first
                        last["content"] = [{"type": "text", "text": last["content"]}]
                    last["content"].append(use)
                else:
                    messages.append({"role": "assistant", "content": [use]})
            elif isinstance(entry, Message) and entry.role == "system":
                system += [p for p in entry.parts if isinstance(p, str)]
            elif isinstance(entry, Message):
                messages.append({"role": entry.role, "content": _content(entry.parts)})
        body: dict[str, Any] = {"model": model, "max_tokens": 1024}
        if system:
            body["system"] = "\n\n".join(system)
        body["messages"] = messages
        if tools:
            body["tools"] = list(tools.values())
        return body

    def _results(self, outputs: list[ToolOutput]) -> list[dict[str, Any]]:
        """One tool_result block per call."""
        parts: dict[str, list[Part]] = {}
        for out in outputs:
            parts.setdefault(out.call_id, []).extend(out.parts)
        # Known bug: a failed call is sent without is_error.
        return [
            {"type": "tool_result", "tool_use_id": call_id, "content": _content(content)}
            for call_id, content in parts.items()
        ]
