"""The conformance matrix on the configured targets (the reference target by default)."""

from conformance.suite import test_conformance as test_conformance
