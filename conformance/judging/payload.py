"""Payloads as bytes: exact for comparison, and a reviewable view for snapshots.

A payload is the JSON-shaped request body a target builds. Some SDKs take raw `bytes` in it
(botocore for Bedrock blobs); JSON has no bytes, so both views write them as
`{"$bytes": "<base64>"}`. Snapshots also write each media item (base64, a base64 data URL or
bytes, of `conformance.recording.media.MEDIA_MIN` bytes or more) and any other string over
`BLOB_THRESHOLD` as `{"$media": {"sha256", "type", "size", "as"}}`, its bytes stored once per
target beside the snapshots (`conformance.recording.media`), so a 100 MB media item makes a snapshot
of a few hundred bytes and a fixture used by a hundred cells is stored once. They write the fixture
host's origin (`http://127.0.0.1:<port>`, a new port every run) as
`conformance.scenarios.fixtures.ORIGIN_STAND_IN`, so a URL cell's snapshot is the same on every run.
`to_bytes` keeps the payload as it is.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from conformance.recording.media import media_view
from conformance.scenarios.fixtures import stand_in_text

__all__ = ["BLOB_THRESHOLD", "snapshot_text", "to_bytes"]

BLOB_THRESHOLD = 64 * 1024
"""Characters above which a snapshot stores any string by digest, media or not."""


def _exact(value: Any) -> Any:
    if isinstance(value, bytes | bytearray):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    raise TypeError(f"a payload holds a {type(value).__name__}, which JSON cannot carry")


def to_bytes(payload: Any) -> bytes:
    """Compact JSON in the payload's own key order: what "byte-identical" compares."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=_exact).encode()


def _view(value: Any, threshold: int) -> Any:
    if isinstance(value, dict):
        return {k: _view(v, threshold) for k, v in value.items()}  # type: ignore[misc]
    if isinstance(value, list | tuple):
        return [_view(v, threshold) for v in value]  # type: ignore[misc]
    if isinstance(value, bytes | bytearray | str):
        reference = media_view(value, threshold)
        if reference is not None:
            return reference
        return stand_in_text(value) if isinstance(value, str) else _exact(value)
    return value


def snapshot_text(payload: Any, threshold: int = BLOB_THRESHOLD) -> str:
    """Indented JSON for review, key order kept, media (and strings over `threshold`) as
    references by digest, the fixture host's origin as its stand-in."""
    return json.dumps(_view(payload, threshold), indent=2, ensure_ascii=False) + "\n"
