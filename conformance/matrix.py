"""The capability matrix: what each model row's api allows, per content type, source and style.

`matrix.yaml` is the suite's independent expectation. Each cell (model row x content type x
source x style) says whether the api carries that media natively in the tool-result block,
only as fallback user content, or not at all, with a citation saying how we know. The
reference mappers never read it; they are checked against it.

`load_matrix` reads the file with ruamel.yaml (round-trip mode, which keeps every node's
position), validates it with the pydantic models below and reports every problem it finds as
`path:line:col: message`, 1-based, in one `MatrixError`. Anchors and aliases (`&name`, `*name`)
and merge keys (`<<: *name`) may be used to share cells; a problem in a shared cell is reported
once, where its anchor defines it.

Each row also declares `error_result`: what the api does with a tool result whose status is
error, a native error flag or the error text as it is (`Matrix.error_cells()`).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NamedTuple, cast, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning

from conformance.history import ContentType

__all__ = [
    "CONTENT_TYPES",
    "ERROR_EXPECTATIONS",
    "EXPECTATIONS",
    "ID_PATTERN",
    "KNOWN",
    "OUTCOMES",
    "ROW_API_NAMES",
    "ROW_ID_PATTERN",
    "SOURCES",
    "STYLES",
    "TARGET_PATTERN",
    "URL_PATTERN",
    "Api",
    "Cell",
    "CellSpec",
    "CellStyle",
    "Citation",
    "ContentType",
    "Deviation",
    "ErrorCell",
    "ErrorExpectation",
    "Expectation",
    "Known",
    "LocatedError",
    "Matrix",
    "MatrixError",
    "Outcome",
    "Row",
    "RowCells",
    "Source",
    "Style",
    "Styles",
    "json_schema",
    "load_matrix",
]

# --- vocabulary ----------------------------------------------------------------------------

Api = Literal[
    "openai-chat",
    "openai-responses",
    "anthropic",
    "gemini",
    "bedrock-converse",
    "mistral",
    "cohere",
    "groq",
    "xai",
    "huggingface",
]
"""One provider wire format; the first half of a row id."""
Source = Literal["inline", "url"]
"""How media is given: inline bytes or a URL."""
Style = Literal["result", "prompt"]
CellStyle = Literal["result", "prompt", "error"]
"""A cell's style: the two matrix styles, or `error` for a row's error-result cell."""
"""Where the tool puts media: in its return value, or as user content with provenance."""
Expectation = Literal["native", "fallback", "unsupported"]
"""What the api allows for a cell."""
ErrorExpectation = Literal["flag", "text"]
"""How the api carries a tool result with status error: a native error flag on the tool-result
block, or the error text as it is, with no flag."""
Outcome = Literal[
    "native",
    "fallback-marked",
    "fallback-unmarked",
    "raised",
    "dropped",
    "noted",
    "stringified",
    "altered",
]
"""What a target was observed to do with a cell."""
Known = Literal["doc", "sdk", "third-party", "uncertain"]
"""How an expectation is known: provider docs, official SDK types, third parties, or not yet."""

ROW_API_NAMES: Final[tuple[Api, ...]] = get_args(Api)
CONTENT_TYPES: Final[tuple[ContentType, ...]] = get_args(ContentType)
SOURCES: Final[tuple[Source, ...]] = get_args(Source)
STYLES: Final[tuple[Style, ...]] = get_args(Style)
EXPECTATIONS: Final[tuple[Expectation, ...]] = get_args(Expectation)
ERROR_EXPECTATIONS: Final[tuple[ErrorExpectation, ...]] = get_args(ErrorExpectation)
OUTCOMES: Final[tuple[Outcome, ...]] = get_args(Outcome)
KNOWN: Final[tuple[Known, ...]] = get_args(Known)

_NAME = r"[a-z0-9][a-z0-9._-]*"
ID_PATTERN: Final = f"^{_NAME}$"
"""Citation ids and row families: they end up in test ids and file names."""
ROW_ID_PATTERN: Final = f"^(?:{'|'.join(re.escape(a) for a in ROW_API_NAMES)})/{_NAME}$"
_PY_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
TARGET_PATTERN: Final = f"^(?:{_NAME}|{_PY_NAME}(?:\\.{_PY_NAME})*:{_PY_NAME}(?:\\.{_PY_NAME})*)$"
"""A target: a registered name such as `reference` or `pydantic-ai`, or `module:attr`."""
URL_PATTERN: Final = r"^https?://\S+$"

_API_BY_NAME: Final[dict[str, Api]] = {api: api for api in ROW_API_NAMES}
_SKIP_CROSS_CHECKS: Final = "conformance.matrix.skip-cross-checks"
_SOURCE_DIGEST: Final = "conformance.matrix.source-digest"


def _rule(message: str) -> PydanticCustomError:
    """A validation error whose message is shown to the user as it is."""
    return PydanticCustomError("matrix_rule", "{message}", {"message": message})


def _check_row_id(row_id: str) -> str:
    api, sep, family = row_id.partition("/")
    if not sep or not family:
        raise _rule(f"row id {row_id!r} must be '<api>/<family>', e.g. 'openai-chat/gpt-4o'")
    if api not in _API_BY_NAME:
        raise _rule(
            f"unknown api {api!r} in row id; use one of: {', '.join(ROW_API_NAMES)}"
            + _did_you_mean(api, ROW_API_NAMES)
        )
    if not re.fullmatch(_NAME, family):
        raise _rule(
            f"bad family {family!r} in row id: use lowercase letters, digits, '.', '_' and '-',"
            " starting with a letter or digit"
        )
    return row_id


def _check_citation_id(cite_id: str) -> str:
    if not re.fullmatch(_NAME, cite_id):
        raise _rule(
            f"bad citation id {cite_id!r}: use lowercase letters, digits, '.', '_' and '-',"
            " starting with a letter or digit"
        )
    return cite_id


def _check_target(target: str) -> str:
    if not re.fullmatch(TARGET_PATTERN, target):
        raise _rule(
            f"bad target name {target!r}: use a registered name such as 'reference' or"
            " 'pydantic-ai' (lowercase letters, digits, '.', '_', '-') or 'module:attr'"
        )
    return target


RowId = Annotated[str, AfterValidator(_check_row_id)]
CitationId = Annotated[str, AfterValidator(_check_citation_id)]
TargetName = Annotated[str, AfterValidator(_check_target)]
_Text = Annotated[str, Field(min_length=1)]


# --- the file's models ---------------------------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Citation(_Frozen):
    """Where an expectation comes from, and what that source says."""

    url: Annotated[str, Field(pattern=URL_PATTERN)]
    says: _Text


class Cell(_Frozen):
    """One declared expectation."""

    expect: Expectation
    known: Known
    cite: _Text
    """The id of an entry under `citations`."""
    note: str | None = None


class ErrorCell(_Frozen):
    """How the api carries a tool result whose status is error."""

    expect: ErrorExpectation
    known: Known
    cite: _Text
    """The id of an entry under `citations`."""
    note: str | None = None


class Styles(_Frozen):
    """Both styles of one content type and source; neither may be left out."""

    result: Cell
    prompt: Cell

    def get(self, style: Style) -> Cell:
        return self.result if style == "result" else self.prompt


class RowCells(_Frozen):
    """All five content types of a row, each declaring every listed source."""

    text: dict[Source, Styles]
    image: dict[Source, Styles]
    document: dict[Source, Styles]
    audio: dict[Source, Styles]
    video: dict[Source, Styles]

    def get(self, content_type: ContentType) -> dict[Source, Styles]:
        return {
            "text": self.text,
            "image": self.image,
            "document": self.document,
            "audio": self.audio,
            "video": self.video,
        }[content_type]


class Row(_Frozen):
    """A model row: an api plus a model family, and the concrete model a request names."""

    model: _Text
    note: str | None = None
    error_result: ErrorCell
    """What a tool result with status error becomes on this api."""
    cells: RowCells


class Deviation(_Frozen):
    """A known way in which a target differs from the matrix for one cell."""

    cell: _Text
    """A cell id, `<api>/<family>/<content type>/<source>/<style>`."""
    outcome: Outcome
    reason: _Text
    link: _Text
    """An upstream issue or our own note."""


@dataclass(frozen=True)
class CellSpec:
    """One cell of the matrix, flattened, as the suite parametrizes over it.

    `note` is the cell's own note; the row's note is `Matrix.row(row_id).note`. A row's error
    result is a cell too: text, inline, style `error`, expected native, with `error` saying
    whether the api flags it (`flag`) or carries the text alone (`text`).
    """

    row_id: str
    api: Api
    family: str
    model: str
    content_type: ContentType
    source: Source
    style: CellStyle
    expect: Expectation
    known: Known
    cite: Citation
    cite_id: str
    note: str | None
    error: ErrorExpectation | None = None

    @property
    def id(self) -> str:
        return f"{self.row_id}/{self.content_type}/{self.source}/{self.style}"


class Matrix(_Frozen):
    """The whole of matrix.yaml."""

    version: Literal[1]
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]
    """The sources every row declares, in the order cells are listed."""
    citations: dict[CitationId, Citation]
    rows: Annotated[dict[RowId, Row], Field(min_length=1)]
    deviations: dict[TargetName, tuple[Deviation, ...]] = Field(default_factory=dict)
    """Per target, its known deviations; optional."""

    _source_digest: str | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        """Equal content is equal, whatever file (and so digest) it was loaded from."""
        if not isinstance(other, Matrix):
            return NotImplemented
        return self.__dict__ == other.__dict__

    @model_validator(mode="after")
    def _check_references(self, info: ValidationInfo) -> Matrix:
        context = _as_mapping(info.context) or {}
        digest = context.get(_SOURCE_DIGEST)
        if isinstance(digest, str):
            self._source_digest = digest
        if context.get(_SKIP_CROSS_CHECKS):
            return self  # load_matrix runs these checks itself, on the located YAML nodes
        problems = _cross_check(self.model_dump())
        if problems:
            raise ValueError("; ".join(f"{_dotted(p.loc)}: {p.message}" for p in problems))
        return self

    @property
    def digest(self) -> str:
        """`sha256:<hex>` of the file bytes this matrix was loaded from.

        For a matrix built in code it is the digest of its JSON dump (`model_dump_json()`).
        Not part of equality: the same content loaded from different bytes is equal.
        """
        if self._source_digest is not None:
            return self._source_digest
        return "sha256:" + hashlib.sha256(self.model_dump_json().encode()).hexdigest()

    def row(self, row_id: str) -> Row:
        try:
            return self.rows[row_id]
        except KeyError:
            raise KeyError(
                f"no row {row_id!r} in the matrix; rows are: {', '.join(self.rows)}"
            ) from None

    def cells(self) -> list[CellSpec]:
        """Every cell: rows in file order, then content type, source and style in vocabulary
        order (text, image, document, audio, video; the order of `sources`; result, prompt)."""
        specs: list[CellSpec] = []
        for row_id, row in self.rows.items():
            api_name, _, family = row_id.partition("/")
            api = _API_BY_NAME[api_name]
            for content_type in CONTENT_TYPES:
                by_source = row.cells.get(content_type)
                for source in self.sources:
                    styles = by_source[source]
                    for style in STYLES:
                        cell = styles.get(style)
                        specs.append(
                            CellSpec(
                                row_id=row_id,
                                api=api,
                                family=family,
                                model=row.model,
                                content_type=content_type,
                                source=source,
                                style=style,
                                expect=cell.expect,
                                known=cell.known,
                                cite=self.citations[cell.cite],
                                cite_id=cell.cite,
                                note=cell.note,
                            )
                        )
        return specs

    def error_cells(self) -> list[CellSpec]:
        """Every row's error-result cell (`<row>/text/inline/error`), rows in file order."""
        specs: list[CellSpec] = []
        for row_id, row in self.rows.items():
            api_name, _, family = row_id.partition("/")
            cell = row.error_result
            specs.append(
                CellSpec(
                    row_id=row_id,
                    api=_API_BY_NAME[api_name],
                    family=family,
                    model=row.model,
                    content_type="text",
                    source="inline",
                    style="error",
                    expect="native",
                    known=cell.known,
                    cite=self.citations[cell.cite],
                    cite_id=cell.cite,
                    note=cell.note,
                    error=cell.expect,
                )
            )
        return specs

    def all_cells(self) -> list[CellSpec]:
        """The content cells, then the error-result cells: everything the suite tests."""
        return [*self.cells(), *self.error_cells()]

    def cell(self, cell_id: str) -> CellSpec:
        """The cell with this id; `KeyError` if there is none."""
        for spec in self.all_cells():
            if spec.id == cell_id:
                return spec
        raise KeyError(f"no cell {cell_id!r} in the matrix")

    def deviation(self, target: str, cell_id: str) -> Deviation | None:
        """The deviation a target declares for a cell, or None."""
        for deviation in self.deviations.get(target, ()):
            if deviation.cell == cell_id:
                return deviation
        return None

    def deviations_for(self, target: str) -> dict[str, Deviation]:
        """A target's declared deviations by cell id (empty if it declares none)."""
        return {d.cell: d for d in self.deviations.get(target, ())}


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
    return _parse(text, shown, "sha256:" + hashlib.sha256(raw).hexdigest())


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


# --- turning problems into messages and positions ------------------------------------------

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


class _Level(NamedTuple):
    noun: str  # what a key at this level is called
    keys: tuple[str, ...]  # the keys allowed here
    missing_hint: str  # said after "missing <noun> 'x'"


_LEVELS: Final[dict[str, _Level]] = {
    "top": _Level("key", tuple(Matrix.model_fields), ""),
    "row": _Level("key", tuple(Row.model_fields), " — a row needs model, error_result and cells"),
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
    "citation": _Level("key", tuple(Citation.model_fields), " — a citation needs url and says"),
    "deviation": _Level(
        "key", tuple(Deviation.model_fields), " — a deviation needs cell, outcome, reason and link"
    ),
}

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
        "deviations": (None, None, "deviation"),
    }
    if prefix[0] == "rows" and len(prefix) == 3 and prefix[2] == "error_result":
        return "error_result"
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


def _did_you_mean(word: object, options: Sequence[str]) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _dotted(loc: _Loc) -> str:
    """`rows.openai-chat/gpt-4o.cells`, with list items as `sources[0]`, `deviations.t[1]`."""
    out = ""
    for index, part in enumerate(loc):
        in_list = (loc[0], index) in (("sources", 1), ("deviations", 2))
        if in_list and isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


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


# --- checks across parts of the file -------------------------------------------------------


def _cross_check(data: object) -> list[_Problem]:
    """Checks that span parts of the file: citations, sources and deviations.

    Runs on plain or round-trip YAML data, also where its structure is broken, and checks
    what it can, so that these problems are reported together with structural ones.
    """
    problems: list[_Problem] = []
    top = _as_mapping(data)
    if top is None:
        return problems
    declared = _declared_sources(top.get("sources"), problems)
    citations = _as_mapping(top.get("citations"))
    cite_ids = None if citations is None else sorted(k for k in citations if isinstance(k, str))
    cell_ids: list[str] = []

    for row_id, row in _items(top.get("rows")):
        error_cite = _get(_get(row, "error_result"), "cite")
        if isinstance(error_cite, str) and error_cite and cite_ids is not None:
            problems.extend(_check_cite(error_cite, cite_ids, ("rows", row_id, "error_result")))
        for content_type, by_source in _items(_get(row, "cells")):
            sources = _as_mapping(by_source)
            if content_type not in CONTENT_TYPES or sources is None:
                continue
            ct_loc: _Loc = ("rows", row_id, "cells", content_type)
            for source in declared or ():
                if source not in sources:
                    problems.append(
                        _Problem(
                            ct_loc,
                            "key",
                            f"missing source {source!r} — every content type must declare each"
                            f" source listed in `sources` ({', '.join(declared or ())})",
                            ct_loc,
                        )
                    )
            for source, styles in _items(sources):
                if declared is not None and source in SOURCES and source not in declared:
                    problems.append(
                        _Problem(
                            (*ct_loc, source),
                            "key",
                            f"source {source!r} is not listed in the top-level `sources`"
                            f" ({', '.join(declared)}); add it there or remove this entry",
                            (*ct_loc, source),
                        )
                    )
                    continue
                for style, cell in _items(styles):
                    if style in STYLES:
                        cell_ids.append(f"{row_id}/{content_type}/{source}/{style}")
                    cite = _get(cell, "cite")
                    if isinstance(cite, str) and cite and cite_ids is not None:
                        problems.extend(_check_cite(cite, cite_ids, (*ct_loc, source, style)))

    for row_id, _row in _items(top.get("rows")):
        cell_ids.append(f"{row_id}/text/inline/error")
    known_cells = set(cell_ids)
    for target, deviations in _items(top.get("deviations")):
        first_index: dict[str, int] = {}
        for index, deviation in enumerate(_as_list(deviations) or ()):
            cell_id = _get(deviation, "cell")
            if not isinstance(cell_id, str) or not cell_id:
                continue
            cell_loc: _Loc = ("deviations", target, index, "cell")
            if cell_id not in known_cells:
                hint = _did_you_mean(cell_id, cell_ids) or (
                    "; a cell id is <api>/<family>/<content type>/<source>/<style>, e.g."
                    " 'openai-chat/gpt-4o/image/inline/result'"
                )
                problems.append(
                    _Problem(
                        cell_loc,
                        "value",
                        f"deviation for cell {cell_id!r}, which is not in the matrix{hint}",
                        cell_loc,
                    )
                )
            elif cell_id in first_index:
                problems.append(
                    _Problem(
                        cell_loc,
                        "value",
                        f"cell {cell_id!r} already has a deviation for this target"
                        f" (item {first_index[cell_id]}); give one per cell",
                        cell_loc,
                    )
                )
            else:
                first_index[cell_id] = index
    return problems


def _check_cite(cite: str, cite_ids: list[str], cell_loc: _Loc) -> list[_Problem]:
    if cite in cite_ids:
        return []
    loc: _Loc = (*cell_loc, "cite")
    message = (
        f"unknown citation {cite!r}; add it under `citations` (with url and says)"
        " or cite an existing one" + _did_you_mean(cite, cite_ids)
    )
    return [_Problem(loc, "value", message, loc)]


def _declared_sources(sources: object, problems: list[_Problem]) -> tuple[str, ...] | None:
    """The top-level `sources` if they are usable, reporting repeats; None if they are not."""
    items = _as_list(sources)
    if not items or not all(isinstance(s, str) and s in SOURCES for s in items):
        return None
    declared: list[str] = []
    for index, source in enumerate(items):
        if source in declared:
            loc: _Loc = ("sources", index)
            problems.append(_Problem(loc, "value", f"source {source!r} is listed twice", loc))
        else:
            declared.append(str(source))
    return tuple(declared)


def _as_mapping(node: object) -> Mapping[Any, object] | None:
    return cast("Mapping[Any, object]", node) if isinstance(node, Mapping) else None


def _as_list(node: object) -> list[object] | None:
    if isinstance(node, Sequence) and not isinstance(node, str | bytes):
        return list(cast("Sequence[object]", node))
    return None


def _items(node: object) -> list[tuple[Any, object]]:
    mapping = _as_mapping(node)
    return [] if mapping is None else list(mapping.items())


def _get(node: object, key: str) -> object:
    mapping = _as_mapping(node)
    return None if mapping is None else mapping.get(key)


# --- JSON Schema ---------------------------------------------------------------------------


def json_schema() -> dict[str, Any]:
    """The JSON Schema of matrix.yaml, for editors (yaml-language-server) and documentation.

    Generated from `Matrix`, with row ids, citation ids and target names given as
    `patternProperties` and each content type's sources as named properties, so that an
    editor can validate and complete keys.
    """
    schema = Matrix.model_json_schema()
    defs: dict[str, Any] = schema["$defs"]
    props: dict[str, Any] = schema["properties"]

    def keyed(prop: dict[str, Any], pattern: str) -> dict[str, Any]:
        value_schema = prop["additionalProperties"]
        out = {k: v for k, v in prop.items() if k not in ("additionalProperties", "propertyNames")}
        out["patternProperties"] = {pattern: value_schema}
        out["additionalProperties"] = False
        return out

    props["rows"] = keyed(props["rows"], ROW_ID_PATTERN)
    props["citations"] = keyed(props["citations"], ID_PATTERN)
    props["deviations"] = keyed(props["deviations"], TARGET_PATTERN)
    for content_type in CONTENT_TYPES:
        prop: dict[str, Any] = defs["RowCells"]["properties"][content_type]
        styles = prop["additionalProperties"]
        defs["RowCells"]["properties"][content_type] = {
            "title": prop.get("title", content_type.title()),
            "description": f"The {content_type} cells: one entry per source listed in `sources`.",
            "type": "object",
            "properties": dict.fromkeys(SOURCES, styles),
            "additionalProperties": False,
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tool-result-conformance capability matrix",
        **{k: v for k, v in schema.items() if k != "title"},
    }
