"""Using the suite from a framework's own repository: `conformance check`, `init`,
`deviations`, and the level gate of `conformance diff`."""

from __future__ import annotations

import re
import sys
from datetime import date
from pathlib import Path
from typing import Final

from conformance.adoption.pyproject import AlreadyConfigured, PyprojectError, plan
from conformance.adoption.reasons import (
    Rules,
    RulesError,
    from_results,
    load_rules,
    render_deviations,
)
from conformance.judging.deviations import DeviationsError, load_deviations
from conformance.judging.levels import CHECK_LEVELS, LEVELS, Level
from conformance.matrix import TARGET_PATTERN, MatrixError, lifecycle_findings, load_matrix
from conformance.matrix.lifecycle import located_findings
from conformance.paths import check_folder, check_output_file, write_output
from conformance.reports.results import ReportError, Results, ResultsFile, load_results
from conformance.reports.shards import lines_of
from conformance.running.config import (
    ConfigError,
    ProjectConfig,
    Settings,
    find_pyproject,
    load_config,
    packaged,
)

__all__ = ["USER_ERRORS", "check", "gate_levels", "gated", "init", "write_deviations"]


class InitError(ValueError):
    """`conformance init` cannot write the scaffold."""


USER_ERRORS: Final = (
    ConfigError,
    DeviationsError,
    RulesError,
    MatrixError,
    ReportError,
    InitError,
    PyprojectError,
)
"""Errors that are the user's input, shown as they are (exit 2)."""

_TEMPLATES: Final = Path(__file__).parent / "templates"


def _project() -> ProjectConfig | None:
    return load_config(find_pyproject(Path.cwd()))


# --- check ---------------------------------------------------------------------------------


def check(matrix_arg: str | None, *, today: date | None = None) -> int:
    """Validate the matrix, `[tool.conformance]` and every deviations file of the project; warn
    on rows within 60 days of shutdown (on the matrix's `as_of`, or `today`), and fail on a row
    past it."""
    project = _project()
    settings = project.settings if project else Settings()
    if matrix_arg:
        path, where = Path(matrix_arg), ""
    elif project and settings.matrix:
        path, where = project.resolve(settings.matrix), " ([tool.conformance] matrix)"
    else:
        path, where = packaged("matrix.yaml"), " (the packaged matrix)"
    path = path if matrix_arg else _shown(path)  # as typed, or short
    matrix = load_matrix(path)
    cells = [cell.id for cell in matrix.all_cells()]
    findings = lifecycle_findings(matrix, today)
    for line in located_findings(str(path), findings):
        print(line, file=sys.stderr)
    if any(f.severity == "error" for f in findings):
        return 2
    warned = f", {len(findings)} near shutdown" if findings else ""
    print(
        f"{path}{where}: {len(matrix.rows)} model rows, {len(matrix.cells())} cells, valid{warned}"
    )
    problems: list[str] = []
    for target, found_at in _deviations_files(project or ProjectConfig(None, Settings())):
        file = _shown(found_at)
        try:
            found = load_deviations(file, target=target, cells=cells)
        except DeviationsError as error:
            problems.append(str(error))
            continue
        print(f"{file}: {len(found.deviations)} deviations of {found.target}, valid")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    return 0


def _shown(path: Path) -> Path:
    """A path as the user would type it: relative to here when it is below here."""
    here = Path.cwd()
    return path.relative_to(here) if path.is_absolute() and path.is_relative_to(here) else path


def _deviations_files(project: ProjectConfig) -> list[tuple[str | None, Path]]:
    value = project.settings.deviations
    if isinstance(value, dict):
        return [(target, project.resolve(path)) for target, path in value.items()]
    folder = project.resolve(value or "deviations")
    if not folder.is_dir():
        return []
    return [
        (None, file)
        for file in sorted(folder.glob("*.yaml"))
        if not file.name.endswith(".reasons.yaml")
    ]


# --- init ----------------------------------------------------------------------------------


def init(folder: Path, name: str) -> int:
    """Scaffold a framework repository, or a plain folder: the target, its test, deviations,
    nox session and workflow, and `pyproject.toml` (written complete, or the
    `[tool.conformance]` table added to the existing one, nothing else changed). Refuse to
    overwrite any file; on a refusal nothing is written."""
    if not re.fullmatch(TARGET_PATTERN, name):
        raise InitError(
            f"--target-name {name!r}: use lower case letters, digits, '.', '_' and '-',"
            " starting with a letter or digit"
        )
    files = {
        "conformance_target.py": "target.py",
        "tests/test_conformance.py": "test_conformance.py",
        f"deviations/{name}.yaml": "deviations.yaml",
        f"deviations/{name}.reasons.yaml": "reasons.yaml",
        "noxfile.py": "noxfile.py",
        ".github/workflows/conformance.yml": "workflow.yml",
    }
    pyproject = folder / "pyproject.toml"
    taken = [path for path in files if (folder / path).exists()]
    table = (_TEMPLATES / "pyproject.toml").read_text(encoding="utf-8")
    table = table.replace("__TARGET_NAME__", name)
    try:
        planned = plan(pyproject, table, name)
    except AlreadyConfigured:
        planned = None
        taken.append("pyproject.toml ([tool.conformance])")
    if taken:
        raise InitError(
            f"{folder}: not overwriting {', '.join(taken)}; move them away or add the rest by"
            " hand (the templates are in conformance/adoption/templates/)"
        )
    check_folder(folder, "DIR", writable=True)
    for path in [*files, "pyproject.toml"]:  # every file checked before the first is written
        check_output_file(folder / path, "DIR", [_TEMPLATES])
    assert planned is not None
    for path, template in files.items():
        text = (_TEMPLATES / template).read_text(encoding="utf-8")
        out = folder / path
        write_output(out, text.replace("__TARGET_NAME__", name), "DIR")
        print(f"wrote {out}")
    write_output(pyproject, planned.text, "DIR")  # its own bytes kept, line endings too
    print(f"{'wrote' if planned.created else 'added [tool.conformance] to'} {pyproject}")
    print(
        f"next: fill {folder / 'conformance_target.py'} (the history and the Target protocol:"
        f" {packaged('docs/history.md')}), then `pytest --snapshot-update`"
    )
    return 0


# --- deviations ----------------------------------------------------------------------------


def write_deviations(results: str, target: str, reasons: str | None, output: str | None) -> int:
    """Write the deviations a results file shows; unmatched entries get the placeholder."""
    loaded = load_results([results])
    names = {line.target for file in loaded.files for line in file.results}
    if target not in names:
        raise ReportError(f"{results}: no results of target {target!r}; it has {sorted(names)}")
    rules = load_rules(reasons) if reasons else Rules()
    entries = from_results(loaded, target, rules)
    text = render_deviations(target, entries)
    if output is None:
        sys.stdout.write(text)
    else:  # checked before the work against the results and reasons (`conformance.cli`)
        write_output(Path(output), text)
    missing = sum(1 for entry in entries if "TODO" in entry["reason"])
    where = output or "stdout"
    print(f"{where}: {len(entries)} deviations of {target}", file=sys.stderr)
    if missing:
        print(
            f"{missing} have no reason yet: write rules in a reasons file (--reasons) or the"
            " reasons themselves; the loader refuses the placeholder",
            file=sys.stderr,
        )
    return 0


# --- the gate of `conformance diff` --------------------------------------------------------


def gate_levels(given: str | None) -> tuple[Level, ...]:
    """The levels `conformance diff` compares: `--gate`, else the project's, else the default."""
    if given is None:
        project = _project()
        return project.gate if project else ProjectConfig(None, Settings()).gate
    words = [word.strip() for word in given.split(",") if word.strip()]
    bad = [word for word in words if word not in LEVELS]
    if bad or not words:
        raise ReportError(f"--gate {given!r}: give some of {', '.join(LEVELS)}, comma-separated")
    return tuple(word for word in LEVELS if word in words)


def gated(results: Results, gate: tuple[Level, ...]) -> Results:
    """The results of the checks at the gated levels only."""
    # Constructed: the lines are validated, and pydantic runs a model's `after` validators
    # again on every instance put in a field (100,000 for `conformance diff`).
    return lines_of(
        results,
        [
            ResultsFile.model_construct(
                path=file.path,
                meta=file.meta,
                results=[
                    line
                    for line in file.results
                    if CHECK_LEVELS.get(line.check, "reference") in gate
                ],
            )
            for file in results.files
        ],
    )
