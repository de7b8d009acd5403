"""The names that configure the suite: its ini keys and command-line options, and the name the
engine registers under. Read by the thin plugin (`conformance.plugin`) at every pytest start and by
`conformance.running.config` and `conformance.running.engine`, so they live below all three."""

from __future__ import annotations

from typing import Final

__all__ = ["ENGINE", "INI_KEYS", "ITEMS", "OPTIONS"]

ENGINE: Final = "conformance-engine"
"""The name `conformance.running.engine` is registered under once the project is configured."""

INI_KEYS: Final = (
    "conformance_matrix",
    "conformance_targets",
    "conformance_snapshots",
    "conformance_cassettes",
    "conformance_deviations",
)
"""The ini keys that configure the suite (`conformance.running.config.run_settings` reads them)."""

OPTIONS: Final = (
    "conformance_matrix",
    "conformance_target",
    "conformance_results",
    "conformance_cassettes",
    "conformance_record",
    "conformance_api",
    "conformance_check",
    "conformance_level",
)
"""The command-line options that configure the suite on their own."""

ITEMS: Final = ("check", "cell")
"""`--conformance-items` (ini `conformance_items`): what one generated test is, one check of a
cell (the default) or a whole cell."""
