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

Each row carries its model's lifecycle (`released`, and `deprecated` and `shutdown` where
announced), each date with a citation; every citation says the day it was read, and the matrix
says the day it is true as of (`as_of`). `lifecycle_findings` lists rows past or near shutdown.

Each row also declares `error_result`: what the api does with a tool result whose status is
error, a native error flag or the error text as it is (`Matrix.error_cells()`).
"""

from conformance.history import ContentType
from conformance.matrix.lifecycle import (
    WARN_DAYS,
    LifecycleFinding,
    Status,
    lifecycle_findings,
    row_status,
)
from conformance.matrix.load import LocatedError, MatrixError, load_matrix, locate
from conformance.matrix.model import (
    Cell,
    CellSpec,
    Citation,
    Dated,
    ErrorCell,
    Matrix,
    Row,
    RowCells,
    Styles,
)
from conformance.matrix.schema import json_schema
from conformance.matrix.vocabulary import (
    CONTENT_TYPES,
    ERROR_EXPECTATIONS,
    EXPECTATIONS,
    ID_PATTERN,
    KNOWN,
    LOSSY,
    OUTCOMES,
    ROW_API_NAMES,
    ROW_ID_PATTERN,
    SEVERITY,
    SOURCES,
    STYLES,
    TARGET_PATTERN,
    URL_HANDLINGS,
    URL_PATTERN,
    Api,
    CellStyle,
    ErrorExpectation,
    Expectation,
    Known,
    Outcome,
    Source,
    Style,
    UrlHandling,
)

__all__ = [
    "CONTENT_TYPES",
    "ERROR_EXPECTATIONS",
    "EXPECTATIONS",
    "ID_PATTERN",
    "KNOWN",
    "LOSSY",
    "OUTCOMES",
    "ROW_API_NAMES",
    "ROW_ID_PATTERN",
    "SEVERITY",
    "SOURCES",
    "STYLES",
    "TARGET_PATTERN",
    "URL_HANDLINGS",
    "URL_PATTERN",
    "WARN_DAYS",
    "Api",
    "Cell",
    "CellSpec",
    "CellStyle",
    "Citation",
    "ContentType",
    "Dated",
    "ErrorCell",
    "ErrorExpectation",
    "Expectation",
    "Known",
    "LifecycleFinding",
    "LocatedError",
    "Matrix",
    "MatrixError",
    "Outcome",
    "Row",
    "RowCells",
    "Source",
    "Status",
    "Style",
    "Styles",
    "UrlHandling",
    "json_schema",
    "lifecycle_findings",
    "load_matrix",
    "locate",
    "row_status",
]
