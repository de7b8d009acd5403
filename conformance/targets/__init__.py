"""Targets: the implementations under test, from a history to the payload they would send.

Owns the Target contract (`base`), the kit every framework target is built on (`kit`: the
loopback recorder, `body_or_raise`, exception snapshots), the reference target with its mappers
(`reference`, which decides capability from its own per-model profiles and never reads the
matrix) and the framework targets, one package each, split into translation (`_messages`),
driving (the package) and reproducer (`_repro`). Targets are found by name, entry point or
`module:attr` (`resolve_target`). May import the scenarios and the shared words; never the
classifier (`conformance.wire`), the matrix or any stage above.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points

from conformance.paths import safe_name_problem
from conformance.targets.base import Payload, RowRef, Target
from conformance.targets.reference import ReferenceTarget

__all__ = ["ENTRY_POINT_GROUP", "Payload", "RowRef", "Target", "TargetError", "resolve_target"]

ENTRY_POINT_GROUP = "conformance.targets"


class TargetError(LookupError):
    """A target name that resolves to nothing usable; the message says what to do."""


def _failure(error: BaseException) -> str:
    """`Type: message`, even for an exception whose message cannot be read."""
    try:
        text = str(error)
    except BaseException:  # a hostile __str__ can raise anything
        text = "(its message cannot be read)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _instantiate(obj: object, spec: str) -> Target:
    try:
        target = obj() if isinstance(obj, type) else obj
        is_target = isinstance(target, Target)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # any failure of the target's code is its own
        raise TargetError(
            f"target {spec!r}: constructing it raised {_failure(error)}; fix the target"
        ) from None
    if not is_target:
        raise TargetError(
            f"{spec!r} is not a target: it needs `name`, `version`, `supports`, `render` "
            "and `render_stored` (see conformance.targets.base.Target)"
        )
    try:
        name, version = target.name, target.version
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        raise TargetError(f"target {spec!r}: reading its name raised {_failure(error)}") from None
    problem = safe_name_problem(name)
    if problem is not None:
        raise TargetError(
            f"target {spec!r}: its name {problem}; the name is its folder under snapshots/"
            " and cassettes/"
        )
    if not isinstance(version, str) or not version:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TargetError(
            f"target {spec!r}: its version must be a non-empty string, not {version!r:.60}"
        )
    return target


def _load(load: Callable[[], object], spec: str, what: str) -> object:
    """Import a target's module or entry point; any failure stops the run with its message."""
    try:
        return load()
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SyntaxError, SystemExit, anything at import
        raise TargetError(f"target {spec!r}: cannot import {what}: {_failure(error)}") from None


def resolve_target(spec: str) -> Target:
    """`reference`, a name registered in the `conformance.targets` entry-point group, or
    `package.module:attr` naming a Target class or instance."""
    if spec == "reference":
        return ReferenceTarget()
    if ":" in spec:
        module_name, _, attr = spec.partition(":")
        module = _load(lambda: importlib.import_module(module_name), spec, repr(module_name))
        try:
            obj = getattr(module, attr)
        except AttributeError as error:
            raise TargetError(f"target {spec!r}: {module_name!r} has no {attr!r}") from error
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # a module __getattr__ of the target's
            raise TargetError(
                f"target {spec!r}: reading {attr!r} raised {_failure(error)}"
            ) from None
        return _instantiate(obj, spec)
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec]
    if not found:
        known = sorted({"reference", *(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))})
        raise TargetError(
            f"unknown target {spec!r}; known targets: {', '.join(known)}; "
            "or give `package.module:attr`"
        )
    obj = _load(found[0].load, spec, f"entry point {found[0].value!r}")
    return _instantiate(obj, spec)
