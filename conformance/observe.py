"""Classify what a target did with each tool-produced part: the outcome of a cell.

The classifier reads the payload only through the wire locators (`conformance.wire`), which
are written from provider documentation. It never imports mapper code. Provenance is judged
from the structure of the history (which parts a tool produced), never by trusting text.

Outcomes, per tool-produced part:

- native: in the tool-result block of its own call, unchanged;
- fallback-marked: media in a later user message, preceded in that message by a marker naming
  its own call (our marker, or any text part holding the call's tool name and id verbatim);
- fallback-unmarked: media moved without a marker naming its call (or with one naming another);
- raised: the target raised before sending (whole cell);
- dropped: gone without a trace;
- noted: gone, and a text that is in no history item stands in the payload instead;
- stringified: gone as media, but its bytes (base64 or repr) or URL sit inside a string;
- altered: text not byte-identical (changed, wrapped, or given a marker).
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from conformance import marker
from conformance.history import (
    History,
    Media,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    texts,
)
from conformance.wire import WireMessage, WirePart, WireToolResult, WireView, digest, locate

__all__ = [
    "LOSSY",
    "ItemObservation",
    "Observation",
    "Outcome",
    "Produced",
    "classify",
    "observe",
    "produced_parts",
]

Outcome = Literal[
    "native",
    "fallback-marked",
    "fallback-unmarked",
    "raised",
    "dropped",
    "noted",
    "stringified",
    "altered",
]
LOSSY: frozenset[Outcome] = frozenset({"dropped", "noted", "stringified", "altered"})
# Worst first: the cell outcome is the worst of its parts'.
_SEVERITY: tuple[Outcome, ...] = (
    "dropped",
    "noted",
    "stringified",
    "altered",
    "fallback-unmarked",
    "fallback-marked",
    "native",
)


@dataclass(frozen=True)
class Produced:
    """A part a tool produced: in its result, or as user content stored with provenance."""

    call: ToolCall
    part: Part
    origin: Literal["result", "prompt"]


@dataclass(frozen=True)
class ItemObservation:
    call_id: str
    tool_name: str
    content_type: str
    origin: Literal["result", "prompt"]
    outcome: Outcome
    where: str
    """The payload path where the part was found, or empty."""
    detail: str


@dataclass(frozen=True)
class Observation:
    outcome: Outcome
    items: tuple[ItemObservation, ...] = ()
    raised: str | None = None
    """`Type: message` of the exception, where the target raised."""

    @property
    def detail(self) -> str:
        if self.raised is not None:
            return f"raised {self.raised}"
        return "\n".join(
            f"{i.content_type} from {i.tool_name} ({i.call_id}, {i.origin}): {i.outcome}"
            + (f" at {i.where}" if i.where else "")
            + (f": {i.detail}" if i.detail else "")
            for i in self.items
        )


def produced_parts(history: History) -> list[Produced]:
    """Every part a tool produced, in history order."""
    calls = {item.tool_call_id: item for item in history if isinstance(item, ToolCall)}
    out: list[Produced] = []
    for item in history:
        if isinstance(item, ToolResult):
            call = calls.get(item.tool_call_id) or ToolCall(
                tool_call_id=item.tool_call_id, name=item.name
            )
            out.extend(Produced(call, part, "result") for part in item.content)
        elif isinstance(item, Message) and item.source is not None:
            source = item.source
            call = calls.get(source.tool_call_id) or ToolCall(
                tool_call_id=source.tool_call_id, name=source.tool_name
            )
            parts = [Text(text=item.content)] if isinstance(item.content, str) else item.content
            out.extend(Produced(call, part, "prompt") for part in parts)
    return out


@dataclass(frozen=True)
class _Context:
    view: WireView
    history_texts: frozenset[str]
    call_ids: dict[str, str]
    """History call id -> the id the payload uses for that call."""
    names: dict[str, str]
    """Payload call id -> tool name."""


def _wire_ids(history: History, view: WireView) -> dict[str, str]:
    """Pair history calls with payload calls by order and name, so rewritten ids still match."""
    calls = [item for item in history if isinstance(item, ToolCall)]
    wire = list(view.tool_calls)
    if len(calls) == len(wire) and all(c.name == w.name for c, w in zip(calls, wire, strict=True)):
        return {c.tool_call_id: w.call_id for c, w in zip(calls, wire, strict=True)}
    return {c.tool_call_id: c.tool_call_id for c in calls}


def _verbatim(needle: str, text: str) -> bool:
    """`needle` in `text`, not as part of a longer name or id (`call_1` is not in `call_12`)."""
    pattern = rf"(?<![A-Za-z0-9_\-]){re.escape(needle)}(?![A-Za-z0-9_\-])"
    return bool(needle) and re.search(pattern, text) is not None


def _names_call(text: str, call_id: str, name: str) -> bool:
    """Whether a text part names this call: our marker if it holds one, else any text that
    holds the tool name and call id verbatim (design rule 2 lets targets word it their way)."""
    markers = marker.find(text)
    if markers:
        return any(m == (name, call_id) for m in markers)
    return _verbatim(call_id, text) and _verbatim(name, text)


def _marker_for(ctx: _Context, message: WireMessage, index: int) -> tuple[str, str] | None:
    """The (name, call id) named by the nearest marker-like text part before `index`."""
    for part in reversed(message.parts[:index]):
        if part.kind != "text" or part.text is None or part.text in ctx.history_texts:
            continue
        for call_id, name in ctx.names.items():
            if _names_call(part.text, call_id, name):
                return name, call_id
    return None


def _media_matches(part: WirePart, media: Media) -> bool:
    if media.data is not None:
        return part.digest == digest(media.data)
    return part.url == media.url


def _text_matches(part: WirePart, text: str) -> bool:
    return part.kind == "text" and part.text == text


def _after(position: tuple[int, int], results: list[WireToolResult]) -> bool:
    return all(position > r.position for r in results)


def _classify_media(ctx: _Context, item: Produced, media: Media) -> tuple[Outcome, str, str]:
    wire_id = ctx.call_ids.get(item.call.tool_call_id, item.call.tool_call_id)
    own = ctx.view.results_for(wire_id)
    for result in own:
        for part in result.parts:
            if _media_matches(part, media):
                return "native", part.path, ""
    for result in ctx.view.tool_results:
        for part in result.parts:
            if _media_matches(part, media):
                return "fallback-unmarked", part.path, f"in the tool result of {result.call_id!r}"
    for message in ctx.view.messages:
        for index, part in enumerate(message.parts):
            if not _media_matches(part, media):
                continue
            if message.role != "user":
                return "fallback-unmarked", part.path, f"in a {message.role} message"
            if not _after(message.position, own):
                return "fallback-unmarked", part.path, "before its tool result"
            named = _marker_for(ctx, message, index)
            if named is None:
                return "fallback-unmarked", part.path, "no marker before it in its message"
            if named[1] != wire_id:
                return "fallback-unmarked", part.path, f"the marker before it names {named[1]!r}"
            return "fallback-marked", part.path, ""
    return _lost(ctx, media)


def _lost(ctx: _Context, media: Media) -> tuple[Outcome, str, str]:
    """Media that is not in the payload as media: stringified, noted or dropped."""
    needles: list[str] = []
    if media.data is not None:
        needles.append(base64.b64encode(media.data[:48]).decode("ascii"))
        needles.append(repr(media.data)[:24])
    else:
        assert media.url is not None
        needles.append(media.url)
    for path, value in ctx.view.strings:
        if any(needle in value for needle in needles):
            return "stringified", path, "its bytes or URL sit inside a string"
    for part in _all_text_parts(ctx.view):
        assert part.text is not None
        if part.text and part.text not in ctx.history_texts and not _is_marker_like(ctx, part):
            return "noted", part.path, f"replaced by {part.text[:80]!r}"
    return "dropped", "", "not in the payload"


def _all_text_parts(view: WireView) -> list[WirePart]:
    parts = [p for r in view.tool_results for p in r.parts]
    parts += [p for m in view.messages for p in m.parts]
    return [p for p in parts if p.kind == "text" and p.text is not None]


def _is_marker_like(ctx: _Context, part: WirePart) -> bool:
    assert part.text is not None
    return any(_names_call(part.text, cid, name) for cid, name in ctx.names.items())


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def _classify_text(ctx: _Context, item: Produced, text: str) -> tuple[Outcome, str, str]:
    wire_id = ctx.call_ids.get(item.call.tool_call_id, item.call.tool_call_id)
    own = ctx.view.results_for(wire_id)
    for result in own:
        for index, part in enumerate(result.parts):
            if _text_matches(part, text):
                added = [p for p in result.parts[:index] if p.text not in ctx.history_texts]
                if any(_is_marker_like(ctx, p) for p in added if p.kind == "text"):
                    return "altered", part.path, "a marker was added before the text"
                return "native", part.path, ""
    for result in ctx.view.tool_results:
        for part in result.parts:
            if result.call_id != wire_id and _text_matches(part, text):
                return "fallback-unmarked", part.path, f"in the tool result of {result.call_id!r}"
    for message in ctx.view.messages:
        if not _after(message.position, own):
            continue
        for index, part in enumerate(message.parts):
            if _text_matches(part, text):
                if message.role == "user" and _marker_for(ctx, message, index) is not None:
                    return "fallback-marked", part.path, "text moved to a user message"
                return "fallback-unmarked", part.path, "text moved out of its tool result"
    quoted = {json.dumps(text, ensure_ascii=ascii)[1:-1] for ascii in (False, True)} - {text}
    for path, value in ctx.view.strings:
        if text in value:
            return "altered", path, "the text is wrapped in a longer string"
        if any(q in value for q in quoted):
            return "stringified", path, "the text is JSON-escaped inside a string"
    wanted = _normal(text)
    for path, value in ctx.view.strings:
        if wanted and wanted in _normal(value):
            return "altered", path, "the text differs in whitespace or normalization"
    return "dropped", "", "not in the payload"


def classify(history: History, view: WireView) -> Observation:
    """The outcome of every tool-produced part of `history` in a located payload."""
    ctx = _Context(
        view=view,
        history_texts=frozenset(texts(history)),
        call_ids=_wire_ids(history, view),
        names={c.call_id: c.name for c in view.tool_calls},
    )
    items: list[ItemObservation] = []
    for item in produced_parts(history):
        part = item.part
        if isinstance(part, Text):
            outcome, where, detail = _classify_text(ctx, item, part.text)
        else:
            outcome, where, detail = _classify_media(ctx, item, part)
        items.append(
            ItemObservation(
                call_id=item.call.tool_call_id,
                tool_name=item.call.name,
                content_type=part.type,
                origin=item.origin,
                outcome=outcome,
                where=where,
                detail=detail,
            )
        )
    outcomes: list[Outcome] = [i.outcome for i in items]
    worst = min(outcomes, key=_SEVERITY.index) if outcomes else "native"
    return Observation(outcome=worst, items=tuple(items))


def observe(
    api: str, history: History, payload: Mapping[str, Any] | None, error: BaseException | None
) -> Observation:
    """Classify one rendering: a payload, or the exception raised instead of one."""
    if error is not None:
        return Observation(outcome="raised", raised=f"{type(error).__name__}: {error}")
    assert payload is not None
    return classify(history, locate(api, payload))
