"""Classify what a target did with each tool-produced part: the outcome of a cell.

The classifier reads the payload only through the wire locators (`conformance.wire`), which
are written from provider documentation. It never imports mapper code. Provenance is judged
from the structure of the history (which parts a tool produced), never by trusting text.

The outcomes, worst first, are defined once, in `conformance.matrix.vocabulary` (`Outcome`,
`SEVERITY`). Per tool-produced part: native, fallback-marked, fallback-unmarked, duplicated,
altered (text), altered: media type, altered: bytes, stringified, noted, dropped. Per cell:
raised (the target's declared refusal type), crashed (any other exception, or the suite's own),
malformed (a payload shape the api does not define, with its JSON path).

Media accounting is exact: every media item of the history must appear exactly once, with the
media type the payload states equal to the history's and its bytes (or URL) intact. For a URL
item the bytes the fixture host serves for that URL count as the item too, so a target that
downloads the URL and sends the bytes is seen doing so (`Observation.url`).
"""

from __future__ import annotations

import base64
import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from conformance.errors import SuiteError, UnsupportedContent
from conformance.history import (
    History,
    Media,
    Message,
    Text,
    ToolCall,
    ToolResult,
    texts,
)
from conformance.judging.placing import (
    RANK,
    Context,
    Identity,
    Produced,
    UrlBytes,
    after_all,
    identity_of,
    is_marker_like,
    marker_for,
    placement,
    same_type,
    slots_of,
    text_matches,
    wire_ids,
)
from conformance.matrix.vocabulary import LOSSY, SEVERITY, Outcome, UrlHandling
from conformance.scenarios.fixtures import FIXTURE_TYPES, fixture_bytes
from conformance.wire import (
    WireFormatError,
    WirePart,
    WireView,
    locate,
)

__all__ = [
    "LOSSY",
    "SEVERITY",
    "ItemObservation",
    "Observation",
    "Outcome",
    "Produced",
    "UrlBytes",
    "classify",
    "first_line",
    "fixture_url_bytes",
    "is_refusal",
    "observe",
    "produced_parts",
    "refusal_types_of",
    "wire_ids",
]


def fixture_url_bytes(url: str) -> bytes | None:
    """The bytes of a fixture URL (`.../conformance/<fixture>`), as the fixture host serves
    them; None for any other URL."""
    path = urlsplit(url).path
    prefix, _, name = path.rpartition("/")
    if prefix.endswith("/conformance") and name in FIXTURE_TYPES:
        return fixture_bytes(name)
    return None


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
    placed: Outcome | None = None
    """Where the item sits when it was found but is not intact (duplicated, altered): native,
    fallback-marked or fallback-unmarked; None otherwise."""
    sent_as: Literal["url", "bytes"] | None = None
    """How a URL item was found in the payload: its URL, or the bytes the URL serves."""
    identical: bool = False
    """For text: its exact string is a value the api reads as this tool's output (or, for
    prompt-style content, as the text of a user message after its tool result)."""
    layout: str = ""
    """A layout note (the reference level): how the item is held where the api's own slot
    differs, e.g. text under another key of a JSON object the api reads as the output."""


@dataclass(frozen=True)
class Observation:
    outcome: Outcome
    items: tuple[ItemObservation, ...] = ()
    raised: str | None = None
    """`Type: first line of the message`, where the target raised (`raised` or `crashed`)."""
    refusal: str | None = None
    """The qualified type name of a typed refusal (`raised`); None otherwise."""
    malformed: str | None = None
    """`<JSON path>: <what the api defines there>`, for a `malformed` payload."""
    url: UrlHandling | None = None
    """For a history with URL media: what the target did with the URL."""
    fetched: tuple[str, ...] = field(default=())
    """The fixture paths the target fetched while rendering."""

    @property
    def detail(self) -> str:
        lines: list[str] = []
        if self.outcome == "raised":
            lines.append(f"raised {self.raised}")
        elif self.outcome == "crashed":
            lines.append(f"crashed: {self.raised} (not a declared refusal type)")
        elif self.malformed is not None:
            lines.append(f"malformed payload at {self.malformed}")
        lines += [
            f"{i.content_type} from {i.tool_name} ({i.call_id}, {i.origin}): {i.outcome}"
            + (f" at {i.where}" if i.where else "")
            + (f": {i.detail}" if i.detail else "")
            + (f" (layout: {i.layout})" if i.layout else "")
            for i in self.items
        ]
        if self.url is not None:
            lines.append(f"url: {self.url}")
        return "\n".join(lines)


def first_line(error: BaseException) -> str:
    """`Type: first line of the message`."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def refusal_types_of(target: object) -> tuple[type[BaseException], ...]:
    """A target's declared refusal types: `refusal_types`, else `unsupported_error`, else
    `(UnsupportedContent,)`."""
    declared = getattr(target, "refusal_types", None)
    if declared:
        return tuple(declared)
    single = getattr(target, "unsupported_error", None)
    if isinstance(single, type) and issubclass(single, BaseException):
        return (single,)
    return (UnsupportedContent,)


def is_refusal(error: BaseException, refusal_types: Sequence[type[BaseException]]) -> bool:
    """A typed refusal: an instance of a declared type, and never the suite's own error."""
    return isinstance(error, tuple(refusal_types)) and not isinstance(error, SuiteError)


def _qualified(error: BaseException) -> str:
    kind = type(error)
    return f"{kind.__module__}.{kind.__qualname__}"


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


def _classify_media(
    ctx: Context, item: Produced, media: Media, identity: Identity, expected: int
) -> ItemObservation:
    found = [(s, how) for s in ctx.slots if (how := identity.matches(s.part)) is not None]

    def seen(outcome: Outcome, where: str, detail: str, **more: Any) -> ItemObservation:
        return ItemObservation(
            call_id=item.call.tool_call_id,
            tool_name=item.call.name,
            content_type=media.type,
            origin=item.origin,
            outcome=outcome,
            where=where,
            detail=detail,
            **more,
        )

    if found:
        # Items with the same bytes (one chart returned by two calls) each take their own
        # part: an earlier item's part is taken only when nothing else is left.
        free = [(s, how) for s, how in found if s.part.path not in ctx.placed] or found
        placed = [(placement(ctx, item, s), s, how) for s, how in free]
        placed.sort(key=lambda p: RANK[p[0][0]])
        (outcome, why), slot, how = placed[0]
        ctx.placed.add(slot.part.path)
        ctx.claimed.update(s.part.path for s, _ in found)
        sent_as = how if media.url is not None else None
        if len(found) > expected:
            paths = ", ".join(s.part.path for s, _ in found)
            return seen(
                "duplicated",
                slot.part.path,
                f"{len(found)} times in the payload ({paths})",
                placed=outcome,
                sent_as=sent_as,
            )
        if slot.part.undocumented is not None:
            return seen(
                "malformed",
                slot.part.path,
                f"in a {slot.part.undocumented!r} block, which {ctx.view.api} does not define"
                " there",
                placed=outcome,
                sent_as=sent_as,
            )
        stated = slot.part.media_type
        if stated is not None and not same_type(stated, media.media_type):
            return seen(
                "altered: media type",
                slot.part.path,
                f"the payload states {stated!r}, the history {media.media_type!r}",
                placed=outcome,
                sent_as=sent_as,
            )
        if (carries := slot.part.kind) in _MEDIA_KINDS and carries != media.type:
            return seen(
                "malformed",
                slot.part.path,
                f"{_article(media.type)} {media.type} ({media.media_type}) in {_article(carries)}"
                f" {carries} part, which {ctx.view.api} defines for {_PLURAL[carries]} only",
                placed=outcome,
                sent_as=sent_as,
            )
        return seen(outcome, slot.part.path, why, sent_as=sent_as)
    for slot in ctx.slots:
        part = slot.part
        if part.path in ctx.claimed or ctx.known(part) or part.undocumented is None:
            continue
        # A block the api does not define there, in place of the item: whatever its name and
        # whether or not its bytes can be read, the api cannot take it (`malformed`).
        ctx.claimed.add(part.path)
        outcome, _ = placement(ctx, item, slot)
        return seen(
            "malformed",
            part.path,
            f"a {part.undocumented!r} block, which {ctx.view.api} does not define there",
            placed=outcome,
        )
    for slot in ctx.slots:
        part = slot.part
        if part.path in ctx.claimed or ctx.known(part):
            continue
        if part.kind != media.type and not (part.kind == "other" and (part.digest or part.url)):
            continue  # only media of its kind, or an unnamed block holding some media
        ctx.claimed.add(part.path)
        outcome, _ = placement(ctx, item, slot)
        if part.digest is None and part.url is None:
            what = "bytes that do not decode"
        elif part.url is not None:
            what = f"another reference, {part.url[:80]!r}"
        else:
            what = "other bytes (changed or truncated)"
        return seen("altered: bytes", part.path, f"a {part.kind} with {what}", placed=outcome)
    outcome, where, detail = _lost(ctx, media)
    return seen(outcome, where, detail)


_MEDIA_KINDS: frozenset[str] = frozenset({"image", "document", "audio", "video"})
"""The media kinds a locator names a part by (from its block type where the api defines the
block for one media type: an `image_url` part is an image part whatever it holds). An item in
a part of another kind is `malformed`: the api refuses it or reads it as what it is not (a PDF
in an OpenAI `image_url`: 400 "Invalid MIME type. Only image types are supported.",
BerriAI/litellm#6120; audio in a Chat `file` part, which takes PDFs: 400 "Expected a
base64-encoded data URL with an application/pdf MIME type", trpc-group/trpc-agent-go#1816)."""
_PLURAL = {"image": "images", "document": "documents", "audio": "audio", "video": "video"}


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def _lost(ctx: Context, media: Media) -> tuple[Outcome, str, str]:
    """Media that is not in the payload as media: stringified, noted or dropped."""
    needles: list[str] = []
    if media.data is not None:
        needles.append(base64.b64encode(media.data[:48]).decode("ascii"))
        needles.append(repr(media.data)[:24])
    else:
        assert media.url is not None
        needles.append(media.url)
    inside_media = tuple(f"$.{slot.part.path}{sep}" for slot in ctx.slots for sep in ".[")
    for path, value in ctx.view.strings:
        if path.startswith(inside_media):
            continue  # a media part's own data: another item's, or judged as altered bytes
        if any(needle in value for needle in needles):
            return "stringified", path, "its bytes or URL sit inside a string"
    carrying = ctx.carrying()
    for container, part in _all_text_parts(ctx.view):
        assert part.text is not None
        if container in carrying:
            continue  # text next to media carried intact is that media's company, not a note
        if part.text and part.text not in ctx.history_texts and not is_marker_like(ctx, part):
            return "noted", part.path, f"replaced by {part.text[:80]!r}"
    return "dropped", "", "not in the payload"


def _all_text_parts(view: WireView) -> list[tuple[str, WirePart]]:
    parts = [(r.path, p) for r in view.tool_results for p in r.parts]
    parts += [(m.path, p) for m in view.messages for p in m.parts]
    return [(c, p) for c, p in parts if p.kind == "text" and p.text is not None]


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


@dataclass(frozen=True)
class _TextSeen:
    outcome: Outcome
    where: str = ""
    detail: str = ""
    identical: bool = False
    layout: str = ""


def _classify_text(ctx: Context, item: Produced, text: str) -> _TextSeen:
    """Where and how a tool's text is in the payload.

    Identical (`_TextSeen.identical`) when its exact string is a value the api reads as this
    tool's output: a text part of its own tool result (under another key where the api reads
    the whole object as the output, with a layout note); or, for prompt-style content, a text
    part of a user message after its tool result, which is where such text belongs (its
    placement and provenance are judged at the recommended level, not here).
    """
    wire_id = ctx.call_ids.get(item.call.tool_call_id, item.call.tool_call_id)
    own = ctx.view.results_for(wire_id)
    for result in own:
        for index, part in enumerate(result.parts):
            if text_matches(part, text):
                added = [p for p in result.parts[:index] if p.text not in ctx.history_texts]
                if any(is_marker_like(ctx, p) for p in added if p.kind == "text"):
                    return _TextSeen("altered", part.path, "a marker was added before the text")
                layout = ""
                if part.keyed is not None:
                    layout = f"the exact text is {part.keyed}, which {ctx.view.api} reads as"
                    layout += " the tool's output"
                return _TextSeen("native", part.path, identical=True, layout=layout)
    if not text:
        # Left out of its own result. An empty string is in every string and equals every other
        # empty text (the user's empty prompt, say), so a copy found elsewhere is no evidence
        # of a move: there is nothing to carry, to lose or to mark.
        return _TextSeen("native", "", "an empty text, left out: nothing to carry", True)
    misplaced: _TextSeen | None = None
    """The first copy of this text where it does not belong, reported only when no copy is
    where it does: the same string may also be another call's output or the user's own."""
    for result in ctx.view.tool_results:
        for part in result.parts:
            if misplaced is None and result.call_id != wire_id and text_matches(part, text):
                where = f"in the tool result of {result.call_id!r}"
                misplaced = _TextSeen("fallback-unmarked", part.path, where)
    for message in ctx.view.messages:
        for index, part in enumerate(message.parts):
            if not text_matches(part, text):
                continue
            after = after_all(message.position_of(index), own)
            marked = message.role == "user" and marker_for(ctx, message, index) is not None
            placed: Outcome = "fallback-marked" if marked and after else "fallback-unmarked"
            if item.origin == "prompt" and message.role == "user" and after:
                why = "prompt-style text in a user message after its tool result"
                return _TextSeen(placed, part.path, why + ("" if marked else ", unmarked"), True)
            if misplaced is not None:
                continue
            if not after:
                why = f"in a {message.role} message before its tool result"
            elif message.role != "user":
                why = f"in a {message.role} message"
            else:
                why = "text moved out of its tool result" + (" to a user message" if marked else "")
            misplaced = _TextSeen(placed, part.path, why)
    if misplaced is not None:
        return misplaced
    undocumented = tuple(
        (f"$.{slot.part.path}", slot.part.undocumented)
        for slot in ctx.slots
        if slot.part.undocumented
    )
    quoted = {json.dumps(text, ensure_ascii=ascii)[1:-1] for ascii in (False, True)} - {text}
    for path, value in ctx.view.strings:
        if text in value:
            for prefix, name in undocumented:
                if path.startswith((f"{prefix}.", f"{prefix}[")):
                    why = f"in a {name!r} block, which {ctx.view.api} does not define there"
                    return _TextSeen("malformed", path, why)
            if value == text:
                why = f"the exact text sits at {path}, which {ctx.view.api} does not read as"
                return _TextSeen("altered", path, why + " the tool's output")
            return _TextSeen("altered", path, "the text is wrapped in a longer string")
        if any(q in value for q in quoted):
            return _TextSeen("stringified", path, "the text is JSON-escaped inside a string")
    wanted = _normal(text)
    for path, value in ctx.view.strings:
        if wanted and wanted in _normal(value):
            why = "the text differs in whitespace or normalization"
            return _TextSeen("altered", path, why)
    return _TextSeen("dropped", "", "not in the payload")


def _worst(outcomes: Iterable[Outcome]) -> Outcome:
    listed = list(outcomes)
    return min(listed, key=SEVERITY.index) if listed else "native"


def classify(
    history: History, view: WireView, url_bytes: UrlBytes = fixture_url_bytes
) -> Observation:
    """The outcome of every tool-produced part of `history` in a located payload."""
    produced = produced_parts(history)
    media = [p.part for p in produced if not isinstance(p.part, Text)]
    identities = [identity_of(m, url_bytes) for m in media]
    ctx = Context(
        view=view,
        history_texts=frozenset(texts(history)),
        call_ids=wire_ids(history, view),
        names={c.call_id: c.name for c in view.tool_calls},
        identities=identities,
        slots=slots_of(view),
    )
    items: list[ItemObservation] = []
    for item in produced:
        part = item.part
        if isinstance(part, Text):
            seen = _classify_text(ctx, item, part.text)
            items.append(
                ItemObservation(
                    call_id=item.call.tool_call_id,
                    tool_name=item.call.name,
                    content_type=part.type,
                    origin=item.origin,
                    outcome=seen.outcome,
                    where=seen.where,
                    detail=seen.detail,
                    identical=seen.identical,
                    layout=seen.layout,
                )
            )
            continue
        identity = identity_of(part, url_bytes)
        expected = sum(1 for other in identities if other == identity)
        items.append(_classify_media(ctx, item, part, identity, expected))
    return Observation(outcome=_worst(i.outcome for i in items), items=tuple(items))


def _url_handling(
    history: History, items: Sequence[ItemObservation], fetched: Sequence[str]
) -> UrlHandling | None:
    urls = [
        urlsplit(p.part.url).path
        for p in produced_parts(history)
        if not isinstance(p.part, Text) and p.part.url is not None
    ]
    if not urls:
        return None
    if any(i.sent_as == "url" for i in items):
        return "sent-url"
    if any(path in urls for path in fetched):
        return "downloaded"
    return "not-fetched"


def observe(
    api: str,
    history: History,
    payload: Mapping[str, Any] | None,
    error: BaseException | None,
    *,
    refusal_types: Sequence[type[BaseException]] = (UnsupportedContent,),
    fetched: Sequence[str] = (),
    url_bytes: UrlBytes = fixture_url_bytes,
) -> Observation:
    """Classify one rendering: a payload, or the exception raised instead of one.

    An exception is `raised` only when it is one of `refusal_types` and not a `SuiteError`;
    anything else is `crashed`. A payload its api's locator cannot read is `malformed`.
    `fetched` are the paths the target fetched from the fixture host while rendering.
    """
    fetched = tuple(fetched)
    if error is not None:
        typed = is_refusal(error, refusal_types)
        return Observation(
            outcome="raised" if typed else "crashed",
            raised=first_line(error),
            refusal=_qualified(error) if typed else None,
            url=_url_handling(history, (), fetched),
            fetched=fetched,
        )
    assert payload is not None
    try:
        view = locate(api, payload)
    except WireFormatError as problem:
        return Observation(
            outcome="malformed",
            malformed=str(problem).splitlines()[0],
            url=_url_handling(history, (), fetched),
            fetched=fetched,
        )
    found = classify(history, view, url_bytes)
    return Observation(
        outcome=found.outcome,
        items=found.items,
        url=_url_handling(history, found.items, fetched),
        fetched=fetched,
    )
