"""From a cell to the canonical history that exercises it.

Every scenario is a user prompt, then one assistant turn with two parallel calls of the cell's
tool (`get_<content type>`, ids `call_1` and `call_2`, no arguments), then their results in call
order. The two results differ, so a target that swaps, merges or duplicates them is seen:
`call_1` returns the first fixture of the content type (`chart.png`, `report.pdf`, `tone.wav`,
`clip.mp4`, or `TEXT_FIXTURE`), `call_2` the second (`chart-2.png`, ..., or `TEXT_FIXTURE_2`).

- `result` style: each tool result carries its own item.
- `prompt` style: each tool result carries `PROMPT_STYLE_RESULT_TEXT`, and the items follow as
  two tool-produced user messages, one per call in call order, each stored with the provenance
  of its own call (`ToolReturnProvenance`).
- `error` style (text only): `call_1` failed (status `error`, `ERROR_FIXTURE`) and `call_2`
  succeeded with `TEXT_FIXTURE_2`, so the api's error flag must mark the failed call only.

URL sources point at the fixture host the suite runs on 127.0.0.1 for the session
(`conformance.targets.kit.fixture_host()`, `<origin>/conformance/<file>`), which serves each file
with its media type and records every fetch; snapshots and cassettes store
`conformance.scenarios.fixtures.ORIGIN_STAND_IN` for the origin. Cell ids are those of the matrix.
"""

from __future__ import annotations

from typing import Literal, assert_never

from conformance.history import (
    Audio,
    ContentType,
    Document,
    History,
    Image,
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
    "CALL_ID",
    "CALL_IDS",
    "ERROR_FIXTURE",
    "PROMPT",
    "PROMPT_STYLE_RESULT_TEXT",
    "TEXT_FIXTURE",
    "TEXT_FIXTURE_2",
    "fixture_name",
    "fixture_part",
    "fixture_url",
    "scenario",
    "tool_name",
]

Source = Literal["inline", "url"]
Style = Literal["result", "prompt", "error"]
Which = Literal[1, 2]

PROMPT = "Call the tool, then describe what it returned."
CALL_ID = "call_1"
CALL_IDS: tuple[str, str] = ("call_1", "call_2")
"""The ids of a scenario's two parallel calls, in call order."""
PROMPT_STYLE_RESULT_TEXT = "Done: the output follows as user content."

TEXT_FIXTURE = (
    'Re\u0301sume\u0301: 21 °C — "dry" & <calm>, naïve café, 東京 ✓ \u212b\r\n'
    "\ufb01nal \uff53\uff43\uff4f\uff52\uff45: \uff14\uff12 \u00bd x\u00b2\r\n"
    "tab\there, trailing spaces   \r\n"
    "zero\u200bwidth, join\u200dme, \u2066isolated\u2069 \u202eright-to-left\u202c \u200f!\r\n"
    '<conformance:tool_return tool_name="get_text" tool_call_id="call_1" />  '
)
"""Text a target must carry byte for byte (`call_1`'s result):

- characters NFC changes: a decomposed é (`e` + U+0301), the Ångström sign U+212B;
- characters NFKC changes: the ligature U+FB01 (fi), full-width letters and digits, ½, ²;
- CRLF line ends, a tab, trailing spaces;
- zero-width and bidi marks: U+200B, U+200D, U+2066/U+2069 (isolate), U+202E/U+202C
  (override), U+200F (right-to-left mark);
- quotes, `&`, `<`, non-ASCII, and a string that looks exactly like a fallback marker for
  this very call.

Valid UTF-8 throughout (no lone surrogates)."""

TEXT_FIXTURE_2 = "Second reading: 19 °C, wind 12 km/h\r\nno\u00a0break\u2009here  "
"""`call_2`'s text: different from `TEXT_FIXTURE`, with CRLF, a no-break and a thin space
(NFKC changes both) and trailing spaces."""

ERROR_FIXTURE = 'Error: quota "daily" exceeded <429> & retry in 30 s\r\n  — réessayez  '
"""The text of a failed tool call (status `error`): carried as is, flagged where the api can."""

_MEDIA: dict[str, tuple[tuple[str, str], str]] = {
    "image": (("chart.png", "chart-2.png"), "image/png"),
    "document": (("report.pdf", "report-2.pdf"), "application/pdf"),
    "audio": (("tone.wav", "tone-2.wav"), "audio/wav"),
    "video": (("clip.mp4", "clip-2.mp4"), "video/mp4"),
}


def tool_name(content_type: ContentType) -> str:
    return f"get_{content_type}"


def fixture_name(content_type: ContentType, which: Which = 1) -> str:
    """The fixture file a call returns for a media type, e.g. `chart-2.png` for `call_2`."""
    if content_type == "text":
        raise ValueError("text has no fixture file: use TEXT_FIXTURE or TEXT_FIXTURE_2")
    return _MEDIA[content_type][0][which - 1]


def fixture_url(name: str) -> str:
    """The URL of a fixture file on the suite's fixture host (started on first use)."""
    return fixture_host().url(name)


def fixture_part(content_type: ContentType, source: Source = "inline", which: Which = 1) -> Part:
    """The fixture part for a content type (`which`: 1 for `call_1`, 2 for `call_2`), inline
    bytes or a URL on the fixture host."""
    if content_type == "text":
        return Text(text=TEXT_FIXTURE if which == 1 else TEXT_FIXTURE_2)
    name = fixture_name(content_type, which)
    media_type = _MEDIA[content_type][1]
    where: dict[str, bytes | str] = (
        {"data": fixture_bytes(name)} if source == "inline" else {"url": fixture_url(name)}
    )
    match content_type:
        case "image":
            return Image(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "document":
            return Document(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "audio":
            return Audio(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case "video":
            return Video(media_type=media_type, identifier=name, **where)  # type: ignore[arg-type]
        case _:
            assert_never(content_type)


def scenario(
    content_type: ContentType, source: Source, style: Style, *, calls: Literal[1, 2] = 2
) -> History:
    """The canonical history for one cell: two parallel calls whose results differ.

    `calls=1` keeps `call_1` alone (its call, result and tool-produced content): the shape
    self-tests use when they spell out an exact payload. The suite always runs two."""
    history = _two_calls(content_type, source, style)
    if calls == 2:
        return history
    return [item for item in history if _call_of(item) != CALL_IDS[1]]


def _call_of(item: object) -> str | None:
    if isinstance(item, ToolCall | ToolResult):
        return item.tool_call_id
    if isinstance(item, Message) and item.source is not None:
        return item.source.tool_call_id
    return None


def _two_calls(content_type: ContentType, source: Source, style: Style) -> History:
    name = tool_name(content_type)
    first, second = (fixture_part(content_type, source, which) for which in (1, 2))
    history: History = [
        Message(role="user", content=PROMPT),
        *(ToolCall(tool_call_id=call_id, name=name, arguments={}) for call_id in CALL_IDS),
    ]
    match style:
        case "error":
            history += [
                ToolResult(
                    tool_call_id=CALL_IDS[0],
                    name=name,
                    status="error",
                    content=[Text(text=ERROR_FIXTURE)],
                ),
                ToolResult(
                    tool_call_id=CALL_IDS[1], name=name, content=[Text(text=TEXT_FIXTURE_2)]
                ),
            ]
        case "result":
            history += [
                ToolResult(tool_call_id=call_id, name=name, content=[part])
                for call_id, part in zip(CALL_IDS, (first, second), strict=True)
            ]
        case "prompt":
            history += [
                ToolResult(
                    tool_call_id=call_id, name=name, content=[Text(text=PROMPT_STYLE_RESULT_TEXT)]
                )
                for call_id in CALL_IDS
            ]
            history += [
                Message(
                    role="user",
                    content=[part],
                    source=ToolReturnProvenance(tool_name=name, tool_call_id=call_id),
                )
                for call_id, part in zip(CALL_IDS, (first, second), strict=True)
            ]
        case _:
            assert_never(style)
    return history
