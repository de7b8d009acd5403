"""Conformance levels: the weight of each rule, so that a framework that fills a gap in its own
way is not weighed like one that loses its users' data.

- **required**: what protects the user's data. Nothing a tool returned is lost, noted over,
  stringified or altered; text stays byte-identical; nothing is sent where the api refuses it;
  where the api cannot carry media the target refuses with its declared error before sending;
  a failed call carries the api's native error flag; a parallel turn is answered whole (its
  results in call order, together, naming their own tools, flagged exactly where a call failed).
- **recommended**: provenance. Media moved out of its tool result is preceded by a marker
  naming its call, and provenance survives the target's own storage and replay on another api.
  Without it the model cannot tell tool output from what the user uploaded, but nothing is lost.
- **reference**: the exact layout the matrix and our reference mappers chose: the expected
  outcome of every cell, the snapshot, the recorded request and the official SDK's types. A
  framework may lay a payload out differently and still carry everything.

Each check, and each property, has exactly one level.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = ["CHECK_LEVELS", "LEVELS", "PROPERTY_LEVELS", "RATIONALE", "Level", "level_of"]

Level = Literal["required", "recommended", "reference"]
LEVELS: Final[tuple[Level, ...]] = get_args(Level)
"""Strongest first."""

RATIONALE: Final[dict[Level, str]] = {
    "required": "protects the user's data: nothing lost, altered or sent where the api refuses"
    " it; a typed refusal before sending; the native error flag",
    "recommended": "provenance: a marker naming the call, kept through storage and replay",
    "reference": "the exact layout: the expected outcome, the snapshot, the recorded request,"
    " the official SDK's request types",
}

CHECK_LEVELS: Final[dict[str, Level]] = {
    "no-silent-loss": "required",
    "text-identical": "required",
    "api-accepts": "required",
    "unsupported-raises": "required",
    "error-flag": "required",
    "parallel-turn": "required",
    "provenance": "recommended",
    "outcome": "reference",
    "snapshot": "reference",
    "sdk-schema": "reference",
    "cassette": "reference",
}
"""The level of each per-cell check."""

PROPERTY_LEVELS: Final[dict[str, Level]] = {
    "deterministic": "required",
    "total": "required",
    "media-exactly-once": "required",
    "text-identical": "required",
    "parallel-calls-in-order": "required",
    "markers-name-their-calls": "recommended",
    "storage-round-trip": "recommended",
    "cross-provider-replay": "recommended",
}
"""The level of each hypothesis property (`conformance.judging.properties`)."""


def level_of(check: str) -> Level:
    """The level of a check or property; an unknown name is a programming error."""
    if check in CHECK_LEVELS:
        return CHECK_LEVELS[check]
    return PROPERTY_LEVELS[check]
