"""What every reference mapper shares: model profiles and the routing of tool output.

Routing decides, for each part a tool produced (in its result, or as user content stored with
its provenance), where it goes for one model profile:

- into the tool-result block, where the profile's tool-result channel carries its type;
- else into a user message after the turn's tool results, behind a marker naming the call;
- else nowhere: `UnsupportedContent`, before anything is built.

Text always stays in the tool-result block, untouched. Capability comes from the profile in
code, never from matrix.yaml.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field

from conformance import marker
from conformance.errors import UnsupportedContent
from conformance.history import (
    ContentType,
    History,
    Media,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
)

__all__ = [
    "AssistantTurn",
    "MessageTurn",
    "Moved",
    "Profile",
    "RoutedResult",
    "ToolTurn",
    "Turn",
    "b64",
    "data_url",
    "marker_text",
    "message_parts",
    "plan",
    "text_of",
]


@dataclass(frozen=True)
class Profile:
    """What one model family accepts, per channel."""

    api: str
    model: str
    tool_result: frozenset[ContentType]
    """Types carried natively inside the tool-result block."""
    user: frozenset[ContentType]
    """Types carried in a user message."""
    url: frozenset[ContentType] = frozenset()
    """Types that may be given by URL; others need inline bytes."""
    url_only: frozenset[ContentType] = frozenset()
    """Types that have no inline form at all: inline bytes of these raise."""
    tool_result_url: frozenset[ContentType] | None = None
    """Types the tool-result block carries when given by URL; None means all of `tool_result`.
    A URL part of any other type is routed as if the block did not carry its type."""
    media_types: dict[ContentType, frozenset[str]] = field(
        default_factory=dict[ContentType, frozenset[str]]
    )
    """Where set, the only media types accepted for a content type."""
    flags: frozenset[str] = frozenset()
    """Api-specific switches, named and read by that api's mapper only; routing ignores them."""

    def unsupported(
        self, part: Media, call: ToolCall | ToolResult | None, reason: str
    ) -> UnsupportedContent:
        return UnsupportedContent(
            api=self.api,
            model=self.model,
            content_type=part.type,
            tool_name=call.name if call else None,
            tool_call_id=call.tool_call_id if call else None,
            reason=reason,
        )

    def check_form(self, part: Media, call: ToolCall | ToolResult | None) -> None:
        """Raise unless this media item's source and media type can be expressed at all."""
        if part.url is not None and part.type not in self.url:
            raise self.unsupported(part, call, f"{part.type} must be sent inline, not by URL")
        if part.data is not None and part.type in self.url_only:
            raise self.unsupported(part, call, f"{part.type} must be given by URL, not inline")
        allowed = self.media_types.get(part.type)
        if allowed is not None and part.media_type not in allowed:
            raise self.unsupported(
                part, call, f"media type {part.media_type!r} is not one of {sorted(allowed)}"
            )

    def native(self, part: Media) -> bool:
        """Whether the tool-result block carries this media item as given (inline or URL)."""
        if part.url is not None and self.tool_result_url is not None:
            return part.type in self.tool_result_url
        return part.type in self.tool_result


@dataclass(frozen=True)
class Moved:
    """Media routed out of a tool result into the following user message."""

    result: ToolResult
    media: tuple[Media, ...]


@dataclass(frozen=True)
class RoutedResult:
    result: ToolResult
    native: tuple[Part, ...]
    """The parts that stay in the tool-result block, in order."""


@dataclass(frozen=True)
class MessageTurn:
    message: Message


@dataclass(frozen=True)
class AssistantTurn:
    text: tuple[Text, ...]
    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class ToolTurn:
    results: tuple[RoutedResult, ...]
    moved: tuple[Moved, ...]
    """Fallback media, one entry per tool result that has any, in result order."""


Turn = MessageTurn | AssistantTurn | ToolTurn


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def data_url(part: Media) -> str:
    """The part as a URL: its own URL, or a base64 data URL of its bytes."""
    if part.url is not None:
        return part.url
    assert part.data is not None
    return f"data:{part.media_type};base64,{b64(part.data)}"


def marker_text(result: ToolResult) -> str:
    return marker.render(result.name, result.tool_call_id)


def text_of(content: str | Sequence[Part]) -> list[Text]:
    """A message's content as text parts; raises TypeError on media (callers route media)."""
    if isinstance(content, str):
        return [Text(text=content)]
    texts: list[Text] = []
    for part in content:
        if not isinstance(part, Text):
            raise TypeError(f"unexpected {part.type} part")
        texts.append(part)
    return texts


def _route(
    profile: Profile, result: ToolResult, parts: Sequence[Part]
) -> tuple[list[Part], list[Media]]:
    native: list[Part] = []
    moved: list[Media] = []
    for part in parts:
        if isinstance(part, Text):
            native.append(part)
            continue
        profile.check_form(part, result)
        if profile.native(part):
            native.append(part)
        elif part.type in profile.user:
            moved.append(part)
        else:
            raise profile.unsupported(
                part, result, "neither its tool-result block nor a user message accepts it"
            )
    return native, moved


def _tool_turn(profile: Profile, results: list[ToolResult], produced: list[Message]) -> ToolTurn:
    extra: dict[str, list[Part]] = {r.tool_call_id: [] for r in results}
    for message in produced:
        assert message.source is not None
        parts = text_of(message.content) if isinstance(message.content, str) else message.content
        extra[message.source.tool_call_id].extend(parts)
    routed: list[RoutedResult] = []
    moved: list[Moved] = []
    for result in results:
        native, media = _route(profile, result, [*result.content, *extra[result.tool_call_id]])
        routed.append(RoutedResult(result, tuple(native)))
        if media:
            moved.append(Moved(result, tuple(media)))
    return ToolTurn(tuple(routed), tuple(moved))


def plan(profile: Profile, history: History) -> list[Turn]:
    """Group a history into turns and route every tool-produced part; raises before building.

    Tool results that follow each other form one turn, together with the tool-produced user
    messages right after them whose provenance names one of those calls. Tool-produced user
    content that names no call of its turn keeps its own place, as a user message.
    """
    turns: list[Turn] = []
    index = 0
    while index < len(history):
        item = history[index]
        if isinstance(item, ToolResult):
            results: list[ToolResult] = []
            while index < len(history) and isinstance(history[index], ToolResult):
                results.append(history[index])  # type: ignore[arg-type]
                index += 1
            ids = {r.tool_call_id for r in results}
            produced: list[Message] = []
            while index < len(history):
                nxt = history[index]
                if not (
                    isinstance(nxt, Message)
                    and nxt.source is not None
                    and nxt.source.tool_call_id in ids
                ):
                    break
                produced.append(nxt)
                index += 1
            turns.append(_tool_turn(profile, results, produced))
            continue
        if (isinstance(item, Message) and item.role == "assistant") or isinstance(item, ToolCall):
            texts: list[Text] = []
            calls: list[ToolCall] = []
            while index < len(history):
                nxt = history[index]
                if isinstance(nxt, ToolCall):
                    calls.append(nxt)
                elif isinstance(nxt, Message) and nxt.role == "assistant" and not calls:
                    _check_message(profile, nxt)
                    texts.extend(text_of(nxt.content))
                else:
                    break
                index += 1
            turns.append(AssistantTurn(tuple(texts), tuple(calls)))
            continue
        assert isinstance(item, Message)
        _check_message(profile, item)
        turns.append(MessageTurn(item))
        index += 1
    return turns


def message_parts(message: Message) -> list[Part]:
    """A user message's parts; tool-produced media keeps a marker naming its call in front."""
    parts: list[Part] = (
        [Text(text=message.content)] if isinstance(message.content, str) else list(message.content)
    )
    source = message.source
    if source is not None and any(not isinstance(p, Text) for p in parts):
        parts.insert(0, Text(text=marker.render(source.tool_name, source.tool_call_id)))
    return parts


def _check_message(profile: Profile, message: Message) -> None:
    if isinstance(message.content, str):
        return
    for part in message.content:
        if isinstance(part, Text):
            continue
        profile.check_form(part, None)
        if message.role != "user" or part.type not in profile.user:
            raise profile.unsupported(part, None, f"a {message.role} message cannot carry it")
