"""`conformance deviations`: the deviations a results file shows, with person-written reasons.

```yaml
# deviations/<target>.reasons.yaml
rules:              # first match wins; every key of `when` is optional and all given must match
  - when: {api: openai-chat, expect: unsupported, outcome: noted, check: outcome, detail: "regex"}
    reason: "..."
    link: https://github.com/...    # optional, upstream only
    notes: docs/<target>.md#anchor  # optional
    title: "..."                    # optional: the class's name (`conformance classes`)
    sample: "..."                   # optional: one outcome of it read in the source
```

`when` also takes `cell`, a regular expression searched in the cell id. `check` matches when the
cell fails that check; `detail` is searched in the detail of every failing check. An entry no
rule matches gets `deviations.PLACEHOLDER` as its reason, which the loader refuses: a person
must write why before the file can gate anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from conformance.judging.deviations import DECLARABLE_CHECKS, PLACEHOLDER, strongest
from conformance.judging.levels import PROPERTY_LEVELS
from conformance.matrix import LocatedError
from conformance.reports.results import Expect, Outcome, PropertyLine, ResultLine, Results

__all__ = [
    "Rule",
    "Rules",
    "RulesError",
    "from_results",
    "load_rules",
    "render_deviations",
    "rule_for_cell",
    "rule_for_property",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class When(_Frozen):
    api: str | None = None
    expect: Expect | None = None
    outcome: Outcome | None = None
    check: str | None = None
    detail: str | None = None
    """A regular expression."""
    cell: str | None = None
    """A regular expression."""

    @field_validator("detail", "cell")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"not a regular expression: {error}") from None
        return value


class Rule(_Frozen):
    when: When = When()
    reason: Annotated[str, Field(min_length=1)]
    link: Annotated[str, Field(pattern=r"^https?://\S+$")] | None = None
    notes: str | None = None
    title: str | None = None
    """The class's name in the docs' table of required failures (`conformance classes`);
    rules with the same title are one class."""
    sample: str | None = None
    """One outcome of the class read by hand in the framework's source: the cell, the file
    and the function (`conformance classes`)."""


class Rules(_Frozen):
    rules: tuple[Rule, ...] = ()


class RulesError(Exception):
    def __init__(self, errors: list[LocatedError]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def load_rules(path: str | Path) -> Rules:
    """Load a reasons file; raise `RulesError` with `path:line:col` per problem."""
    from conformance.judging.deviations import (
        _position,  # pyright: ignore[reportPrivateUsage]
        _yaml,  # pyright: ignore[reportPrivateUsage]
    )

    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError([LocatedError(shown, 1, 1, f"cannot read: {error}")]) from None
    try:
        data = _yaml(text, shown)
    except Exception as error:
        raise RulesError(
            getattr(error, "errors", [LocatedError(shown, 1, 1, str(error))])
        ) from None
    try:
        return Rules.model_validate(data)
    except ValidationError as error:
        raise RulesError(
            [
                LocatedError(
                    shown,
                    *_position(data, tuple(e["loc"])),
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}",
                )
                for e in error.errors(include_url=False)
            ]
        ) from None


def _matches(when: When, lines: Sequence[ResultLine], failing: Sequence[ResultLine]) -> bool:
    first = lines[0]
    if when.api is not None and first.api != when.api:
        return False
    if when.expect is not None and first.expect != when.expect:
        return False
    if when.outcome is not None and failing[0].outcome != when.outcome:
        return False
    if when.cell is not None and not re.search(when.cell, first.cell):
        return False
    if when.check is not None and when.check not in {x.check for x in failing}:
        return False
    if when.detail is not None:
        pattern = re.compile(when.detail)
        if not any(pattern.search(x.detail) for x in failing):
            return False
    return True


def from_results(results: Results, target: str, rules: Rules) -> list[dict[str, Any]]:
    """One deviation per cell with a failing check the target may declare, in result order."""
    cells: dict[str, list[ResultLine]] = {}
    for file in results.files:
        for line in file.results:
            if line.target == target:
                cells.setdefault(line.cell, []).append(line)
    out: list[dict[str, Any]] = []
    for cell, lines in cells.items():
        failing = _failing(lines)
        if not failing:
            continue
        rule = _first(rules, lines, failing)
        checks = [x.check for x in failing]
        entry: dict[str, Any] = {
            "cell": cell,
            "checks": checks,
            "outcome": failing[0].outcome,
            "level": strongest(checks),
        }
        out.append(_reasoned(entry, rule))
    out += _property_entries(results, target, rules)
    return out


def _failing(lines: Sequence[ResultLine]) -> list[ResultLine]:
    return [x for x in lines if x.verdict in ("fail", "xfail") and x.check in DECLARABLE_CHECKS]


def _first(rules: Rules, lines: Sequence[ResultLine], failing: Sequence[ResultLine]) -> Rule | None:
    return next((r for r in rules.rules if _matches(r.when, lines, failing)), None)


def rule_for_cell(rules: Rules, lines: Sequence[ResultLine]) -> Rule | None:
    """The rule that gives a cell (all its result lines) its reason, as `from_results` picks
    it; None where no rule matches or the cell fails no check it may declare."""
    failing = _failing(lines)
    return _first(rules, lines, failing) if failing else None


def rule_for_property(rules: Rules, line: PropertyLine) -> Rule | None:
    """The rule that gives a failing property its reason, as `from_results` picks it."""
    return next((r for r in rules.rules if _matches_property(r.when, line)), None)


def _reasoned(entry: dict[str, Any], rule: Rule | None) -> dict[str, Any]:
    """The entry with its rule's reason, link and notes, or the placeholder the loader refuses."""
    entry["reason"] = rule.reason if rule else PLACEHOLDER
    if rule and rule.link:
        entry["link"] = rule.link
    if rule and rule.notes:
        entry["notes"] = rule.notes
    return entry


def _property_entries(results: Results, target: str, rules: Rules) -> list[dict[str, Any]]:
    """One deviation per failing property (`property/<name>`, its own check, no outcome); a
    rule matches it on `check` (the property's name), `cell` and `detail` only."""
    out: list[dict[str, Any]] = []
    for file in results.files:
        for line in file.properties:
            if line.target != target or line.verdict not in ("fail", "xfail"):
                continue
            rule = rule_for_property(rules, line)
            entry: dict[str, Any] = {
                "cell": line.cell,
                "checks": [line.check],
                "outcome": None,
                "level": PROPERTY_LEVELS[line.check],
            }
            out.append(_reasoned(entry, rule))
    return out


def _matches_property(when: When, line: PropertyLine) -> bool:
    if when.api is not None or when.expect is not None or when.outcome is not None:
        return False  # a property spans every api and has no expectation or outcome
    if when.check is not None and when.check != line.check:
        return False
    if when.cell is not None and not re.search(when.cell, line.cell):
        return False
    return when.detail is None or re.search(when.detail, line.detail) is not None


def render_deviations(target: str, entries: Sequence[dict[str, Any]]) -> str:
    """The deviations file's text; strings are JSON-quoted, which YAML reads as they are."""
    lines = [
        "# Known deviations of this target from the matrix (docs/deviations.md).",
        "# Written by `conformance deviations`; every reason is a person's.",
        f"target: {target}",
        "deviations:" if entries else "deviations: []",
    ]
    for entry in entries:
        lines.append(f"  - cell: {entry['cell']}")
        lines.append(f"    checks: [{', '.join(entry['checks'])}]")
        if entry["outcome"] is not None:  # a property has none
            outcome = str(entry["outcome"])
            plain = re.fullmatch(r"[a-z][a-z-]*", outcome)
            lines.append(f"    outcome: {outcome if plain else json.dumps(outcome)}")
        lines.append(f"    level: {entry['level']}")
        for key in ("reason", "link", "notes"):
            if key in entry:
                lines.append(f"    {key}: {json.dumps(entry[key], ensure_ascii=False)}")
    return "\n".join(lines) + "\n"
