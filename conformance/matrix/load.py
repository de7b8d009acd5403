"""Loading matrix.yaml: every problem located at `path:line:col`, worded for the person editing
it, in one `MatrixError`."""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning

from conformance.matrix.crosscheck import _cross_check  # pyright: ignore[reportPrivateUsage]
from conformance.matrix.model import (
    _SKIP_CROSS_CHECKS,  # pyright: ignore[reportPrivateUsage]
    _SOURCE_DIGEST,  # pyright: ignore[reportPrivateUsage]
    Cell,
    Citation,
    Dated,
    ErrorCell,
    Matrix,
    Row,
)
from conformance.matrix.problems import _Anchor, _did_you_mean, _Loc, _Problem  # pyright: ignore[reportPrivateUsage]
from conformance.matrix.vocabulary import (
    CONTENT_TYPES,
    ERROR_EXPECTATIONS,
    EXPECTATIONS,
    KNOWN,
    OUTCOMES,
    SOURCES,
    STYLES,
)

# --- errors --------------------------------------------------------------------------------


class LocatedError(NamedTuple):
    """One problem in a matrix file; `line` and `col` are 1-based."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


class MatrixError(Exception):
    """A matrix file that cannot be used; `errors` lists every problem found."""

    def __init__(self, errors: list[LocatedError]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


# --- loading -------------------------------------------------------------------------------


def load_matrix(path: str | Path) -> Matrix:
    """Load and validate a matrix file; raise `MatrixError` listing every problem."""
    shown = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            raise MatrixError([LocatedError(shown, 1, 1, _too_big(size))])
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise MatrixError(
            [LocatedError(shown, 1, 1, "no such file; give the path of a matrix.yaml")]
        ) from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise MatrixError([LocatedError(shown, 1, 1, f"cannot read the file: {reason}")]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise MatrixError(
            [
                LocatedError(
                    shown,
                    1,
                    1,
                    f"the file is not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"
                    f" (line {line}) cannot be decoded; save the file as UTF-8",
                )
            ]
        ) from None
    screened = screen_text(text, shown)
    if screened:
        raise MatrixError(screened)
    try:
        return _parse(text, shown, "sha256:" + hashlib.sha256(raw).hexdigest())
    except RecursionError:  # a nesting the screen did not foresee
        raise MatrixError(
            [LocatedError(shown, 1, 1, f"nesting too deep to read; {_DEEP_HINT}")]
        ) from None


# --- screening: what would make the YAML reader itself fail -------------------------------

MAX_BYTES: Final = 4 * 1024 * 1024
"""A matrix file larger than this is refused before reading (ours is about 100 KB)."""
MAX_DEPTH: Final = 64
"""Nesting levels (mappings, sequences, flow brackets) a matrix may use (ours uses six)."""
_DEEP_HINT: Final = (
    f"a matrix nests a few levels (rows, cells, sources, styles), never more than {MAX_DEPTH}"
)
_FORBIDDEN: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
)
"""Characters YAML does not allow in a stream (C0 and C1 controls but tab, line feed, carriage
return and NEL; DEL; surrogates; the two non-characters U+FFFE and U+FFFF)."""


def _too_big(size: int) -> str:
    return (
        f"the file is {size:,} bytes; a matrix is at most {MAX_BYTES:,} bytes (is this the"
        " right file?)"
    )


def _position_of(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def screen_text(text: str, shown: str) -> list[LocatedError]:
    """Control characters and nesting the YAML reader cannot take, located (at most the first
    of each kind, so that a binary file gives two lines, not thousands)."""
    errors: list[LocatedError] = []
    bad = _FORBIDDEN.search(text)
    if bad is not None:
        char = bad.group()
        what = "a NUL byte" if char == "\x00" else f"the control character U+{ord(char):04X}"
        hint = (
            "; is the file binary, or saved as UTF-16?"
            if char == "\x00"
            else "; delete it, or write it as an escape inside a double-quoted string"
        )
        errors.append(LocatedError(shown, *_position_of(text, bad.start()), f"{what}{hint}"))
    deep = _too_deep(text)
    if deep is not None:
        errors.append(
            LocatedError(shown, *deep, f"nesting deeper than {MAX_DEPTH} levels; {_DEEP_HINT}")
        )
    return errors


_DASHES: Final = re.compile(r"(?:-[ \t]+)*")


def _too_deep(text: str) -> tuple[int, int] | None:
    """Where the nesting first exceeds `MAX_DEPTH`: block indentation, `- - -` runs and flow
    brackets, counted roughly (quoted strings and comments skipped)."""
    indents: list[int] = []
    flow = 0
    for number, line in enumerate(text.split("\n"), 1):
        body = line.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        if flow == 0:
            indent = len(line) - len(body)
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
            dashes = _DASHES.match(body)
            depth = len(indents) + (dashes.group().count("-") if dashes else 0)
            if depth > MAX_DEPTH:
                return number, indent + 1
        quote = ""
        for col, char in enumerate(line, 1):
            if quote:
                if char == quote:
                    quote = ""
            elif char in "'\"":
                quote = char
            elif char == "#" and (col == 1 or line[col - 2] in " \t"):
                break
            elif char in "[{":
                flow += 1
                if len(indents) + flow > MAX_DEPTH:
                    return number, col
            elif char in "]}":
                flow = max(0, flow - 1)
    return None


def _parse(text: str, shown: str, digest: str) -> Matrix:
    loader: Any = YAML(typ="rt")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReusedAnchorWarning)
        try:
            data: object = loader.load(text)
        except MarkedYAMLError as exc:
            raise MatrixError([_yaml_error(exc, shown)]) from None
        except ReusedAnchorWarning as exc:
            raise MatrixError([_reused_anchor(exc, shown)]) from None
    if data is None:
        raise MatrixError(
            [
                LocatedError(
                    shown,
                    1,
                    1,
                    "the file is empty; a matrix is a mapping with version, sources,"
                    " citations and rows",
                )
            ]
        )
    problems: list[_Problem] = []
    matrix: Matrix | None = None
    try:
        matrix = Matrix.model_validate(
            data, context={_SKIP_CROSS_CHECKS: True, _SOURCE_DIGEST: digest}
        )
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        deeper = {tuple(err["loc"][:-1]) for err in errors if err["loc"]}
        problems.extend(
            _from_pydantic(err)
            for err in errors
            # a list whose items all failed is also "too short": say only what is wrong inside
            if not (err["type"] == "too_short" and tuple(err["loc"]) in deeper)
        )
    problems.extend(_cross_check(data))
    if problems:
        # A cell shared through an anchor fails once per use, at the same place: report it
        # once, under the first path that reaches it (the anchor's own, which comes first).
        located: dict[tuple[int, int, str], LocatedError] = {}
        for problem in problems:
            line, col = _position(data, problem.loc, problem.anchor)
            located.setdefault(
                (line, col, problem.message), LocatedError(shown, line, col, problem.render())
            )
        raise MatrixError(sorted(located.values(), key=lambda e: (e.line, e.col, e.message)))
    assert matrix is not None
    return matrix


def locate(path: str | Path, loc: tuple[str | int, ...]) -> tuple[int, int]:
    """1-based (line, col) of the value at `loc` (keys and list indexes from the top) in a
    matrix file that loads; (1, 1) where the path does not exist."""
    loader: Any = YAML(typ="rt")
    data: object = loader.load(Path(path).read_text(encoding="utf-8"))
    return _position(data, loc, "value")


def _yaml_error(exc: MarkedYAMLError, shown: str) -> LocatedError:
    error: Any = exc  # ruamel.yaml's error attributes are untyped
    problem_mark, context_mark = _mark(error.problem_mark), _mark(error.context_mark)
    line, col = problem_mark or context_mark or (1, 1)
    problem = str(error.problem or exc).strip()
    context = str(error.context or "")
    if isinstance(exc, DuplicateKeyError):
        found = re.match(r'found duplicate key "(.*?)" with value', problem)
        key = repr(found.group(1)) if found else problem
        return LocatedError(
            shown, line, col, f"duplicate key {key}: a key may appear only once in a mapping"
        )
    message = f"YAML syntax error: {problem}"
    if context and problem.startswith("but "):  # e.g. a second document in the file
        message = f"YAML syntax error: {context}, {problem}"
    elif context:
        where = ""
        if context_mark is not None and context_mark != problem_mark:
            where = f" started at {context_mark[0]}:{context_mark[1]}"
        message += f" ({context}{where})"
    if "'\\t'" in problem:
        message += "; indent with spaces, not tabs"
    return LocatedError(shown, line, col, message)


def _reused_anchor(exc: ReusedAnchorWarning, shown: str) -> LocatedError:
    """A second anchor of the same name, located at the second one (ruamel.yaml only warns)."""
    text = str(exc)
    name = re.search(r"found duplicate anchor '(.*?)'", text)
    first = re.search(r"first occurrence.*?line (\d+), column (\d+)", text, re.DOTALL)
    second = re.search(r"second occurrence.*?line (\d+), column (\d+)", text, re.DOTALL)
    line, col = (int(second.group(1)), int(second.group(2))) if second else (1, 1)
    anchor = f"&{name.group(1)}" if name else "an anchor"
    where = f" (first defined on line {first.group(1)})" if first else ""
    return LocatedError(
        shown,
        line,
        col,
        f"anchor {anchor!r} is defined twice{where}; give each anchor its own name, since an"
        " alias refers to the latest definition and a reused name changes what it means",
    )


def _mark(mark: Any) -> tuple[int, int] | None:
    """A ruamel.yaml mark (0-based) as a 1-based (line, col)."""
    return None if mark is None else (int(mark.line) + 1, int(mark.column) + 1)


class _Level(NamedTuple):
    noun: str  # what a key at this level is called
    keys: tuple[str, ...]  # the keys allowed here
    missing_hint: str  # said after "missing <noun> 'x'"


_LEVELS: Final[dict[str, _Level]] = {
    "top": _Level("key", tuple(Matrix.model_fields), ""),
    "row": _Level(
        "key",
        tuple(Row.model_fields),
        " — a row needs model, served, released, error_result and cells",
    ),
    "dated": _Level(
        "key",
        tuple(Dated.model_fields),
        " — a lifecycle date needs date (YYYY-MM-DD) and cite (a `citations` id)",
    ),
    "cells": _Level(
        "content type",
        CONTENT_TYPES,
        " — every row must declare all of " + ", ".join(CONTENT_TYPES),
    ),
    "sources": _Level("source", SOURCES, ""),
    "styles": _Level("style", STYLES, " — every cell must be declared (expect, known, cite)"),
    "cell": _Level("key", tuple(Cell.model_fields), " — a cell needs expect, known and cite"),
    "error_result": _Level(
        "key",
        tuple(ErrorCell.model_fields),
        " — error_result needs expect (flag or text), known and cite",
    ),
    "citation": _Level(
        "key",
        tuple(Citation.model_fields),
        " — a citation needs url, says and read (the day it was read, YYYY-MM-DD)",
    ),
}

_DATED_KEYS: Final = ("released", "deprecated", "shutdown")

_VALUE_CHOICES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "expect": ("expectation", EXPECTATIONS),
    "known": ("value for known", KNOWN),
    "outcome": ("outcome", OUTCOMES),
}


def _level(prefix: _Loc) -> str | None:
    """The kind of mapping found at `prefix`, by its place in the file."""
    if not prefix:
        return "top"
    names: dict[object, tuple[str | None, ...]] = {
        "rows": (None, "row", "cells", "sources", "styles", "cell"),
        "citations": (None, "citation"),
    }
    if prefix[0] == "rows" and len(prefix) == 3 and prefix[2] == "error_result":
        return "error_result"
    if prefix[0] == "rows" and len(prefix) == 3 and prefix[2] in _DATED_KEYS:
        return "dated"
    chain = names.get(prefix[0], ())
    return chain[len(prefix) - 1] if len(prefix) <= len(chain) else None


def _from_pydantic(err: ErrorDetails) -> _Problem:
    loc: _Loc = tuple(err["loc"])
    kind = err["type"]
    value: object = err.get("input")
    if loc and loc[-1] == "[key]":  # a bad mapping key
        key_loc = loc[:-1]
        if kind == "matrix_rule":
            return _Problem(key_loc, "key", _ctx_message(err), key_loc)
        level = _LEVELS.get(_level(key_loc[:-1]) or "")
        if kind == "literal_error" and key_loc[:1] == ("rows",) and key_loc[-2:-1] == ("text",):
            return _Problem(
                key_loc,
                "key",
                f"text has one source: remove {value!r} under text (text cells are inline"
                " only; a URL to text is a document, and a text url cell would repeat the"
                " inline one)",
                key_loc[:-1],
            )
        if kind == "literal_error" and level is not None:
            return _Problem(key_loc, "key", _unknown_key(level, value), key_loc[:-1])
        if kind == "string_type":
            return _Problem(
                key_loc, "key", f"a key must be a string, not {_kind(value)} (quote it)", key_loc
            )
        return _Problem(key_loc, "key", err["msg"], key_loc)
    parent, name = loc[:-1], (loc[-1] if loc else None)
    if kind == "missing":
        level = _LEVELS.get(_level(parent) or "")
        noun, hint = (level.noun, level.missing_hint) if level else ("key", "")
        return _Problem(loc, "key", f"missing {noun} {name!r}{hint}", parent)
    if kind == "extra_forbidden":
        level = _LEVELS.get(_level(parent) or "")
        message = _unknown_key(level, name) if level else f"unknown key {name!r} is not allowed"
        if loc == ("deviations",):
            message += (
                "; a target's deviations live in their own file, deviations/<target>.yaml"
                " (see docs/deviations.md), so that the matrix stays the same for everyone"
            )
        return _Problem(loc, "key", message, parent)
    if kind == "matrix_rule":
        return _Problem(loc, "value", _ctx_message(err), loc)
    return _Problem(loc, "value", _value_message(kind, loc, value, err["msg"]), loc)


def _ctx_message(err: ErrorDetails) -> str:
    ctx = err.get("ctx") or {}
    return str(ctx.get("message", err["msg"]))


def _unknown_key(level: _Level, key: object) -> str:
    allowed = ", ".join(level.keys)
    if level.noun == "key":
        return f"unknown key {key!r} is not allowed here; allowed keys: {allowed}" + (
            _did_you_mean(key, level.keys)
        )
    return f"unknown {level.noun} {key!r}; use one of: {allowed}" + _did_you_mean(key, level.keys)


def _value_message(kind: str, loc: _Loc, value: object, fallback: str) -> str:
    name = loc[-1] if loc else None
    if kind == "literal_error":
        if name == "version":
            return f"unsupported version {value!r}; this loader reads version 1"
        if len(loc) == 2 and loc[0] == "sources":
            return f"unknown source {value!r}; use one of: {', '.join(SOURCES)}"
        if name == "expect" and _level(loc[:-1]) == "error_result":
            what, choices = "error expectation", ERROR_EXPECTATIONS
            return f"{value!r} is not a valid {what}; use one of: {', '.join(choices)}" + (
                _did_you_mean(value, choices)
            )
        if isinstance(name, str) and name in _VALUE_CHOICES:
            what, choices = _VALUE_CHOICES[name]
            return f"{value!r} is not a valid {what}; use one of: {', '.join(choices)}" + (
                _did_you_mean(value, choices)
            )
    if not loc and kind in ("dict_type", "model_type", "model_attributes_type"):
        return (
            "the file must be a mapping with version, sources, citations and rows,"
            f" not {_kind(value)}"
        )
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a mapping, got {_kind(value)}"
    if kind in ("list_type", "tuple_type"):
        return f"expected a list, got {_kind(value)}"
    if kind == "string_type":
        return f"expected a string, got {_kind(value)}"
    if kind == "string_too_short":
        return "must not be empty"
    if kind == "too_short":
        return "must not be empty" if name != "sources" else "list at least one source"
    if kind.startswith("date_"):
        return f"{_kind(value)} is not a date; write it as YYYY-MM-DD, e.g. 2026-12-01"
    if kind == "string_pattern_mismatch" and name == "url":
        return f"{value!r} is not an http(s) URL"
    return fallback


def _kind(value: object) -> str:
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"the boolean {value}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    return f"a {type(value).__name__}"


def _position(root: object, loc: _Loc, anchor: _Anchor) -> tuple[int, int]:
    """1-based (line, col) for `loc` in the round-trip YAML tree.

    Walks as far as the path exists. The last element found gives the position: its key for
    `anchor="key"`, for a mapping or list value, or for an empty value; otherwise its value.
    A path that stops early (a missing key) points at the deepest key that exists.
    """
    line, col = _start(root)
    node = root
    for index, part in enumerate(loc):
        last = index == len(loc) - 1
        owner = _owner(node, part) if isinstance(node, CommentedMap) else None
        if owner is not None:
            lc = _lc(owner)
            child = _child(node, part)
            if last and not (
                anchor == "key" or child is None or isinstance(child, CommentedMap | CommentedSeq)
            ):
                value_line, value_col = lc.value(part)
                return int(value_line) + 1, int(value_col) + 1
            key_line, key_col = lc.key(part)
            line, col, node = int(key_line), int(key_col), child
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and 0 <= part < len(node):
            item_line, item_col = _lc(node).item(part)
            line, col = int(item_line), int(item_col)
            node = _child(node, part)
        else:
            break
    return line + 1, col + 1


def _child(node: Any, part: object) -> object:
    """`node[part]` of a round-trip node (untyped in ruamel.yaml)."""
    return node[part]


def _lc(node: CommentedMap | CommentedSeq) -> Any:
    """The node's line/column record (untyped in ruamel.yaml)."""
    untyped: Any = node
    return untyped.lc


def _owner(node: CommentedMap, key: object) -> CommentedMap | None:
    """The mapping that writes `key` for `node`: the node itself, or a mapping merged into it
    with `<<: *anchor` (searched in merge order, as YAML resolves them); None if neither."""
    try:
        if key not in node:
            return None
        if key in _lc(node).data:
            return node
    except TypeError:  # an unhashable key
        return None
    merged: Any = node
    for source in merged.merge:  # the mappings merged in, in order (untyped in ruamel.yaml)
        if isinstance(source, CommentedMap):
            found = _owner(source, key)
            if found is not None:
                return found
    return None


def _start(node: object) -> tuple[int, int]:
    if isinstance(node, CommentedMap | CommentedSeq):
        lc = _lc(node)
        if lc.line is not None:
            return int(lc.line), int(lc.col or 0)
    return 0, 0
