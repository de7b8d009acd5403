"""The README and the docs pages name tests and files as evidence; each one must exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = "\n".join(
    p.read_text(encoding="utf-8")
    for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
)


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


def test_the_readme_fits_in_one_sitting() -> None:
    """The depth lives in docs/; the README is what it is, the two commands, reading the report,
    adopting and gating (issue 19: about 250 lines)."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 260


def test_every_docs_page_the_readme_links_exists() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\((docs/[\w.-]+\.md)(?:#[\w-]+)?\)", text)
    assert linked
    assert [p for p in linked if not (ROOT / p).exists()] == []
