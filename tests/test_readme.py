"""The README names tests and files as evidence; each one must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_every_named_test_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", README)
    assert named, "the README cites tests"
    missing = [f"{f}::{t}" for f, t in named if t not in _functions(ROOT / f)]
    assert missing == []


def test_every_named_file_exists() -> None:
    paths = re.findall(r"`((?:tests|benchmarks|conformance)/[\w/.]+\.py)`", README)
    assert paths
    assert [p for p in paths if not (ROOT / p).exists()] == []
