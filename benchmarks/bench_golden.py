"""Golden data: the size of the snapshots and cassettes of every target, and how much of it is
media stored more than once.

Media is counted by digest: every string in a snapshot or cassette of 200 characters or more that
decodes as base64 (or is a data URL) is a media item; the table says how many distinct items
there are and how many bytes the repeats cost.

    python benchmarks/bench_golden.py
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections import Counter

from _bench import ROOT, table

_B64 = re.compile(rb"[A-Za-z0-9+/=_-]{200,}")


def _media(data: bytes) -> list[tuple[str, int]]:
    """(digest, length) of every long base64 run in a file."""
    found: list[tuple[str, int]] = []
    for match in _B64.finditer(data):
        chunk = match.group()
        try:
            decoded = base64.b64decode(chunk + b"=" * (-len(chunk) % 4), altchars=b"-_")
        except (binascii.Error, ValueError):
            continue
        found.append((hashlib.sha256(decoded).hexdigest(), len(chunk)))
    return found


def main() -> None:
    rows: list[tuple[object, ...]] = []
    totals = Counter[str]()
    seen: Counter[str] = Counter()
    repeated_bytes = 0
    for kind in ("snapshots", "cassettes"):
        for target in sorted(p for p in (ROOT / kind).iterdir() if p.is_dir()):
            files = [p for p in target.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            media = [m for p in files for m in _media(p.read_bytes())]
            for digest, length in media:
                if seen[digest]:
                    repeated_bytes += length
                seen[digest] += 1
            totals[kind] += size
            rows.append((f"{kind}/{target.name}", len(files), f"{size / 1024:.0f} KiB", len(media)))
    total = sum(totals.values())
    print(table(("folder", "files", "size", "media strings (200+ chars)"), rows))
    print()
    print(
        f"all golden data: {total / 1024 / 1024:.2f} MiB; distinct media items: {len(seen)}; "
        f"bytes spent on repeats of an item already stored: {repeated_bytes / 1024:.0f} KiB"
    )
    print(json.dumps({"total_bytes": total, "repeated_media_bytes": repeated_bytes}))


if __name__ == "__main__":
    main()
