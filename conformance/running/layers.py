"""The layers a target's rows go through, as the results' meta line records them.

A framework may serve some model rows through another layer: the OpenAI Agents SDK's LiteLLM
model, ADK's LiteLLM wrapper. A target says so with an optional `layers`: a method
`layers(row) -> Sequence[tuple[str, str]]` or a mapping from a row id (or an api name) to such
a sequence, each pair a distribution name and its version, outermost first (the target itself
not included). The meta line keeps them per target and row (`{"litellm": ...}` rows only,
none where a row goes through the target alone), and the reports say "openai-agents 0.24 via
litellm 1.110" for those rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from conformance.targets.base import RowRef, Target

__all__ = ["LayersError", "layers_meta"]


class LayersError(ValueError):
    """A target's `layers` gave something that is not a list of (name, version) pairs."""


def _chain(target: Target, declared: Any, row: RowRef) -> list[list[str]]:
    if callable(declared):
        try:
            found: object = declared(row)
        except Exception as error:  # the target's code: say whose
            raise LayersError(
                f"target {target.name!r}: layers({row.id}) raised {type(error).__name__}: {error}"
            ) from None
    elif isinstance(declared, Mapping):
        table: Mapping[str, Any] = declared  # pyright: ignore[reportUnknownVariableType]
        found = table.get(row.id, table.get(row.api, ()))
    else:
        raise LayersError(
            f"target {target.name!r}: `layers` must be a method layers(row) or a mapping of row"
            f" id or api to (name, version) pairs, not {type(declared).__name__}"
        )
    if found is None:
        return []
    listed = _items(found)
    chain = [_pair(pair) for pair in listed] if listed is not None else None
    if chain is None or any(pair is None for pair in chain):
        raise LayersError(
            f"target {target.name!r}: layers for {row.id} must be (name, version) pairs of"
            f" non-empty strings, e.g. [('litellm', '1.110.2')]; got {found!r:.120}"
        )
    return [list(pair) for pair in chain if pair is not None]


def _items(value: object) -> list[object] | None:
    """The items of a list or tuple, else None."""
    if isinstance(value, list | tuple):
        return list(cast("Sequence[object]", value))
    return None


def _pair(value: object) -> tuple[str, str] | None:
    items = _items(value)
    if items is None or len(items) != 2:
        return None
    name, version = items
    if isinstance(name, str) and isinstance(version, str) and name.strip() and version.strip():
        return name, version
    return None


def layers_meta(targets: Iterable[Target], rows: Sequence[RowRef]) -> dict[str, Any]:
    """Per target name, per row it serves, the layers it declares there (only non-empty)."""
    out: dict[str, dict[str, list[list[str]]]] = {}
    for target in targets:
        declared = getattr(target, "layers", None)
        if declared is None or getattr(target, "unavailable", None):
            continue
        for row in rows:
            if target.supports(row) is not None:
                continue
            chain = _chain(target, declared, row)
            if chain:
                out.setdefault(target.name, {})[row.id] = chain
    return out
