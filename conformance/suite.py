"""The generated conformance test. Import it into a test module to run the matrix:

from conformance.suite import test_conformance as test_conformance
"""

from __future__ import annotations

import pytest

from conformance.running.engine import Case, CellCase, run_case
from conformance.running.property_gate import PropertyCase

__all__ = ["test_conformance"]


def test_conformance(
    conformance_case: Case | CellCase | PropertyCase, request: pytest.FixtureRequest
) -> None:
    """One check of one cell (or, with `--conformance-items cell`, every check of one cell), or
    one property, on one target (parametrized by the plugin from the matrix and
    `conformance.judging.levels.PROPERTY_LEVELS`). syrupy's snapshot fixture is set up only for
    the snapshot check, not for every test."""
    run_case(conformance_case, request)
