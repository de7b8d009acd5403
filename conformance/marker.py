"""The fallback marker that names the tool call media came from.

    <conformance:tool_return tool_name="get_chart" tool_call_id="call_1" />

Attribute values are escaped so that no tool name or call id can end an attribute, open a
tag, or span a line. `parse` is the exact inverse of `render`: it accepts only what `render`
can produce, so `parse(render(n, i)) == (n, i)` and `render(*parse(s)) == s` for every
marker string `s`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Marker", "find", "parse", "render"]

_ESCAPES = {
    "&": "&amp;",
    '"': "&quot;",
    "<": "&lt;",
    ">": "&gt;",
    "\n": "&#10;",
    "\r": "&#13;",
    "\t": "&#9;",
}
_UNESCAPES = {v: k for k, v in _ESCAPES.items()}
_ESCAPE_RE = re.compile("[" + re.escape("".join(_ESCAPES)) + "]")
# An escaped value: any character that render never leaves bare, or one of its entities.
_VALUE = r'(?:[^&"<>\n\r\t]|&amp;|&quot;|&lt;|&gt;|&#10;|&#13;|&#9;)*'
_MARKER_RE = re.compile(
    rf'<conformance:tool_return tool_name="(?P<name>{_VALUE})" '
    rf'tool_call_id="(?P<id>{_VALUE})" />'
)
_ENTITY_RE = re.compile("|".join(re.escape(e) for e in _UNESCAPES))


class Marker(NamedTuple):
    tool_name: str
    tool_call_id: str


def _escape(value: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], value)


def _unescape(value: str) -> str:
    return _ENTITY_RE.sub(lambda m: _UNESCAPES[m.group()], value)


def render(tool_name: str, tool_call_id: str) -> str:
    """The marker text for one tool call."""
    return (
        f'<conformance:tool_return tool_name="{_escape(tool_name)}" '
        f'tool_call_id="{_escape(tool_call_id)}" />'
    )


def parse(text: str) -> Marker | None:
    """The marker if `text` is exactly one rendered marker, else None."""
    match = _MARKER_RE.fullmatch(text)
    if match is None:
        return None
    return Marker(_unescape(match["name"]), _unescape(match["id"]))


def find(text: str) -> list[Marker]:
    """Every well-formed marker inside `text`, in order."""
    return [Marker(_unescape(m["name"]), _unescape(m["id"])) for m in _MARKER_RE.finditer(text)]
