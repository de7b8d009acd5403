"""OpenAI Chat Completions (`POST /chat/completions`)."""

from __future__ import annotations

import base64
import json
from typing import Any

from toyfw.messages import Item, Media, Message, Part, ToolCall, ToolOutput, Unsupported
from toyfw.providers import turns

AUDIO_INPUT = False  # gpt-6-luna reads no audio (the gpt-audio models do)


def _data_uri(media: Media) -> str:
    assert media.data is not None
    return f"data:{media.mime};base64,{base64.b64encode(media.data).decode()}"


def _media(media: Media) -> dict[str, Any]:
    if media.kind == "image":
        return {"type": "image_url", "image_url": {"url": media.url or _data_uri(media)}}
    if media.kind == "document" and media.data is not None:
        return {"type": "file", "file": {"filename": media.name, "file_data": _data_uri(media)}}
    if media.kind == "audio" and AUDIO_INPUT and media.data is not None:
        data = base64.b64encode(media.data).decode()
        return {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}
    source = f"the URL {media.url}" if media.url else "bytes"
    raise Unsupported(f"OpenAI Chat cannot carry {media.kind} given as {source}: {media.name}")


def _content(parts: list[Part]) -> str | list[dict[str, Any]]:
    if all(isinstance(p, str) for p in parts) and len(parts) <= 1:
        return "".join(p for p in parts if isinstance(p, str))
    return [{"type": "text", "text": p} if isinstance(p, str) else _media(p) for p in parts]


class Adapter:
    path = "/chat/completions"

    def body(self, model: str, items: list[Item]) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        for entry in turns(items):
            if isinstance(entry, list):
                messages += self._tool_turn(entry)
            elif isinstance(entry, ToolCall):
                call = {
                    "id": entry.call_id,
                    "type": "function",
                    "function": {"name": entry.name, "arguments": json.dumps(entry.arguments)},
                }
                if not (messages and messages[-1].get("tool_calls")):
                    messages.append({"role": "assistant", "content": None, "tool_calls": []})
                messages[-1]["tool_calls"].append(call)
            elif isinstance(entry, Message):
                messages.append({"role": entry.role, "content": _content(entry.parts)})
        return {"model": model, "messages": messages}

    def _tool_turn(self, outputs: list[ToolOutput]) -> list[dict[str, Any]]:
        """A tool message per call (its text); media moves to one user message after them,
        behind a line naming the call it came from."""
        texts: dict[str, list[str]] = {}
        moved: list[dict[str, Any]] = []
        for out in outputs:
            texts.setdefault(out.call_id, []).extend(p for p in out.parts if isinstance(p, str))
            media = [p for p in out.parts if isinstance(p, Media)]
            # Known bug: only the first call whose media moves gets its line; the media of the
            # turn's other calls follow it unmarked, as if the first call had produced them.
            if media and not moved:
                line = f"[output of tool {out.name}, call {out.call_id}]"
                moved.append({"type": "text", "text": line})
            moved += [_media(m) for m in media]
        messages: list[dict[str, Any]] = [
            {"role": "tool", "tool_call_id": call_id, "content": _content(list(parts))}
            for call_id, parts in texts.items()
        ]
        if moved:
            messages.append({"role": "user", "content": moved})
        return messages
