"""The blob folders of a run's snapshots, checked when the run ends (`conformance.recording.media`).

With `--snapshot-update`, blobs no snapshot names any more are deleted (after syrupy has
written and deleted snapshots). Then, with or without it, every target's folder is audited:
an unused, missing or damaged blob is reported under "media blobs" and fails the run, as syrupy
fails a run for an unused snapshot. The audit reads the files on disk, so a run of a few cells
judges the whole folder the same way.

Damaged golden data is a failure in the results file too, never "complete, all pass": the
snapshot check of a cell whose snapshot does not parse, or names a blob that is missing or
damaged, fails naming the file (`snapshot_problems`); and what no judged cell names (an unused
blob, a damaged one of cells the run did not select) is listed on the end line (`golden`),
which the readers of results refuse (`conformance.reports.results`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.recording.media import audit, blob_path, prune, references, store_of

__all__ = ["MediaAudit", "snapshot_problems"]

_FIX = "restore it (git checkout -- PATH) or write it anew with --snapshot-update, and review"


def _blob_problem(
    path: Path, reference: Mapping[str, Any], seen: dict[Path, str | None]
) -> str | None:
    if path in seen:
        return seen[path]
    problem: str | None = None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        problem = f"missing media blob {path}"
    except OSError as error:
        problem = f"media blob {path} cannot be read ({error.strerror or error})"
    else:
        digest = hashlib.sha256(data).hexdigest()
        if digest != path.stem:
            problem = (
                f"damaged media blob {path}: its bytes hash to sha256 {digest[:16]}..., not the"
                " digest it is named by"
            )
        elif len(data) != int(reference.get("size", len(data))):
            size = reference["size"]
            problem = f"damaged media blob {path}: {len(data)} bytes, the snapshot says {size}"
    seen[path] = problem
    return problem


def snapshot_problems(snapshot: Path, seen: dict[Path, str | None] | None = None) -> list[str]:
    """What is wrong with the golden data of one snapshot file: it cannot be read or does not
    parse as JSON, or a media blob it names is missing or damaged. [] when it is sound, or
    absent (the snapshot check says how to create it). `seen` caches each blob's verdict."""
    seen = {} if seen is None else seen
    try:
        text = snapshot.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        return [f"{snapshot}: cannot be read as UTF-8 ({error}); {_FIX}"]
    try:
        value: object = json.loads(text)
    except json.JSONDecodeError as error:
        return [
            f"{snapshot}:{error.lineno}:{error.colno}: does not parse as JSON ({error.msg}); {_FIX}"
        ]
    problems: list[str] = []
    store = store_of(snapshot)
    for reference in references(value):
        try:
            path = blob_path(store, reference)
        except ValueError:
            problems.append(
                f"{snapshot}: names a media blob {reference.get('sha256')!r} that is not a"
                f" digest; {_FIX}"
            )
            continue
        problem = _blob_problem(path, reference, seen)
        if problem is not None:
            problems.append(f"{problem} (named by {snapshot}); {_FIX}")
    return problems


class MediaAudit:
    """A pytest plugin object: prune (when updating) and audit each snapshot root."""

    def __init__(self, roots: Callable[[], Iterable[Path]], *, updating: bool) -> None:
        self.roots = roots
        self.updating = updating
        self.lines: list[str] = []
        self.problems: list[str] = []
        """One line per blob that is unused, missing or damaged, naming its path."""
        self._done = False

    @pytest.hookimpl(trylast=True)  # after syrupy's own session finish wrote the snapshots
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.run(session)

    def run(self, session: pytest.Session) -> list[str]:
        """Prune (when updating) and audit once; the results writer calls it before it writes
        the file (after syrupy's tryfirst session finish), this plugin's own hook after."""
        if self._done or hasattr(session.config, "workerinput"):
            return self.problems  # the controller audits once, after every worker
        self._done = True
        for root in dict.fromkeys(self.roots()):
            if self.updating:
                self.lines += [f"deleted unused media blob {path}" for path in prune(root)]
            found = audit(root)
            if not found.ok:
                self.problems += found.lines()
                self.lines += found.lines()
                self.lines.append(
                    f"{root}: run pytest with --snapshot-update to write and prune its blobs"
                )
                if session.exitstatus == 0:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return self.problems

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.section("media blobs")
            for line in self.lines:
                terminalreporter.write_line(line)
