"""Results files: the records the pytest plugin writes, strict loading, and merging shards.

A results file is JSON Lines: one `meta` line (suite version, matrix and its digest, every
target with its version, Python, date), one `result` line per cell and check, and an `end`
line that counts the results. Loading is strict: every line must be a valid record, and a
file without its `end` line, or with a wrong count, is taken as truncated.

Several files are shards of one run (CI jobs, xdist workers) when they agree on the suite
version, the matrix digest, the Python version and every target's version, and no target,
cell and check appears twice. `merge_results` joins such shards into one file. Problems are
collected, one line each, naming the file, the line and the cell.
"""

from __future__ import annotations

import json
import os
from datetime import date as Date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from conformance.history import ContentType

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "CellStatus",
    "EndLine",
    "Expect",
    "Known",
    "Live",
    "MetaLine",
    "Outcome",
    "ReportError",
    "ResultLine",
    "Results",
    "ResultsFile",
    "Source",
    "Style",
    "Verdict",
    "check_shards",
    "load_results",
    "merge_results",
    "targets_of",
]

Verdict = Literal["pass", "fail", "xfail", "xpass", "skip"]
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
Expect = Literal["native", "fallback", "unsupported"]
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
    live: Live | None = None
    """Optional: what a live API said to this cell's request; absent when none was recorded."""

    @model_validator(mode="after")
    def _consistent(self) -> ResultLine:
        if not self.row.startswith(f"{self.api}/"):
            raise ValueError(f"row {self.row!r} is not of api {self.api!r}")
        cell = f"{self.row}/{self.content_type}/{self.source}/{self.style}"
        if self.cell != cell:
            raise ValueError(f"cell {self.cell!r} is not row/content_type/source/style {cell}")
        if self.verdict == "xfail" and not (self.reason and self.link):
            raise ValueError("an xfail needs a reason and a link")
        if self.verdict == "skip" and not self.detail:
            raise ValueError("a skip needs a detail saying why")
        return self


class EndLine(_Model):
    kind: Literal["end"]
    results: int = Field(ge=0)


_Line = MetaLine | ResultLine | EndLine
_LINE: TypeAdapter[_Line] = TypeAdapter(Annotated[_Line, Field(discriminator="kind")])


class ResultsFile(_Model):
    path: str
    meta: MetaLine
    results: list[ResultLine]
    """In file order: result `i` is on line `i + 2`."""


class Results(_Model):
    files: list[ResultsFile] = Field(min_length=1)


# ---- loading ----------------------------------------------------------------------------


def load_results(paths: Sequence[str | os.PathLike[str]]) -> Results:
    """Read results files strictly; several files must be shards of one run."""
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
            files.append(_load_file(os.fspath(path)))
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


def _load_file(path: str) -> ResultsFile:
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise ReportError(f"{path}: not UTF-8: {error.reason} at byte {error.start}") from None
    lines = text.split("\n")
    cut = lines[-1] != ""  # the last line lacks its newline
    if not cut:
        lines.pop()
    if not lines:
        raise ReportError(f"{path}: the file is empty; it looks truncated")

    def parse(number: int) -> _Line:
        return _parse(lines[number - 1], f"{path}:{number}", cut=cut and number == len(lines))

    meta = parse(1)
    if not isinstance(meta, MetaLine):
        raise ReportError(f"{path}:1: the first line must be the meta line, not {meta.kind!r}")
    results: list[ResultLine] = []
    for number in range(2, len(lines) + 1):
        line = parse(number)
        if isinstance(line, MetaLine):
            raise ReportError(f"{path}:{number}: a second meta line")
        if isinstance(line, EndLine):
            if number != len(lines):
                raise ReportError(f"{path}:{number + 1}: a line after the end line")
            if line.results != len(results):
                raise ReportError(
                    f"{path}:{number}: the end line counts {line.results} results but the file"
                    f" has {len(results)}; the file looks truncated"
                )
            return ResultsFile(path=path, meta=meta, results=results)
        declared = meta.targets.get(line.target)
        if declared != line.target_version:
            raise ReportError(
                f"{path}:{number}: target {line.target!r} {line.target_version!r} is not"
                f" declared in the meta line's targets {meta.targets!r}"
            )
        results.append(line)
    raise ReportError(f"{path}: no end line after line {len(lines)}; the file looks truncated")


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


# ---- shards -----------------------------------------------------------------------------


def check_shards(results: Results) -> None:
    """Shards of one run must agree, and no target, cell and check may appear twice."""
    first = results.files[0]
    problems: list[str] = []
    versions: dict[str, tuple[str, str]] = {}
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
        for index, line in enumerate(file.results):
            key = (line.target, line.cell, line.check)
            here = f"{file.path}:{index + 2}"
            if key in seen:
                problems.append(
                    f"{here}: duplicate result for target {line.target!r}, cell {line.cell!r},"
                    f" check {line.check!r} (first at {seen[key]})"
                )
            else:
                seen[key] = here
    if problems:
        raise ReportError(*problems)


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
    meta = first.model_dump(mode="json", exclude={"sdk_versions"}) | {
        "targets": targets_of(results),
        "date": max(file.meta.date for file in results.files).isoformat(),
    }
    sdks = {name: v for file in results.files for name, v in file.meta.sdk_versions.items()}
    if sdks:
        meta["sdk_versions"] = sdks
    lines: list[dict[str, Any]] = [meta]
    count = 0
    for file in results.files:
        for line in file.results:
            record = line.model_dump(mode="json")
            if line.live is None:
                del record["live"]  # as the plugin writes it
            lines.append(record)
            count += 1
    lines.append({"kind": "end", "results": count})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
