"""The pydantic model of matrix.yaml, and `CellSpec`, one cell of it flattened."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from typing import Annotated, Final, Literal, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from conformance.history import ContentType
from conformance.matrix.crosscheck import _as_mapping, _cross_check  # pyright: ignore[reportPrivateUsage]
from conformance.matrix.problems import _did_you_mean, _dotted  # pyright: ignore[reportPrivateUsage]
from conformance.matrix.vocabulary import (
    _API_BY_NAME,  # pyright: ignore[reportPrivateUsage]
    _NAME,  # pyright: ignore[reportPrivateUsage]
    CONTENT_TYPES,
    ROW_API_NAMES,
    STYLES,
    TARGET_PATTERN,
    URL_PATTERN,
    Api,
    CellStyle,
    ErrorExpectation,
    Expectation,
    Known,
    Source,
    Style,
    TextSource,
)

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
    """Where an expectation or a lifecycle date comes from, what that source says, and the day
    it was read (a source read on that day may say otherwise later)."""

    url: Annotated[str, Field(pattern=URL_PATTERN)]
    says: _Text
    read: dt.date
    """The day the source was read; never after the matrix's `as_of`."""


class Dated(_Frozen):
    """A lifecycle date of a model and the citation that announces it."""

    date: dt.date
    cite: _Text
    """The id of an entry under `citations`."""


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
    """All five content types of a row, each declaring every listed source; text declares
    `inline` only (text has one source: a URL to text is a document)."""

    text: dict[TextSource, Styles]
    image: dict[Source, Styles]
    document: dict[Source, Styles]
    audio: dict[Source, Styles]
    video: dict[Source, Styles]

    def get(self, content_type: ContentType) -> dict[Source, Styles]:
        return {
            "text": cast("dict[Source, Styles]", self.text),
            "image": self.image,
            "document": self.document,
            "audio": self.audio,
            "video": self.video,
        }[content_type]


class Row(_Frozen):
    """A model row: an api plus a model family, and the concrete model a request names."""

    model: _Text
    """The model id a request names, as the api takes it today (with an inference-profile
    prefix where the api requires one)."""
    served: Annotated[tuple[_Text, ...], Field(min_length=1)]
    """Ids of `citations` that show this model id served on `as_of` (a model page, a
    provider's model or deprecation list); their `read` dates say when that was seen."""
    note: str | None = None
    released: Dated
    """When the provider made this model id available."""
    deprecated: Dated | None = None
    """When the provider announced its retirement; absent while none is announced."""
    shutdown: Dated | None = None
    """The announced last day of service (requests fail from then on); absent if none."""
    error_result: ErrorCell
    """What a tool result with status error becomes on this api."""
    cells: RowCells


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
    inline_expect: Expectation | None = None
    """For a `refuse-or-download` cell: the expectation of the inline cell of the same row,
    content type and style, which a target that downloads the URL must then satisfy."""

    @property
    def id(self) -> str:
        return f"{self.row_id}/{self.content_type}/{self.source}/{self.style}"


class Matrix(_Frozen):
    """The whole of matrix.yaml."""

    version: Literal[1]
    as_of: dt.date
    """The day the matrix was last checked against its sources: lifecycle warnings are
    relative to it, and no citation may have been read after it."""
    sources: Annotated[tuple[Source, ...], Field(min_length=1)]
    """The sources every row declares, in the order cells are listed."""
    citations: dict[CitationId, Citation]
    rows: Annotated[dict[RowId, Row], Field(min_length=1)]

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
                    if content_type == "text" and source != "inline":
                        continue  # text has one source (`RowCells.text`)
                    styles = by_source[source]
                    for style in STYLES:
                        cell = styles.get(style)
                        inline_expect: Expectation | None = None
                        if source == "url":  # a download is judged as the inline cell
                            inline_expect = by_source["inline"].get(style).expect
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
                                inline_expect=inline_expect,
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
