"""Providers: turn a conversation into a request and send it with urllib."""

from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol

from toyfw.messages import Item, ToolOutput


class _Adapter(Protocol):
    path: str

    def body(self, model: str, items: list[Item]) -> dict[str, Any]: ...


@dataclass
class Provider:
    adapter: _Adapter
    model: str
    base_url: str
    api_key: str = "not-a-key"

    def complete(self, items: list[Item]) -> Any:
        """Build the request (raising `Unsupported` before sending) and send it."""
        body = json.dumps(self.adapter.body(self.model, items), ensure_ascii=False).encode()
        request = urllib.request.Request(
            self.base_url.rstrip("/") + self.adapter.path,
            data=body,
            headers={"content-type": "application/json", "authorization": f"Bearer {self.api_key}"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


def provider(name: str, model: str, base_url: str) -> Provider:
    from toyfw import anthropic, openai_chat

    adapters: dict[str, _Adapter] = {
        "openai": openai_chat.Adapter(),
        "anthropic": anthropic.Adapter(),
    }
    return Provider(adapters[name], model, base_url)


def turns(items: list[Item]) -> list[Item | list[ToolOutput]]:
    """Items with each run of tool outputs grouped into one list: one turn's results."""
    out: list[Item | list[ToolOutput]] = []
    for item in items:
        if isinstance(item, ToolOutput) and out and isinstance(out[-1], list):
            out[-1].append(item)
        elif isinstance(item, ToolOutput):
            out.append([item])
        else:
            out.append(item)
    return out
