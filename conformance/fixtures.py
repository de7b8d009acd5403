"""Deprecated path: the fixture media are `conformance.scenarios.fixtures`. This module stays so
that code written against it keeps working."""

from __future__ import annotations

from conformance.scenarios.fixtures import *  # noqa: F403  (re-exported as it is)
from conformance.scenarios.fixtures import __all__ as __all__
