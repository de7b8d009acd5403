"""Shards of one run (CI jobs, xdist workers): checked to agree (`check_shards`) and joined into
one results file (`merge_results`)."""

from __future__ import annotations

import json
import weakref
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping
from conformance.reports.lines import (
    PropertyLine,
    ReportError,
    ResultLine,
    Results,
    ResultsFile,
)

__all__ = ["check_shards", "lines_of", "merge_results", "targets_of"]


# ---- shards -----------------------------------------------------------------------------


def check_shards(results: Results) -> None:
    """Shards of one run must agree, and no target, cell and check may appear twice.

    Checked once per `Results` (its files and their lists are not changed once read): `merge`
    and `diff` pass the `Results` that `load_results` checked to two more functions that check
    it, a twentieth of `merge`'s CPU each on 100,000 lines (docs/performance.md)."""
    if not _checked(results):
        _check_shards(results)
        _mark_checked(results)


def lines_of(results: Results, files: list[ResultsFile]) -> Results:
    """`Results` of some of `results`' lines: `files` are its files, in order, each with some
    of its lines (the same meta line). Checked where `results` is: lines of shards that agree,
    without a duplicate, still agree and have none."""
    narrowed = Results(files=files)
    if _checked(results):
        _mark_checked(narrowed)
    return narrowed


_CHECKED: dict[int, weakref.ref[Results]] = {}
"""The `Results` checked so far, by id, while they live (a frozen model with lists is not
hashable, so no `WeakSet`; the reference tells a live one from a later object at its id)."""


def _checked(results: Results) -> bool:
    known = _CHECKED.get(id(results))
    return known is not None and known() is results


def _mark_checked(results: Results) -> None:
    key = id(results)
    _CHECKED[key] = weakref.ref(results, lambda _: _CHECKED.pop(key, None))


def _check_shards(results: Results) -> None:
    first = results.files[0]
    problems: list[str] = []
    versions: dict[str, tuple[str, str]] = {}
    deviations: dict[str, tuple[str, str]] = {}
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
        for target, ref in file.meta.deviations.items():
            known_ref, where = deviations.setdefault(target, (ref.digest, file.path))
            if known_ref != ref.digest:
                problems.append(
                    f"{file.path}:1: target {target!r} was judged with deviations {ref.digest}"
                    f" here but {known_ref} in {where}"
                )
    keys: list[list[tuple[str, str, str]]] = [
        list(map(_identity, [*file.results, *file.properties])) for file in results.files
    ]
    unique = set[tuple[str, str, str]]().union(*keys)
    if sum(map(len, keys)) != len(unique):  # a duplicate: say where, in file order
        for file, of_file in zip(results.files, keys, strict=True):
            for index, key in enumerate(of_file):
                here = f"{file.path}:{index + 2}"
                if key in seen:
                    target, cell, check = key
                    problems.append(
                        f"{here}: duplicate result for target {target!r}, cell {cell!r},"
                        f" check {check!r} (first at {seen[key]})"
                    )
                else:
                    seen[key] = here
    if problems:
        raise ReportError(*problems)


_identity = attrgetter("target", "cell", "check")
"""A result's key: no two results of one run have the same."""


def targets_of(results: Results) -> dict[str, str]:
    """Every target with its version, in the order the meta lines declare them."""
    targets: dict[str, str] = {}
    for file in results.files:
        for name, version in file.meta.targets.items():
            targets.setdefault(name, version)
    return targets


def merge_results(results: Results, *, known: Mapping[bytes, ResultLine] | None = None) -> str:
    """One results file from shards: one meta line (targets unioned, the latest date), every
    result in shard order, and one end line.

    `known`, the dict `load_results(known=...)` filled while reading the shards (each cell
    line it validated, by its bytes): such a line is written as the bytes it was read as,
    which the plugin wrote from the same record, instead of being encoded again (encoding
    was half of `conformance merge` on 100,000 lines; docs/performance.md). A line read any
    other way, or one the model has more than (its default `level`), is encoded from its
    model."""
    check_shards(results)
    # A line read without its `level` (written before levels) gets it on the way through, so
    # it is encoded from its model, which has it; JSON's blanks around a record are dropped
    # (a line of a CRLF file ends in "\r").
    read = {
        id(model): raw.decode("utf-8").strip(" \t\r")
        for raw, model in (known or {}).items()
        if "level" in model.model_fields_set
    }
    first = results.files[0].meta
    meta = first.model_dump(
        mode="json",
        exclude={
            "suite_commit",
            "hypothesis",
            "as_of",
            "lifecycle",
            "run",
            "merged_from",
            "sdk_versions",
        },
    ) | {
        "targets": targets_of(results),
        "deviations": {
            name: ref.model_dump(mode="json")
            for file in results.files
            for name, ref in file.meta.deviations.items()
        },
        "date": max(file.meta.date for file in results.files).isoformat(),
    }
    if first.suite_commit is not None:
        meta["suite_commit"] = first.suite_commit
    drew = {file.meta.hypothesis for file in results.files}
    if len(drew) == 1 and first.hypothesis is not None:  # shards drawn by one hypothesis
        meta["hypothesis"] = first.hypothesis
    if first.as_of is not None:  # written as the plugin writes it: only where the matrix has it
        meta["as_of"] = first.as_of.isoformat()
    if first.lifecycle:
        meta["lifecycle"] = {
            row: lifecycle.model_dump(mode="json", exclude_none=True)
            for row, lifecycle in first.lifecycle.items()
        }
    runs = [
        run
        for file in results.files
        for run in ([file.meta.run.id] if file.meta.run else file.meta.merged_from)
    ]
    if runs:
        meta["merged_from"] = runs
    sdks = {name: v for file in results.files for name, v in file.meta.sdk_versions.items()}
    if sdks:
        meta["sdk_versions"] = sdks
    lines: list[str] = [_json_line(meta)]
    count = 0
    for file in results.files:
        for line in file.results:
            as_read = read.get(id(line))
            lines.append(as_read if as_read is not None else _json_line(_result_record(line)))
            count += 1
    for file in results.files:  # property lines follow every cell line
        for prop in file.properties:
            lines.append(_json_line(_property_record(prop)))
            count += 1
    lines.append(_json_line({"kind": "end", "results": count}))
    return "\n".join(lines) + "\n"


_json_line = json.JSONEncoder(ensure_ascii=False).encode
"""`json.dumps(record, ensure_ascii=False)`, without building an encoder per record."""


def _result_record(line: ResultLine) -> dict[str, Any]:
    """A cell line as the plugin writes it: `level`, `url`, `notes`, `live` and `na` only when
    set.

    Without `live`, every field is a string or null, so the fields in their order (the
    model's `__dict__`) are the line's JSON form, as `model_dump(mode="json")` gives it
    (tests/test_results_fast.py pins it) without a pass of pydantic's serializer per line."""
    record = line.model_dump(mode="json") if line.live is not None else dict(line.__dict__)
    for optional in ("live", "level", "url", "notes", "na"):
        if record[optional] is None:
            del record[optional]
    return record


def _property_record(line: PropertyLine) -> dict[str, Any]:
    """A property line as the plugin writes it: `row` only for a counterexample."""
    record = line.model_dump(mode="json")
    if line.row is None:
        del record["row"]
    return record
