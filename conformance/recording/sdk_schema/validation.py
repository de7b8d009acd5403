"""How the SDK request types are loaded and asked: each SDK imported on first use, places in a
payload named as JSON paths, pydantic's errors condensed to one line per misfit, lazy iterables
forced, and keys an SDK type would silently drop reported."""

from __future__ import annotations

import importlib
import re
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from types import ModuleType
from typing import Any, Final, NamedTuple, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from conformance.recording.sdk_schema.requirements import SDK_REQUIREMENTS

__all__ = [
    "BODY",
    "SdkMissing",
    "adapter_for",
    "as_mapping",
    "as_sequence",
    "check_body",
    "check_items",
    "check_value",
    "dedupe",
    "is_streaming",
    "item_place",
    "key_place",
    "sdk_module",
    "sdk_type",
    "unknown_place",
]

BODY: Final = "<body>"
"""The place named by an error about the request body as a whole."""


class SdkMissing(ImportError):
    """The official SDK that validates an api's payloads is not installed."""


# --- loading the SDKs lazily ------------------------------------------------------------------


def sdk_module(module: str) -> ModuleType:
    """Import `module` of an official SDK, or raise `SdkMissing` naming what to install."""
    top = "google.genai" if module.startswith("google.genai") else module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        requirement = SDK_REQUIREMENTS[top]
        package = re.split(r"[<>=!~\s]", requirement, maxsplit=1)[0]
        raise SdkMissing(
            f"the sdk-schema check needs the {package!r} package: pip install '{requirement}'"
            f" (or the project's 'sdks' dependency group); import {module} failed: {exc}",
            name=top,
        ) from exc


def sdk_type(module: str, name: str) -> Any:
    """An attribute (a request type) of an SDK module."""
    return getattr(sdk_module(module), name)


@cache
def adapter_for(tp: Any) -> TypeAdapter[Any]:
    """One cached adapter per SDK type: building one for a large union takes milliseconds."""
    return TypeAdapter(tp)


# --- places -----------------------------------------------------------------------------------


def key_place(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def item_place(where: str, index: int) -> str:
    return f"{where}[{index}]"


def as_mapping(value: object) -> Mapping[str, Any] | None:
    return cast("Mapping[str, Any]", value) if isinstance(value, Mapping) else None


def as_sequence(value: object) -> Sequence[Any] | None:
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return cast("Sequence[Any]", value)
    return None


def dedupe(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(messages))


# --- pydantic: errors, condensed --------------------------------------------------------------

_UNKNOWN: Final = object()
"""Stands for an input value that an error location cannot be followed into."""

_PLAIN_TAGS: Final = frozenset(
    {"str", "int", "float", "bool", "bytes", "list", "dict", "set", "tuple"}
)
_DISCRIMINATORS: Final = frozenset({"type", "role"})
_CLASS_NAME: Final = re.compile(r"[A-Z]\w*")


class _Seg(NamedTuple):
    """One step of a pydantic error location: a key or index of the input, or a union tag."""

    value: str | int
    tag: bool


class _Err(NamedTuple):
    segs: tuple[_Seg, ...]
    kind: str
    """pydantic's error type, e.g. `literal_error`, or `merged` for a condensed union error."""
    msg: str
    expected: str | None
    """For `literal_error`: pydantic's list of the allowed values."""

    def render(self, where: str) -> str:
        place = where
        for seg in self.segs:
            if not seg.tag:
                place = (
                    item_place(place, seg.value)
                    if isinstance(seg.value, int)
                    else key_place(place, seg.value)
                )
        names = [s.value for s in self.segs if s.tag and _CLASS_NAME.fullmatch(str(s.value))]
        suffix = f" [{' > '.join(map(str, names))}]" if names else ""
        return f"{place or BODY}: {self.msg}{suffix}"


def _looks_like_tag(part: str) -> bool:
    """pydantic names a union member by its class (`TextBlockParam`) or its schema
    (`str`, `list[...]`, `function-after[...]`); no SDK field is spelled like either."""
    return part[:1].isupper() or "[" in part or "-" in part or part in _PLAIN_TAGS


def _segments(loc: tuple[str | int, ...], value: object) -> tuple[_Seg, ...]:
    """Split a pydantic location into input steps and union tags by following the input."""
    segs: list[_Seg] = []
    current: object = value
    for part in loc:
        if isinstance(part, int):
            items = as_sequence(current)
            segs.append(_Seg(part, tag=False))
            current = (
                items[part] if items is not None and -len(items) <= part < len(items) else _UNKNOWN
            )
            continue
        mapping = as_mapping(current)
        if mapping is not None and part in mapping:
            segs.append(_Seg(part, tag=False))
            current = mapping[part]
        elif _looks_like_tag(part):
            segs.append(_Seg(part, tag=True))
        else:  # a missing or unknown key: the last step of its location
            segs.append(_Seg(part, tag=False))
            current = _UNKNOWN
    return tuple(segs)


def _explain(exc: ValidationError, value: object, where: str) -> list[str]:
    """The messages of a pydantic `ValidationError` raised for `value`, found at `where`."""
    errors = [
        _Err(
            _segments(tuple(error["loc"]), value),
            error["type"],
            error["msg"],
            str(error.get("ctx", {}).get("expected")) if error["type"] == "literal_error" else None,
        )
        for error in exc.errors(include_url=False, include_input=False)
    ]
    kept, _ = _condense(errors, 0)
    return dedupe([error.render(where) for error in kept])


def _condense(errors: list[_Err], depth: int) -> tuple[list[_Err], bool]:
    """Drop the union members that plainly do not fit; merge them when none fits.

    `errors` share their first `depth` steps. Returns the errors to keep, and whether the value
    there is a union none of whose members fits (so an enclosing union can set it aside too).
    """
    kept = [error for error in errors if len(error.segs) == depth]
    by_key: dict[str | int, list[_Err]] = {}
    by_tag: dict[str | int, list[_Err]] = {}
    for error in errors:
        if len(error.segs) > depth:
            seg = error.segs[depth]
            (by_tag if seg.tag else by_key).setdefault(seg.value, []).append(error)
    for group in by_key.values():
        kept += _condense(group, depth + 1)[0]
    if not by_tag:
        return kept, False
    fitting: list[_Err] = []
    misfits: list[tuple[int, list[_Err]]] = []
    for group in by_tag.values():
        inner, inner_misfit = _condense(group, depth + 1)
        if inner_misfit:
            misfits.append((2, inner))
        elif reasons := _misfit_reasons(group, depth + 1):
            misfits.append((1 if any(len(e.segs) > depth + 1 for e in reasons) else 0, reasons))
        else:
            fitting += inner
    if fitting:
        return kept + fitting, False
    best = max(rank for rank, _ in misfits)
    merged = _merge([e for rank, group in misfits if rank == best for e in group], depth)
    return kept + merged, not kept and not by_key


def _misfit_reasons(member: list[_Err], depth: int) -> list[_Err]:
    """The errors saying that a union member plainly does not fit: wrong basic type or kind."""
    return [
        error
        for error in member
        if len(error.segs) == depth
        or (
            len(error.segs) == depth + 1
            and not error.segs[depth].tag
            and error.segs[depth].value in _DISCRIMINATORS
            and error.kind in {"literal_error", "missing"}
        )
    ]


def _merge(errors: list[_Err], depth: int) -> list[_Err]:
    """One error per place for the members of a union that none fits, tags left out."""
    places: dict[tuple[_Seg, ...], list[_Err]] = {}
    for error in errors:
        segs = error.segs[:depth] + tuple(s for s in error.segs[depth:] if not s.tag)
        places.setdefault(segs, []).append(error)
    merged: list[_Err] = []
    for segs, group in places.items():
        expected = [e.expected for e in group if e.expected is not None]
        if len(expected) == len(group) and len(group) > 1:
            values = list(dict.fromkeys(v for x in expected for v in re.split(r", | or ", x)))
            allowed = values[0] if len(values) == 1 else f"{', '.join(values[:-1])} or {values[-1]}"
            merged.append(_Err(segs, "literal_error", f"Input should be {allowed}", allowed))
        else:
            by_kind = {e.kind: e.msg for e in reversed(group)}  # the first message of each kind
            msg = " or ".join(dict.fromkeys(by_kind[e.kind] for e in group))
            merged.append(_Err(segs, group[0].kind if len(group) == 1 else "merged", msg, None))
    return merged


# --- pydantic: lazy iterables and dropped keys -------------------------------------------------

_FAILED: Final = object()
"""Stands for an item of a lazily validated iterable that failed validation."""


def _force(output: object, value: object, where: str, problems: list[str]) -> object:
    """`output` with every lazy `ValidatorIterator` consumed into a list, item errors collected.

    `pydantic_core.ValidatorIterator` is not importable from the top level of pydantic_core,
    so it is recognised by its type name. An iterator goes on after an item fails, so every
    item's errors are collected; a failed item becomes `_FAILED`.
    """
    if type(output).__name__ == "ValidatorIterator":
        iterator = cast("typing.Iterator[Any]", output)
        items = as_sequence(value)
        forced: list[object] = []
        while True:
            index = len(forced)
            try:
                item = next(iterator)
            except StopIteration:
                return forced
            except ValidationError as exc:
                problems += _explain(exc, value, where)
                forced.append(_FAILED)
            else:
                child = items[index] if items is not None and index < len(items) else _UNKNOWN
                forced.append(_force(item, child, item_place(where, index), problems))
    if isinstance(output, dict):
        mapping = as_mapping(value) or {}
        return {
            key: _force(item, mapping.get(key, _UNKNOWN), key_place(where, key), problems)
            for key, item in cast("dict[str, Any]", output).items()
        }
    if isinstance(output, list):
        items = as_sequence(value) or ()
        return [
            _force(item, items[i] if i < len(items) else _UNKNOWN, item_place(where, i), problems)
            for i, item in enumerate(cast("list[Any]", output))
        ]
    return output


def _dropped_keys(value: object, output: object, where: str) -> list[str]:
    """Keys of the input that validation left out (TypedDict) or kept as extras (models)."""
    mapping = as_mapping(value)
    if mapping is not None and isinstance(output, BaseModel):
        extras = output.model_extra or {}
        found = [unknown_place(key_place(where, key)) for key in mapping if key in extras]
        for name, field in type(output).model_fields.items():
            key = next((k for k in (field.alias, name) if k is not None and k in mapping), None)
            if key is not None:
                found += _dropped_keys(mapping[key], getattr(output, name), key_place(where, key))
        return found
    if mapping is not None and isinstance(output, dict):
        validated = cast("dict[str, Any]", output)
        found = [unknown_place(key_place(where, key)) for key in mapping if key not in validated]
        for key, item in validated.items():
            if key in mapping:
                found += _dropped_keys(mapping[key], item, key_place(where, key))
        return found
    items = as_sequence(value)
    if items is not None and isinstance(output, list):
        found: list[str] = []
        for index, (item, validated_item) in enumerate(
            zip(items, cast("list[Any]", output), strict=False)
        ):
            if validated_item is not _FAILED:
                found += _dropped_keys(item, validated_item, item_place(where, index))
        return found
    return []


def unknown_place(place: str) -> str:
    return f"{place}: Unknown key: no field of the SDK's request type has this name"


def check_value(tp: Any, value: object, where: str) -> list[str]:
    """Validate `value` as the SDK type `tp`, surfacing lazy item errors and unknown keys."""
    try:
        output = adapter_for(tp).validate_python(value)
    except ValidationError as exc:
        return _explain(exc, value, where)
    problems: list[str] = []
    forced = _force(output, value, where, problems)
    problems += _dropped_keys(value, forced, where)
    return dedupe(problems)


def check_items(tp: Any, items: object, where: str) -> list[str]:
    """Validate each item of the list at `where` as `tp`; nothing if it is not a list."""
    sequence = as_sequence(items)
    if sequence is None:
        return []
    return [
        m for i, item in enumerate(sequence) for m in check_value(tp, item, item_place(where, i))
    ]


def check_body(
    body_type: Any, payload: Mapping[str, Any], listed: str, item_type: Any
) -> list[str]:
    """The body as `body_type` with the list under `listed` emptied, then each of its items.

    Items are checked one by one so that each error names its item; the body check still sees
    that the list is there (and reports it when it is missing or not a list).
    """
    items = payload.get(listed)
    empty: list[Any] = []
    body = {**payload, listed: empty} if as_sequence(items) is not None else payload
    return check_value(body_type, body, "") + check_items(item_type, items, listed)


def is_streaming(payload: Mapping[str, Any]) -> bool:
    return payload.get("stream") is True
