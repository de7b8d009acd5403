"""Turn the results files written by the pytest plugin into a report.

A results file is JSON Lines: one `meta` line, one `result` line per cell and check, and an
`end` line that counts the results. Loading is strict: every line must be a valid record, and
a file without its `end` line, or with a wrong count, is taken as truncated.

The report is data first: `Report` is a pydantic model, `Report.model_dump_json(indent=2)` is
the JSON view, and `render_markdown` is a rendering of the same model.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

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
    "CellReport",
    "CellStatus",
    "CheckReport",
    "ContentTypeCells",
    "EndLine",
    "Expect",
    "Known",
    "MetaLine",
    "Outcome",
    "Report",
    "ReportError",
    "ResultLine",
    "Results",
    "ResultsFile",
    "RowReport",
    "TargetReport",
    "Totals",
    "Verdict",
    "build_report",
    "load_results",
    "render_markdown",
    "write_report",
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
Style = Literal["result", "prompt"]
CellStatus = Literal["pass", "fail", "xfail", "skip"]
"""A cell's status: `fail` if any check failed or xpassed, else `xfail` if any check is a
known deviation, else `skip` if any check was skipped (a skip counts against compliance),
else `pass`."""

_Name = Annotated[str, Field(min_length=1)]
_CONTENT_TYPES: tuple[ContentType, ...] = get_args(ContentType)
_SOURCES: tuple[Source, ...] = get_args(Source)
_STYLES: tuple[Style, ...] = get_args(Style)


class ReportError(ValueError):
    """A results file cannot be read or is inconsistent; the message says where."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- the lines of a results file -------------------------------------------------------


class MetaLine(_Model):
    kind: Literal["meta"]
    suite_version: _Name
    matrix: _Name
    matrix_digest: _Name
    targets: dict[_Name, _Name]
    """Target name -> version, for every target the run covered."""
    python: _Name
    date: AwareDatetime


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


# ---- the report model -------------------------------------------------------------------


class CheckReport(_Model):
    check: str
    verdict: Verdict
    detail: str
    reason: str | None
    link: str | None


class CellReport(_Model):
    id: str
    content_type: ContentType
    source: Source
    style: Style
    status: CellStatus
    outcome: Outcome | None
    """What the target was observed to do; None when no check observed it."""
    expect: Expect
    known: Known
    cite: str
    checks: list[CheckReport]
    """Every check of the cell, in the order the results list them."""


class ContentTypeCells(_Model):
    content_type: ContentType
    cells: list[CellReport]
    """One per source × style, inline before url, result before prompt."""


class RowReport(_Model):
    id: str
    api: str
    model: str
    content_types: list[ContentTypeCells]
    """In the order text, image, document, audio, video; only those with cells."""


class Totals(_Model):
    cells: int
    cells_by_status: dict[CellStatus, int]
    checks_by_verdict: dict[Verdict, int]
    cells_by_known: dict[Known, int]
    """Where each cell's expectation comes from."""
    conformant_share: float
    """Cells with status pass / all cells (0.0 when there are none)."""


class TargetReport(_Model):
    name: str
    version: str
    rows: list[RowReport]
    """In the order the results first list them."""
    totals: Totals


class Report(_Model):
    report_version: Literal[1] = 1
    suite_version: str
    matrix: str
    matrix_digest: str
    python: str
    date: AwareDatetime
    targets: list[TargetReport]
    """In the order the meta lines declare them."""


# ---- loading ----------------------------------------------------------------------------


def load_results(paths: Sequence[str | os.PathLike[str]]) -> Results:
    """Read results files strictly; several files (shards) are concatenated."""
    if not paths:
        raise ReportError("no results files given")
    results = Results(files=[_load_file(os.fspath(path)) for path in paths])
    _check_shards(results)
    return results


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


def _check_shards(results: Results) -> None:
    """Shards of one run must agree, and no target, cell and check may appear twice."""
    first = results.files[0]
    versions: dict[str, tuple[str, str]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    for file in results.files:
        for name, mine, theirs in [
            ("suite_version", file.meta.suite_version, first.meta.suite_version),
            ("matrix_digest", file.meta.matrix_digest, first.meta.matrix_digest),
        ]:
            if mine != theirs:
                raise ReportError(f"{file.path}:1: {name} {mine!r} differs from {theirs!r}")
        for target, version in file.meta.targets.items():
            known, where = versions.setdefault(target, (version, file.path))
            if known != version:
                raise ReportError(
                    f"{file.path}:1: target {target!r} is version {version!r} here"
                    f" but {known!r} in {where}"
                )
        for index, line in enumerate(file.results):
            key = (line.target, line.cell, line.check)
            here = f"{file.path}:{index + 2}"
            if key in seen:
                raise ReportError(
                    f"{here}: duplicate result for target {line.target!r}, cell {line.cell!r},"
                    f" check {line.check!r} (first at {seen[key]})"
                )
            seen[key] = here


# ---- building the report ----------------------------------------------------------------


def build_report(results: Results) -> Report:
    """Group the results per target, row, content type and cell, and count them."""
    _check_shards(results)
    meta = results.files[0].meta
    targets: dict[str, str] = {}
    for file in results.files:
        for name, version in file.meta.targets.items():
            targets.setdefault(name, version)
    lines = [line for file in results.files for line in file.results]
    return Report(
        suite_version=meta.suite_version,
        matrix=meta.matrix,
        matrix_digest=meta.matrix_digest,
        python=meta.python,
        date=meta.date,
        targets=[
            _target_report(name, version, [line for line in lines if line.target == name])
            for name, version in targets.items()
        ],
    )


def _target_report(name: str, version: str, lines: list[ResultLine]) -> TargetReport:
    groups: dict[str, list[ResultLine]] = {}
    for line in lines:
        groups.setdefault(line.cell, []).append(line)
    rows: dict[str, list[CellReport]] = {}
    for group in groups.values():
        rows.setdefault(group[0].row, []).append(_cell_report(name, group))
    cells = [cell for row_cells in rows.values() for cell in row_cells]
    return TargetReport(
        name=name,
        version=version,
        rows=[_row_report(next(x for x in lines if x.row == row), cs) for row, cs in rows.items()],
        totals=Totals(
            cells=len(cells),
            cells_by_status=_count(get_args(CellStatus), [c.status for c in cells]),
            checks_by_verdict=_count(get_args(Verdict), [line.verdict for line in lines]),
            cells_by_known=_count(get_args(Known), [c.known for c in cells]),
            conformant_share=(
                sum(c.status == "pass" for c in cells) / len(cells) if cells else 0.0
            ),
        ),
    )


def _row_report(first: ResultLine, cells: list[CellReport]) -> RowReport:
    order = [(source, style) for source in _SOURCES for style in _STYLES]
    return RowReport(
        id=first.row,
        api=first.api,
        model=first.model,
        content_types=[
            ContentTypeCells(
                content_type=ct,
                cells=sorted(of_ct, key=lambda c: order.index((c.source, c.style))),
            )
            for ct in _CONTENT_TYPES
            if (of_ct := [c for c in cells if c.content_type == ct])
        ],
    )


def _count(keys: tuple[Any, ...], values: list[Any]) -> dict[Any, int]:
    return {key: values.count(key) for key in keys}


def _cell_report(target: str, group: list[ResultLine]) -> CellReport:
    first = group[0]
    shared = {"api", "model", "expect", "known", "cite"}
    for line in group[1:]:
        for field, value in line.model_dump(include=shared).items():
            if value != getattr(first, field):
                raise ReportError(
                    f"target {target!r}, cell {first.cell!r}: checks disagree on {field}"
                    f" ({getattr(first, field)!r} vs {value!r})"
                )
    outcomes: list[Outcome] = []
    for line in group:
        if line.outcome is not None and line.outcome not in outcomes:
            outcomes.append(line.outcome)
    if len(outcomes) > 1:
        raise ReportError(
            f"target {target!r}, cell {first.cell!r}: checks observed different outcomes"
            f" {outcomes!r}"
        )
    return CellReport(
        id=first.cell,
        content_type=first.content_type,
        source=first.source,
        style=first.style,
        status=_status({line.verdict for line in group}),
        outcome=outcomes[0] if outcomes else None,
        expect=first.expect,
        known=first.known,
        cite=first.cite,
        checks=[
            CheckReport(
                check=line.check,
                verdict=line.verdict,
                detail=line.detail,
                reason=line.reason,
                link=line.link,
            )
            for line in group
        ],
    )


def _status(verdicts: set[Verdict]) -> CellStatus:
    if verdicts & {"fail", "xpass"}:
        return "fail"
    if "xfail" in verdicts:
        return "xfail"
    return "skip" if "skip" in verdicts else "pass"


# ---- Markdown ---------------------------------------------------------------------------

_BY_OUTCOME: dict[str, str] = {"native": "✅", "fallback-marked": "↪️", "raised": "🚫"}
_BY_EXPECT: dict[Expect, str] = {"native": "✅", "fallback": "↪️", "unsupported": "🚫"}
_LEGEND = (
    "Legend: ✅ native · ↪️ fallback with marker · 🚫 raised as expected (unsupported)"
    " · ❌ failure · ⚠️ known deviation · ⏭️ skipped · – no such cell"
)


def render_markdown(report: Report) -> str:
    """The report as GitHub-flavoured Markdown; the same report gives the same bytes."""
    out = [
        "# Tool-result conformance report",
        "",
        f"Suite {_inline(report.suite_version)} · matrix {_code(report.matrix)}"
        f" ({_code(_short(report.matrix_digest))}) · run {report.date.isoformat()}"
        f" · Python {_inline(report.python)}",
    ]
    for target in report.targets:
        out += ["", f"## {_inline(target.name)} {_inline(target.version)}", ""]
        if not target.rows:
            out.append("No results for this target.")
            continue
        cells = [c for row in target.rows for ct in row.content_types for c in ct.cells]
        out += [_LEGEND, *_render_tables(target.rows, cells), *_render_totals(target.totals)]
        out += _render_findings(cells)
    return "\n".join(out) + "\n"


def _render_tables(rows: list[RowReport], cells: list[CellReport]) -> list[str]:
    """One table per (source, style): a line per model row, a column per content type."""
    present = {c.content_type for c in cells}
    columns = [ct for ct in _CONTENT_TYPES if ct in present]
    out: list[str] = []
    for source in _SOURCES:
        for style in _STYLES:
            lines: list[str] = []
            for row in rows:
                by_ct = {
                    c.content_type: c
                    for ct in row.content_types
                    for c in ct.cells
                    if (c.source, c.style) == (source, style)
                }
                if by_ct:
                    glyphs = [_glyph(by_ct[ct]) if ct in by_ct else "–" for ct in columns]
                    lines.append("| " + " | ".join([_inline(row.id), *glyphs]) + " |")
            if lines:
                header = "| row (api/model) | " + " | ".join(columns) + " |"
                rule = "|" + "---|" * (len(columns) + 1)
                out += ["", f"### {source} · {style}", "", header, rule, *lines]
    return out


def _render_totals(totals: Totals) -> list[str]:
    known = " · ".join(f"{k} {n}" for k, n in totals.cells_by_known.items())
    statuses = " · ".join(f"{s} {n}" for s, n in totals.cells_by_status.items())
    verdicts = " · ".join(f"{v} {n}" for v, n in totals.checks_by_verdict.items())
    conformant = totals.cells_by_status["pass"]
    return [
        "",
        f"Where each cell's expectation comes from: {known}",
        "",
        f"- Cells: {totals.cells} ({statuses}); conformant: {conformant} of {totals.cells}"
        f" ({totals.conformant_share:.1%})",
        f"- Checks: {sum(totals.checks_by_verdict.values())} ({verdicts})",
    ]


def _render_findings(cells: list[CellReport]) -> list[str]:
    """Failures (fail, xpass) with their detail, known deviations, and skips with why."""
    found = [(cell, check) for cell in cells for check in cell.checks]
    out = ["", "### Failures", ""]
    failures = [(c, k) for c, k in found if k.verdict in ("fail", "xpass")]
    for cell, check in failures:
        out.append(f"- {_code(cell.id)} · {_code(check.check)} · outcome {_words(cell.outcome)}")
        if check.verdict == "xpass":
            out[-1] += f" · xpass: the declared deviation no longer happens{_why(check)}"
        out += _block(check.detail)
    if not failures:
        out.append("No failures.")
    deviations = [(c, k) for c, k in found if k.verdict == "xfail"]
    if deviations:
        out += ["", "### Known deviations", ""]
    for cell, check in deviations:
        out.append(
            f"- {_code(cell.id)} · {_code(check.check)} · outcome {_words(cell.outcome)}"
            f"{_why(check)}"
        )
    skips = [(c, k) for c, k in found if k.verdict == "skip"]
    if skips:
        out += ["", "### Skipped", ""]
    for cell, check in skips:
        out.append(f"- {_code(cell.id)} · {_code(check.check)}: {_inline(check.detail)}")
    return out


def _glyph(cell: CellReport) -> str:
    if cell.status == "fail":
        return f"❌ {_words(cell.outcome)}"
    if cell.status == "xfail":
        return f"⚠️ {_words(cell.outcome)}"
    if cell.status == "skip":
        return "⏭️"
    return _BY_OUTCOME.get(cell.outcome or "", _BY_EXPECT[cell.expect])


def _words(outcome: Outcome | None) -> str:
    return outcome or "not observed"


def _why(check: CheckReport) -> str:
    reason = f": {_inline(check.reason)}" if check.reason else ""
    link = f" ({_inline(check.link)})" if check.link else ""
    return reason + link


_BREAK = re.compile(r"\r\n|\r|\n")


def _inline(text: str) -> str:
    """Text safe inside a table cell or a list item: pipes escaped, line breaks as <br>."""
    return _BREAK.sub("<br>", text.replace("\\", "\\\\").replace("|", "\\|"))


def _code(text: str) -> str:
    """A code span for an id, whatever backticks it holds (not for table cells)."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{_BREAK.sub(' ', text)}{pad}{fence}"


def _block(detail: str) -> list[str]:
    """A detail, verbatim, in a fenced block indented under its list item."""
    if not detail:
        return []
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", detail)), default=0) + 1)
    body = [f"  {line}" if line else "" for line in _BREAK.split(detail)]
    return ["", f"  {fence}text", *body, f"  {fence}"]


def _short(digest: str) -> str:
    algorithm, _, value = digest.rpartition(":")
    return f"{algorithm}:{value[:12]}" if algorithm else value[:12]


def write_report(paths: Sequence[str | os.PathLike[str]], fmt: Literal["md", "json"]) -> str:
    """Load results files and render the report as Markdown or JSON."""
    report = build_report(load_results(paths))
    return render_markdown(report) if fmt == "md" else report.model_dump_json(indent=2)
