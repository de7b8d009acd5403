"""The invariants of `conformance.properties` under hypothesis, on every target and row.

Rows are drawn inside each test rather than parametrized, so a property costs one
hypothesis run whatever the number of rows. Each property also has a mutant it must catch:
`find` has to come up with a history on which the mutant breaks it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance.checks import row_ref
from conformance.history import History
from conformance.matrix import load_matrix
from conformance.properties import (
    PROPERTIES,
    PropertyFailed,
    cross_provider_replay,
)
from conformance.strategies import histories
from conformance.targets.base import RowRef, Target
from conformance.targets.reference import ReferenceTarget
from mutants import (
    ChangesWhitespace,
    DropsMedia,
    ForgetsProvenanceOnReplay,
    LosesProvenanceInStorage,
    Nondeterministic,
    RaisesOnHostileNames,
    SwapsParallelResults,
    UnescapedMarker,
)

ROOT = Path(__file__).resolve().parent.parent
_MATRIX = load_matrix(ROOT / "matrix.yaml")
ROWS: list[RowRef] = list({row_ref(c).id: row_ref(c) for c in _MATRIX.cells()}.values())
TARGETS: list[Target] = [ReferenceTarget()]


def _rows(target: Target) -> list[RowRef]:
    return [r for r in ROWS if target.supports(r) is None]


@pytest.mark.parametrize("name", list(PROPERTIES))
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_property_holds(target: Target, name: str) -> None:
    check = PROPERTIES[name]

    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(row=st.sampled_from(_rows(target)), history=histories())
    def run(row: RowRef, history: History) -> None:
        check(target, row, history)

    run()


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_cross_provider_replay_keeps_provenance(target: Target) -> None:
    rows = _rows(target)

    @settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(first=st.sampled_from(rows), then=st.sampled_from(rows), history=histories())
    def run(first: RowRef, then: RowRef, history: History) -> None:
        cross_provider_replay(target, first, then, history)

    run()


# Searching for a counterexample, not shrinking it: the first failure found is enough.
_SEARCH = settings(
    max_examples=1000,
    phases=[Phase.generate],
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _breaks(check: Callable[[Target, RowRef, History], None], target: Target) -> None:
    """Hypothesis must find a history on which `target` breaks `check`."""

    @_SEARCH
    @given(row=st.sampled_from(_rows(target)), history=histories())
    def run(row: RowRef, history: History) -> None:
        check(target, row, history)

    with pytest.raises(PropertyFailed):
        run()


MUTANTS = {
    "deterministic": Nondeterministic,
    "total": RaisesOnHostileNames,
    "media-exactly-once": DropsMedia,
    "text-identical": ChangesWhitespace,
    "markers-name-their-calls": UnescapedMarker,
    "parallel-calls-in-order": SwapsParallelResults,
    "storage-round-trip": LosesProvenanceInStorage,
}


def test_every_property_has_a_mutant() -> None:
    assert set(MUTANTS) == set(PROPERTIES)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_property_catches_its_mutant(name: str) -> None:
    _breaks(PROPERTIES[name], MUTANTS[name]())


def test_cross_provider_replay_catches_its_mutant() -> None:
    target = ForgetsProvenanceOnReplay()
    rows = _rows(target)

    @_SEARCH
    @given(first=st.sampled_from(rows), then=st.sampled_from(rows), history=histories())
    def run(first: RowRef, then: RowRef, history: History) -> None:
        cross_provider_replay(target, first, then, history)

    with pytest.raises(PropertyFailed):
        run()
