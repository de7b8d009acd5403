"""Hypothesis strategies for canonical histories and the hostile strings inside them.

Use them to search a target for failures beyond the matrix's fixed cells:

    from conformance.scenarios.strategies import histories

    @given(histories())
    def test_total(history): ...
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from hypothesis import strategies as st

from conformance import marker
from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Item,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    ToolReturnProvenance,
    Video,
)
from conformance.scenarios.fixtures import fixture_bytes
from conformance.scenarios.host import fixture_host

__all__ = [
    "DrawnHistory",
    "call_ids",
    "histories",
    "media_parts",
    "parts",
    "texts",
    "tool_names",
]

_HOSTILE = [*list('"<>&\n\r\t /='), "&amp;", "&quot;", "&#10;", "\u2028", "\x00"]
_MEDIA = (
    (Image, "image/png", "chart.png"),
    (Document, "application/pdf", "report.pdf"),
    (Audio, "audio/wav", "tone.wav"),
    (Video, "video/mp4", "clip.mp4"),
)


# The alphabet of hypothesis's own `st.text()` and `st.from_regex()`, `characters(codec="utf-8")`:
# every code point but the surrogates (category Cs), built here from the categories alone.
# Hypothesis builds its default from a table of every code point's UTF-8 encoding, kept in
# `.hypothesis/` once made: 3.8 s of CPU, and most of a run's peak memory, in every folder
# without one (each CI clone). The same intervals, so the same draws (tests/test_properties.py).
_TEXT = st.characters(exclude_categories=["Cs"])

_MARKER_NAMES = st.sampled_from(["get_image", "get_text", "evil"])
_MARKER_CALLS = st.sampled_from(["call_1", "call_2", "call_9"])


@st.composite
def _marker_look_alikes(draw: st.DrawFn) -> str:
    name = draw(_MARKER_NAMES)
    call = draw(_MARKER_CALLS)
    text = marker.render(name, call)
    return draw(st.sampled_from([text, text[:-3], text.replace('"', "'"), f"see {text} above"]))


def _repeat(text: str, times: int) -> str:
    return text * times


# Every strategy below is built once and shared (`@cache`): hypothesis validates a strategy
# object the first time it draws from it, and building them afresh inside each draw cost
# three quarters of a property search (docs/performance.md). A strategy is immutable, so the
# shared one draws exactly what a fresh one would.


@cache
def texts() -> st.SearchStrategy[str]:
    """Any unicode text, with `\\r`, NUL, very long strings and marker look-alikes mixed in."""
    return st.one_of(
        st.text(_TEXT),
        st.text(alphabet=st.sampled_from(["\r", "\n", " ", "\t", "\u0000", "x", "é", "東"])),
        _marker_look_alikes(),
        st.builds(_repeat, st.text(_TEXT, min_size=1, max_size=8), st.integers(500, 3000)),
        st.lists(st.one_of(st.text(_TEXT, max_size=20), _marker_look_alikes()), max_size=4).map(
            "".join
        ),
    )


@cache
def _identifiers(prefix: str) -> st.SearchStrategy[str]:
    plain = st.from_regex(rf"{prefix}[A-Za-z0-9_-]{{0,12}}", fullmatch=True, alphabet=_TEXT)
    hostile = st.lists(
        st.one_of(st.sampled_from(_HOSTILE), st.text(_TEXT, min_size=1, max_size=3)),
        min_size=1,
        max_size=6,
    ).map("".join)
    return st.one_of(plain, hostile)


def tool_names() -> st.SearchStrategy[str]:
    """Tool names, plain or holding quotes, angle brackets, ampersands and newlines."""
    return _identifiers("get_")


def call_ids() -> st.SearchStrategy[str]:
    """Call ids, plain or holding quotes, angle brackets, ampersands and newlines."""
    return _identifiers("call_")


_MEDIA_KINDS = st.sampled_from(_MEDIA)
_RANDOM_BYTES = st.binary(min_size=1, max_size=64)


@st.composite
def media_parts(draw: st.DrawFn, *, inline_only: bool = False) -> Part:
    """One image, document, audio or video item: fixture or random bytes, or a URL."""
    kind, media_type, name = draw(_MEDIA_KINDS)
    if not inline_only and draw(st.booleans()):
        # On the suite's fixture host, so a framework that downloads it is judged on what it
        # does with the bytes, never on an unreachable address; the query keeps URLs unique.
        return kind(
            media_type=media_type,
            url=f"{fixture_host().url(name)}?item={draw(st.uuids())}",
            identifier=name,
        )
    data = fixture_bytes(name) if draw(st.booleans()) else draw(_RANDOM_BYTES)
    # A per-draw suffix keeps each item's bytes unique, so "exactly once" is checkable.
    data += draw(st.uuids()).bytes
    return kind(media_type=media_type, data=data, identifier=name)


@cache
def parts() -> st.SearchStrategy[Part]:
    """A text part or a media item."""
    return st.one_of(texts().map(_text_part), media_parts())


def _text_part(text: str) -> Text:
    return Text(text=text)


@cache
def _turn(index: int) -> st.SearchStrategy[list[Item]]:
    return _turns(index)


@st.composite
def _turns(draw: st.DrawFn, index: int) -> list[Item]:
    count = draw(st.integers(1, 3))
    names = draw(_names(count))
    ids = draw(_ids(count))
    ids = [f"{i}{index}" if i.startswith("call_") else f"{i}#{index}" for i in ids]
    items: list[Item] = []
    if draw(st.booleans()):
        items.append(Message(role="assistant", content=draw(texts())))
    args: dict[str, Any] = {"q": draw(_ARGUMENT)}
    items.extend(
        ToolCall(tool_call_id=i, name=n, arguments=args) for n, i in zip(names, ids, strict=True)
    )
    for name, call_id in zip(names, ids, strict=True):
        content = draw(_result_contents())
        status: Literal["success", "error"] = draw(_STATUS)
        items.append(ToolResult(tool_call_id=call_id, name=name, status=status, content=content))
    produced = draw(st.lists(st.sampled_from(list(zip(names, ids, strict=True))), max_size=2))
    for name, call_id in produced:
        content = draw(_produced_contents())
        source = ToolReturnProvenance(tool_name=name, tool_call_id=call_id)
        items.append(Message(role="user", content=content, source=source))
    return items


@cache
def _names(count: int) -> st.SearchStrategy[list[str]]:
    return st.lists(tool_names(), min_size=count, max_size=count)


@cache
def _ids(count: int) -> st.SearchStrategy[list[str]]:
    return st.lists(call_ids(), min_size=count, max_size=count, unique=True)


@cache
def _result_contents() -> st.SearchStrategy[list[Part]]:
    return st.lists(parts(), max_size=3)


@cache
def _produced_contents() -> st.SearchStrategy[list[Part]]:
    return st.lists(parts(), min_size=1, max_size=2)


_ARGUMENT: st.SearchStrategy[str] = st.text(_TEXT, max_size=10)
_STATUS: st.SearchStrategy[Literal["success", "error"]] = st.sampled_from(
    ["success", "success", "error"]
)


class DrawnHistory(list[Item]):
    """A drawn history: a list of items like any, with a short repr. Hypothesis replays a
    failing example before reporting it and builds the repr of its arguments then; a history
    with media in full is tens of kB (an unshrunk counterexample, as when the failure is a
    declared deviation), and it warned "Generating overly large repr" on each such run. The
    repr names each item's kind and what it carries; the gate shows the history in full its
    own way."""

    def __repr__(self) -> str:
        kinds = ", ".join(_kind(item) for item in self)
        shown = kinds if len(kinds) <= 400 else kinds[:400] + " ..."
        return f"<history of {len(self)} items: {shown}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # hypothesis's printer
        printer.text(repr(self))


def _kind(item: Item) -> str:
    if isinstance(item, ToolCall):
        return f"call {item.tool_call_id!r}"
    parts = [item.content] if isinstance(item.content, str) else item.content
    carried = "+".join("text" if isinstance(p, str) else p.type for p in parts)
    who = f"result {item.tool_call_id!r}" if isinstance(item, ToolResult) else item.role
    return f"{who} [{carried}]"


@st.composite
def histories(draw: st.DrawFn, *, max_turns: int = 3) -> History:
    """Several turns: a user prompt, parallel tool calls, results mixing text and media
    (some with status error), and tool-produced user content with provenance. Each is a
    `DrawnHistory` (a list, with a short repr)."""
    history: History = DrawnHistory()
    if draw(st.booleans()):
        history.append(Message(role="system", content=draw(texts())))
    for index in range(draw(st.integers(1, max_turns))):
        history.append(Message(role="user", content=draw(texts())))
        history.extend(draw(_turn(index)))
    return history
