"""The records of a results file: the meta line, a result line per cell and check, a property
line per property, the end line; one `TypeAdapter` (`LINE`) reads any of them."""

from __future__ import annotations

from datetime import date as Date
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationInfo,
    field_validator,
    model_validator,
)

from conformance.history import ContentType
from conformance.judging.levels import CHECK_LEVELS, PROPERTY_LEVELS, Level
from conformance.matrix.vocabulary import Expectation, Outcome, UrlHandling
from conformance.running.status import RunStatus

if TYPE_CHECKING:
    pass

__all__ = [
    "LINE",
    "MAX_PROBLEMS",
    "CellStatus",
    "DeviationsRef",
    "EndLine",
    "Expect",
    "FrozenModel",
    "Known",
    "Line",
    "Live",
    "MetaLine",
    "NotApplicable",
    "Observed",
    "PropertyLine",
    "ReportError",
    "ResultLine",
    "Results",
    "ResultsFile",
    "RowLifecycle",
    "RunInfo",
    "Source",
    "Style",
    "Verdict",
    "line_kind",
    "observed",
]

Verdict = Literal["pass", "fail", "xfail", "xpass", "skip"]
Expect = Expectation
Known = Literal["doc", "sdk", "third-party", "uncertain"]
Source = Literal["inline", "url"]
Style = Literal["result", "prompt", "error"]
Observed = Literal["pass", "fail", "skip"]
"""A check's raw observation, before deviations (`observed`)."""
NotApplicable = Literal["declared", "unserved"]
CellStatus = Literal["pass", "fail", "xfail", "skip"]
"""A cell's status: `fail` if any check failed or xpassed, else `xfail` if any check is a
known deviation, else `skip` if any check was skipped (a skip counts against compliance),
else `pass`."""

_Name = Annotated[str, Field(min_length=1)]
MAX_PROBLEMS = 20
"""At most this many problems are reported one by one; a last line counts the rest."""


class ReportError(ValueError):
    """Results files cannot be read or are inconsistent; one line per problem, saying where."""

    def __init__(self, *problems: str) -> None:
        shown = list(problems[:MAX_PROBLEMS])
        if len(problems) > MAX_PROBLEMS:
            shown.append(f"... and {len(problems) - MAX_PROBLEMS} more problems")
        super().__init__("\n".join(shown))
        self.problems: tuple[str, ...] = problems


class FrozenModel(BaseModel):
    """Records are read-only and have no keys beyond their fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class RowLifecycle(FrozenModel):
    """A model row's lifecycle dates, as the matrix the run used declares them."""

    released: Date
    deprecated: Date | None = None
    shutdown: Date | None = None


class RunInfo(FrozenModel):
    """Which run wrote a results file: its id, when it started and the command line."""

    id: _Name
    start: AwareDatetime
    command: list[str]


class DeviationsRef(FrozenModel):
    """A target's deviations file, as a run used it."""

    path: _Name
    digest: _Name


class MetaLine(FrozenModel):
    kind: Literal["meta"]
    suite_version: _Name
    suite_commit: str | None = None
    """The suite's git commit the run was made with, where it ran from a checkout (absent in
    files older than the field, and where no commit was known)."""
    matrix: _Name
    matrix_digest: _Name
    targets: dict[_Name, _Name]
    """Target name -> version, for every target the run covered."""
    sdk_versions: dict[_Name, dict[_Name, _Name]] = {}
    """Target name -> distribution -> version of the SDKs it drives (its `sdk_versions`)."""
    python: _Name
    hypothesis: str | None = None
    """The hypothesis version the property searches drew their histories with: another one
    draws others (absent in files older than the field)."""
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
    variant_of: dict[_Name, _Name] = Field(default_factory=dict)
    """Per variant target the run covered, the framework target it is a variant of (its
    `variant_of`; docs/writing-a-target.md#variants); absent where none."""


class Live(FrozenModel):
    """Whether a live API accepted the cell's request, and when it was recorded."""

    accepted: bool
    date: Date


class ResultLine(FrozenModel):
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
    na: NotApplicable | None = None
    """Why the cell is not applicable to the target, on a `skip` whose detail is the reason:
    `declared` (a feature the target declares it does not have, its `not_applicable`) or
    `unserved` (a row the target cannot serve, its `supports`). Such a cell counts apart
    (`conformance.reports.figures`), never as a pass nor against compliance; absent elsewhere
    and in older files."""

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
        if self.na is not None and self.verdict != "skip":
            raise ValueError(f"a cell not applicable ({self.na}) is a skip, not {self.verdict}")
        return self


def observed(verdict: Verdict) -> Observed:
    """What the check itself observed, before any deviations file: a deviation only relabels
    a result (`conformance.judging.deviations.judge`: a declared check that fails is `xfail`,
    one that passes is `xpass`), so every results line carries its raw observation already,
    whichever deviations file the run applied."""
    return _OBSERVED[verdict]


_OBSERVED: dict[Verdict, Observed] = {
    "pass": "pass",
    "xpass": "pass",
    "fail": "fail",
    "xfail": "fail",
    "skip": "skip",
}


class PropertyLine(FrozenModel):
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


class EndLine(FrozenModel):
    kind: Literal["end"]
    results: int = Field(ge=0)
    status: RunStatus = "complete"
    """How the run ended; only a `complete` run's file is read as results (files older than
    run tracking have no status and were written only by finished runs)."""
    exit_status: int | None = None
    run: str | None = None
    """The id of the run, as on the meta line."""
    end: AwareDatetime | None = None
    golden: list[str] = Field(default_factory=list[str])
    """Damaged golden data no line of the file names (an unused, missing or damaged media
    blob); a file listing any is refused."""


def line_kind(data: Any) -> str | None:
    """Which model a line is: its `kind`, and among results, a property's or a cell's."""
    if isinstance(data, dict):
        record = cast("dict[str, Any]", data)
        kind = record.get("kind")
        if kind == "result" and "property" in record:
            return "property"
        return kind if isinstance(kind, str) else None
    return None


Line = MetaLine | ResultLine | PropertyLine | EndLine
LINE: TypeAdapter[Line] = TypeAdapter(
    Annotated[
        Annotated[MetaLine, Tag("meta")]
        | Annotated[ResultLine, Tag("result")]
        | Annotated[PropertyLine, Tag("property")]
        | Annotated[EndLine, Tag("end")],
        Discriminator(line_kind),
    ]
)


class ResultsFile(FrozenModel):
    path: str
    meta: MetaLine
    results: list[ResultLine]
    """The cells' lines, in file order."""
    properties: list[PropertyLine] = Field(default_factory=list[PropertyLine])
    """The properties' lines, in file order (files before properties gated have none)."""


class Results(FrozenModel):
    files: list[ResultsFile] = Field(min_length=1)
