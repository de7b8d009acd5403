"""Print the report workflow's job matrix: every target and release `nox -s "target(NAME)"`
runs (noxfile.TARGETS, and the bridge targets of noxfile.BRIDGE_TARGETS), as GitHub Actions'
`include` JSON, one job per target and release."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import noxfile  # the repository's own, found from the path set above


def main() -> int:
    jobs = [
        {"target": target, "version": version}
        for target, (_, versions) in noxfile.TARGETS.items()
        for version in versions
    ] + [
        {"target": target, "version": version}
        for target, (_, releases) in noxfile.BRIDGE_TARGETS.items()
        for _, _, version in releases
    ]
    print(json.dumps({"include": jobs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
