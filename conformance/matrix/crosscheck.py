"""Checks that span parts of matrix.yaml: citations, sources and error cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from conformance.matrix.problems import _did_you_mean, _Loc, _Problem  # pyright: ignore[reportPrivateUsage]
from conformance.matrix.vocabulary import CONTENT_TYPES, SOURCES


def _cross_check(data: object) -> list[_Problem]:  # pyright: ignore[reportUnusedFunction]
    """Checks that span parts of the file: citations and sources.

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
                    cite = _get(cell, "cite")
                    if isinstance(cite, str) and cite and cite_ids is not None:
                        problems.extend(_check_cite(cite, cite_ids, (*ct_loc, source, style)))
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
