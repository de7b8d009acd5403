"""Running a part of the matrix: `--conformance-api`, `--conformance-check`, `--conformance-level`.

Each option takes a comma-separated list and may be repeated; a test runs when it matches every
option given. A name prefixed with `!` excludes instead (`--conformance-check='!snapshot'`).
Tests left out are deselected at collection, as `-k` does, so syrupy does not count their
snapshots as unused.

With `-k`, select by the test id `<target>:<cell>:<check>`: `-k "not :snapshot"`. (Only the
snapshot check asks for syrupy's fixture, so syrupy marks only those tests `syrupy_snapshot`
and a bare `-k "not snapshot"` selects the same tests.)

With `--conformance-items cell` a test is a cell, `<target>:<cell>`, judging all its checks:
`-k` then selects cells only, and these options select checks within each cell (a cell left with
none is deselected; the checks kept are in the test's stash under `CHECKS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, cast

import pytest

from conformance.judging.levels import CHECK_LEVELS, LEVELS, PROPERTY_LEVELS
from conformance.matrix.vocabulary import ROW_API_NAMES

__all__ = ["CHECKS", "Selection", "addoptions", "deselect"]

CHECKS: Final = pytest.StashKey[tuple[str, ...]]()
"""On a cell test (`--conformance-items cell`), the checks of its cell the options leave."""

_OPTIONS: Final = {
    "api": ("conformance_api", ROW_API_NAMES),
    "check": ("conformance_check", tuple(CHECK_LEVELS)),
    "level": ("conformance_level", LEVELS),
}


def addoptions(group: Any) -> None:
    """Add the three options to the plugin's option group."""
    for name, (_, choices) in _OPTIONS.items():
        group.addoption(
            f"--conformance-{name}",
            action="append",
            metavar=name.upper(),
            help=f"run only these {name}s (comma-separated, repeatable; '!{name}' excludes):"
            f" {', '.join(choices)}",
        )


class Selection:
    """The names each option includes and excludes; an empty include list includes all."""

    def __init__(self, given: dict[str, Sequence[str] | None]) -> None:
        self.include: dict[str, set[str]] = {}
        self.exclude: dict[str, set[str]] = {}
        for name, values in given.items():
            words = [w.strip() for value in values or () for w in value.split(",") if w.strip()]
            choices = _OPTIONS[name][1]
            for word in words:
                bare = word.removeprefix("!")
                if bare not in choices:
                    raise pytest.UsageError(
                        f"--conformance-{name}: unknown {name} {bare!r}; use one of:"
                        f" {', '.join(choices)}"
                    )
            self.include[name] = {w for w in words if not w.startswith("!")}
            self.exclude[name] = {w[1:] for w in words if w.startswith("!")}

    @property
    def active(self) -> bool:
        return any(self.include.values()) or any(self.exclude.values())

    def wants(self, *, api: str | None, check: str) -> bool:
        """Whether a test is kept; a property (`api` None) spans every api, so it is left out
        when apis are chosen, and kept when some are excluded."""
        if api is None and self.include.get("api"):
            return False
        level = PROPERTY_LEVELS.get(check) or CHECK_LEVELS.get(check, "reference")
        values = {"api": api, "check": check, "level": level}
        for name, value in values.items():
            if value in self.exclude.get(name, ()):
                return False
            if self.include.get(name) and value not in self.include[name]:
                return False
        return True


def deselect(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the generated tests the options leave out (called at collection)."""
    selection = Selection(
        {
            name: cast("Sequence[str] | None", config.getoption(option))
            for name, (option, _) in _OPTIONS.items()
        }
    )
    if not selection.active:
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        case = getattr(getattr(item, "callspec", None), "params", {}).get("conformance_case")
        api = getattr(getattr(case, "cell", None), "api", None)  # a PropertyCase has none
        if case is None:
            keep.append(item)
            continue
        checks: tuple[str, ...] = getattr(case, "checks", None) or (case.check,)  # a property's
        kept = tuple(check for check in checks if selection.wants(api=api, check=check))
        if kept and kept != checks:
            item.stash[CHECKS] = kept  # a cell test, some of whose checks are left out
        (keep if kept else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep
