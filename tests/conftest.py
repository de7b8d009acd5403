"""Shared test configuration: pytester, and hypothesis profiles.

Profiles: `dev` (fast, the default locally), `ci` (derandomized and bounded; hypothesis loads
its own `ci` profile when `CI` is set, which we extend rather than override), `nightly`
(2,000 examples per property). Choose with HYPOTHESIS_PROFILE or `--hypothesis-profile`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project that runs the real matrix with the plugin, as a framework's repository would:
    an ini naming the matrix, a copy of matrix.yaml and the generated test, with tests/ on its
    path for the mutant targets. A module that needs more overrides it, asking for this one."""
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    pytester.syspathinsert(ROOT / "tests")
    return pytester


settings.register_profile("dev", max_examples=50, deadline=None)  # no timed assertions
settings.register_profile(
    "ci",
    settings.get_profile("ci"),
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "nightly",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# A framework target that renders through real clients (a few hundred ms a request): fewer
# examples and no deadline (`nox -s "target(langchain)"`).
settings.register_profile(
    "slow-target",
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
