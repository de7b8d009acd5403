"""Invariants every target must keep for any history, not only the matrix's fixed cells.

Each property is a function `(target, row, history) -> None` that raises `PropertyFailed`
with what went wrong. Run them under hypothesis with `conformance.scenarios.strategies.histories()`;
`tests/test_properties.py` does so for every installed target and every model row, and shows
each property failing on a mutant that breaks it.

Given `shared` (a `Renders` of the target), the properties that judge one payload take it from
there instead of rendering it themselves: on a framework target a render is the framework's own
request, and the gate (`conformance.running.property_gate`) judges all of them on the same
histories.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from conformance import marker
from conformance.history import History, Media, Message, Part, Text, ToolResult, dump, texts
from conformance.judging import guard
from conformance.judging.checks import payload_bytes
from conformance.judging.observe import (
    classify,
    fixture_url_bytes,
    is_refusal,
    refusal_types_of,
)
from conformance.targets.base import Payload, RowRef, Target
from conformance.wire import WireFormatError, WireView, digest, locate

__all__ = [
    "PROPERTIES",
    "Property",
    "PropertyFailed",
    "RenderHung",
    "Renders",
    "cross_provider_replay",
    "deterministic",
    "markers_name_their_calls",
    "media_exactly_once",
    "parallel_calls_in_order",
    "storage_round_trip",
    "text_identical",
    "total",
]


class PropertyFailed(AssertionError):
    """A target broke an invariant; the message says which and where."""


@dataclass(frozen=True)
class _Rendered:
    payload: Payload | None
    error: BaseException | None

    def same_as(self, other: _Rendered) -> bool:
        if self.payload is not None and other.payload is not None:
            return payload_bytes(self.payload) == payload_bytes(other.payload)
        return repr(self.error) == repr(other.error)


class RenderHung(BaseException):
    """A render did not return within the time limit: the search stops at once (a
    BaseException, which hypothesis lets through) and the property fails once, instead of
    waiting the limit again for every history and every shrinking step."""


def _render(
    render: Callable[[RowRef, History], Payload], row: RowRef, history: History
) -> _Rendered:
    """One rendering under the suite's guard (`conformance.judging.guard`): every exception
    class and a non-JSON body are the rendering's error, a hang stops the search."""
    limited = getattr(getattr(render, "__self__", None), "isolated", False) is True
    payload, error = guard.attempt(lambda: render(row, history), row.api, limited=limited)
    if isinstance(error, guard.CellTimeout):
        raise RenderHung(f"{row.id}: {error}")
    return _Rendered(payload, error)


@dataclass
class Renders:
    """One target's renders, shared among the properties that judge a payload: a history is
    rendered once per row and rendering mode (`render`, `render_stored`), however many properties
    judge it. `deterministic` compares the shared rendering with one of its own, so a target that
    renders randomly still fails it.

    A rendering is kept under the history's bytes (`history.dump`; `load(dump(h)) == h`), taken
    before the call. One that changed the history it was given is not kept: the property that
    asked for it goes on with the changed history, as it would alone, and the next one renders
    for itself. A hang is never kept (it stops the search)."""

    target: Target
    kept: dict[tuple[bool, RowRef, bytes], _Rendered] = field(
        default_factory=dict[tuple[bool, RowRef, bytes], _Rendered]
    )

    def rendered(self, row: RowRef, history: History, *, stored: bool) -> _Rendered:
        key = (stored, row, dump(history))
        found = self.kept.get(key)
        if found is None:
            found = _render(
                self.target.render_stored if stored else self.target.render, row, history
            )
            if dump(history) == key[2]:
                self.kept[key] = found
        return found


def _rendering(
    target: Target, row: RowRef, history: History, shared: Renders | None, *, stored: bool
) -> _Rendered:
    """`target`'s rendering of `history`: the shared one when the caller shares renders."""
    if shared is not None and shared.target is target:
        return shared.rendered(row, history, stored=stored)
    return _render(target.render_stored if stored else target.render, row, history)


def _view(row: RowRef, payload: Payload) -> WireView:
    try:
        return locate(row.api, payload)
    except WireFormatError as error:
        raise PropertyFailed(
            f"{row.id}: the payload is not a valid {row.api} body: {error}"
        ) from error


def _rendered_view(
    target: Target, row: RowRef, history: History, shared: Renders | None
) -> tuple[Payload, WireView] | None:
    """The payload and its view, or None where the target refused with its typed error."""
    rendered = _rendering(target, row, history, shared, stored=False)
    if rendered.error is not None:
        if is_refusal(rendered.error, refusal_types_of(target)):
            return None
        raise PropertyFailed(
            f"{row.id}: raised {type(rendered.error).__name__}: {rendered.error}"
        ) from rendered.error
    assert rendered.payload is not None
    return rendered.payload, _view(row, rendered.payload)


def deterministic(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Rendering the same history twice gives the same bytes (or the same error). The first
    rendering may be the shared one; the second is always this property's own."""
    first = _rendering(target, row, history, shared, stored=False)
    second = _render(target.render, row, history)
    if not first.same_as(second):
        raise PropertyFailed(f"{row.id}: two renderings of one history differ")


def total(target: Target, row: RowRef, history: History, shared: Renders | None = None) -> None:
    """A payload the api's locator can read, or the target's typed unsupported error."""
    _rendered_view(target, row, history, shared)


def _media(history: History) -> list[Media]:
    found: list[Media] = []
    for item in history:
        content: str | list[Part] = item.content if isinstance(item, Message | ToolResult) else ""
        if not isinstance(content, str):
            found.extend(p for p in content if not isinstance(p, Text))
    return found


def media_exactly_once(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Every media item appears exactly once in the payload, or the call raises.

    An item is counted by identity: its bytes, or for a URL item its URL and the bytes the URL
    serves alike (`observe.fixture_url_bytes`), so a downloaded copy sent beside the URL counts
    twice. Items of the history with the same identity are counted together."""
    found = _rendered_view(target, row, history, shared)
    if found is None:
        return
    parts = [p for r in found[1].tool_results for p in r.parts]
    parts += [p for m in found[1].messages for p in m.parts]
    media = [p for p in parts if p.kind != "text" and (p.digest or p.url)]
    items = _media(history)
    identities = [_identity(m) for m in items]
    # Items that share an identity (the same bytes, at one URL or two) can each be matched by
    # the other's copy, so they are counted as one group: as many wire items as the group has
    # items, and each item matched by at least one.
    for group in _groups(identities):
        union: frozenset[str] = frozenset[str]().union(*(identities[i] for i in group))
        seen = sum(1 for part in media if part.url in union or part.digest in union)
        item = items[group[0]]
        if seen != len(group):
            raise PropertyFailed(
                f"{row.id}: {item.type} {item.identifier!r} appears {seen} times"
                + (f" (expected {len(group)}: items with the same bytes)" if len(group) > 1 else "")
            )
        for i in group:
            if not any(part.url in identities[i] or part.digest in identities[i] for part in media):
                raise PropertyFailed(
                    f"{row.id}: {items[i].type} {items[i].identifier!r} appears 0 times"
                )


def _groups(identities: list[frozenset[str]]) -> list[list[int]]:
    """The indexes of items that share an identity with one another, transitively."""
    groups: list[list[int]] = []
    keys: list[set[str]] = []
    for index, identity in enumerate(identities):
        joined = [g for g, key in enumerate(keys) if key & identity]
        merged = [index, *(i for g in joined for i in groups[g])]
        key = set(identity).union(*(keys[g] for g in joined))
        groups = [grp for g, grp in enumerate(groups) if g not in joined] + [sorted(merged)]
        keys = [k for g, k in enumerate(keys) if g not in joined] + [key]
    return sorted(groups)  # in the order of their first item, as the history gives them


def _identity(media: Media) -> frozenset[str]:
    """The wire identities of a media item: the digest of its bytes; for a URL item its URL
    and the digest of the bytes it serves, where the suite knows them."""
    if media.data is not None:
        return frozenset({digest(media.data)})
    assert media.url is not None
    served = fixture_url_bytes(media.url)
    return frozenset({media.url} | ({digest(served)} if served is not None else set()))


def text_identical(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Every text of the history is sent byte for byte where the api reads it: tool text as its
    tool's output, prompt-style text as a user message's text after its tool result.

    An empty text carries nothing, so leaving it out loses nothing: Bedrock Converse refuses a
    blank text block ("The text field in the ContentBlock object ... is blank", boto/botocore
    #3525) and Anthropic an empty one, so an adapter for those has to. A text of white space
    only is still judged byte for byte: its bytes are the content."""
    found = _rendered_view(target, row, history, shared)
    if found is None:
        return
    view = found[1]
    wire = {p.text for r in view.tool_results for p in r.parts}
    wire |= {p.text for m in view.messages for p in m.parts}
    for text in texts(history):
        if text and text not in wire:
            raise PropertyFailed(f"{row.id}: text not sent byte for byte: {text[:80]!r}")
    observation = classify(history, view)
    for item in observation.items:
        if item.content_type == "text" and not item.identical:
            raise PropertyFailed(
                f"{row.id}: tool text from {item.call_id!r} is {item.outcome}: {item.detail}"
            )


def markers_name_their_calls(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Every marker the target added parses back exactly and names a call of the history;
    every media item moved to a user message is behind a marker naming its own call.

    Only markers the target added are judged, never text the user wrote: a history text that
    imitates a marker (`see <conformance:tool_return ... tool_call_id="call_9" /> above`) is
    the user's, whether it arrives alone or joined to the texts beside it (langchain-aws
    merges consecutive user messages, joined with a newline and trimmed). What is left of a
    text once the look-alikes the history holds are taken out is the target's: each piece
    with a marker in it must be exactly one marker naming a call. Whether the joined text
    keeps the user's bytes is `text-identical`'s question."""
    found = _rendered_view(target, row, history, shared)
    if found is None:
        return
    # The calls as the payload names them: some apis need ids rewritten (Mistral).
    calls = {(c.name, c.call_id) for c in found[1].tool_calls}
    own = set(texts(history))
    lookalikes = _lookalikes(own)
    for message in found[1].messages:
        for part in message.parts:
            if part.kind != "text" or part.text is None or part.text in own:
                continue
            for piece in _added_pieces(part.text, lookalikes):
                if not marker.find(piece):
                    continue
                parsed = marker.parse(piece)
                if parsed is None or parsed not in calls:
                    raise PropertyFailed(
                        f"{row.id}: marker text {piece[:120]!r} does not name a call exactly"
                    )
    for item in classify(history, found[1]).items:
        if item.outcome == "fallback-unmarked":
            raise PropertyFailed(
                f"{row.id}: {item.content_type} from {item.call_id!r}: {item.detail}"
            )


def _lookalikes(own: set[str]) -> re.Pattern[str] | None:
    """The history's texts that hold a marker, as given and trimmed, longest first."""
    found = {form for text in own if marker.find(text) for form in (text, text.strip())}
    if not found:
        return None
    return re.compile("|".join(re.escape(t) for t in sorted(found, key=len, reverse=True)))


def _added_pieces(text: str, lookalikes: re.Pattern[str] | None) -> list[str]:
    """The parts of a wire text the target wrote: the whole text, or where it holds one of
    the history's look-alikes, what lies between them, trimmed as a merge trims."""
    if lookalikes is None or lookalikes.search(text) is None:
        return [text]
    return [piece.strip() for piece in lookalikes.split(text) if piece.strip()]


def parallel_calls_in_order(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Tool results keep the order of their calls, and each carries only its own output."""
    found = _rendered_view(target, row, history, shared)
    if found is None:
        return
    view = found[1]
    wire_calls = [c.call_id for c in view.tool_calls]
    results = [r.call_id for r in view.tool_results]
    if [c for c in wire_calls if c in results] != results:
        raise PropertyFailed(f"{row.id}: results {results} are not in call order {wire_calls}")
    for item in classify(history, view).items:
        if "in the tool result of" in item.detail or "moved out of its tool result" in item.detail:
            raise PropertyFailed(f"{row.id}: output of {item.call_id!r} {item.detail}")


def storage_round_trip(
    target: Target, row: RowRef, history: History, shared: Renders | None = None
) -> None:
    """Dump, load and render again through the target's own storage: the same bytes."""
    direct = _rendering(target, row, history, shared, stored=False)
    stored = _rendering(target, row, history, shared, stored=True)
    if not direct.same_as(stored):
        raise PropertyFailed(f"{row.id}: the storage round trip renders differently")


def cross_provider_replay(target: Target, first: RowRef, then: RowRef, history: History) -> None:
    """A history rendered for one row, then stored and replayed for another, keeps its
    provenance and renders as if it had never been sent elsewhere."""
    _render(target.render, first, history)
    replayed = _render(target.render_stored, then, history)
    fresh = _render(target.render, then, history)
    if not replayed.same_as(fresh):
        raise PropertyFailed(f"{first.id} -> {then.id}: the replay renders differently")
    if replayed.payload is not None:
        for item in classify(history, _view(then, replayed.payload)).items:
            if item.outcome == "fallback-unmarked":
                raise PropertyFailed(f"{first.id} -> {then.id}: provenance lost: {item.detail}")


class Property(Protocol):
    """A single-row property: `(target, row, history)`, and the renders it may share."""

    def __call__(
        self, target: Target, row: RowRef, history: History, shared: Renders | None = None
    ) -> None: ...


PROPERTIES: dict[str, Property] = {
    "deterministic": deterministic,
    "total": total,
    "media-exactly-once": media_exactly_once,
    "text-identical": text_identical,
    "markers-name-their-calls": markers_name_their_calls,
    "parallel-calls-in-order": parallel_calls_in_order,
    "storage-round-trip": storage_round_trip,
}
