"""Mutant targets for what a figure may count: each misjudged before, judged right now.

- `RefusesEverything` raises its declared refusal, before sending, on every cell. It loses
  nothing, so it keeps every `required` rule; it carries nothing, so its capability is 0.
  Before, `text-identical` failed it at `required` on every cell the row could carry ("no
  payload to carry the text"), and nothing measured the capability it lacks.
- `RefusesAndChangesHistory` refuses too, after changing the history it was given: still a
  finding, never excused as a refusal.
- `NoPromptStyle` is the reference declaring tool-produced user content not applicable: its
  prompt cells are `n/a` with the reason, never passes, and compliance is over the rest.
- `NothingApplies` declares every content type not applicable: no cell applies, nothing is
  carried, and no figure looks good.
- `BadNotApplicable` declares a feature that does not exist: the run stops and says so.
- `ServesOneModel` does not serve one model row, and `CannotRunHere` cannot run at all: the
  cells they do not run are skipped with the reason, before setup, never judged.
  `SupportsRaises` crashes while saying whether it serves a row: each of that row's cells
  fails with the error, and keeps its line.
"""

from __future__ import annotations

from typing import ClassVar, get_args

from conformance.errors import UnsupportedContent
from conformance.history import ContentType, History, Text, ToolResult
from conformance.targets.base import Payload, RowRef
from mutants import _Mutant  # pyright: ignore[reportPrivateUsage]

__all__ = [
    "BadNotApplicable",
    "CannotRunHere",
    "NoPromptStyle",
    "NothingApplies",
    "RefusesAndChangesHistory",
    "RefusesEverything",
    "ServesOneModel",
    "SupportsRaises",
]


class RefusesEverything(_Mutant):
    """Raises its declared refusal type for every row and history, before sending."""

    name = "mutant-refuses-everything"

    def render(self, row: RowRef, history: History) -> Payload:
        raise UnsupportedContent(
            api=row.api,
            model=row.model,
            content_type="text",
            tool_name=None,
            tool_call_id=None,
            reason="this target refuses every tool result",
        )


class RefusesAndChangesHistory(RefusesEverything):
    """Empties every tool result's content in the history it was given, then refuses."""

    name = "mutant-refuses-and-changes-history"

    def render(self, row: RowRef, history: History) -> Payload:
        for item in history:
            if isinstance(item, ToolResult):
                item.content[:] = [Text(text="")]
        return super().render(row, history)


class NoPromptStyle(_Mutant):
    """The reference, declaring that it has no tool-produced user content."""

    name = "mutant-no-prompt-style"
    not_applicable: ClassVar[dict[str, str]] = {
        "style:prompt": "the framework has no tool-produced user content"
    }


class NothingApplies(_Mutant):
    """The reference, declaring every content type not applicable."""

    name = "mutant-nothing-applies"
    not_applicable: ClassVar[dict[str, str]] = {
        f"content:{ct}": "not offered" for ct in get_args(ContentType)
    }


class BadNotApplicable(_Mutant):
    """Declares a style that does not exist (`style:prompts`)."""

    name = "mutant-bad-not-applicable"
    not_applicable: ClassVar[dict[str, str]] = {"style:prompts": "a typo"}


class ServesOneModel(_Mutant):
    """The reference without OpenAI's audio model, like a framework without a client for it."""

    name = "mutant-serves-one-model"

    def supports(self, row: RowRef) -> str | None:
        return f"no client for {row.family} here" if row.family == "gpt-audio" else None


class CannotRunHere(_Mutant):
    """A target whose framework is not installed."""

    name = "mutant-cannot-run-here"
    unavailable = "its framework is not installed here"


class SupportsRaises(_Mutant):
    """The reference, whose `supports` raises for OpenAI's audio model."""

    name = "mutant-supports-raises"

    def supports(self, row: RowRef) -> str | None:
        if row.family == "gpt-audio":
            raise RuntimeError("no model list for gpt-audio")
        return None
