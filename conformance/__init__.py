"""tool-result-conformance: does a framework carry tool-result media correctly to each LLM api?

This module is the public API: what a framework's maintainer imports to write a target, run the
suite and read its results. Everything else in the package is internal and may move between
releases (`docs/layout.md` shows the stages). The names load on first use, so that importing the
package (pytest does, at every start, for its plugin) costs nothing.

- The target contract: `Target`, `RowRef`, `Payload`, `resolve_target`.
- The canonical history: `History`, `Message`, `ToolCall`, `ToolResult`, `ToolReturnProvenance`,
  the parts `Text`, `Image`, `Document`, `Audio`, `Video` (`Part`, `Media`), `dump`, `load`
  (`docs/history.md` documents every field and what each scenario holds).
- Refusals and the suite's own errors: `UnsupportedContent`, `SuiteError`, `NoRequestSent`.
- The target kit: the loopback `Recorder` (`recorder()`), `body_or_raise`, `payload_of`,
  `Exchange`, `thread_token`, `StrayRequest`, `exception_snapshot`, `scrub_message`,
  `scrub_origins`, the fixture host (`fixture_host()`, `FixtureHost`, `Fetch`,
  `ORIGIN_STAND_IN`), and the recipes for sub-layers: `litellm_offline`,
  `litellm_media_allowed`, `loopback_hosts`, `environment`, `run_async`, `render_script`,
  `repro_recorder`, `repro_report`, `fixture_names`.
- Results: `load_results` (a results file, validated), `Results`.
- The generated test: `from conformance.suite import test_conformance`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_PUBLIC: dict[str, str] = {
    # the target contract
    "Target": "conformance.targets.base",
    "RowRef": "conformance.targets.base",
    "Payload": "conformance.targets.base",
    "resolve_target": "conformance.targets",
    # the canonical history
    **dict.fromkeys(
        (
            "Audio",
            "ContentType",
            "Document",
            "ExecutionEvent",
            "History",
            "Image",
            "Item",
            "Media",
            "Message",
            "Part",
            "Text",
            "ToolCall",
            "ToolResult",
            "ToolReturnProvenance",
            "Video",
            "dump",
            "load",
            "texts",
        ),
        "conformance.history",
    ),
    # refusals and the suite's own errors
    **dict.fromkeys(("NoRequestSent", "SuiteError", "UnsupportedContent"), "conformance.errors"),
    # the target kit
    **dict.fromkeys(
        (
            "ORIGIN_STAND_IN",
            "Exchange",
            "Fetch",
            "FixtureHost",
            "Recorder",
            "StrayRequest",
            "body_or_raise",
            "environment",
            "exception_snapshot",
            "fixture_host",
            "fixture_names",
            "litellm_media_allowed",
            "litellm_offline",
            "loopback_hosts",
            "payload_of",
            "recorder",
            "render_script",
            "repro_recorder",
            "repro_report",
            "run_async",
            "scrub_message",
            "scrub_origins",
            "thread_token",
        ),
        "conformance.targets.kit",
    ),
    # results
    "Results": "conformance.reports.results",
    "load_results": "conformance.reports.results",
}

__all__ = [
    "ORIGIN_STAND_IN",
    "Audio",
    "ContentType",
    "Document",
    "Exchange",
    "ExecutionEvent",
    "Fetch",
    "FixtureHost",
    "History",
    "Image",
    "Item",
    "Media",
    "Message",
    "NoRequestSent",
    "Part",
    "Payload",
    "Recorder",
    "Results",
    "RowRef",
    "StrayRequest",
    "SuiteError",
    "Target",
    "Text",
    "ToolCall",
    "ToolResult",
    "ToolReturnProvenance",
    "UnsupportedContent",
    "Video",
    "__version__",
    "body_or_raise",
    "dump",
    "environment",
    "exception_snapshot",
    "fixture_host",
    "fixture_names",
    "litellm_media_allowed",
    "litellm_offline",
    "load",
    "load_results",
    "loopback_hosts",
    "payload_of",
    "recorder",
    "render_script",
    "repro_recorder",
    "repro_report",
    "resolve_target",
    "run_async",
    "scrub_message",
    "scrub_origins",
    "texts",
    "thread_token",
]
"""The public names; `tests/test_public_api.py` pins them."""

if TYPE_CHECKING:
    from conformance.errors import NoRequestSent, SuiteError, UnsupportedContent
    from conformance.history import (
        Audio,
        ContentType,
        Document,
        ExecutionEvent,
        History,
        Image,
        Item,
        Media,
        Message,
        Part,
        Text,
        ToolCall,
        ToolResult,
        ToolReturnProvenance,
        Video,
        dump,
        load,
        texts,
    )
    from conformance.reports.results import Results, load_results
    from conformance.targets import resolve_target
    from conformance.targets.base import Payload, RowRef, Target
    from conformance.targets.kit import (
        ORIGIN_STAND_IN,
        Exchange,
        Fetch,
        FixtureHost,
        Recorder,
        StrayRequest,
        body_or_raise,
        environment,
        exception_snapshot,
        fixture_host,
        fixture_names,
        litellm_media_allowed,
        litellm_offline,
        loopback_hosts,
        payload_of,
        recorder,
        render_script,
        repro_recorder,
        repro_report,
        run_async,
        scrub_message,
        scrub_origins,
        thread_token,
    )


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'conformance' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
