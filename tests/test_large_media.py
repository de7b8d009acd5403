"""A 100 MB media item: it renders, and its snapshot names it by digest, type and size."""

from __future__ import annotations

import hashlib
import json

from conformance.history import Image, Message, ToolCall, ToolResult
from conformance.judging.payload import BLOB_THRESHOLD, snapshot_text, to_bytes
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget

SIZE = 100 * 1024 * 1024


def test_a_100_mb_image_snapshots_as_digest_and_size() -> None:
    data = bytes(range(256)) * (SIZE // 256)
    history = [
        Message(role="user", content="Render the big chart."),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolResult(
            tool_call_id="call_1",
            name="get_image",
            content=[Image(media_type="image/png", data=data, identifier="big.png")],
        ),
    ]
    row = RowRef("anthropic/claude-sonnet-5", "anthropic", "claude-sonnet-5", "claude-sonnet-5-5")
    payload = ReferenceTarget().render(row, history)
    text = snapshot_text(payload)
    assert len(text) < 4096
    source = json.loads(text)["messages"][2]["content"][0]["content"][0]["source"]
    assert source["data"] == {
        "$media": {
            "sha256": hashlib.sha256(data).hexdigest(),
            "type": "application/octet-stream",  # the bytes are no known format
            "size": SIZE,
            "as": "base64",
        }
    }
    assert len(to_bytes(payload)) > SIZE  # the exact view keeps every byte


def test_small_values_are_kept_whole() -> None:
    small = {"data": "x " * (BLOB_THRESHOLD // 2), "raw": b"\x00\x01"}
    assert json.loads(snapshot_text(small)) == {
        "data": "x " * (BLOB_THRESHOLD // 2),
        "raw": {"$bytes": "AAE="},
    }


def test_a_long_string_that_is_no_media_is_stored_as_text() -> None:
    text = "x " * BLOB_THRESHOLD
    assert json.loads(snapshot_text({"data": text}))["data"]["$media"] == {
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
        "type": "text/plain",
        "size": len(text),
        "as": "text",
    }
