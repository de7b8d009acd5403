"""Results files: strict loading of the records the pytest plugin writes (`lines`), and merging
shards (`shards`).

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

import gzip
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import (
    BaseModel,
    ValidationError,
    create_model,
)
from pydantic_core import SchemaValidator

from conformance.judging.levels import CHECK_LEVELS
from conformance.matrix.vocabulary import Outcome
from conformance.running.status import RunStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pydantic_core import CoreSchema
from conformance.reports.lines import (
    LINE,
    CellStatus,
    DeviationsRef,
    EndLine,
    Expect,
    FrozenModel,
    Known,
    Line,
    Live,
    MetaLine,
    NotApplicable,
    Observed,
    PropertyLine,
    ReportError,
    ResultLine,
    Results,
    ResultsFile,
    RowLifecycle,
    RunInfo,
    Source,
    Style,
    Verdict,
    observed,
)
from conformance.reports.shards import check_shards, merge_results, targets_of

__all__ = [
    "CellStatus",
    "DeviationsRef",
    "EndLine",
    "Expect",
    "Known",
    "Live",
    "MetaLine",
    "NotApplicable",
    "Observed",
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
    "observed",
    "read_meta",
    "targets_of",
]

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
    loaded = Results.model_construct(files=files)  # each file validated as it was read
    if files:
        try:
            check_shards(loaded)  # ... and checked once, however many functions ask
        except ReportError as error:
            problems += error.problems
    if problems:
        raise ReportError(*problems)
    return loaded


def read_meta(path: str | os.PathLike[str]) -> MetaLine:
    """A results file's meta line alone (its first line), without reading the rest: what a
    tool choosing among files needs. `load_results` still judges the whole file."""
    where = os.fspath(path)
    try:
        opener = gzip.open if where.endswith(".gz") else open
        with opener(where, "rb") as lines:
            first = lines.readline()
    except (OSError, EOFError) as error:
        raise ReportError(f"{where}: cannot read: {error}") from None
    meta = _parse(first.decode("utf-8", errors="replace"), f"{where}:1", cut=False)
    if not isinstance(meta, MetaLine):
        raise ReportError(f"{where}:1: the first line must be the meta line, not {meta.kind!r}")
    return meta


def _load_file(path: str, known: dict[bytes, ResultLine] | None) -> ResultsFile:
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    if path.endswith(".gz"):  # the committed results folder keeps files compressed
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise ReportError(f"{path}: not a gzip file, or cut short: {error}") from None
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

    def parse(raw: bytes, number: int) -> Line:
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
    if end.golden:
        shown = "; ".join(end.golden[:3]) + (
            f"; and {len(end.golden) - 3} more" if len(end.golden) > 3 else ""
        )
        raise ReportError(
            f"{path}:{number}: the run found damaged golden data, so its results are not a"
            f" report: {shown}"
        )


def _parse(raw: str, where: str, *, cut: bool) -> Line:
    if not raw.strip():
        raise ReportError(f"{where}: an empty line")
    try:
        return LINE.validate_json(raw)
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
# validated with the schema of `_CellFields`, a model with `ResultLine`'s fields and their
# rules made from its own field definitions (so the two cannot drift), but without its Python
# validators, and that schema makes the `ResultLine` itself (pydantic-core fills in its
# `__dict__` as it would `_CellFields`'); the rules across fields are then checked here, once
# per distinct cell. A line this path
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
_CellFields: type[BaseModel] = create_model("_CellFields", __base__=FrozenModel, **_CELL_FIELDS)
"""`ResultLine`'s fields, each with its own rules, and no rule across fields."""
_validate_cell_fields: Callable[[bytes], ResultLine] = SchemaValidator(
    cast("CoreSchema", {**_CellFields.__pydantic_core_schema__, "cls": ResultLine})
).validate_json
"""A `ResultLine` from a cell line's bytes, by `_CellFields`' rules: no second model per line
to assemble it from (docs/performance.md)."""
if [n for n, info in ResultLine.model_fields.items() if not info.is_required()] != [
    "level",
    "url",
    "notes",
    "live",
    "na",
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
            model = _validate_cell_fields(raw)
        except ValidationError:
            return None
        values = cast("dict[str, Any]", model.__dict__)
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
        if (
            (verdict == "xfail" and not values["reason"])
            or (verdict == "skip" and not values["detail"])
            or (values["na"] is not None and verdict != "skip")
        ):
            return None
        if values["level"] is None:  # ResultLine._default_level
            level = CHECK_LEVELS.get(values["check"])
            if level is None:
                return None
            values["level"] = level
        given = model.__pydantic_fields_set__
        key = (
            "level" in given,
            "url" in given,
            "notes" in given,
            "live" in given,
            "na" in given,
        )
        # One set per kind of line, not one per line (a set of 20 names is 2 KiB).
        _setattr(model, "__pydantic_fields_set__", self.fields_sets.setdefault(key, given))
        if self.known is not None:
            self.known[raw] = model
        return model
