"""Payloads as bytes: exact for comparison, and a reviewable view for snapshots.

A payload is the JSON-shaped request body a target builds. Some SDKs take raw `bytes` in it
(botocore for Bedrock blobs); JSON has no bytes, so both views write them as
`{"$bytes": "<base64>"}`. Snapshots also stand in for blobs over `BLOB_THRESHOLD` (a bytes
value, or a string such as a long data URL) with `{"$blob": {"sha256": ..., "size": ...}}`,
so a 100 MB media item makes a snapshot of a few hundred bytes, and write the fixture host's
origin (`http://127.0.0.1:<port>`, a new port every run) as `conformance.fixtures.ORIGIN_STAND_IN`,
so a URL cell's snapshot is the same on every run. `to_bytes` keeps the payload as it is.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from conformance.fixtures import stand_in_text

__all__ = ["BLOB_THRESHOLD", "snapshot_text", "to_bytes"]

BLOB_THRESHOLD = 64 * 1024
"""Bytes (or characters) above which a snapshot stores a digest and size instead."""


def _blob(data: bytes) -> dict[str, Any]:
    return {"$blob": {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}}


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
    if isinstance(value, bytes | bytearray):
        data = bytes(value)
        return _blob(data) if len(data) > threshold else _exact(data)
    if isinstance(value, str):
        if len(value) > threshold:
            return _blob(value.encode("utf-8", "surrogatepass"))
        return stand_in_text(value)
    return value


def snapshot_text(payload: Any, threshold: int = BLOB_THRESHOLD) -> str:
    """Indented JSON for review, key order kept, blobs over `threshold` as digest and size,
    the fixture host's origin as its stand-in."""
    return json.dumps(_view(payload, threshold), indent=2, ensure_ascii=False) + "\n"
