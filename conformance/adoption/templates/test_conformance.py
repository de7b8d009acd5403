"""The tool-result conformance matrix on this framework ([tool.conformance] in pyproject.toml)."""

from conformance.suite import test_conformance as test_conformance
