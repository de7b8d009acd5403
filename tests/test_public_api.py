"""The public API: what an adopter imports, from one place (`conformance`), pinned; the older
paths the worked example and the templates use still give the same objects."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import conformance

PUBLIC = [
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


def test_the_public_names_are_pinned() -> None:
    assert conformance.__all__ == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_each_public_name_resolves(name: str) -> None:
    assert getattr(conformance, name) is not None
    assert name in dir(conformance)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'toolkit_thing'"):
        conformance.toolkit_thing  # noqa: B018  # pyright: ignore[reportAttributeAccessIssue]


@pytest.mark.parametrize(
    ("old", "names"),
    [
        (
            "conformance.toolkit",
            ["body_or_raise", "recorder", "fixture_host", "exception_snapshot"],
        ),
        ("conformance.history", ["History", "Message", "Text", "ToolCall", "ToolResult", "dump"]),
        ("conformance.targets.base", ["Payload", "RowRef", "Target"]),
        ("conformance.errors", ["UnsupportedContent", "SuiteError", "NoRequestSent"]),
        ("conformance.fixtures", ["fixture_bytes", "FIXTURE_TYPES"]),
    ],
)
def test_the_older_paths_give_the_same_objects(old: str, names: list[str]) -> None:
    module = importlib.import_module(old)
    for name in names:
        public = getattr(conformance, name, None)
        if public is not None:
            assert getattr(module, name) is public, f"{old}.{name}"
        else:
            assert getattr(module, name) is not None


def test_importing_the_package_loads_none_of_it() -> None:
    """pytest imports the package for its plugin at every start: the names load on first use."""
    code = (
        "import sys, conformance; "
        "print(sorted(m for m in sys.modules if m.startswith(('conformance.', 'pydantic'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
