"""The JSON Schema of matrix.yaml, generated from the model."""

from __future__ import annotations

from typing import Any

from conformance.matrix.model import Matrix
from conformance.matrix.vocabulary import (
    CONTENT_TYPES,
    ID_PATTERN,
    ROW_ID_PATTERN,
    SOURCES,
    TEXT_SOURCES,
)


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
    for content_type in CONTENT_TYPES:
        prop: dict[str, Any] = defs["RowCells"]["properties"][content_type]
        styles = prop["additionalProperties"]
        text = content_type == "text"
        defs["RowCells"]["properties"][content_type] = {
            "title": prop.get("title", content_type.title()),
            "description": "The text cells: inline only (text has one source)."
            if text
            else f"The {content_type} cells: one entry per source listed in `sources`.",
            "type": "object",
            "properties": dict.fromkeys(TEXT_SOURCES if text else SOURCES, styles),
            "additionalProperties": False,
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tool-result-conformance capability matrix",
        **{k: v for k, v in schema.items() if k != "title"},
    }
