"""`conformance repro CELL --target NAME`: a standalone reproducer for one cell, to paste into
an upstream issue.

A target that can write one has an optional `repro(row, history) -> str`: the source of a
Python script that uses only the framework and the standard library, rebuilds the history in
the framework's own types, drives its public API against a `http.server` on 127.0.0.1 that
records the request and answers 400, and prints the captured request body as indented JSON.
This module runs it for the cell's scenario and puts a header in front: the cell id, what the
matrix expects there and why (its citation), and the shape expected (the reference target's
payload for the cell, or its refusal), so a maintainer sees both sides without the suite.

Text from the matrix or a target enters the header only as comments made line by line
(`conformance.targets.kit.comment`): a citation whose words span lines stays comments.

The target is found as `conformance repro` is run from the project's folder, like pytest finds
it: the folder of the nearest `pyproject.toml` (and the current folder) on `sys.path`, so
`module:attr` imports the project's own module, and a name that no entry point registers is
looked up among the targets `[tool.conformance] targets` lists (`conformance init` writes
`conformance_target:Target` there), by each target's `name`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.judging.checks import row_ref, run_cell, snapshot_data
from conformance.running.config import ConfigError, find_pyproject, load_config, packaged
from conformance.targets import TargetError, resolve_target
from conformance.targets.kit import comment
from conformance.targets.reference import ReferenceTarget

if TYPE_CHECKING:
    from conformance.matrix import CellSpec, Matrix
    from conformance.targets.base import Target

__all__ = ["EXPECTED_LINES", "ReproError", "project_matrix", "project_target", "repro_script"]

EXPECTED_LINES = 400
"""Lines of the expected payload kept in the header; longer ones are cut with a note."""


class ReproError(Exception):
    """A reproducer cannot be written: the cell, the target or its `repro` says why."""


def _cell(matrix: Matrix, cell_id: str) -> CellSpec:
    found = next((c for c in matrix.all_cells() if c.id == cell_id), None)
    if found is None:
        near = [c.id for c in matrix.all_cells() if c.id.startswith(cell_id.rsplit("/", 1)[0])]
        hint = f"; cells like it: {', '.join(near[:5])}" if near else ""
        raise ReproError(f"no cell {cell_id!r} in the matrix{hint}")
    return found


def project_matrix(here: Path | None = None) -> Path:
    """The matrix a run in the project folder `here` uses: `[tool.conformance] matrix`, else
    the packaged one."""
    try:
        project = load_config(find_pyproject((here or Path.cwd()).resolve()))
    except ConfigError as error:
        raise ReproError(f"invalid [tool.conformance]:\n{error}") from None
    if project is not None and project.settings.matrix:
        return project.resolve(project.settings.matrix)
    return packaged("matrix.yaml")


def project_target(spec: str, here: Path | None = None) -> Target:
    """The target `spec` names, seen from the project folder `here` (default: the current
    one): `reference`, `module:attr` importable from the project, an entry-point name, or the
    `name` of one of the targets `[tool.conformance] targets` lists. `TargetError` says which
    names are known when none matches."""
    here = (here or Path.cwd()).resolve()
    try:
        project = load_config(find_pyproject(here))
    except ConfigError as error:
        raise TargetError(f"invalid [tool.conformance]:\n{error}") from None
    for folder in dict.fromkeys([here, *([project.root] if project else [])]):
        if str(folder) not in sys.path:  # as pytest's rootdir: the project's own modules
            sys.path.insert(0, str(folder))
    try:
        return resolve_target(spec)
    except TargetError as error:
        listed = list(project.settings.targets or ()) if project else []
        if ":" in spec or not listed:
            raise
        unknown = error
    names: list[str] = []
    for listed_spec in listed:
        if listed_spec == spec:
            continue
        target = resolve_target(listed_spec)  # a listed target that fails to load says so
        if target.name == spec:
            return target
        names.append(f"{target.name} ({listed_spec})")
    raise TargetError(
        f"{unknown}; [tool.conformance] targets in pyproject.toml name: {', '.join(names)}"
    )


def repro_script(matrix: Matrix, cell_id: str, target_spec: str) -> str:
    """The reproducer for `cell_id` on the target `target_spec` (a name or `module:attr`),
    with its header; `ReproError` when the target has no `repro` or it fails."""
    cell = _cell(matrix, cell_id)
    try:
        target: Target = project_target(target_spec)
    except TargetError as error:
        raise ReproError(str(error)) from None
    missing = getattr(target, "unavailable", None)
    if missing:
        raise ReproError(f"target {target_spec!r} is unavailable here: {missing}")
    write = getattr(target, "repro", None)
    if not callable(write):
        raise ReproError(
            f"target {target.name!r} has no repro(row, history): it cannot write a standalone"
            " reproducer; add one (see conformance/targets/base.py) or report the cell from"
            " the results file"
        )
    run = run_cell(ReferenceTarget(), cell)
    try:
        script = write(row_ref(cell), run.history)
    except Exception as error:  # the target's own code: say whose it is
        raise ReproError(f"{target.name}.repro raised {type(error).__name__}: {error}") from error
    if not isinstance(script, str) or not script.strip():
        raise ReproError(f"{target.name}.repro returned no script (got {type(script).__name__})")
    return _header(matrix, cell, target, snapshot_data(run)) + script.lstrip("\n")


def _shown(value: object) -> str:
    """Bytes in the expected shape (Bedrock's raw media): their size, not their text."""
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _header(matrix: Matrix, cell: CellSpec, target: Target, expected: object) -> str:
    """The header as comments of the script's language: a target whose reproducer is not Python
    (a bridge's) names its comment prefix and run command (`repro_comment`, `repro_run` with
    `{file}`)."""
    prefix = str(getattr(target, "repro_comment", "#"))
    run = str(getattr(target, "repro_run", "python {file}")).format(
        file="this_file" + str(getattr(target, "repro_suffix", ".py"))
    )
    citation = matrix.citations.get(cell.cite_id)
    lines = [
        f"Reproducer for {cell.id} on {target.name} {target.version}",
        "written by `conformance repro` (tool-result-conformance); it needs only the framework.",
        "",
        f"The matrix expects: {cell.expect} (known from {cell.known}).",
    ]
    if citation is not None:
        lines += [f"Why: {citation.says}", f"Source: {citation.url}"]
    else:
        lines.append(f"Citation: {cell.cite_id}")
    shape = json.dumps(expected, indent=2, ensure_ascii=False, default=_shown).splitlines()
    if len(shape) > EXPECTED_LINES:
        cut = len(shape) - EXPECTED_LINES
        shape = [*shape[:EXPECTED_LINES], f"... {cut} more lines"]
    lines += [
        "",
        "Expected shape (the suite's reference rendering of this cell; a refusal is shown",
        "as the error it raises before sending):",
        *shape,
        "",
        f"Run it: {run}   (it prints the request body the framework sends)",
    ]
    return "".join(comment(line, prefix) for line in lines) + "\n"  # every line, escaped
