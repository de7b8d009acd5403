"""Checks that span parts of matrix.yaml: citations, sources, error cells and the lifecycle
dates of rows against each other and against `as_of`."""

from __future__ import annotations

import datetime as dt
import itertools
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

    as_of = _as_date(top.get("as_of"))
    problems.extend(_check_reads(citations, as_of))
    for row_id, row in _items(top.get("rows")):
        error_cite = _get(_get(row, "error_result"), "cite")
        if isinstance(error_cite, str) and error_cite and cite_ids is not None:
            problems.extend(_check_cite(error_cite, cite_ids, ("rows", row_id, "error_result")))
        problems.extend(_check_lifecycle(row_id, row, cite_ids, as_of))
        for index, served in enumerate(_as_list(_get(row, "served")) or ()):
            if isinstance(served, str) and served and cite_ids is not None:
                loc: _Loc = ("rows", row_id, "served", index)
                problems.extend(_check_served(served, cite_ids, loc))
        for content_type, by_source in _items(_get(row, "cells")):
            sources = _as_mapping(by_source)
            if content_type not in CONTENT_TYPES or sources is None:
                continue
            ct_loc: _Loc = ("rows", row_id, "cells", content_type)
            for source in declared or ():
                if content_type == "text" and source != "inline":
                    continue
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
                if content_type == "text" and source != "inline":
                    continue  # the model refuses it: text has one source
                for style, cell in _items(styles):
                    problems.extend(
                        _check_refuse_or_download(cell, source, sources, (*ct_loc, source, style))
                    )
                    cite = _get(cell, "cite")
                    if isinstance(cite, str) and cite and cite_ids is not None:
                        problems.extend(_check_cite(cite, cite_ids, (*ct_loc, source, style)))
    return problems


def _check_refuse_or_download(
    cell: object, source: object, sources: Mapping[Any, object], cell_loc: _Loc
) -> list[_Problem]:
    """`refuse-or-download` only on url cells, and only where the inline cell it refers to
    exists."""
    if _get(cell, "expect") != "refuse-or-download":
        return []
    loc: _Loc = (*cell_loc, "expect")
    if source != "url":
        return [
            _Problem(
                loc,
                "value",
                f"'refuse-or-download' is for url cells only, not {source} ones: it says"
                " the api has no URL form, so a target refuses or downloads the URL; use native,"
                " fallback or unsupported here",
                loc,
            )
        ]
    if _as_mapping(sources.get("inline")) is None:
        return [
            _Problem(
                loc,
                "value",
                "'refuse-or-download' needs the inline cell of the same content type and style"
                " (a download is judged by it); declare `inline` here",
                loc,
            )
        ]
    return []


_LIFECYCLE = ("released", "deprecated", "shutdown")
"""A row's lifecycle dates, in the order they must fall."""


def _check_lifecycle(
    row_id: object, row: object, cite_ids: list[str] | None, as_of: dt.date | None
) -> list[_Problem]:
    """Each lifecycle date cites a known source; released <= deprecated <= shutdown; a row is
    not released after the matrix's `as_of`."""
    problems: list[_Problem] = []
    dates: list[tuple[str, dt.date]] = []
    for key in _LIFECYCLE:
        entry = _get(row, key)
        loc: _Loc = ("rows", str(row_id), key)
        cite = _get(entry, "cite")
        if isinstance(cite, str) and cite and cite_ids is not None:
            problems.extend(_check_cite(cite, cite_ids, loc))
        when = _as_date(_get(entry, "date"))
        if when is not None:
            dates.append((key, when))
    for (first, early), (second, late) in itertools.pairwise(dates):
        if late < early:
            loc = ("rows", str(row_id), second, "date")
            problems.append(
                _Problem(
                    loc,
                    "value",
                    f"{second} {late.isoformat()} is before {first} {early.isoformat()};"
                    f" the dates must fall in the order {', '.join(_LIFECYCLE)}",
                    loc,
                )
            )
    released = dict(dates).get("released")
    if as_of is not None and released is not None and released > as_of:
        loc = ("rows", str(row_id), "released", "date")
        problems.append(
            _Problem(
                loc,
                "value",
                f"released {released.isoformat()} is after the matrix's as_of"
                f" {as_of.isoformat()}; a row names a model that is served on as_of",
                loc,
            )
        )
    return problems


def _check_reads(citations: Mapping[Any, object] | None, as_of: dt.date | None) -> list[_Problem]:
    """No citation was read after `as_of`: the matrix is as old as its newest evidence."""
    if as_of is None or citations is None:
        return []
    problems: list[_Problem] = []
    for cite_id, citation in citations.items():
        read = _as_date(_get(citation, "read"))
        if read is not None and read > as_of:
            loc: _Loc = ("citations", str(cite_id), "read")
            problems.append(
                _Problem(
                    loc,
                    "value",
                    f"read {read.isoformat()}, after the matrix's as_of {as_of.isoformat()};"
                    " move as_of to the day of the newest reading",
                    loc,
                )
            )
    return problems


def _as_date(value: object) -> dt.date | None:
    """A calendar date given as a YAML date or an ISO string; None for anything else (the
    model reports those)."""
    if isinstance(value, dt.datetime):
        return None
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def _check_served(cite: str, cite_ids: list[str], loc: _Loc) -> list[_Problem]:
    if cite in cite_ids:
        return []
    message = (
        f"unknown citation {cite!r} in served; add it under `citations` (with url, says and"
        " read) or cite an existing one" + _did_you_mean(cite, cite_ids)
    )
    return [_Problem(loc, "value", message, loc)]


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
