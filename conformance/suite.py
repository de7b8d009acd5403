"""The generated conformance test. Import it into a test module to run the matrix:

from conformance.suite import test_conformance as test_conformance
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from conformance.plugin import Case, run_case
from conformance.property_gate import PropertyCase

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion

__all__ = ["test_conformance"]


def test_conformance(
    conformance_case: Case | PropertyCase,
    conformance_snapshot: SnapshotAssertion,
    request: pytest.FixtureRequest,
) -> None:
    """One check of one cell, or one property, on one target (parametrized by the plugin from
    the matrix and `conformance.levels.PROPERTY_LEVELS`)."""
    run_case(conformance_case, conformance_snapshot, request.node)
