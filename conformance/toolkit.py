"""Deprecated path: the toolkit is `conformance.targets.kit`, and its names are exported by
`conformance` itself (`from conformance import body_or_raise`). This module stays so that
targets written against it keep working; new code imports from `conformance`."""

from __future__ import annotations

from conformance.targets.kit import *  # noqa: F403  (the kit's __all__, re-exported as it is)
from conformance.targets.kit import __all__ as __all__
