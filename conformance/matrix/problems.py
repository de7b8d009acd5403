"""A problem found in a matrix file, and the wording shared by the checks that find them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

_Loc = tuple[str | int, ...]
_Anchor = Literal["key", "value"]


@dataclass(frozen=True)
class _Problem:
    loc: _Loc
    """Where, as a path of keys and list indexes from the top of the file."""
    anchor: _Anchor
    """Point at the key of `loc`'s last element, or at its value."""
    message: str
    path: _Loc
    """What the message is about, shown before it (may be shorter than `loc`)."""

    def render(self) -> str:
        return f"{_dotted(self.path)}: {self.message}" if self.path else self.message


def _did_you_mean(word: object, options: Sequence[str]) -> str:  # pyright: ignore[reportUnusedFunction]
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _dotted(loc: _Loc) -> str:
    """`rows.openai-chat/gpt-4o.cells`, with list items as `sources[0]`."""
    out = ""
    for index, part in enumerate(loc):
        in_list = (loc[0], index) == ("sources", 1)
        if in_list and isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
