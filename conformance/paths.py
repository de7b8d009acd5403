"""Checks of the paths a run is given and of the names it turns into paths, before it runs.

A mistyped option must not lose a run or destroy an input: `--conformance-results report/`
(a folder), `--conformance-results matrix.yaml` (an input), or a folder nobody may write to
stop the run up front with a message naming the option and what to give instead. Names that
become path segments (a target's name under `snapshots/` and `cassettes/`) are checked to be
one plain segment, so that no name can reach outside its folder.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final, cast

__all__ = [
    "SAFE_NAME",
    "PathProblem",
    "check_folder",
    "check_output_file",
    "check_results_path",
    "is_safe_name",
    "safe_name_problem",
]

SAFE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")
"""One path segment: letters, digits, `.`, `_`, `+`, `-`, starting with a letter or digit,
at most 100 characters; with no `..` in it."""


class PathProblem(ValueError):
    """A path option or a name that cannot be used; the message says which and what to do."""


def safe_name_problem(name: object) -> str | None:
    """None when `name` is safe as one path segment, else why it is not."""
    if not isinstance(name, str):
        return f"is a {type(name).__name__}, not a string"
    if not SAFE_NAME.fullmatch(name) or ".." in name:
        return (
            f"{name!r} cannot be a folder name: use letters, digits, '.', '_', '+' and '-'"
            " (at most 100, starting with a letter or digit, no '..')"
        )
    return None


def is_safe_name(name: object) -> bool:
    return safe_name_problem(name) is None


def _writable_ancestor(path: Path, option: str) -> None:
    """The nearest existing folder above `path` is a folder this process may write in."""
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise PathProblem(f"{option} {path}: {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise PathProblem(
                    f"{option} {path}: cannot write in {parent} (permission denied);"
                    " give a path in a folder you can write to"
                )
            return


def _is_results_file(path: Path) -> bool:
    """Whether an existing file starts like a results file (a JSON `meta` line)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return False
    if not first.strip():
        return path.stat().st_size == 0
    try:
        record: object = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and cast("dict[str, object]", record).get("kind") == "meta"


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def check_output_file(path: Path, option: str, inputs: Iterable[Path] = ()) -> None:
    """A file the run will write: not a folder, not one of its inputs, in a writable place."""
    if path.is_dir():
        raise PathProblem(
            f"{option} {path}: is a folder; give a file path, e.g. {path / 'results.jsonl'}"
        )
    for given in inputs:
        if _same(path, given):
            raise PathProblem(
                f"{option} {path}: is an input of this run ({given}); writing there would destroy"
                " it, give another path"
            )
    if path.exists():
        if not path.is_file():
            raise PathProblem(f"{option} {path}: is not a regular file")
        if not os.access(path, os.W_OK):
            raise PathProblem(f"{option} {path}: cannot write the file (permission denied)")
    _writable_ancestor(path, option)


def check_results_path(path: Path, inputs: Iterable[Path] = ()) -> None:
    """`--conformance-results`: an output file that, if it exists, is a results file."""
    option = "--conformance-results"
    check_output_file(path, option, inputs)
    if path.exists() and not _is_results_file(path):
        raise PathProblem(
            f"{option} {path}: exists and is not a results file (its first line is not a"
            " conformance meta line); refusing to overwrite it, give another path"
        )


def check_folder(path: Path, option: str, *, writable: bool) -> None:
    """A folder the run reads (and, when `writable`, writes): not a file, writable if asked."""
    if path.exists() and not path.is_dir():
        raise PathProblem(f"{option} {path}: is a file, not a folder")
    if writable:
        if path.exists():
            if not os.access(path, os.W_OK | os.X_OK):
                raise PathProblem(f"{option} {path}: cannot write in it (permission denied)")
        else:
            _writable_ancestor(path, option)
