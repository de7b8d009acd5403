"""Results files written by hand for the report, merge, diff, HTML and browser tests."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ALL_PASS", "CELL", "LINK", "checks", "meta", "result", "write"]

CELL = "openai-chat/gpt-4o/image/inline/result"
LINK = "https://example.invalid/issues/1"


def meta(**targets: str) -> dict[str, Any]:
    """A meta line; `reference 0.1.0` unless targets are given."""
    return {
        "kind": "meta",
        "suite_version": "0.1.0",
        "matrix": "matrix.yaml",
        "matrix_digest": "sha256:" + "ab" * 32,
        "targets": targets or {"reference": "0.1.0"},
        "python": "3.11.7",
        "date": "2026-11-30T05:00:00+00:00",
    }


def result(cell: str = CELL, check: str = "outcome", **fields: Any) -> dict[str, Any]:
    """A result line for `cell`; api, model, content type, source and style come from its id."""
    api, *model, content_type, source, style = cell.split("/")
    line: dict[str, Any] = {
        "kind": "result",
        "target": "reference",
        "target_version": "0.1.0",
        "cell": cell,
        "row": "/".join([api, *model]),
        "api": api,
        "model": "/".join(model),
        "content_type": content_type,
        "source": source,
        "style": style,
        "expect": "fallback",
        "known": "sdk",
        "cite": "openai-chat-tool-message",
        "check": check,
        "verdict": "pass",
        "outcome": "fallback-marked",
        "detail": "",
        "reason": None,
        "link": None,
    }
    return line | fields


def write(path: Path, results: list[dict[str, Any]], *, head: dict[str, Any] | None = None) -> Path:
    """A complete results file: meta, results, end."""
    lines = [head or meta(), *results, {"kind": "end", "results": len(results)}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def checks(cell: str, verdict: str = "pass", **fields: Any) -> list[dict[str, Any]]:
    """The six checks of one cell, all with the same verdict."""
    names = ["snapshot", "outcome", "no-silent-loss", "text-identical", "provenance"]
    return [
        result(cell, name, verdict=verdict, **fields) for name in [*names, "unsupported-raises"]
    ]


ALL_PASS = [
    *checks("openai-chat/gpt-4o/text/inline/result", expect="native", outcome="native"),
    *checks("openai-chat/gpt-4o/image/inline/result"),
    *checks("openai-chat/gpt-4o/audio/inline/result", expect="unsupported", outcome="raised"),
    *checks("anthropic/claude-4/image/inline/result", expect="native", outcome="native"),
]
