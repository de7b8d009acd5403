"""The LiteLLM target's translation: the canonical history as the OpenAI-format messages list
LiteLLM takes (`to_messages`), the tools of its last turn (`tools_of`) and their storage as JSON."""

from __future__ import annotations

import base64
import importlib
import json
from typing import Any

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
from conformance.targets.kit import litellm_offline

# --- history -> the OpenAI-format messages LiteLLM takes ----------------------------------------


def _data_uri(media_type: str, data: bytes) -> str:
    return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"


def _audio_format(media_type: str) -> str:
    subtype = media_type.partition("/")[2]
    return {"mpeg": "mp3", "x-wav": "wav", "wave": "wav"}.get(subtype, subtype)


def _media_part(part: Image | Document | Audio | Video) -> dict[str, Any]:
    """One content part as LiteLLM's docs write it for this kind of media."""
    if isinstance(part, Image):
        url = part.url if part.url is not None else _data_uri(part.media_type, part.data or b"")
        return {"type": "image_url", "image_url": {"url": url}}
    if isinstance(part, Audio) and part.data is not None:
        return {
            "type": "input_audio",
            "input_audio": {
                "data": base64.b64encode(part.data).decode("ascii"),
                "format": _audio_format(part.media_type),
            },
        }
    if part.data is not None:
        return {
            "type": "file",
            "file": {
                "file_data": _data_uri(part.media_type, part.data),
                "filename": part.identifier,
            },
        }
    assert part.url is not None
    return {"type": "file", "file": {"file_id": part.url, "format": part.media_type}}


def _part(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    return _media_part(part)


def _content(parts: list[Part]) -> str | list[dict[str, Any]]:
    """A lone text part is the plain string (byte for byte); anything else a parts list."""
    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_part(p) for p in parts]


def _message_content(content: str | list[Part]) -> str | list[dict[str, Any]]:
    return content if isinstance(content, str) else _content(content)


def error_flag_declared() -> bool:
    """Whether the installed LiteLLM declares `is_error` on its tool message type."""
    try:
        import_litellm()  # first: its environment keeps the import offline
        types = importlib.import_module("litellm.types.llms.openai")
    except ImportError:
        return False
    message = getattr(types, "ChatCompletionToolMessage", None)
    return "is_error" in getattr(message, "__annotations__", {})


def to_messages(history: History, *, error_flag: bool | None = None) -> list[dict[str, Any]]:
    """The canonical history as the OpenAI-format messages list a LiteLLM user passes.

    Consecutive tool calls share one assistant message; each result is a tool message in
    order; tool-produced user content waits until the run of tool messages ends (no message
    may come between an assistant's tool calls and their results).
    """
    flag = error_flag_declared() if error_flag is None else error_flag
    out: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # tool-produced user content of the current turn

    def flush() -> None:
        out.extend(waiting)
        waiting.clear()

    for item in history:
        if isinstance(item, ToolCall):
            flush()
            call = {
                "id": item.tool_call_id,
                "type": "function",
                "function": {"name": item.name, "arguments": json.dumps(item.arguments)},
            }
            last = out[-1] if out else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif isinstance(item, ToolResult):
            tool: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": item.tool_call_id,
                "content": _content(item.content),
            }
            if item.status == "error" and flag:
                tool["is_error"] = True
            out.append(tool)
        elif item.source is not None:
            waiting.append({"role": "user", "content": _message_content(item.content)})
        else:
            flush()
            out.append({"role": item.role, "content": _message_content(item.content)})
    flush()
    return out


def tools_of(history: History) -> list[dict[str, Any]]:
    """A function tool per tool the history calls, taking no arguments."""
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The scenario's {name} tool.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
        for name in names
    ]


def dump_messages(messages: list[dict[str, Any]]) -> str:
    """The storage a LiteLLM user has: the messages list as JSON."""
    return json.dumps(messages, ensure_ascii=False)


def load_messages(stored: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(stored)
    return loaded


def import_litellm() -> Any:
    """LiteLLM, imported offline and quiet: the toolkit's recipe (`kit.litellm_offline`: its
    bundled cost map, no feedback banner, its loggers at WARNING, no import warnings)."""
    return litellm_offline()
