"""Mutant targets for the rules read as the provider reads the request (issue 20): text under
another key the api reads as the output, prompt-style text in its user message, a download
without markers, fallback media between the results of a turn, undefined blocks named after a
media kind, and the unity of a parallel turn (order, grouping, error flags, tool names).

Each is the reference target with exactly one change, like those in `mutants.py`.
"""

from __future__ import annotations

import base64
from typing import Any, cast

from conformance import marker
from conformance.history import Audio, History, Message, Part, Text, ToolCall, ToolResult
from conformance.targets.base import Payload, RowRef
from mutants import _fetch_urls, _Mutant, _strip_sources  # pyright: ignore[reportPrivateUsage]

__all__ = [
    "AudioAsUndefinedToolBlock",
    "BreaksOrderingRule",
    "DownloadsUnmarked",
    "FlagsEveryResult",
    "GenericResultName",
    "InterleavesFallback",
    "KeysToolText",
    "PromptTextAsUserMessage",
    "ReordersResults",
    "SendsUrlAndBytes",
    "SplitsParallelTurn",
    "StripsMarkers",
]


def _is_marker(block: object) -> bool:
    if not isinstance(block, dict):
        return False
    text = cast("dict[str, Any]", block).get("text")
    return isinstance(text, str) and marker.parse(text) is not None


def _without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_markers(v) for k, v in cast("dict[str, Any]", value).items()}
    if isinstance(value, list):
        return [_without_markers(v) for v in cast("list[Any]", value) if not _is_marker(v)]
    return value


class KeysToolText(_Mutant):
    """Sends a tool's text under another key of a JSON object the api reads whole as the
    output: Gemini `response: {"return_value": text}` (no `output` key), a Cohere document
    `{"data": {"content": text}}`, a Bedrock `{"json": {"result": text}}`."""

    name = "mutant-keys-tool-text"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        if row.api == "gemini":
            for content in payload["contents"]:
                for part in content["parts"]:
                    response = part.get("functionResponse", {}).get("response")
                    if isinstance(response, dict) and "output" in response:
                        keyed = cast("dict[str, Any]", response)
                        keyed["return_value"] = keyed.pop("output")
        elif row.api == "cohere":
            for message in payload["messages"]:
                if message.get("role") == "tool" and isinstance(message["content"], str):
                    text = message["content"]
                    document = {"type": "document", "document": {"data": {"content": text}}}
                    message["content"] = [document]
        elif row.api == "bedrock-converse":
            for message in payload["messages"]:
                for block in message["content"]:
                    result = block.get("toolResult")
                    if result is not None:
                        result["content"] = [
                            {"json": {"result": item["text"]}} if "text" in item else item
                            for item in result["content"]
                        ]
        return payload


class PromptTextAsUserMessage(_Mutant):
    """Sends tool-produced user content (the prompt style) as the user message it is, after
    the tool results, instead of folding its text into the tool result; no marker for text."""

    name = "mutant-prompt-text-as-user-message"

    def render(self, row: RowRef, history: History) -> Payload:
        return super().render(row, _strip_sources(history))


class StripsMarkers(_Mutant):
    """Sends fallback media without the markers that name their calls."""

    name = "mutant-strips-markers"

    def render(self, row: RowRef, history: History) -> Payload:
        return _without_markers(super().render(row, history))


class DownloadsUnmarked(_Mutant):
    """Downloads every URL item and sends its bytes, as fallback media without markers: the
    inline cell of the same row with `StripsMarkers`."""

    name = "mutant-downloads-unmarked"

    def render(self, row: RowRef, history: History) -> Payload:
        return _without_markers(super().render(row, _fetch_urls(history, keep=True)))


def _groups(blocks: list[Any]) -> dict[str, list[Any]]:
    """Blocks after a marker, up to the next marker, by the call id the marker names."""
    out: dict[str, list[Any]] = {}
    current: list[Any] | None = None
    for block in blocks:
        if _is_marker(block):
            found = marker.parse(cast("dict[str, Any]", block)["text"])
            assert found is not None
            current = out.setdefault(found.tool_call_id, [])
        if current is not None:
            current.append(block)
    return out


class InterleavesFallback(_Mutant):
    """Places each call's fallback media (marker first) right after its own tool result,
    between the results of the turn, instead of after all of them."""

    name = "mutant-interleaves-fallback"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        match row.api:
            case "anthropic" | "anthropic-vertex" | "anthropic-bedrock":
                return self._blocks(payload, "messages", "content", "tool_result", "tool_use_id")
            case "bedrock-converse":
                return self._blocks(payload, "messages", "content", "toolResult", "toolUseId")
            case "gemini" | "gemini-vertex":
                return self._blocks(payload, "contents", "parts", "functionResponse", "id")
            case "openai-responses":
                return self._items(payload, "input", "function_call_output", "call_id")
            case _:
                return self._items(payload, "messages", "tool", "tool_call_id")

    @staticmethod
    def _result_id(block: dict[str, Any], kind: str, key: str) -> str | None:
        if block.get("type") == kind:
            return block[key]
        inner = block.get(kind)
        if isinstance(inner, dict):
            return cast("dict[str, Any]", inner).get(key)
        return None

    def _blocks(self, payload: Payload, top: str, field: str, kind: str, key: str) -> Payload:
        for message in payload[top]:
            blocks: list[Any] = message[field]
            ids = [self._result_id(cast("dict[str, Any]", b), kind, key) for b in blocks]
            groups = _groups(blocks)
            if sum(1 for i in ids if i) < 2 or not groups:
                continue
            moved = {id(b) for group in groups.values() for b in group}
            out: list[Any] = []
            for block in blocks:
                if id(block) in moved:
                    continue
                out.append(block)
                call_id = self._result_id(block, kind, key)
                out.extend(groups.get(call_id, []) if call_id else [])
            message[field] = out
        return payload

    @staticmethod
    def _items(payload: Payload, top: str, kind: str, key: str) -> Payload:
        items: list[dict[str, Any]] = payload[top]
        role_key = "role" if top == "messages" else "type"
        users = [m for m in items if m.get("role") == "user" and isinstance(m.get("content"), list)]
        groups = {k: v for m in users for k, v in _groups(m["content"]).items()}
        if not groups:
            return payload
        out: list[dict[str, Any]] = []
        for item in items:
            if item in users and _groups(item["content"]):
                continue
            out.append(item)
            if item.get(role_key) == kind and item.get(key) in groups:
                out.append({"role": "user", "content": groups[item[key]]})
        payload[top] = out
        return payload


def _parts_of(item: Any) -> list[Part]:
    content = getattr(item, "content", [])
    return [] if isinstance(content, str) else cast("list[Part]", content)


class AudioAsUndefinedToolBlock(_Mutant):
    """Sends audio in the tool result as an OpenAI-shaped `input_audio` block where the api
    does not define one there (Responses' `function_call_output`, Cohere's tool message)."""

    name = "mutant-audio-as-undefined-tool-block"

    def render(self, row: RowRef, history: History) -> Payload:
        if row.api not in ("openai-responses", "cohere"):
            return super().render(row, history)
        audio: dict[str, list[Audio]] = {}
        text_only: History = []
        for item in history:
            if isinstance(item, ToolResult):
                audio[item.tool_call_id] = [p for p in item.content if isinstance(p, Audio)]
                keep = [p for p in item.content if not isinstance(p, Audio)]
                item = item.model_copy(update={"content": keep or [Text(text="")]})
            text_only.append(item)
        payload = super().render(row, text_only)
        if not any(audio.values()):
            return payload
        items: list[dict[str, Any]] = payload["input" if "input" in payload else "messages"]
        for item in items:
            call_id = item.get("call_id", item.get("tool_call_id"))
            found = audio.get(call_id) if isinstance(call_id, str) else None
            if not found or found[0].data is None:
                continue
            data = base64.b64encode(found[0].data).decode("ascii")
            block = {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}
            slot = "output" if "output" in item else "content"
            item[slot] = [block]
        return payload


def _results_first_reversed(history: History) -> History:
    out = list(history)
    indexes = [i for i, item in enumerate(out) if isinstance(item, ToolResult)]
    for i, j in zip(indexes, reversed(indexes), strict=True):
        out[i] = history[j]
    return out


class ReordersResults(_Mutant):
    """Sends the results of a parallel turn in reverse call order (each with its own id)."""

    name = "mutant-reorders-results"

    def render(self, row: RowRef, history: History) -> Payload:
        return super().render(row, _results_first_reversed(history))


class SplitsParallelTurn(_Mutant):
    """Sends a parallel turn as sequential turns: each call followed by its own result (and
    its tool-produced user content)."""

    name = "mutant-splits-parallel-turn"

    def render(self, row: RowRef, history: History) -> Payload:
        calls = [i for i in history if isinstance(i, ToolCall)]
        results = {i.tool_call_id: i for i in history if isinstance(i, ToolResult)}
        prompts = {
            i.source.tool_call_id: i
            for i in history
            if isinstance(i, Message) and i.source is not None
        }
        out: History = [i for i in history if isinstance(i, Message) and i.source is None]
        for call in calls:
            out.append(call)
            out.append(results[call.tool_call_id])
            if call.tool_call_id in prompts:
                out.append(prompts[call.tool_call_id])
        return super().render(row, out)


class FlagsEveryResult(_Mutant):
    """Sends every result of a turn with the error flag, the successful ones too."""

    name = "mutant-flags-every-result"

    def render(self, row: RowRef, history: History) -> Payload:
        failed = [
            i.model_copy(update={"status": "error"}) if isinstance(i, ToolResult) else i
            for i in history
        ]
        return super().render(row, failed)


class GenericResultName(_Mutant):
    """States a generic tool name on every result that names one (Gemini
    `functionResponse.name`, Mistral's tool message `name`)."""

    name = "mutant-generic-result-name"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        if row.api == "gemini":
            for content in payload["contents"]:
                for part in content["parts"]:
                    if "functionResponse" in part:
                        part["functionResponse"]["name"] = "tool"
        for message in payload.get("messages", []):
            if message.get("role") == "tool" and "name" in message:
                message["name"] = "tool"
        return payload


class SendsUrlAndBytes(_Mutant):
    """Sends each URL item as its URL and, beside it, the bytes downloaded from it."""

    name = "mutant-sends-url-and-bytes"

    def render(self, row: RowRef, history: History) -> Payload:
        downloaded = _fetch_urls(history, keep=True)
        doubled: History = []
        for item, fetched in zip(history, downloaded, strict=True):
            if isinstance(item, ToolResult) and _parts_of(item) != _parts_of(fetched):
                extra = [p for p in _parts_of(fetched) if not isinstance(p, Text)]
                item = item.model_copy(update={"content": [*_parts_of(item), *extra]})
            doubled.append(item)
        return super().render(row, doubled)


class BreaksOrderingRule(_Mutant):
    """Keeps every block and its content, and breaks one of the api's ordering rules: a text
    before Anthropic's tool results (AN-1/AN-2), Gemini's responses each in a Content of its
    own (GE-1), a second user message after Bedrock's results (BE-3), Mistral's fallback user
    message right after the tool messages (MI-2, no bridging assistant message), a user message
    between OpenAI Chat's tool messages (OC-1)."""

    name = "mutant-breaks-ordering-rule"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        match row.api:
            case "anthropic":
                results = payload["messages"][2]["content"]
                results.insert(0, {"type": "text", "text": "Here are the results."})
            case "gemini":
                contents: list[dict[str, Any]] = payload["contents"]
                turn = contents.pop(2)
                contents[2:2] = [{"role": "user", "parts": [part]} for part in turn["parts"]]
            case "bedrock-converse":
                payload["messages"].append({"role": "user", "content": [{"text": "Go on."}]})
            case "mistral":
                payload["messages"] = [
                    m
                    for m in payload["messages"]
                    if not (m.get("role") == "assistant" and m.get("content") == "")
                ]
            case "openai-chat":
                payload["messages"].insert(3, {"role": "user", "content": "Go on."})
            case _:
                pass
        return payload
