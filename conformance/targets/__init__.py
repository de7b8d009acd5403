"""Targets: the implementations under test, found by name, entry point or `module:attr`."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from conformance.targets.base import Payload, RowRef, Target
from conformance.targets.reference import ReferenceTarget

__all__ = ["ENTRY_POINT_GROUP", "Payload", "RowRef", "Target", "TargetError", "resolve_target"]

ENTRY_POINT_GROUP = "conformance.targets"


class TargetError(LookupError):
    """A target name that resolves to nothing usable; the message says what to do."""


def _instantiate(obj: object, spec: str) -> Target:
    target = obj() if isinstance(obj, type) else obj
    if not isinstance(target, Target):
        raise TargetError(
            f"{spec!r} is not a target: it needs `name`, `version`, `supports`, `render` "
            "and `render_stored` (see conformance.targets.base.Target)"
        )
    return target


def resolve_target(spec: str) -> Target:
    """`reference`, a name registered in the `conformance.targets` entry-point group, or
    `package.module:attr` naming a Target class or instance."""
    if spec == "reference":
        return ReferenceTarget()
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise TargetError(f"target {spec!r}: cannot import {module_name!r}: {error}") from error
        try:
            obj = getattr(module, attr)
        except AttributeError as error:
            raise TargetError(f"target {spec!r}: {module_name!r} has no {attr!r}") from error
        return _instantiate(obj, spec)
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec]
    if not found:
        known = sorted({"reference", *(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))})
        raise TargetError(
            f"unknown target {spec!r}; known targets: {', '.join(known)}; "
            "or give `package.module:attr`"
        )
    try:
        obj = found[0].load()
    except ImportError as error:
        raise TargetError(f"target {spec!r} failed to import: {error}") from error
    return _instantiate(obj, spec)
