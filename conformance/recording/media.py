"""Media in snapshots, stored once by digest.

A snapshot (`conformance.judging.payload.snapshot_text`) writes every media item of at least
`MEDIA_MIN` bytes as a reference instead of its base64:

```json
"data": {"$media": {"sha256": "9eaa…", "type": "application/pdf", "size": 591, "as": "base64"}}
```

- `sha256` names the bytes (one changed byte changes it, so the snapshot check fails, and the
  diff shows which item changed); `type` is the media type the bytes start with (`sniff`),
  `size` their length.
- `as` is how the payload carried them, so the reference expands back to the exact value:
  `base64` (a canonical base64 string), `base64url`, `bytes` (a raw bytes value, which the
  inline view writes as `{"$bytes": <base64>}`), `data:<type>;base64` (a data URL with that
  header, which may declare another type than the bytes have), or `text` (a string over
  `conformance.judging.payload.BLOB_THRESHOLD` that is no media, as UTF-8).

The bytes live once per target in `<snapshots>/<target>/_media/<sha256>.<ext>`, beside the api
folders, whatever number of cells, apis or encodings use them: a target's folder (the wheel's
`snapshots/reference`, an adopter's `snapshots/<their target>`) holds everything its snapshots
name. `--snapshot-update` writes the blobs a snapshot names before syrupy writes the snapshot
(each atomically: a temporary file renamed into place), and deletes blobs no snapshot names
any more; a run without it reports unused, missing and damaged blobs (`audit`) and fails.

Why `MEDIA_MIN` is 64 bytes: a reference is about 150 characters of snapshot, so below that
base64 inline is as short and as readable; short base64 strings in payloads are more often
ids and signatures than media (Gemini's 32-byte `skip_thought_signature_validator`); and the
smallest fixture item (`chart-2.png`, 78 bytes) is above it, so every fixture item is stored
once.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

__all__ = [
    "MEDIA_MIN",
    "STORE",
    "Audit",
    "Found",
    "audit",
    "blob_path",
    "collect",
    "copy_snapshot",
    "expand",
    "media_view",
    "prune",
    "read_snapshot",
    "references",
    "sniff",
    "store_of",
    "write_blobs",
]

MEDIA_MIN = 64
"""Bytes from which a media item is stored by digest (see the module docstring for why)."""

STORE = "_media"
"""The blob folder of a target's snapshots (no api is named so: api names start with a letter)."""

_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF8", "image/gif"),
    (0, b"%PDF-", "application/pdf"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"fLaC", "audio/flac"),
    (0, b"OggS", "audio/ogg"),
    (0, b"\x1a\x45\xdf\xa3", "video/webm"),
    (4, b"ftyp", "video/mp4"),
)
_RIFF = {b"WAVE": "audio/wav", b"WEBP": "image/webp", b"AVI ": "video/x-msvideo"}
_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
    "audio/mpeg": "mp3",
    "audio/flac": "flac",
    "audio/ogg": "ogg",
    "audio/wav": "wav",
    "video/webm": "webm",
    "video/mp4": "mp4",
    "video/x-msvideo": "avi",
    "text/plain": "txt",
}
_OCTETS = "application/octet-stream"
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")
_DATA_URL = re.compile(r"data:[^,;]*(?:;[^,;=]+=[^,;]*)*;base64")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_MIN_CHARS = (MEDIA_MIN + 2) // 3 * 4  # base64 characters of MEDIA_MIN bytes


def sniff(data: bytes) -> str:
    """The media type `data` starts with, from a few magic numbers; octet-stream otherwise."""
    if data[:4] == b"RIFF" and data[8:12] in _RIFF:
        return _RIFF[data[8:12]]
    for offset, magic, media_type in _SIGNATURES:
        if data[offset : offset + len(magic)] == magic:
            return media_type
    return _OCTETS


def _decoded(text: str) -> tuple[bytes, str] | None:
    """The bytes a canonical base64 (or base64url) string or a base64 data URL carries, and how
    it carried them; None for anything else, or fewer than MEDIA_MIN bytes."""
    header, comma, body = text.partition(",") if text.startswith("data:") else ("", "", text)
    if comma and not _DATA_URL.fullmatch(header):
        return None
    if len(body) < _MIN_CHARS or len(body) % 4:
        return None
    for pattern, decode, encode, name in (
        (_BASE64, base64.b64decode, base64.b64encode, "base64"),
        (_BASE64URL, base64.urlsafe_b64decode, base64.urlsafe_b64encode, "base64url"),
    ):
        if not pattern.fullmatch(body):
            continue
        try:
            data = decode(body)
        except (binascii.Error, ValueError):
            return None
        # Only an encoding that gives the same text back: the reference must expand exactly.
        if len(data) < MEDIA_MIN or encode(data) != body.encode("ascii"):
            return None
        if comma:
            return (data, header) if name == "base64" else None
        return data, name
    return None


Found = dict[str, tuple[bytes, str]]
"""Media items by digest: their bytes and media type."""


def _reference(data: bytes, encoding: str, found: Found | None) -> dict[str, Any]:
    digest = hashlib.sha256(data).hexdigest()
    media_type = "text/plain" if encoding == "text" else sniff(data)
    if found is not None:
        found[digest] = (data, media_type)
    return {"$media": {"sha256": digest, "type": media_type, "size": len(data), "as": encoding}}


def media_view(value: Any, threshold: int, found: Found | None = None) -> dict[str, Any] | None:
    """The reference a snapshot writes for `value` (bytes or a string), or None to write it as
    it is. Media items go into `found` (digest to bytes) when given."""
    if isinstance(value, bytes | bytearray):
        data = bytes(value)
        return _reference(data, "bytes", found) if len(data) >= MEDIA_MIN else None
    if isinstance(value, str) and len(value) >= _MIN_CHARS:
        decoded = _decoded(value)
        if decoded is not None:
            return _reference(*decoded, found)
        if len(value) > threshold:
            return _reference(value.encode("utf-8", "surrogatepass"), "text", found)
    return None


def _as_reference(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict) and set(cast("dict[str, Any]", value)) == {"$media"}:
        inner = cast("dict[str, Any]", value)["$media"]
        if isinstance(inner, dict):
            fields = cast("dict[str, Any]", inner)
            if {"sha256", "type", "size", "as"} <= set(fields):
                return fields
    return None


def references(value: Any) -> Iterator[dict[str, Any]]:
    """Every media reference in a snapshot's JSON value."""
    reference = _as_reference(value)
    if reference is not None:
        yield reference
    elif isinstance(value, dict):
        for item in cast("dict[str, Any]", value).values():
            yield from references(item)
    elif isinstance(value, list):
        for item in cast("list[Any]", value):
            yield from references(item)


def blob_path(store: Path, reference: Mapping[str, Any]) -> Path:
    """Where a reference's bytes are kept: `<store>/<sha256>.<ext>` (the extension of its type,
    so a reviewer can open the file)."""
    digest = str(reference["sha256"])
    if not _DIGEST.fullmatch(digest):
        raise ValueError(f"not a sha256 digest: {digest!r}")
    return store / f"{digest}.{_EXTENSIONS.get(str(reference['type']), 'bin')}"


def expand(value: Any, store: Path) -> Any:
    """A snapshot's JSON value with every reference replaced by the value it stands for, as a
    snapshot wrote it before media was stored by digest (bytes as `{"$bytes": <base64>}`).
    Raises ValueError for a blob that is missing or does not match its digest and size."""
    reference = _as_reference(value)
    if reference is not None:
        data = _read_blob(store, reference)
        encoding = str(reference["as"])
        if encoding == "text":
            return data.decode("utf-8", "surrogatepass")
        if encoding == "base64url":
            return base64.urlsafe_b64encode(data).decode("ascii")
        text = base64.b64encode(data).decode("ascii")
        if encoding == "bytes":
            return {"$bytes": text}
        return text if encoding == "base64" else f"{encoding},{text}"
    if isinstance(value, dict):
        return {k: expand(v, store) for k, v in cast("dict[str, Any]", value).items()}
    if isinstance(value, list):
        return [expand(v, store) for v in cast("list[Any]", value)]
    return value


def _read_blob(store: Path, reference: Mapping[str, Any]) -> bytes:
    path = blob_path(store, reference)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"missing media blob {path}: {error.strerror}") from None
    if hashlib.sha256(data).hexdigest() != reference["sha256"] or len(data) != reference["size"]:
        raise ValueError(f"media blob {path} does not match its digest and size")
    return data


def store_of(snapshot: Path) -> Path:
    """The blob folder of a snapshot file `<target>/<api>/<cell>.json`."""
    return snapshot.parent.parent / STORE


def read_snapshot(path: Path) -> Any:
    """A snapshot file's payload view with its media expanded (`expand`)."""
    return expand(json.loads(path.read_text(encoding="utf-8")), store_of(path))


def copy_snapshot(source: Path, destination: Path) -> None:
    """Copy a snapshot file and the blobs it names into another snapshot folder."""
    text = source.read_bytes()
    for reference in references(json.loads(text)):
        blob = blob_path(store_of(source), reference)
        target = blob_path(store_of(destination), reference)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.read_bytes())
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_bytes(text)


def _intact(path: Path, digest: str, size: int) -> bool:
    try:
        if path.stat().st_size != size:
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == digest
    except OSError:
        return False


def write_blobs(store: Path, found: Found) -> list[Path]:
    """Write each blob that `store` lacks (or holds damaged), atomically (a temporary file in
    the same folder, renamed into place), so a reader or a parallel writer never sees part of
    one. Returns the paths written."""
    written: list[Path] = []
    for digest, (data, media_type) in found.items():
        path = blob_path(store, {"sha256": digest, "type": media_type})
        if _intact(path, digest, len(data)):
            continue  # stored once; a damaged one is written anew
        store.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=store, prefix=f".{digest[:12]}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        written.append(path)
    return written


def collect(value: Any, threshold: int) -> Found:
    """The media items a snapshot of `value` names, by digest."""
    found: Found = {}
    _collect(value, threshold, found)
    return found


def _collect(value: Any, threshold: int, found: Found) -> None:
    if isinstance(value, dict):
        for item in cast("dict[str, Any]", value).values():
            _collect(item, threshold, found)
    elif isinstance(value, list | tuple):
        for item in cast("list[Any]", value):
            _collect(item, threshold, found)
    else:
        media_view(value, threshold, found)


@dataclass
class Audit:
    """What is wrong with a target's blob folder, from the snapshot files beside it."""

    store: Path
    unused: list[Path] = field(default_factory=list[Path])
    """Blobs no snapshot names."""
    missing: list[str] = field(default_factory=list[str])
    """`<snapshot>: <blob>` for each reference whose blob is not there."""
    damaged: list[Path] = field(default_factory=list[Path])
    """Blobs whose bytes do not match their name (digest) or a reference's size."""

    @property
    def ok(self) -> bool:
        return not (self.unused or self.missing or self.damaged)

    def lines(self) -> list[str]:
        return [
            *(f"unused media blob: {path}" for path in self.unused),
            *(f"missing media blob: {text}" for text in self.missing),
            *(f"damaged media blob (digest or size differs): {path}" for path in self.damaged),
        ]


def _snapshot_files(root: Path) -> Iterable[Path]:
    return (p for p in sorted(root.glob("*/*.json")) if p.parent.name != STORE)


def audit(root: Path) -> Audit:
    """Check a target's snapshot folder `root` (`<snapshots>/<target>`): every blob its
    snapshots name is in `root/_media` with the right bytes, and every blob there is named."""
    store = root / STORE
    result = Audit(store)
    named: dict[Path, int] = {}
    for snapshot in _snapshot_files(root):
        try:
            text = snapshot.read_text(encoding="utf-8")
            if '"$media"' not in text:
                continue  # most snapshots name no media: no parse
            value = json.loads(text)
        except (OSError, ValueError):
            continue  # not ours to judge: syrupy's comparison reports a broken snapshot
        for reference in references(value):
            try:
                path = blob_path(store, reference)
            except ValueError:
                result.missing.append(f"{snapshot}: {reference['sha256']!r}")
                continue
            if path not in named and not path.is_file():
                result.missing.append(f"{snapshot}: {path}")
            named[path] = int(reference["size"])
    for path in sorted(store.glob("*")) if store.is_dir() else ():
        if path.name.startswith("."):
            continue  # a writer's temporary file
        if path not in named:
            result.unused.append(path)
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != path.stem or len(data) != named[path]:
            result.damaged.append(path)
    return result


def prune(root: Path) -> list[Path]:
    """Delete the blobs of `root/_media` that no snapshot of `root` names; returns them."""
    unused = audit(root).unused
    for path in unused:
        path.unlink()
    return unused
