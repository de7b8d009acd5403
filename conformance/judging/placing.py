"""Where a tool-produced item sits in a located payload: media identity, the payload's media
slots, the pairing of history calls with payload calls, markers, and placement (native,
fallback-marked, fallback-unmarked). The classifier (`conformance.judging.observe`) builds on
it; like the classifier it reads the payload only through the wire locators.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from conformance import marker
from conformance.history import History, Media, Part, ToolCall
from conformance.matrix.vocabulary import Outcome
from conformance.wire import WireMessage, WirePart, WireToolResult, WireView, digest

__all__ = [
    "MEDIA_KINDS",
    "RANK",
    "Context",
    "Identity",
    "Produced",
    "Slot",
    "UrlBytes",
    "after_all",
    "identity_of",
    "is_marker_like",
    "marker_for",
    "names_call",
    "placement",
    "same_type",
    "slots_of",
    "text_matches",
    "wire_ids",
]

UrlBytes = Callable[[str], bytes | None]
"""The bytes a URL serves, where the suite knows them (the fixture host's files), else None."""


@dataclass(frozen=True)
class Produced:
    """A part a tool produced: in its result, or as user content stored with provenance."""

    call: ToolCall
    part: Part
    origin: Literal["result", "prompt"]


MEDIA_KINDS = frozenset({"image", "document", "audio", "video", "other"})
_TYPE_ALIASES = {
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
    "image/jpg": "image/jpeg",
}


def same_type(stated: str, given: str) -> bool:
    """Whether the media type a payload states is the history's (parameters, case and common
    aliases aside)."""

    def norm(value: str) -> str:
        bare = value.split(";", 1)[0].strip().lower()
        return _TYPE_ALIASES.get(bare, bare)

    return norm(stated) == norm(given)


@dataclass(frozen=True)
class Identity:
    """What a media item looks like on the wire: the digest of its bytes (inline, or those its
    URL serves) and its URL."""

    digest: str | None
    url: str | None

    def matches(self, part: WirePart) -> Literal["url", "bytes"] | None:
        if self.url is not None and part.url == self.url:
            return "url"
        if self.digest is not None and part.digest == self.digest:
            return "bytes"
        return None


def identity_of(media: Media, url_bytes: UrlBytes) -> Identity:
    if media.data is not None:
        return Identity(digest(media.data), None)
    assert media.url is not None
    served = url_bytes(media.url)
    return Identity(digest(served) if served is not None else None, media.url)


@dataclass(frozen=True)
class Slot:
    """A media part of the payload and the block that holds it."""

    part: WirePart
    container: str
    result: WireToolResult | None
    message: WireMessage | None
    index: int


def slots_of(view: WireView) -> list[Slot]:
    slots: list[Slot] = []
    for result in view.tool_results:
        for index, part in enumerate(result.parts):
            if part.kind in MEDIA_KINDS:
                slots.append(Slot(part, result.path, result, None, index))
    for message in view.messages:
        for index, part in enumerate(message.parts):
            if part.kind in MEDIA_KINDS:
                slots.append(Slot(part, message.path, None, message, index))
    return slots


@dataclass
class Context:
    view: WireView
    history_texts: frozenset[str]
    call_ids: dict[str, str]
    """History call id -> the id the payload uses for that call."""
    names: dict[str, str]
    """Payload call id -> tool name."""
    identities: list[Identity]
    """Every media item of the history."""
    slots: list[Slot]
    claimed: set[str] = field(default_factory=set[str])
    """Paths of payload media parts already accounted to a history item."""
    placed: set[str] = field(default_factory=set[str])
    """Paths of payload media parts an item was placed at."""

    def known(self, part: WirePart) -> bool:
        return any(i.matches(part) for i in self.identities)

    def carrying(self) -> set[str]:
        """Blocks that hold a media part of the history, bytes or URL intact."""
        return {s.container for s in self.slots if self.known(s.part)}


def wire_ids(history: History, view: WireView) -> dict[str, str]:
    """Pair history calls with payload calls by name and order, so rewritten ids still match:
    the n-th call of a tool in the history is the n-th call of that tool in the payload.

    A framework may rewrite a tool's name as well as its ids where the api restricts them
    (Bedrock's tool names are `[a-zA-Z0-9_-]+`: LiteLLM sends `;Ù¶切>ôÑ$D\t` as `a_Ù_切_ôÑ_D_`).
    The calls of tools the payload has no call of are paired, in order, with the payload's
    calls of tools the history has no call of. A history call left with no payload call keeps
    its own id."""
    calls = [item for item in history if isinstance(item, ToolCall)]
    wire: dict[str, list[str]] = {}
    for call in view.tool_calls:
        wire.setdefault(call.name, []).append(call.call_id)
    named_here = {call.name for call in calls}
    renamed = iter([c.call_id for c in view.tool_calls if c.name not in named_here])
    paired: dict[str, str] = {}
    seen: dict[str, int] = {}
    for call in calls:
        if call.name not in wire:
            paired[call.tool_call_id] = next(renamed, call.tool_call_id)
            continue
        number = seen.get(call.name, 0)
        seen[call.name] = number + 1
        named = wire[call.name]
        paired[call.tool_call_id] = named[number] if number < len(named) else call.tool_call_id
    return paired


def _verbatim(needle: str, text: str) -> bool:
    """`needle` in `text`, not as part of a longer name or id (`call_1` is not in `call_12`)."""
    pattern = rf"(?<![A-Za-z0-9_\-]){re.escape(needle)}(?![A-Za-z0-9_\-])"
    return bool(needle) and re.search(pattern, text) is not None


def names_call(text: str, call_id: str, name: str) -> bool:
    """Whether a text part names this call: our marker if it holds one, else any text that
    holds the tool name and call id verbatim (design rule 2 lets targets word it their way)."""
    markers = marker.find(text)
    if markers:
        return any(m == (name, call_id) for m in markers)
    if _MARKER_TAG in text:
        return False  # our marker, broken (e.g. an unescaped quote): it names nothing exactly
    return _verbatim(call_id, text) and _verbatim(name, text)


_MARKER_TAG = "<conformance:tool_return"


def marker_for(ctx: Context, message: WireMessage, index: int) -> tuple[str, str] | None:
    """The (name, call id) named by the nearest marker-like text part before `index`."""
    for part in reversed(message.parts[:index]):
        if part.kind != "text" or part.text is None or part.text in ctx.history_texts:
            continue
        for call_id, name in ctx.names.items():
            if names_call(part.text, call_id, name):
                return name, call_id
    return None


def text_matches(part: WirePart, text: str) -> bool:
    return part.kind == "text" and part.text == text


def after_all(position: tuple[int, int], results: Iterable[WireToolResult]) -> bool:
    return all(position > r.position for r in results)


def placement(ctx: Context, item: Produced, slot: Slot) -> tuple[Outcome, str]:
    """Where a found media item sits: native, fallback-marked or fallback-unmarked (why)."""
    wire_id = ctx.call_ids.get(item.call.tool_call_id, item.call.tool_call_id)
    own = ctx.view.results_for(wire_id)
    if slot.result is not None:
        if slot.result.call_id == wire_id:
            return "native", ""
        return "fallback-unmarked", f"in the tool result of {slot.result.call_id!r}"
    message = slot.message
    assert message is not None
    if message.role != "user":
        return "fallback-unmarked", f"in a {message.role} message"
    if not after_all(message.position_of(slot.index), own):
        return "fallback-unmarked", "before its tool result"
    named = marker_for(ctx, message, slot.index)
    if named is None:
        return "fallback-unmarked", "no marker before it in its message"
    if named[1] != wire_id:
        return "fallback-unmarked", f"the marker before it names {named[1]!r}"
    return "fallback-marked", ""


RANK = {"native": 0, "fallback-marked": 1, "fallback-unmarked": 2}


def is_marker_like(ctx: Context, part: WirePart) -> bool:
    assert part.text is not None
    return any(names_call(part.text, cid, name) for cid, name in ctx.names.items())
