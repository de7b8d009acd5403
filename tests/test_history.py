"""The canonical history: discriminated parts, provenance omitted when None, exact round trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from conformance import history
from conformance.history import (
    ExecutionEvent,
    Image,
    Message,
    Text,
    ToolCall,
    ToolResult,
    ToolReturnProvenance,
)
from conformance.scenarios.build import scenario


@pytest.mark.parametrize("style", ["result", "prompt"])
@pytest.mark.parametrize("content_type", ["text", "image", "document", "audio", "video"])
def test_scenarios_round_trip(content_type: str, style: str) -> None:
    h = scenario(content_type, "inline", style)  # type: ignore[arg-type]
    assert history.load(history.dump(h)) == h


def test_source_omitted_when_none() -> None:
    plain = json.loads(history.dump([Message(role="user", content="hi")]))
    assert plain == [{"type": "message", "role": "user", "content": "hi"}]
    sourced = Message(
        role="user",
        content=[Text(text="x")],
        source=ToolReturnProvenance(tool_name="t", tool_call_id="c"),
    )
    assert json.loads(history.dump([sourced]))[0]["source"] == {
        "tool_name": "t",
        "tool_call_id": "c",
    }


def test_media_bytes_are_base64_in_json() -> None:
    image = Image(media_type="image/png", data=b"\x89PNG\r\n", identifier="a.png")
    dumped = json.loads(history.dump([ToolResult(tool_call_id="c", name="t", content=[image])]))
    assert dumped[0]["content"][0]["data"] == "iVBORw0K"
    assert "url" not in dumped[0]["content"][0]


def test_media_needs_exactly_one_of_data_and_url() -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        Image(media_type="image/png", identifier="a.png")
    with pytest.raises(ValidationError, match="exactly one"):
        Image(media_type="image/png", data=b"x", url="https://example.com/a", identifier="a")


def test_unknown_type_is_rejected_with_its_location() -> None:
    with pytest.raises(ValidationError) as info:
        history.load(b'[{"type": "message", "role": "user", "content": "hi"}, {"type": "tool"}]')
    assert info.value.errors()[0]["loc"][0] == 1
    assert "tool" in str(info.value)


def test_execution_trace_round_trips() -> None:
    events = [
        ExecutionEvent(
            execution_id="run-1",
            author="agent",
            timestamp=datetime(2026, 11, 30, 5, 0, tzinfo=UTC),
            item=ToolCall(tool_call_id="c", name="t", arguments={"q": "x"}),
        )
    ]
    assert history.load_trace(history.dump_trace(events)) == events
