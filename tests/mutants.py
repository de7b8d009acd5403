"""Mutant targets: the reference target with exactly one bug each.

Every rule the suite checks has a mutant here that breaks it, and `test_mutants.py` shows
the suite giving the failing verdict for each. A check that no mutant fails is suspect.
"""

from __future__ import annotations

import itertools
import json
import urllib.request
import uuid
from dataclasses import replace
from typing import Any, cast, get_args

from conformance import history as canonical
from conformance import marker
from conformance.errors import UnsupportedContent
from conformance.history import (
    ContentType,
    History,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
)
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget
from conformance.targets.reference.mappers import MAPPERS
from conformance.wire import locate

__all__ = [
    "AddsMarkerToText",
    "ChangesHistoryInPlace",
    "ChangesMediaType",
    "ChangesWhitespace",
    "DownloadsAndInlines",
    "DownloadsThenDrops",
    "DropsMedia",
    "ForgetsErrorFlag",
    "ForgetsProvenanceOnReplay",
    "JoinsUserTexts",
    "LosesProvenanceInStorage",
    "MarkerNamesWrongCall",
    "NativeEverywhere",
    "Nondeterministic",
    "OpenAIAudioOnMistral",
    "RaisesOnHostileNames",
    "RaisesWrongType",
    "RendersRandomly",
    "SendsDocumentsAsImages",
    "SendsMediaTwice",
    "SendsUnsupported",
    "SendsUrlWithoutUrlForm",
    "StorageStopsRefusing",
    "SwallowsUnsupported",
    "SwapsParallelResults",
    "TruncatesBytes",
    "UnescapedMarker",
]


def _map_tool_content(history: History, change: Any) -> History:
    """Apply `change(parts) -> parts` to every tool result and tool-produced user message."""
    out: History = []
    for item in history:
        if isinstance(item, ToolResult) or (
            isinstance(item, Message)
            and item.source is not None
            and not isinstance(item.content, str)
        ):
            item = item.model_copy(update={"content": change(item.content)})
        out.append(item)
    return out


class _Mutant(ReferenceTarget):
    name = "mutant"

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self.render(row, canonical.load(canonical.dump(history)))


class DropsMedia(_Mutant):
    """Silently leaves out every media item a tool produced."""

    name = "mutant-drops-media"

    def render(self, row: RowRef, history: History) -> Payload:
        def keep_text(parts: list[Part]) -> list[Part]:
            return [p for p in parts if isinstance(p, Text)]

        return super().render(row, _map_tool_content(history, keep_text))


class AddsMarkerToText(_Mutant):
    """Puts the fallback marker in front of tool-result text too."""

    name = "mutant-adds-marker-to-text"

    def render(self, row: RowRef, history: History) -> Payload:
        out: History = []
        for item in history:
            if isinstance(item, ToolResult):
                tag = marker.render(item.name, item.tool_call_id)
                item = item.model_copy(
                    update={
                        "content": [
                            Text(text=tag + p.text) if isinstance(p, Text) else p
                            for p in item.content
                        ]
                    }
                )
            out.append(item)
        return super().render(row, out)


class ChangesWhitespace(_Mutant):
    """Normalizes line endings and strips trailing spaces from tool text."""

    name = "mutant-changes-whitespace"

    def render(self, row: RowRef, history: History) -> Payload:
        def tidy(parts: list[Part]) -> list[Part]:
            return [
                Text(text=p.text.replace("\r\n", "\n").rstrip()) if isinstance(p, Text) else p
                for p in parts
            ]

        return super().render(row, _map_tool_content(history, tidy))


class LosesProvenanceInStorage(_Mutant):
    """Stores tool-produced user content without its provenance, so a replay differs."""

    name = "mutant-loses-provenance-in-storage"

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self.render(row, _strip_sources(history))


class NativeEverywhere(_Mutant):
    """Puts fallback media into the tool-result block itself, whatever the model accepts there.

    Where our mapper can build media in a tool result (Responses, Anthropic, Gemini, Bedrock),
    the mutant widens the profile; for the chat-shaped apis, whose tool messages our mappers
    keep text-only, it moves the media after each marker into the tool message it names.
    """

    name = "mutant-native-everywhere"

    def render(self, row: RowRef, history: History) -> Payload:
        profiles, render = MAPPERS[row.api]
        profile = profiles[row.family]
        loose = replace(
            profile,
            model=row.model,
            tool_result=profile.tool_result | profile.user,
            tool_result_url=None,
        )
        try:
            return render(loose, history)
        except AssertionError:  # the mapper builds text-only tool messages
            return self._into_tool_messages(super().render(row, history))

    def _into_tool_messages(self, payload: Payload) -> Payload:
        messages: list[dict[str, Any]] = payload.get("messages", [])
        tools = {m["tool_call_id"]: m for m in messages if m.get("role") == "tool"}
        kept: list[dict[str, Any]] = []
        for message in messages:
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                kept.append(message)
                continue
            owner: dict[str, Any] | None = None
            rest: list[Any] = []
            for part in cast("list[dict[str, Any]]", content):
                found = marker.parse(part.get("text", "")) if part.get("type") == "text" else None
                if found is not None and found.tool_call_id in tools:
                    owner = tools[found.tool_call_id]
                    if isinstance(owner["content"], str):
                        text = owner["content"]
                        owner["content"] = [{"type": "text", "text": text}] if text else []
                elif owner is not None and part.get("type") != "text":
                    owner["content"].append(part)
                else:
                    rest.append(part)
            if rest:
                kept.append({**message, "content": rest})
        payload["messages"] = kept
        return payload


class SendsUnsupported(_Mutant):
    """Sends media the row cannot take as user content (or by URL) instead of raising.

    Also the probe for a live recording of an `unsupported` cell whose refusal is uncertain
    (docs/live-verification.md): the api's answer to this request settles the cell. Where the
    mapper has no shape for the media at all, it raises as the reference does.
    """

    name = "mutant-sends-unsupported"

    def render(self, row: RowRef, history: History) -> Payload:
        profiles, render = MAPPERS[row.api]
        profile = profiles[row.family]
        every = frozenset(get_args(ContentType))
        loose = replace(
            profile,
            model=row.model,
            user=profile.user | every,
            url=profile.url | every,
            url_only=frozenset(),
        )
        try:
            return render(loose, history)
        except (AssertionError, KeyError):  # the mapper has no shape for it: refuse as before
            return super().render(row, history)


class SwallowsUnsupported(_Mutant):
    """Catches the unsupported error and sends the request without the offending media."""

    name = "mutant-swallows-unsupported"

    def render(self, row: RowRef, history: History) -> Payload:
        try:
            return super().render(row, history)
        except UnsupportedContent as error:
            kind = error.content_type

            def without(parts: list[Part]) -> list[Part]:
                return [p for p in parts if p.type != kind]

            return super().render(row, _map_tool_content(history, without))


class MarkerNamesWrongCall(_Mutant):
    """Writes markers that name the next tool call of the turn instead of their own."""

    name = "mutant-marker-names-wrong-call"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        # The ids the payload itself uses (some apis rewrite them), in call order.
        calls = locate(row.api, payload).tool_calls
        ids = [c.call_id for c in calls]
        names = {c.call_id: c.name for c in calls}
        rotated = {ids[i]: ids[(i + 1) % len(ids)] for i in range(len(ids))}
        if len(ids) == 1:
            rotated = {ids[0]: ids[0] + "_other"}

        def fix(value: Any) -> Any:
            if isinstance(value, str):
                found = marker.parse(value)
                if found is not None and found.tool_call_id in rotated:
                    wrong = rotated[found.tool_call_id]
                    return marker.render(names.get(wrong, found.tool_name), wrong)
                return value
            if isinstance(value, dict):
                return {k: fix(v) for k, v in value.items()}  # type: ignore[misc]
            if isinstance(value, list):
                return [fix(v) for v in value]  # type: ignore[misc]
            return value

        return fix(payload)


def _strip_sources(history: History) -> History:
    rows = json.loads(canonical.dump(history))
    for row_item in rows:
        row_item.pop("source", None)
    return canonical.load(json.dumps(rows))


class JoinsUserTexts(_Mutant):
    """Sends tool-produced user content as ordinary user messages, no marker (as LangChain
    keeps it, a plain HumanMessage), and on Bedrock joins the texts of a user message into one
    block, each trimmed, with a newline (as langchain-aws's `merge_message_runs` does)."""

    name = "mutant-joins-user-texts"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, _strip_sources(history))
        if row.api != "bedrock-converse":
            return payload
        for message in payload["messages"]:
            if message["role"] != "user":
                continue
            joined: list[dict[str, Any]] = []
            for block in message["content"]:
                if "text" in block and joined and "text" in joined[-1]:
                    joined[-1] = {"text": joined[-1]["text"] + "\n" + block["text"].strip()}
                elif "text" in block:
                    joined.append({"text": block["text"].strip()})
                else:
                    joined.append(block)
            message["content"] = [self.added(b) for b in joined]
        return payload

    def added(self, block: dict[str, Any]) -> dict[str, Any]:
        return block


class JoinsUserTextsAndAMarker(JoinsUserTexts):
    """Joins as `JoinsUserTexts` and writes a marker naming no call at the end of each joined
    text: the target's own marker, fused with the user's texts."""

    name = "mutant-joins-user-texts-and-a-marker"

    def added(self, block: dict[str, Any]) -> dict[str, Any]:
        if "text" not in block:
            return block
        return {"text": block["text"] + "\n" + marker.render("get_image", "call_404")}


class LeavesOutEmptyText(_Mutant):
    """Leaves out every empty text, as an adapter for an api that refuses blank text blocks
    must: a user message whose text is empty, and empty text parts. Legal: nothing is lost."""

    name = "mutant-leaves-out-empty-text"
    keep: staticmethod[[str], bool] = staticmethod(lambda text: text != "")

    def render(self, row: RowRef, history: History) -> Payload:
        out: History = []
        for item in history:
            if isinstance(item, ToolCall):
                out.append(item)
                continue
            if isinstance(item.content, str):
                if self.keep(item.content) or isinstance(item, ToolResult):
                    out.append(item)
                continue
            parts = [p for p in item.content if not isinstance(p, Text) or self.keep(p.text)]
            if parts or isinstance(item, ToolResult):
                out.append(item.model_copy(update={"content": parts}))
        return super().render(row, out)


class LeavesOutBlankText(LeavesOutEmptyText):
    """Leaves out text of white space only too: that is text a tool or user wrote, lost."""

    name = "mutant-leaves-out-blank-text"
    keep = staticmethod(lambda text: text.strip() != "")


class LeavesOutEmptyToolText(_Mutant):
    """Leaves out the empty text parts of tool results only, keeping the user's empty prompt:
    an empty tool text then equals a user text before the call. Legal: nothing is lost."""

    name = "mutant-leaves-out-empty-tool-text"
    leaves_out: staticmethod[[str], bool] = staticmethod(lambda text: text == "")

    def _left_out(self, part: object) -> bool:
        return isinstance(part, Text) and self.leaves_out(part.text)

    def render(self, row: RowRef, history: History) -> Payload:
        out: History = []
        for item in history:
            if isinstance(item, ToolResult) and not isinstance(item.content, str):
                kept = [p for p in item.content if not self._left_out(p)]
                item = item.model_copy(update={"content": kept})
            out.append(item)
        return super().render(row, out)


class JoinsToolTexts(_Mutant):
    """Joins the texts of each tool result into one, with no separator, before its media (as
    llama-index-llms-openai's `to_openai_message_dict` joins a tool message's TextBlocks):
    `["Result:", "42"]` is sent as `"Result:42"`, text no longer byte for byte."""

    name = "mutant-joins-tool-texts"

    def render(self, row: RowRef, history: History) -> Payload:
        def join(parts: list[Part]) -> list[Part]:
            texts = [p.text for p in parts if isinstance(p, Text)]
            rest = [p for p in parts if not isinstance(p, Text)]
            return [Text(text="".join(texts)), *rest] if len(texts) > 1 else parts

        return super().render(
            row,
            [
                i.model_copy(update={"content": join(i.content)})
                if isinstance(i, ToolResult)
                else i
                for i in history
            ],
        )


class Nondeterministic(_Mutant):
    """Adds a per-request counter to the body, so no two renderings are the same."""

    name = "mutant-nondeterministic"

    def __init__(self) -> None:
        self.requests = itertools.count()

    def render(self, row: RowRef, history: History) -> Payload:
        return {**super().render(row, history), "metadata": {"request": next(self.requests)}}


class RendersRandomly(_Mutant):
    """Sends a random request id in every body, as a client that makes one per request would:
    each payload is otherwise the reference's, so only `deterministic` can tell."""

    name = "mutant-renders-randomly"

    def render(self, row: RowRef, history: History) -> Payload:
        return {**super().render(row, history), "metadata": {"request_id": uuid.uuid4().hex}}


class RaisesOnHostileNames(_Mutant):
    """Crashes with a KeyError on tool names that hold markup characters."""

    name = "mutant-raises-on-hostile-names"

    def render(self, row: RowRef, history: History) -> Payload:
        for item in history:
            if isinstance(item, ToolCall) and any(c in item.name for c in '"<>&\n'):
                raise KeyError(item.name)
        return super().render(row, history)


class SwapsParallelResults(_Mutant):
    """Gives the first two results of a parallel turn each other's output."""

    name = "mutant-swaps-parallel-results"

    def render(self, row: RowRef, history: History) -> Payload:
        return super().render(row, self.swapped(history))

    @staticmethod
    def swapped(history: History) -> History:
        out = list(history)
        for index in range(len(out) - 1):
            first, second = out[index], out[index + 1]
            if isinstance(first, ToolResult) and isinstance(second, ToolResult):
                out[index] = first.model_copy(update={"content": second.content})
                out[index + 1] = second.model_copy(update={"content": first.content})
                break
        return out


class RewritesNamesAndIds(_Mutant):
    """Sends every tool name and call id in the api's allowed alphabet, as LiteLLM does for
    Bedrock (`;Ù¶切>ôÑ$D\t` becomes `a_Ù_切_ôÑ_D_`, an id gets a hash suffix): legal, nothing lost.
    With `swap`, it also gives the first two results of a parallel turn each other's output."""

    name = "mutant-rewrites-names-and-ids"
    swap = False

    def render(self, row: RowRef, history: History) -> Payload:
        import hashlib
        import re

        def clean(value: str) -> str:
            kept = re.sub(r"[^A-Za-z0-9_-]", "_", value)
            return f"{kept}_{hashlib.sha256(value.encode()).hexdigest()[:6]}"

        out: History = []
        for item in history:
            if isinstance(item, (ToolCall, ToolResult)):
                item = item.model_copy(
                    update={"name": clean(item.name), "tool_call_id": clean(item.tool_call_id)}
                )
            elif item.source is not None:
                source = item.source.model_copy(
                    update={
                        "tool_name": clean(item.source.tool_name),
                        "tool_call_id": clean(item.source.tool_call_id),
                    }
                )
                item = item.model_copy(update={"source": source})
            out.append(item)
        if self.swap:
            out = SwapsParallelResults.swapped(out)
        return ReferenceTarget.render(self, row, out)


class RewritesAndSwaps(RewritesNamesAndIds):
    name = "mutant-rewrites-and-swaps"
    swap = True


class UnescapedMarker(_Mutant):
    """Writes markers with raw attribute values, so a quote in a name breaks out of them."""

    name = "mutant-unescaped-marker"

    def render(self, row: RowRef, history: History) -> Payload:
        def raw(value: Any) -> Any:
            if isinstance(value, str):
                found = marker.parse(value)
                if found is None:
                    return value
                return (
                    f'<conformance:tool_return tool_name="{found.tool_name}" '
                    f'tool_call_id="{found.tool_call_id}" />'
                )
            if isinstance(value, dict):
                return {k: raw(v) for k, v in value.items()}  # type: ignore[misc]
            if isinstance(value, list):
                return [raw(v) for v in value]  # type: ignore[misc]
            return value

        return raw(super().render(row, history))


class ForgetsProvenanceOnReplay(_Mutant):
    """Converts stored history for the api it last rendered; replayed elsewhere, provenance
    is gone."""

    name = "mutant-forgets-provenance-on-replay"

    def __init__(self) -> None:
        self.last_api: str | None = None

    def render(self, row: RowRef, history: History) -> Payload:
        self.last_api = row.api
        return super().render(row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        if self.last_api is not None and self.last_api != row.api:
            return super().render(row, _strip_sources(history))
        return super().render_stored(row, history)


class ForgetsErrorFlag(_Mutant):
    """Sends a failed call's text as if the call had succeeded."""

    name = "mutant-forgets-error-flag"

    def render(self, row: RowRef, history: History) -> Payload:
        ok = [
            item.model_copy(update={"status": "success"}) if isinstance(item, ToolResult) else item
            for item in history
        ]
        return super().render(row, ok)


class RaisesWrongType(_Mutant):
    """Refuses unsupported content with a ValueError instead of its declared refusal type."""

    name = "mutant-raises-wrong-type"

    def render(self, row: RowRef, history: History) -> Payload:
        try:
            return super().render(row, history)
        except UnsupportedContent as error:
            raise ValueError(f"cannot send this: {error.reason}") from None


class StorageStopsRefusing(_Mutant):
    """Refuses directly, but after a storage round trip sends the request without the media."""

    name = "mutant-storage-stops-refusing"

    def render_stored(self, row: RowRef, history: History) -> Payload:
        stored = canonical.load(canonical.dump(history))
        try:
            return self.render(row, stored)
        except UnsupportedContent as error:
            kind = error.content_type

            def without(parts: list[Part]) -> list[Part]:
                return [p for p in parts if p.type != kind]

            return self.render(row, _map_tool_content(stored, without))


class SendsMediaTwice(_Mutant):
    """Sends every media item a tool produced twice."""

    name = "mutant-sends-media-twice"

    def render(self, row: RowRef, history: History) -> Payload:
        def twice(parts: list[Part]) -> list[Part]:
            return [q for p in parts for q in ((p,) if isinstance(p, Text) else (p, p))]

        return super().render(row, _map_tool_content(history, twice))


class TruncatesBytes(_Mutant):
    """Sends only the first half of every inline media item's bytes."""

    name = "mutant-truncates-bytes"

    def render(self, row: RowRef, history: History) -> Payload:
        def halve(parts: list[Part]) -> list[Part]:
            return [
                p.model_copy(update={"data": p.data[: len(p.data) // 2]})
                if not isinstance(p, Text) and p.data is not None
                else p
                for p in parts
            ]

        return super().render(row, _map_tool_content(history, halve))


_OTHER_TYPE = {
    "image/png": "image/jpeg",
    "application/pdf": "text/plain",
    "audio/wav": "audio/mpeg",
    "video/mp4": "video/webm",
}
_OTHER_FORMAT = {"png": "jpeg", "pdf": "txt", "wav": "mp3", "mp4": "webm"}


class ChangesMediaType(_Mutant):
    """States another media type for every media item (Gemini mimeType, Bedrock and OpenAI
    audio format, data-URL type, Anthropic media_type), the bytes unchanged."""

    name = "mutant-changes-media-type"

    def render(self, row: RowRef, history: History) -> Payload:
        def swap(value: Any, key: str = "") -> Any:
            if isinstance(value, str):
                if value in _OTHER_TYPE:
                    return _OTHER_TYPE[value]
                if key == "format" and value in _OTHER_FORMAT:
                    return _OTHER_FORMAT[value]
                for old, new in _OTHER_TYPE.items():
                    if value.startswith(f"data:{old};"):
                        return f"data:{new};" + value.removeprefix(f"data:{old};")
                return value
            if isinstance(value, dict):
                return {k: swap(v, k) for k, v in value.items()}  # type: ignore[misc]
            if isinstance(value, list):
                return [swap(v) for v in value]  # type: ignore[misc]
            return value

        return swap(super().render(row, history))


class OpenAIAudioOnMistral(_Mutant):
    """Sends OpenAI-shaped `input_audio` parts (`{"data", "format"}`) to Mistral, whose
    AudioChunk takes a base64 string."""

    name = "mutant-openai-audio-on-mistral"

    def render(self, row: RowRef, history: History) -> Payload:
        payload = super().render(row, history)
        if row.api != "mistral":
            return payload

        def reshape(value: Any) -> Any:
            if isinstance(value, dict):
                block = cast("dict[str, Any]", value)
                if block.get("type") == "input_audio" and isinstance(block.get("input_audio"), str):
                    return {
                        "type": "input_audio",
                        "input_audio": {"data": block["input_audio"], "format": "wav"},
                    }
                return {k: reshape(v) for k, v in block.items()}
            if isinstance(value, list):
                return [reshape(v) for v in value]  # type: ignore[misc]
            return value

        return reshape(payload)


class SendsDocumentsAsImages(_Mutant):
    """Puts every document into the api's image part, its media type and bytes (or URL)
    intact: an OpenAI-chat `file` part becomes an `image_url` holding the PDF's data URL, an
    Anthropic `document` block an `image` block with the PDF's source (as LiteLLM's Anthropic
    Messages entry point does for OpenAI, BerriAI/litellm#6120)."""

    name = "mutant-sends-documents-as-images"

    def render(self, row: RowRef, history: History) -> Payload:
        def reshape(value: Any) -> Any:
            if isinstance(value, dict):
                block = cast("dict[str, Any]", value)
                kind = block.get("type")
                if row.api == "openai-chat" and kind == "file" and "file_data" in block["file"]:
                    return {"type": "image_url", "image_url": {"url": block["file"]["file_data"]}}
                if row.api == "anthropic" and kind == "document":
                    return {"type": "image", "source": block["source"]}
                return {k: reshape(v) for k, v in block.items()}
            if isinstance(value, list):
                return [reshape(v) for v in value]  # type: ignore[misc]
            return value

        return reshape(super().render(row, history))


class ChangesHistoryInPlace(_Mutant):
    """Renders correctly, then removes the media from the history it was given, in place."""

    name = "mutant-changes-history-in-place"

    def render(self, row: RowRef, history: History) -> Payload:
        try:
            return super().render(row, canonical.load(canonical.dump(history)))
        finally:
            for item in history:
                content = getattr(item, "content", None)
                if isinstance(content, list):
                    parts = cast("list[Part]", content)
                    parts[:] = [p for p in parts if isinstance(p, Text)]


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:  # the loopback fixture host
        return cast("bytes", response.read())


def _fetch_urls(history: History, keep: bool) -> History:
    """Fetch every URL media item; with `keep`, carry the bytes instead, else drop it."""

    def fetched(parts: list[Part]) -> list[Part]:
        out: list[Part] = []
        for part in parts:
            if isinstance(part, Text) or part.url is None:
                out.append(part)
                continue
            data = _download(part.url)
            if keep:
                out.append(part.model_copy(update={"data": data, "url": None}))
        return out

    return _map_tool_content(history, fetched)


class DownloadsThenDrops(_Mutant):
    """Downloads every URL media item, then sends the request without it."""

    name = "mutant-downloads-then-drops"

    def render(self, row: RowRef, history: History) -> Payload:
        return super().render(row, _fetch_urls(history, keep=False))


class DownloadsAndInlines(_Mutant):
    """Downloads every URL media item and sends its bytes: what `refuse-or-download` allows."""

    name = "mutant-downloads-and-inlines"

    def render(self, row: RowRef, history: History) -> Payload:
        return super().render(row, _fetch_urls(history, keep=True))


class SendsUrlWithoutUrlForm(_Mutant):
    """Sends media by URL whatever the api takes: as if every type had a URL form."""

    name = "mutant-sends-url-without-url-form"

    def render(self, row: RowRef, history: History) -> Payload:
        profiles, render = MAPPERS[row.api]
        profile = profiles[row.family]
        every = frozenset({"image", "document", "audio", "video"})
        loose = replace(profile, model=row.model, url=profile.url | every)
        try:
            return render(loose, history)
        except (AssertionError, UnsupportedContent):  # the mapper has no URL shape to write
            return super().render(row, history)
