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

Names are imported on first use (PEP 562): `conformance.matrix.vocabulary` is read at every
pytest start by the plugin's option registration, and must not bring ruamel.yaml and the
pydantic models with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "Api": "conformance.matrix.vocabulary",
    "CONTENT_TYPES": "conformance.matrix.vocabulary",
    "Cell": "conformance.matrix.model",
    "CellSpec": "conformance.matrix.model",
    "CellStyle": "conformance.matrix.vocabulary",
    "Citation": "conformance.matrix.model",
    "ContentType": "conformance.history",
    "Dated": "conformance.matrix.model",
    "ERROR_EXPECTATIONS": "conformance.matrix.vocabulary",
    "EXPECTATIONS": "conformance.matrix.vocabulary",
    "ErrorCell": "conformance.matrix.model",
    "ErrorExpectation": "conformance.matrix.vocabulary",
    "Expectation": "conformance.matrix.vocabulary",
    "ID_PATTERN": "conformance.matrix.vocabulary",
    "KNOWN": "conformance.matrix.vocabulary",
    "Known": "conformance.matrix.vocabulary",
    "LOSSY": "conformance.matrix.vocabulary",
    "LifecycleFinding": "conformance.matrix.lifecycle",
    "LocatedError": "conformance.matrix.load",
    "Matrix": "conformance.matrix.model",
    "MatrixError": "conformance.matrix.load",
    "OUTCOMES": "conformance.matrix.vocabulary",
    "Outcome": "conformance.matrix.vocabulary",
    "ROW_API_NAMES": "conformance.matrix.vocabulary",
    "ROW_ID_PATTERN": "conformance.matrix.vocabulary",
    "Row": "conformance.matrix.model",
    "RowCells": "conformance.matrix.model",
    "SEVERITY": "conformance.matrix.vocabulary",
    "SOURCES": "conformance.matrix.vocabulary",
    "STYLES": "conformance.matrix.vocabulary",
    "Source": "conformance.matrix.vocabulary",
    "Status": "conformance.matrix.lifecycle",
    "Style": "conformance.matrix.vocabulary",
    "Styles": "conformance.matrix.model",
    "TARGET_PATTERN": "conformance.matrix.vocabulary",
    "URL_HANDLINGS": "conformance.matrix.vocabulary",
    "URL_PATTERN": "conformance.matrix.vocabulary",
    "UrlHandling": "conformance.matrix.vocabulary",
    "WARN_DAYS": "conformance.matrix.lifecycle",
    "json_schema": "conformance.matrix.schema",
    "lifecycle_findings": "conformance.matrix.lifecycle",
    "load_matrix": "conformance.matrix.load",
    "locate": "conformance.matrix.load",
    "row_status": "conformance.matrix.lifecycle",
}

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
