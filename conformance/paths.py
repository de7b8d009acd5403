"""Checks of the paths a run is given and of the names it turns into paths, before it runs.

A mistyped option must not lose a run or destroy an input: `--conformance-results report/`
(a folder), `--conformance-results matrix.yaml` (an input), or a folder nobody may write to
stop the run up front with a message naming the option and what to give instead. Names that
become path segments (a target's name under `snapshots/` and `cassettes/`) are checked to be
one plain segment, so that no name can reach outside its folder.

Every file a command or a run writes goes through one rule (`check_output_file`, then
`write_output`): before any work, it is checked not to be a folder, not to be any input of the
command (the same path, or the same file through a symbolic or a hard link), and to be in a
place this process can write; then it is written atomically, through a temporary file in the
same folder and a rename, so a reader sees the old file or the new one, never half.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Final, cast

__all__ = [
    "SAFE_NAME",
    "PathProblem",
    "check_folder",
    "check_output_file",
    "check_output_folder",
    "check_results_path",
    "is_safe_name",
    "safe_name_problem",
    "same_file",
    "write_atomic",
    "write_output",
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


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once links are followed, or (both
    existing) the same inode, as two hard links to one file are."""
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):  # a symlink loop
        pass
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # either missing, or a path holding a NUL
        return False


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):
        return False


def check_output_file(path: Path, option: str, inputs: Iterable[Path] = ()) -> None:
    """A file the run will write: not a folder, not one of its inputs (through links too), in
    a place this process can write. Raises `PathProblem` saying which and what to give."""
    if "\0" in str(path):
        raise PathProblem(f"{option} {str(path)!r}: holds a NUL byte; give a file path")
    try:
        is_dir = path.is_dir()
        exists = path.exists() or path.is_symlink()
    except OSError as error:  # a name too long, a symlink loop
        raise PathProblem(
            f"{option} {path}: {error.strerror or error}; give another path"
        ) from None
    if is_dir:
        raise PathProblem(
            f"{option} {path}: is a folder; give a file path, e.g. {path / 'results.jsonl'}"
        )
    for given in inputs:
        if same_file(path, given):
            raise PathProblem(
                f"{option} {path}: is an input of this run ({given}); writing there would destroy"
                " it, give another path"
            )
        if given.is_dir() and _inside(path, given):
            raise PathProblem(
                f"{option} {path}: is inside {given}, a folder this run reads; give a path"
                " outside it"
            )
    if exists:
        if path.is_symlink() and not path.exists():
            raise PathProblem(f"{option} {path}: is a broken symbolic link; give another path")
        if not path.is_file():
            raise PathProblem(f"{option} {path}: is not a regular file")
        if not os.access(path, os.W_OK):
            raise PathProblem(f"{option} {path}: cannot write the file (permission denied)")
    _writable_ancestor(path, option)


def check_output_folder(path: Path, option: str, inputs: Iterable[Path] = ()) -> None:
    """A folder the run replaces as a whole (`conformance site`): a folder or nothing yet, in
    a place this process can write, and neither one of its inputs nor holding one (through
    links too). Raises `PathProblem` saying which and what to give."""
    check_folder(path, option, writable=True)
    for given in inputs:
        if same_file(path, given) or _inside(given, path):
            raise PathProblem(
                f"{option} {path}: the run replaces this folder, and {given}, an input of this"
                " run, is in it; give another folder"
            )


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename
    (`OSError` as it comes: a caller that checked the path first sees only a full disk)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(temporary, 0o666 & ~_umask())  # as an ordinary file, not mkstemp's 0600
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_output(path: Path, text: str, option: str = "-o") -> None:
    """Write a checked output file atomically; a failure is a `PathProblem`, not a traceback."""
    try:
        write_atomic(path, text)
    except OSError as error:
        raise PathProblem(
            f"{option} {path}: cannot write it ({error.strerror or error}); give another path"
        ) from None


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


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
