"""Results files: the records the pytest plugin writes, strict loading, and merging shards.

A results file is JSON Lines: one `meta` line (suite version, matrix and its digest, every
target with its version, Python, date), one `result` line per cell and check, and an `end`
line that counts the results. Loading is strict: every line must be a valid record, and a
file without its `end` line, or with a wrong count, is taken as truncated.

A file names the run that wrote it (`MetaLine.run`: id, start, command) and its end line says
how that run ended (`EndLine.status`, `exit_status`, `end`; `conformance.running.runlog` writes
them). Only a `complete` run is read: a file whose run was interrupted, stopped early or crashed, or
that holds the meta line alone (a run killed, or still running), is refused with the reason, so no
report, merge or diff is ever made from it. Files written before runs were tracked have neither
field and load as before.

Several files are shards of one run (CI jobs, xdist workers) when they agree on the suite
version, the matrix digest, the Python version and every target's version, and no target,
cell and check appears twice. `merge_results` joins such shards into one file. Problems are
collected, one line each, naming the file, the line and the cell.
"""

from __future__ import annotations

import json
import os
from datetime import date as Date
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from conformance.history import ContentType
from conformance.judging.levels import CHECK_LEVELS, PROPERTY_LEVELS, Level
from conformance.matrix.vocabulary import Expectation, Outcome, UrlHandling
from conformance.running.runlog import RunStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "CellStatus",
    "DeviationsRef",
    "EndLine",
    "Expect",
    "Known",
    "Live",
    "MetaLine",
    "Outcome",
    "PropertyLine",
    "ReportError",
    "ResultLine",
    "Results",
    "ResultsFile",
    "RowLifecycle",
    "RunInfo",
    "RunStatus",
    "Source",
    "Style",
    "Verdict",
    "check_shards",
    "construct_trusted",
    "load_results",
    "merge_results",
    "targets_of",
]

Verdict = Literal["pass", "fail", "xfail", "xpass", "skip"]
Expect = Expectation
Known = Literal["doc", "sdk", "third-party", "uncertain"]
Source = Literal["inline", "url"]
Style = Literal["result", "prompt", "error"]
CellStatus = Literal["pass", "fail", "xfail", "skip"]
"""A cell's status: `fail` if any check failed or xpassed, else `xfail` if any check is a
known deviation, else `skip` if any check was skipped (a skip counts against compliance),
else `pass`."""

_Name = Annotated[str, Field(min_length=1)]
_MAX_PROBLEMS = 20
"""At most this many problems are reported one by one; a last line counts the rest."""


class ReportError(ValueError):
    """Results files cannot be read or are inconsistent; one line per problem, saying where."""

    def __init__(self, *problems: str) -> None:
        shown = list(problems[:_MAX_PROBLEMS])
        if len(problems) > _MAX_PROBLEMS:
            shown.append(f"... and {len(problems) - _MAX_PROBLEMS} more problems")
        super().__init__("\n".join(shown))
        self.problems: tuple[str, ...] = problems


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RowLifecycle(_Model):
    """A model row's lifecycle dates, as the matrix the run used declares them."""

    released: Date
    deprecated: Date | None = None
    shutdown: Date | None = None


class RunInfo(_Model):
    """Which run wrote a results file: its id, when it started and the command line."""

    id: _Name
    start: AwareDatetime
    command: list[str]


class DeviationsRef(_Model):
    """A target's deviations file, as a run used it."""

    path: _Name
    digest: _Name


class MetaLine(_Model):
    kind: Literal["meta"]
    suite_version: _Name
    matrix: _Name
    matrix_digest: _Name
    targets: dict[_Name, _Name]
    """Target name -> version, for every target the run covered."""
    sdk_versions: dict[_Name, dict[_Name, _Name]] = {}
    """Target name -> distribution -> version of the SDKs it drives (its `sdk_versions`)."""
    python: _Name
    date: AwareDatetime
    as_of: Date | None = None
    """The matrix's `as_of`; absent in files written before the matrix had one."""
    lifecycle: dict[_Name, RowLifecycle] = Field(default_factory=dict[str, RowLifecycle])
    """Per model row, its lifecycle dates; empty in files written before rows had them."""
    run: RunInfo | None = None
    """The run that wrote the file (absent in files older than run tracking, and in a file
    `merge_results` wrote: `merged_from` names its runs)."""
    merged_from: list[str] = Field(default_factory=list[str])
    """The run ids of the shards a merged file joins."""
    deviations: dict[_Name, DeviationsRef] = Field(default_factory=dict)
    """Per target, the deviations file the run judged it with (absent in older files)."""
    layers: dict[_Name, dict[_Name, list[tuple[_Name, _Name]]]] = Field(default_factory=dict)
    """Per target, per row it serves through other layers, those layers' (name, version),
    outermost first (its optional `layers`; absent where none)."""


class Live(_Model):
    """Whether a live API accepted the cell's request, and when it was recorded."""

    accepted: bool
    date: Date


class ResultLine(_Model):
    kind: Literal["result"]
    target: _Name
    target_version: _Name
    cell: _Name
    row: _Name
    api: _Name
    model: _Name
    content_type: ContentType
    source: Source
    style: Style
    expect: Expect
    known: Known
    cite: _Name
    check: _Name
    verdict: Verdict
    outcome: Outcome | None
    detail: str
    reason: str | None
    link: str | None
    level: Annotated[Level | None, Field(validate_default=True)] = None
    """The check's level (`conformance.judging.levels`); files written before levels have none, and
    loading fills it in from the check's name."""
    url: UrlHandling | None = None
    """For url cells: what the target did with the URL; absent elsewhere."""
    notes: str | None = None
    """Our own notes on a known deviation (absent in older files)."""
    live: Live | None = None
    """Optional: what a live API said to this cell's request; absent when none was recorded."""

    @field_validator("level")
    @classmethod
    def _default_level(cls, level: Level | None, info: ValidationInfo) -> Level | None:
        return _with_level(level, info, CHECK_LEVELS)

    @model_validator(mode="after")
    def _consistent(self) -> ResultLine:
        if not self.row.startswith(f"{self.api}/"):
            raise ValueError(f"row {self.row!r} is not of api {self.api!r}")
        cell = f"{self.row}/{self.content_type}/{self.source}/{self.style}"
        if self.cell != cell:
            raise ValueError(f"cell {self.cell!r} is not row/content_type/source/style {cell}")
        if self.verdict == "xfail" and not self.reason:
            raise ValueError("an xfail needs a reason")
        if self.verdict == "skip" and not self.detail:
            raise ValueError("a skip needs a detail saying why")
        return self


class PropertyLine(_Model):
    """The verdict of one hypothesis property (`conformance.judging.properties`) on one target.

    A results line of kind `result` like a cell's, told apart by its `property` field. Its
    `cell` is `property/<name>` and its `check` the property's name, so that tools reading
    results by target, cell and check (the nox session's gate, `merge`) need nothing new; a
    deviation declares a known failure with `cell: property/<name>, checks: [<name>]`.
    """

    kind: Literal["result"]
    target: _Name
    target_version: _Name
    cell: _Name
    property: _Name
    check: _Name
    level: Annotated[Level | None, Field(validate_default=True)] = None
    """Filled in from `conformance.judging.levels.PROPERTY_LEVELS` when absent."""
    verdict: Verdict
    row: str | None = None
    """The model row of the counterexample, when the property failed."""
    examples: int = Field(ge=0)
    """How many histories the search tried (explicit examples included)."""
    detail: str
    """For a failure: what broke, and the shrunk counterexample."""
    reason: str | None
    link: str | None

    @field_validator("level")
    @classmethod
    def _default_level(cls, level: Level | None, info: ValidationInfo) -> Level | None:
        return _with_level(level, info, PROPERTY_LEVELS)

    @model_validator(mode="after")
    def _consistent(self) -> PropertyLine:
        if self.cell != f"property/{self.property}" or self.check != self.property:
            raise ValueError(
                f"a property line's cell is property/<name> and its check the name; got cell"
                f" {self.cell!r}, check {self.check!r} for property {self.property!r}"
            )
        if self.verdict == "xfail" and not self.reason:
            raise ValueError("an xfail needs a reason")
        if self.verdict in ("fail", "xfail") and not self.detail:
            raise ValueError("a failure needs a detail with its counterexample")
        if self.verdict == "skip" and not self.detail:
            raise ValueError("a skip needs a detail saying why")
        return self


def _with_level(
    level: Level | None, info: ValidationInfo, levels: dict[str, Level]
) -> Level | None:
    """A record without `level` gets its check's level; an unknown check must carry one.

    A field validator on `level` (declared after `check`, and validated even when absent), not
    a model validator before: that one made pydantic build every JSON line as a Python dict
    first, doubling the load of a results file (docs/performance.md)."""
    if level is not None:
        return level
    check = info.data.get("check")
    if check is None:  # `check` itself is invalid, and reported as such
        return None
    if check in levels:
        return levels[check]
    raise ValueError(f"check {check!r} has no level in conformance.judging.levels; give `level`")


class EndLine(_Model):
    kind: Literal["end"]
    results: int = Field(ge=0)
    status: RunStatus = "complete"
    """How the run ended; only a `complete` run's file is read as results (files older than
    run tracking have no status and were written only by finished runs)."""
    exit_status: int | None = None
    run: str | None = None
    """The id of the run, as on the meta line."""
    end: AwareDatetime | None = None


def _kind(data: Any) -> str | None:
    """Which model a line is: its `kind`, and among results, a property's or a cell's."""
    if isinstance(data, dict):
        record = cast("dict[str, Any]", data)
        kind = record.get("kind")
        if kind == "result" and "property" in record:
            return "property"
        return kind if isinstance(kind, str) else None
    return None


_Line = MetaLine | ResultLine | PropertyLine | EndLine
_LINE: TypeAdapter[_Line] = TypeAdapter(
    Annotated[
        Annotated[MetaLine, Tag("meta")]
        | Annotated[ResultLine, Tag("result")]
        | Annotated[PropertyLine, Tag("property")]
        | Annotated[EndLine, Tag("end")],
        Discriminator(_kind),
    ]
)


class ResultsFile(_Model):
    path: str
    meta: MetaLine
    results: list[ResultLine]
    """The cells' lines, in file order."""
    properties: list[PropertyLine] = Field(default_factory=list[PropertyLine])
    """The properties' lines, in file order (files before properties gated have none)."""


class Results(_Model):
    files: list[ResultsFile] = Field(min_length=1)


# ---- loading ----------------------------------------------------------------------------


def load_results(
    paths: Sequence[str | os.PathLike[str]], *, known: dict[bytes, ResultLine] | None = None
) -> Results:
    """Read results files strictly; several files must be shards of one run.

    `known`, when given, holds the cell lines read so far, by their exact bytes, and gets
    this call's: a line byte for byte the same as one validated already is that line's model,
    checked only against its file's meta line (`conformance diff` reads two files that share
    most of their lines). Nothing outlives the dict the caller passes."""
    if not paths:
        raise ReportError("no results files given")
    files: list[ResultsFile] = []
    problems: list[str] = []
    seen: set[str] = set()
    for path in paths:
        real = os.path.realpath(path)
        if real in seen:
            problems.append(f"{os.fspath(path)}: given more than once")
            continue
        seen.add(real)
        try:
            files.append(_load_file(os.fspath(path), known))
        except ReportError as error:
            problems += error.problems
    if files:
        try:
            check_shards(Results(files=files))
        except ReportError as error:
            problems += error.problems
    if problems:
        raise ReportError(*problems)
    return Results(files=files)


def _load_file(path: str, known: dict[bytes, ResultLine] | None) -> ResultsFile:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    if not data.isascii():  # an ASCII file is UTF-8; any other is decoded once to check it
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ReportError(f"{path}: not UTF-8: {error.reason} at byte {error.start}") from None
    lines = data.split(b"\n")  # a newline byte is never part of another UTF-8 character
    del data
    cut = lines[-1] != b""  # the last line lacks its newline
    if not cut:
        lines.pop()
    if not lines:
        raise ReportError(f"{path}: the file is empty; it looks truncated")
    total = len(lines)
    lines.reverse()  # read by popping, so that a line's bytes are freed once it is read

    def parse(raw: bytes, number: int) -> _Line:
        return _parse(raw.decode("utf-8"), f"{path}:{number}", cut=cut and number == total)

    meta = parse(lines.pop(), 1)
    if not isinstance(meta, MetaLine):
        raise ReportError(f"{path}:1: the first line must be the meta line, not {meta.kind!r}")
    properties: list[PropertyLine] = []
    fast = _FastResults(meta.targets, known)
    results = fast.leading(lines)  # the cell lines, up to the first it does not accept
    for number in range(len(results) + 2, total + 1):
        raw = lines.pop()
        line = fast.line(raw) or parse(raw, number)
        if isinstance(line, MetaLine):
            raise ReportError(f"{path}:{number}: a second meta line")
        if isinstance(line, EndLine):
            if number != total:
                raise ReportError(f"{path}:{number + 1}: a line after the end line")
            _check_end(path, number, meta, line)
            count = len(results) + len(properties)
            if line.results != count:
                raise ReportError(
                    f"{path}:{number}: the end line counts {line.results} results but the file"
                    f" has {count}; the file looks truncated"
                )
            # Every part is validated already: constructing the file would validate each of
            # its lines once more (docs/performance.md).
            return ResultsFile.model_construct(
                path=path, meta=meta, results=results, properties=properties
            )
        declared = meta.targets.get(line.target)
        if declared != line.target_version:
            raise ReportError(
                f"{path}:{number}: target {line.target!r} {line.target_version!r} is not"
                f" declared in the meta line's targets {meta.targets!r}"
            )
        if isinstance(line, PropertyLine):
            properties.append(line)
        elif properties:
            raise ReportError(
                f"{path}:{number}: a cell's result after a property's; property lines follow"
                " every cell line"
            )
        else:
            results.append(line)
    if meta.run is not None:
        raise ReportError(
            f"{path}: run {meta.run.id} (started {meta.run.start.isoformat()},"
            f" `{' '.join(meta.run.command)}`) never finished: it was killed, crashed or is still"
            " running; its results are incomplete, run it again"
        )
    raise ReportError(f"{path}: no end line after line {total}; the file looks truncated")


_STATUS_WORDS: dict[str, str] = {
    "interrupted": "was interrupted (Ctrl-C, KeyboardInterrupt or pytest.exit)",
    "incomplete": "stopped before every selected test ran (-x, --maxfail or a stop)",
    "crashed": "crashed (pytest internal error)",
}


def _check_end(path: str, number: int, meta: MetaLine, end: EndLine) -> None:
    """Only a run that finished normally is read as results."""
    if meta.run is not None and end.run is not None and end.run != meta.run.id:
        raise ReportError(
            f"{path}:{number}: the end line is of run {end.run}, the meta line of run"
            f" {meta.run.id}: two runs wrote this file"
        )
    if end.status != "complete":
        run = f"run {meta.run.id}" if meta.run is not None else "the run"
        raise ReportError(
            f"{path}:{number}: {run} {_STATUS_WORDS[end.status]}, exit status"
            f" {end.exit_status}; its results are incomplete and not a report: run it again"
        )


def _parse(raw: str, where: str, *, cut: bool) -> _Line:
    if not raw.strip():
        raise ReportError(f"{where}: an empty line")
    try:
        return _LINE.validate_json(raw)
    except ValidationError as error:
        errors = error.errors(include_url=False)
        if errors[0]["type"] == "json_invalid":
            hint = "; the file looks truncated" if cut else ""
            raise ReportError(f"{where}: not valid JSON ({errors[0]['msg']}){hint}") from None
        problems = "; ".join(_describe(e["loc"], e["msg"], e["input"]) for e in errors)
        raise ReportError(f"{where}: not a valid record: {problems}") from None


def _describe(loc: tuple[int | str, ...], msg: str, value: Any) -> str:
    field = ".".join(str(part) for part in loc[1:])  # loc[0] is the `kind` tag
    got = f" (got {value!r})" if isinstance(value, str | int | float | bool) else ""
    return f"{field}: {msg}{got}" if field else f"{msg}{got}"


# ---- the fast path for cell lines -------------------------------------------------------
#
# Validating each of 100,000 cell lines as a `ResultLine` calls two Python validators per
# line from pydantic's Rust core (the level default, the rules across fields), and those
# calls were most of `conformance report`'s load (docs/performance.md). So a cell line is
# first validated as `_CellFields`, a model with `ResultLine`'s fields and their rules made
# from its own field definitions (so the two cannot drift), but without its Python
# validators; the rules across fields are then checked here, once per distinct cell, and the
# `ResultLine` is assembled from the values without validating them again. A line this path
# does not accept outright (a meta, end or property line, any error) goes through `_parse`,
# the validating path, which accepts it or refuses it with the same located message as
# before. tests/test_results_fast.py pins that both paths give equal models and refuse the
# same lines.

_M = TypeVar("_M", bound=BaseModel)
_setattr = object.__setattr__


def construct_trusted(cls: type[_M], values: dict[str, Any], fields_set: set[str]) -> _M:
    """A model from values that are valid already, in the order of its fields, every field
    given: what `BaseModel.model_construct(_fields_set=...)` does, without its per-field loop.

    `fields_set` is used as it is (as `model_construct` does) and may be shared by many
    models: they are frozen, and pydantic copies it before changing a copy (`model_copy`).
    Only for frozen models without private attributes or `model_post_init` (the tests check
    each model it assembles)."""
    model = cls.__new__(cls)
    _setattr(model, "__dict__", values)
    _setattr(model, "__pydantic_fields_set__", fields_set)
    _setattr(model, "__pydantic_extra__", None)
    _setattr(model, "__pydantic_private__", None)
    return model


_CELL_FIELDS: dict[str, Any] = {
    name: (info.annotation, info) for name, info in ResultLine.model_fields.items()
}
_CellFields: type[BaseModel] = create_model("_CellFields", __base__=_Model, **_CELL_FIELDS)
"""`ResultLine`'s fields, each with its own rules, and no rule across fields."""
_validate_cell_fields: Callable[[bytes], BaseModel] = (
    _CellFields.__pydantic_validator__.validate_json
)
if [n for n, info in ResultLine.model_fields.items() if not info.is_required()] != [
    "level",
    "url",
    "notes",
    "live",
]:
    raise AssertionError("_FastResults.line shares fields sets by these optional fields")


class _FastResults:
    """Turns cell lines into `ResultLine` models, or says "validate this one"."""

    def __init__(self, targets: dict[str, str], known: dict[bytes, ResultLine] | None) -> None:
        self.targets = targets
        """The meta line's: a line of another target goes the validating path, to its error."""
        self.known = known
        """Lines read already (of another file, for `load_results(known=...)`), by bytes;
        None: none kept (each line's bytes are freed once read)."""
        self.cells: set[tuple[str, ...]] = set()
        self.fields_sets: dict[tuple[bool, ...], set[str]] = {}

    def leading(self, unread: list[bytes]) -> list[ResultLine]:
        """The models of the next lines (the last of `unread` first), up to the first this
        path does not accept; the lines it reads are taken off `unread`."""
        models: list[ResultLine] = []
        line = self.line
        while unread:
            model = line(unread[-1])
            if model is None:
                break
            unread.pop()
            models.append(model)
        return models

    def line(self, raw: bytes) -> ResultLine | None:
        """The line's model, or None when only the validating path may judge it."""
        if self.known is not None and (model := self.known.get(raw)) is not None:
            if self.targets.get(model.target) != model.target_version:
                return None
            return model
        try:
            fields = _validate_cell_fields(raw)
        except ValidationError:
            return None
        values = cast("dict[str, Any]", fields.__dict__)
        target, version = values["target"], values["target_version"]
        cell, row, api = values["cell"], values["row"], values["api"]
        key = (
            target,
            version,
            cell,
            row,
            api,
            values["content_type"],
            values["source"],
            values["style"],
        )
        if key not in self.cells:  # once per target and cell: declared, and of its cell
            if self.targets.get(target) != version or not row.startswith(f"{api}/"):
                return None
            if cell != "/".join(key[3:4] + key[5:]):  # ResultLine._consistent
                return None
            self.cells.add(key)
        verdict = values["verdict"]  # ... and on its verdict
        if (verdict == "xfail" and not values["reason"]) or (
            verdict == "skip" and not values["detail"]
        ):
            return None
        if values["level"] is None:  # ResultLine._default_level
            level = CHECK_LEVELS.get(values["check"])
            if level is None:
                return None
            values["level"] = level
        given = fields.model_fields_set
        key = ("level" in given, "url" in given, "notes" in given, "live" in given)
        shared = self.fields_sets.setdefault(key, given)  # one set per kind of line
        model = construct_trusted(ResultLine, values, shared)
        if self.known is not None:
            self.known[raw] = model
        return model


# ---- shards -----------------------------------------------------------------------------


def check_shards(results: Results) -> None:
    """Shards of one run must agree, and no target, cell and check may appear twice."""
    first = results.files[0]
    problems: list[str] = []
    versions: dict[str, tuple[str, str]] = {}
    deviations: dict[str, tuple[str, str]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    for file in results.files:
        for name in ("suite_version", "matrix_digest", "python"):
            mine, theirs = getattr(file.meta, name), getattr(first.meta, name)
            if mine != theirs:
                problems.append(
                    f"{file.path}:1: {name} {mine!r} differs from {theirs!r} in {first.path}"
                )
        for target, version in file.meta.targets.items():
            known, where = versions.setdefault(target, (version, file.path))
            if known != version:
                problems.append(
                    f"{file.path}:1: target {target!r} is version {version!r} here"
                    f" but {known!r} in {where}"
                )
        for target, ref in file.meta.deviations.items():
            known_ref, where = deviations.setdefault(target, (ref.digest, file.path))
            if known_ref != ref.digest:
                problems.append(
                    f"{file.path}:1: target {target!r} was judged with deviations {ref.digest}"
                    f" here but {known_ref} in {where}"
                )
    keys: list[list[tuple[str, str, str]]] = [
        list(map(_identity, [*file.results, *file.properties])) for file in results.files
    ]
    unique = set[tuple[str, str, str]]().union(*keys)
    if sum(map(len, keys)) != len(unique):  # a duplicate: say where, in file order
        for file, of_file in zip(results.files, keys, strict=True):
            for index, key in enumerate(of_file):
                here = f"{file.path}:{index + 2}"
                if key in seen:
                    target, cell, check = key
                    problems.append(
                        f"{here}: duplicate result for target {target!r}, cell {cell!r},"
                        f" check {check!r} (first at {seen[key]})"
                    )
                else:
                    seen[key] = here
    if problems:
        raise ReportError(*problems)


_identity = attrgetter("target", "cell", "check")
"""A result's key: no two results of one run have the same."""


def targets_of(results: Results) -> dict[str, str]:
    """Every target with its version, in the order the meta lines declare them."""
    targets: dict[str, str] = {}
    for file in results.files:
        for name, version in file.meta.targets.items():
            targets.setdefault(name, version)
    return targets


def merge_results(results: Results) -> str:
    """One results file from shards: one meta line (targets unioned, the latest date), every
    result in shard order, and one end line."""
    check_shards(results)
    first = results.files[0].meta
    meta = first.model_dump(
        mode="json", exclude={"as_of", "lifecycle", "run", "merged_from", "sdk_versions"}
    ) | {
        "targets": targets_of(results),
        "deviations": {
            name: ref.model_dump(mode="json")
            for file in results.files
            for name, ref in file.meta.deviations.items()
        },
        "date": max(file.meta.date for file in results.files).isoformat(),
    }
    if first.as_of is not None:  # written as the plugin writes it: only where the matrix has it
        meta["as_of"] = first.as_of.isoformat()
    if first.lifecycle:
        meta["lifecycle"] = {
            row: lifecycle.model_dump(mode="json", exclude_none=True)
            for row, lifecycle in first.lifecycle.items()
        }
    runs = [
        run
        for file in results.files
        for run in ([file.meta.run.id] if file.meta.run else file.meta.merged_from)
    ]
    if runs:
        meta["merged_from"] = runs
    sdks = {name: v for file in results.files for name, v in file.meta.sdk_versions.items()}
    if sdks:
        meta["sdk_versions"] = sdks
    lines: list[dict[str, Any]] = [meta]
    count = 0
    for file in results.files:
        for line in file.results:
            lines.append(_result_record(line))
            count += 1
    for file in results.files:  # property lines follow every cell line
        for prop in file.properties:
            lines.append(_property_record(prop))
            count += 1
    lines.append({"kind": "end", "results": count})
    return "".join(_json_line(line) + "\n" for line in lines)


_json_line = json.JSONEncoder(ensure_ascii=False).encode
"""`json.dumps(record, ensure_ascii=False)`, without building an encoder per record."""


def _result_record(line: ResultLine) -> dict[str, Any]:
    """A cell line as the plugin writes it: `level`, `url`, `notes` and `live` only when set.

    Without `live`, every field is a string or null, so the fields in their order (the
    model's `__dict__`) are the line's JSON form, as `model_dump(mode="json")` gives it
    (tests/test_results_fast.py pins it) without a pass of pydantic's serializer per line."""
    record = line.model_dump(mode="json") if line.live is not None else dict(line.__dict__)
    for optional in ("live", "level", "url", "notes"):
        if record[optional] is None:
            del record[optional]
    return record


def _property_record(line: PropertyLine) -> dict[str, Any]:
    """A property line as the plugin writes it: `row` only for a counterexample."""
    record = line.model_dump(mode="json")
    if line.row is None:
        del record["row"]
    return record
