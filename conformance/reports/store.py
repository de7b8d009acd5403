"""The results folder: every framework release's results, committed as data.

`results/<target>/<version>.jsonl.gz` holds the results file a run of one target at one
release wrote (`nox -s "target(NAME)"`), byte for byte, gzip-compressed (a file of a thousand
cells is a megabyte of JSON and about 40 KB compressed). Each file describes itself: its meta
line names the suite version and commit, the matrix and its digest, the target's version and
the SDK versions it drove, the date and the command, and its end line says whether the run
completed. Only a complete run's file is imported (`load_results` refuses the rest), so the
folder never holds a partial run.

`import_results` copies results files in; `stored_results` lists the folder;
`release_files` picks, per target and version, one file among the folder's and any given
afresh (a fresh run of a release replaces its stored file in a report, never both).
Compression is deterministic (no name, no time in the gzip header), so importing the same
file twice changes nothing in git.
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from conformance.paths import is_safe_name
from conformance.reports.results import MetaLine, ReportError, load_results, read_meta

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "RESULTS_DIR",
    "Imported",
    "import_results",
    "release_files",
    "stored_path",
    "stored_results",
]

RESULTS_DIR = Path("results")
"""The folder, at the repository's root."""
_SUFFIXES = (".jsonl.gz", ".jsonl")


class Imported(NamedTuple):
    source: str
    stored: Path
    changed: bool
    """False when the folder held the same bytes already."""


def stored_path(folder: Path, target: str, version: str) -> Path:
    """Where a target's release is kept; the names must be plain folder and file names."""
    for what, name in (("target", target), ("version", version)):
        if not is_safe_name(name):
            raise ReportError(
                f"{what} {name!r} is not a plain file name; the results folder keeps"
                " results/<target>/<version>.jsonl.gz"
            )
    return folder / target / f"{version}.jsonl.gz"


def _single_target(path: str, meta: MetaLine) -> tuple[str, str]:
    """The framework target a file is stored under: the one target it covers, or one framework
    with its variants (each named in `variant_of` as a variant of it, at its version)."""
    frameworks = {n: v for n, v in meta.targets.items() if n not in meta.variant_of}
    if not frameworks and len(meta.targets) == 1:  # a variant run alone: a target of its own
        frameworks = dict(meta.targets)
    if len(frameworks) != 1:
        raise ReportError(
            f"{path}:1: the results folder keeps one target's release per file (with its"
            f" variants), and this run covered {len(frameworks)} ({', '.join(frameworks)}); run"
            ' each target on its own (nox -s "target(NAME)")'
        )
    ((target, version),) = frameworks.items()
    for variant, framework in meta.variant_of.items():
        if variant in frameworks:
            continue
        if framework != target or meta.targets.get(variant) != version:
            raise ReportError(
                f"{path}:1: variant {variant} is of {framework} at"
                f" {meta.targets.get(variant)}, not of {target} {version}; a file holds one"
                " framework release with its own variants"
            )
    return target, version


def import_results(
    paths: Sequence[str | os.PathLike[str]],
    folder: Path = RESULTS_DIR,
    *,
    skipped: list[str] | None = None,
) -> list[Imported]:
    """Copy each complete results file into the folder, compressed; refuse any other.

    Every file is read strictly first (`load_results`: a file of an interrupted or crashed
    run, or a truncated one, is refused with its reason), and all are checked before any is
    written, so a bad file among several leaves the folder as it was. With `skipped` given,
    a refused file is left out instead, its reasons appended there, and the others imported
    (a CI job that was cut short must not hold back every other release's results)."""
    planned: list[tuple[str, Path, bytes]] = []
    problems: list[str] = []
    seen: dict[Path, str] = {}
    for given in paths:
        path = os.fspath(given)
        try:
            meta = load_results([path]).files[0].meta
            target, version = _single_target(path, meta)
            stored = stored_path(folder, target, version)
        except ReportError as error:
            problems += error.problems
            continue
        if stored in seen:
            problems.append(f"{path}: {target} {version} is also given as {seen[stored]}")
            continue
        seen[stored] = path
        if Path(path).resolve() == stored.resolve():
            problems.append(f"{path}: is the stored file itself; give the run's own file")
            continue
        data = Path(path).read_bytes()
        if path.endswith(".gz"):
            data = gzip.decompress(data)
        planned.append((path, stored, data))
    if problems and skipped is None:
        raise ReportError(*problems)
    if skipped is not None:
        skipped += problems
    done: list[Imported] = []
    for path, stored, data in planned:
        packed = gzip.compress(data, compresslevel=9, mtime=0)
        changed = not stored.exists() or stored.read_bytes() != packed
        if changed:
            stored.parent.mkdir(parents=True, exist_ok=True)
            part = stored.with_name(stored.name + ".part")
            part.write_bytes(packed)
            part.replace(stored)
        done.append(Imported(path, stored, changed))
    return done


def stored_results(folder: Path = RESULTS_DIR) -> list[Path]:
    """Every results file in the folder, by target then version number."""
    if not folder.is_dir():
        return []
    found = [
        path
        for target in sorted(folder.iterdir())
        if target.is_dir()
        for path in target.iterdir()
        if path.name.endswith(_SUFFIXES)
    ]
    return sorted(found, key=lambda p: (p.parent.name, _version_key(_version_of(p))))


def _version_of(path: Path) -> str:
    name = path.name
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.findall(r"\d+|\D+", version))


def release_files(stored: Sequence[Path], fresh: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """One file per target and version: a fresh run's over the stored one. Returns the files
    (the fresh ones first, in their order, so the first is the run the others are judged
    against; then the stored ones no fresh file replaces) and a line per file left out."""
    chosen: dict[tuple[str, str], Path] = {}
    notes: list[str] = []
    for path in fresh:
        for key in read_meta(path).targets.items():
            chosen.setdefault(key, path)
    kept = list(dict.fromkeys(chosen.values()))
    for path in stored:
        keys = list(read_meta(path).targets.items())
        replaced = [key for key in keys if key in chosen]
        if replaced:
            notes.append(
                f"{path}: {replaced[0][0]} {replaced[0][1]} run afresh in {chosen[replaced[0]]};"
                " the fresh file is used"
            )
            continue
        for key in keys:
            chosen[key] = path
        kept.append(path)
    return kept, notes
