"""The reference target: our own mappers, which must pass every cell."""

from __future__ import annotations

from dataclasses import replace

from conformance import __version__
from conformance.history import History, dump, load
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference.mappers import MAPPERS, Profile

__all__ = ["ReferenceTarget"]


class ReferenceTarget:
    name = "reference"
    version = __version__

    def _profile(self, row: RowRef) -> Profile:
        profiles, _ = MAPPERS[row.api]
        return replace(profiles[row.family], model=row.model)

    def supports(self, row: RowRef) -> str | None:
        if row.api not in MAPPERS:
            return f"no reference mapper for api {row.api!r}"
        if row.family not in MAPPERS[row.api][0]:
            return f"no reference profile for model family {row.family!r} of {row.api}"
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        _, render = MAPPERS[row.api]
        return render(self._profile(row), history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        """Our storage format is the canonical JSON itself."""
        return self.render(row, load(dump(history)))
