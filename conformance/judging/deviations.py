"""A target's known deviations from the matrix: one YAML file per target, apart from the matrix.

```yaml
# deviations/<target>.yaml
target: litellm
deviations:
  - cell: openai-chat/gpt-4o/image/inline/result
    checks: [outcome, provenance]   # each must fail; a declared check that passes is an xpass
    outcome: fallback-unmarked      # the observed outcome
    level: recommended              # the strongest level among `checks`
    reason: "why, in a sentence a framework maintainer understands"
    link: https://github.com/BerriAI/litellm/issues/1234   # optional: upstream issue or PR only
    notes: docs/litellm.md#anchor   # optional: our own notes
```

Judging is strict and per check (`judge`): a declared check must fail with the declared outcome
(then it is an `xfail`); a declared check that passes is an `xpass`, a failure; a failing check
that is not declared fails. The file is validated on load, every problem reported as
`path:line:col: message` in one `DeviationsError`, and a reason that still holds the
placeholder `conformance deviations` writes is refused: a person writes why, so a generator
cannot silence the gate.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning

from conformance.judging.levels import CHECK_LEVELS, LEVELS, PROPERTY_LEVELS, Level, level_of
from conformance.matrix import TARGET_PATTERN, LocatedError, Outcome
from conformance.matrix.load import (
    _yaml_error,  # pyright: ignore[reportPrivateUsage]
    screen_text,
)

__all__ = [
    "DECLARABLE_CHECKS",
    "PLACEHOLDER",
    "Deviation",
    "DeviationsError",
    "DeviationsFile",
    "Judgement",
    "deviations_schema",
    "judge",
    "load_deviations",
    "strongest",
]

PLACEHOLDER: Final = "TODO: a person writes why this happens"
"""The reason `conformance deviations` gives an entry no rule matched. The loader refuses it."""

DECLARABLE_CHECKS: Final[tuple[str, ...]] = tuple(
    check for check in CHECK_LEVELS if check not in ("snapshot", "cassette")
)
"""The checks a deviation may explain. `snapshot` and `cassette` compare a target with its own
files, so they cannot deviate from the matrix."""
PROPERTY_CELLS: Final[dict[str, str]] = {f"property/{name}": name for name in PROPERTY_LEVELS}
"""A property's results line names `property/<name>` as its cell; its one check is its name."""

_CELL_PATTERN: Final = (
    r"^(?:[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*/[a-z]+/[a-z]+/[a-z]+|property/[a-z-]+)$"
)
_URL_PATTERN: Final = r"^https?://\S+$"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Deviation(_Frozen):
    """One cell where a target differs from the matrix, and the checks that difference fails."""

    cell: Annotated[str, Field(pattern=_CELL_PATTERN)]
    """A cell id, `<api>/<family>/<content type>/<source>/<style>`."""
    checks: Annotated[tuple[str, ...], Field(min_length=1)]
    """The checks this deviation explains; each must fail on the cell."""
    outcome: Outcome | None = None
    """The outcome observed on the cell (required for cells; a property has none)."""
    level: Level
    """The strongest level among `checks` (conformance.judging.levels)."""
    reason: Annotated[str, Field(min_length=1)]
    """Why, in a sentence a framework maintainer understands."""
    link: Annotated[str, Field(pattern=_URL_PATTERN)] | None = None
    """An upstream issue or pull request; never our own notes (those go in `notes`)."""
    notes: Annotated[str, Field(min_length=1)] | None = None
    """Our own notes, e.g. `docs/deviations.md#anchor`."""


class DeviationsFile(_Frozen):
    """The whole of one target's deviations file."""

    target: Annotated[str, Field(pattern=TARGET_PATTERN)]
    """The target's name, as the results name it."""
    deviations: tuple[Deviation, ...] = ()

    _digest: str = ""
    _path: str = ""

    @property
    def digest(self) -> str:
        """`sha256:` of the file's bytes, recorded in the results' meta line."""
        return self._digest

    @property
    def path(self) -> str:
        return self._path

    def for_cell(self, cell_id: str) -> Deviation | None:
        return next((d for d in self.deviations if d.cell == cell_id), None)


class DeviationsError(Exception):
    """A deviations file that cannot be used; `errors` lists every problem found."""

    def __init__(self, errors: list[LocatedError]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def strongest(checks: Sequence[str]) -> Level:
    """The strongest level among `checks`."""
    levels: list[Level] = [level_of(c) for c in checks]
    return min(levels, key=LEVELS.index)


# --- loading -------------------------------------------------------------------------------


def load_deviations(
    path: str | Path,
    *,
    target: str | None = None,
    cells: Sequence[str] | None = None,
) -> DeviationsFile:
    """Load and validate a deviations file; raise `DeviationsError` listing every problem.

    `target`, when given, is the name the file must declare; `cells`, when given, are the
    matrix's cell ids, and every deviation must name one of them.
    """
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror
        raise DeviationsError(
            [LocatedError(shown, 1, 1, f"cannot read the deviations file: {reason}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DeviationsError(
            [LocatedError(shown, 1, 1, f"not UTF-8 at byte {exc.start}; save the file as UTF-8")]
        ) from None
    data = _yaml(text, shown)
    problems: list[tuple[tuple[str | int, ...], str]] = []
    keys: set[tuple[str | int, ...]] = set()  # problems about a key, not its value
    parsed: DeviationsFile | None = None
    try:
        parsed = DeviationsFile.model_validate(data)
    except ValidationError as error:
        for err in error.errors(include_url=False):
            loc = tuple(err["loc"])
            problems.append((loc, _message(err["type"], loc, err["msg"])))
            if err["type"] == "extra_forbidden":
                keys.add(loc)
    problems += _rules(data, target, cells)
    if problems:
        errors = [
            LocatedError(shown, *_position(data, loc, key=loc in keys), msg)
            for loc, msg in problems
        ]
        raise DeviationsError(sorted(set(errors), key=lambda e: (e.line, e.col, e.message)))
    assert parsed is not None
    parsed._digest = "sha256:" + hashlib.sha256(raw).hexdigest()  # pyright: ignore[reportPrivateUsage]
    parsed._path = shown  # pyright: ignore[reportPrivateUsage]
    return parsed


def _yaml(text: str, shown: str) -> Any:
    """The YAML of a deviations or reasons file; what the reader cannot take (a control
    character, a NUL byte, nesting too deep) is located first, as in the matrix."""
    screened = screen_text(text, shown)
    if screened:
        raise DeviationsError(screened)
    loader: Any = YAML(typ="rt")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReusedAnchorWarning)
        try:
            data = loader.load(text)
        except MarkedYAMLError as exc:
            raise DeviationsError([_yaml_error(exc, shown)]) from None
        except ReusedAnchorWarning as exc:
            raise DeviationsError([LocatedError(shown, 1, 1, str(exc))]) from None
    if data is None:
        raise DeviationsError(
            [
                LocatedError(
                    shown, 1, 1, "the file is empty; write `target: NAME` and `deviations: []`"
                )
            ]
        )
    return data


_HINTS: Final[dict[str, str]] = {
    "cell": "; a cell id is <api>/<family>/<content type>/<source>/<style>",
    "link": "; link is for an upstream issue or pull request (https://...); put our own notes"
    " (docs/...) under `notes`",
    "target": "; a target name is lower case letters, digits, '.', '_' and '-'",
}


def _message(kind: str, loc: tuple[str | int, ...], msg: str) -> str:
    name = loc[-1] if loc else ""
    if kind == "missing":
        return f"missing key {name!r}; a deviation needs cell, checks, outcome, level and reason"
    if kind == "extra_forbidden":
        allowed = ", ".join(Deviation.model_fields if len(loc) > 1 else DeviationsFile.model_fields)
        return f"unknown key {name!r}; allowed keys: {allowed}"
    return f"{name}: {msg}{_HINTS.get(str(name), '') if kind == 'string_pattern_mismatch' else ''}"


def _rules(
    data: Any, target: str | None, cells: Sequence[str] | None
) -> list[tuple[tuple[str | int, ...], str]]:
    """What the model alone cannot say: known checks, the level, the placeholder, cells."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    if not isinstance(data, Mapping):
        return [((), "a deviations file is a mapping with `target` and `deviations`")]
    top: Mapping[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
    if target is not None and isinstance(top.get("target"), str) and top["target"] != target:
        problems.append((("target",), f"this file is for target {top['target']!r}, not {target!r}"))
    items = top.get("deviations")
    if not isinstance(items, list):
        return problems
    known = {*cells, *PROPERTY_CELLS} if cells is not None else None
    first: dict[str, int] = {}
    for index, item in enumerate(items):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if not isinstance(item, Mapping):
            continue
        entry: Mapping[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
        cell = entry.get("cell")
        if isinstance(cell, str):
            if known is not None and cell not in known:
                problems.append(
                    ((("deviations", index, "cell")), f"cell {cell!r} is not in the matrix")
                )
            elif cell in first:
                problems.append(
                    (
                        ("deviations", index, "cell"),
                        f"cell {cell!r} already has a deviation (item {first[cell]});"
                        " give one per cell, listing every check it explains",
                    )
                )
            else:
                first[cell] = index
        checks = entry.get("checks")
        good: list[str] = []
        prop = PROPERTY_CELLS.get(cell) if isinstance(cell, str) else None
        if prop is None and "outcome" not in entry:
            problems.append(
                (
                    ("deviations", index),
                    "missing key 'outcome': a cell's deviation names the outcome observed",
                )
            )
        if isinstance(checks, list):
            for position, check in enumerate(checks):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
                where = ("deviations", index, "checks", position)
                if prop is not None:
                    if check != prop:
                        problems.append(
                            (where, f"a property's deviation lists its own check, {prop!r}")
                        )
                    else:
                        good.append(prop)
                elif check not in DECLARABLE_CHECKS:
                    why = (
                        " (it compares the target with its own files; it cannot deviate)"
                        if check in ("snapshot", "cassette")
                        else ""
                    )
                    problems.append(
                        (
                            where,
                            f"unknown check {check!r}{why}; use one of: "
                            + ", ".join(DECLARABLE_CHECKS),
                        )
                    )
                elif check in good:
                    problems.append((where, f"check {check!r} is listed twice"))
                else:
                    good.append(str(check))  # pyright: ignore[reportUnknownArgumentType]
        level = entry.get("level")
        if good and level in LEVELS and level != strongest(good):
            problems.append(
                (
                    ("deviations", index, "level"),
                    f"level {level!r} is not the strongest level of its checks:"
                    f" {strongest(good)!r} ({', '.join(good)})",
                )
            )
        reason = entry.get("reason")
        if isinstance(reason, str) and PLACEHOLDER in reason:
            problems.append(
                (
                    ("deviations", index, "reason"),
                    "a person must write this reason: say why the target does this, in a"
                    " sentence its maintainers understand (a generated placeholder is refused)",
                )
            )
    return problems


def _position(data: Any, loc: Sequence[str | int], *, key: bool = False) -> tuple[int, int]:
    """1-based line and column of the deepest node of `loc` that exists (of its key, with
    `key`, or when its value is a mapping or list)."""
    node: Any = data  # ruamel.yaml's nodes are untyped
    line, col = 0, 0
    for index, part in enumerate(loc):
        if _is_map(node) and part in node:
            at_key = not _scalar(node[part]) or (key and index == len(loc) - 1)
            spot: tuple[int, int] = node.lc.key(part) if at_key else node.lc.value(part)
        elif _is_seq(node) and isinstance(part, int) and part < len(node):
            spot = node.lc.item(part)
        else:
            break
        (line, col), node = spot, node[part]
    return line + 1, col + 1


def _is_map(value: object) -> bool:
    return isinstance(value, CommentedMap)


def _is_seq(value: object) -> bool:
    return isinstance(value, CommentedSeq)


def _scalar(value: object) -> bool:
    return not isinstance(value, CommentedMap | CommentedSeq)


# --- judging -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """A check's verdict once the target's deviations are taken into account."""

    verdict: Literal["pass", "fail", "xfail", "xpass"]
    message: str
    deviation: Deviation | None = None


def judge(
    deviations: DeviationsFile | None,
    cell_id: str,
    check: str,
    *,
    passed: bool,
    outcome: str | None,
    detail: str,
) -> Judgement:
    """Strict, per check: a declared check must fail with the declared outcome."""
    deviation = deviations.for_cell(cell_id) if deviations is not None else None
    where = deviations.path if deviations is not None else "the deviations file"
    if deviation is None or check not in deviation.checks:
        if passed:
            return Judgement("pass", detail)
        return Judgement("fail", f"{cell_id} [{check}]: {detail}")
    if passed:
        return Judgement(
            "xpass",
            f"{cell_id} [{check}]: the declared deviation no longer happens (this check"
            f" passes); remove {check!r} from its entry in {where}",
            deviation,
        )
    if outcome != deviation.outcome:
        return Judgement(
            "fail",
            f"{cell_id} [{check}]: declared deviation {deviation.outcome}, observed {outcome}:"
            f" {detail}",
            deviation,
        )
    return Judgement("xfail", f"known deviation: {deviation.reason}", deviation)


# --- schema --------------------------------------------------------------------------------


def deviations_schema() -> dict[str, Any]:
    """The JSON Schema of a deviations file, for editors (yaml-language-server)."""
    schema = DeviationsFile.model_json_schema()
    item = schema["$defs"]["Deviation"]
    item["properties"]["checks"]["items"] = {"enum": list(DECLARABLE_CHECKS)}
    item["properties"]["checks"]["uniqueItems"] = True
    reason = item["properties"]["reason"]
    reason["not"] = {"pattern": re.escape(PLACEHOLDER)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tool-result-conformance deviations file",
        **{k: v for k, v in schema.items() if k != "title"},
    }
