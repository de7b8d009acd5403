"""tool-result-conformance: does a framework carry tool-result media correctly to each LLM api?"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
