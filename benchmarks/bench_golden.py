"""Golden data: the size of the snapshots and cassettes of every target, and how much of it is
media stored more than once.

A media item is counted by the SHA-256 of its bytes wherever it is stored: inline, as a string
of base64 (or base64url, or the body of a data URL) of 88 characters or more (64 bytes,
`conformance.recording.media.MEDIA_MIN`), or as a blob file in a target's
`snapshots/<target>/_media/`. For each folder the table gives its files, size, inline media strings
and blobs; below it, the bytes spent on an item already stored in the same folder (what storing by
digest removes), and on an item stored in another folder too (the per-target blob folders each keep
their own copy, so that a target's folder, the wheel's `snapshots/reference` or an adopter's, is
complete).

    python benchmarks/bench_golden.py                 # the working tree
    python benchmarks/bench_golden.py --before main   # a git revision's golden data, then this
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import io
import json
import re
import subprocess
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

from _bench import ROOT, table

_B64 = re.compile(rb"[A-Za-z0-9+/=_-]{88,}")
_STORE = "_media"


def _inline(data: bytes) -> list[tuple[str, int]]:
    """(digest, characters) of every long base64 run in a text file."""
    found: list[tuple[str, int]] = []
    for match in _B64.finditer(data):
        chunk = match.group()
        try:
            decoded = base64.b64decode(chunk + b"=" * (-len(chunk) % 4), altchars=b"-_")
        except (binascii.Error, ValueError):
            continue
        found.append((hashlib.sha256(decoded).hexdigest(), len(chunk)))
    return found


def measure(root: Path) -> tuple[list[tuple[object, ...]], dict[str, int]]:
    """The table rows and totals for the golden data under `root`."""
    rows: list[tuple[object, ...]] = []
    total = repeated_here = repeated_elsewhere = 0
    folders_of: dict[str, set[str]] = {}
    distinct: set[str] = set()
    for kind in ("snapshots", "cassettes"):
        for target in sorted(p for p in (root / kind).iterdir() if p.is_dir()):
            folder = f"{kind}/{target.name}"
            files = [p for p in target.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            blobs = [p for p in files if p.parent.name == _STORE]
            media = [m for p in files if p not in blobs for m in _inline(p.read_bytes())]
            media += [(hashlib.sha256(b := p.read_bytes()).hexdigest(), len(b)) for p in blobs]
            seen = Counter[str]()
            for digest, length in media:
                if seen[digest]:
                    repeated_here += length
                elif folders_of.get(digest):
                    repeated_elsewhere += length
                seen[digest] += 1
                folders_of.setdefault(digest, set()).add(folder)
                distinct.add(digest)
            total += size
            blob_bytes = sum(p.stat().st_size for p in blobs)
            rows.append(
                (
                    folder,
                    len(files),
                    f"{size / 1024:.0f} KiB",
                    len(media) - len(blobs),
                    f"{len(blobs)} ({blob_bytes / 1024:.1f} KiB)",
                )
            )
    totals = {
        "total_bytes": total,
        "distinct_media": len(distinct),
        "repeated_in_folder_bytes": repeated_here,
        "repeated_across_folders_bytes": repeated_elsewhere,
    }
    return rows, totals


def _print(title: str, rows: list[tuple[object, ...]], totals: dict[str, int]) -> None:
    print(f"### {title}\n")
    header = ("folder", "files", "size", "inline media strings (88+ chars)", "blobs")
    print(table(header, rows))
    print()
    print(
        f"all golden data: {totals['total_bytes'] / 1024 / 1024:.2f} MiB; distinct media items: "
        f"{totals['distinct_media']}; bytes spent on repeats of an item already stored in the "
        f"same folder: {totals['repeated_in_folder_bytes'] / 1024:.0f} KiB; in another folder "
        f"too: {totals['repeated_across_folders_bytes'] / 1024:.1f} KiB"
    )
    print(json.dumps(totals))
    print()


def _export(revision: str, into: Path) -> None:
    """`snapshots/` and `cassettes/` as committed at `revision`, written under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "snapshots", "cassettes"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def main() -> None:
    parser = argparse.ArgumentParser(description="Golden data: size and repeated media.")
    parser.add_argument("--before", help="a git revision to measure first, e.g. main")
    args = parser.parse_args()
    if args.before:
        with tempfile.TemporaryDirectory() as folder:
            _export(args.before, Path(folder))
            _print(f"before: {args.before}", *measure(Path(folder)))
        _print("after: the working tree", *measure(ROOT))
    else:
        _print("the working tree", *measure(ROOT))


if __name__ == "__main__":
    main()
