"""The `conformance` command: check the matrix, print its schema, render and compare results.

    conformance check [MATRIX] [--today [YYYY-MM-DD]]
                                                  the project's matrix and deviations files;
                                                  warn on rows within 60 days of shutdown,
                                                  exit 2 on a row past it
    conformance init [DIR] --target-name NAME     scaffold a framework repository
    conformance deviations RESULTS --target NAME [--reasons RULES.yaml] -o FILE
    conformance classes RESULTS --target NAME [--reasons RULES.yaml]
    conformance schema [--deviations] [-o matrix.schema.json]
    conformance report RESULTS... [--format md|json|html] [--snapshots DIR] [--matrix FILE]
                                  [-o FILE]
    conformance merge SHARD... [-o FILE]
    conformance diff BASE HEAD [--gate LEVELS] [--fail-on LEVELS] [--include-unsettled]
                               [--fail-on-capability] [-o FILE]
                                                  exit 1 when HEAD regresses a gated settled
                                                  cell (or carries less, when asked)
    conformance badges RESULTS... -o DIR
    conformance compare RESULTS... [-o FILE.md|FILE.html] [--repro]
    conformance site RESULTS... [-o DIR] [--results-dir results] [--snapshots DIR] [--matrix FILE]
    conformance import-results RESULTS... [--into results]
                                                  frameworks side by side, across versions
    conformance repro CELL --target NAME [--matrix FILE] [-o FILE]
                                                  a standalone reproducer for one cell
    conformance scan-secrets [PATH...]            exit 1 when a credential is found

Errors are one line each, `file:line:col: what is wrong`, with exit status 2 and no
traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from conformance import __version__
from conformance import matrix as _matrix  # its names load on first use (ruamel.yaml)
from conformance.judging.levels import LEVELS, Level
from conformance.paths import (
    PathProblem,
    check_folder,
    check_output_file,
    check_output_folder,
    same_file,
    write_output,
)
from conformance.reports.badges import badges
from conformance.reports.diff import diff_results, render_diff
from conformance.reports.figures import capabilities
from conformance.reports.markdown import render_markdown
from conformance.reports.report import Report, build_report, check_report
from conformance.reports.results import ReportError, ResultLine, load_results, merge_results

if TYPE_CHECKING:
    from conformance.matrix import Matrix
    from conformance.reports.html import Citation

__all__ = ["main"]


def load_matrix(path: str | Path) -> Matrix:
    """`conformance.matrix.load_matrix`, imported when a command first reads a matrix (ruamel.yaml
    and the matrix models are not loaded by the commands that read only results)."""
    return _matrix.load_matrix(path)


def _write(text: str, out: str | None) -> None:
    """Print, or write `out` atomically (checked by `main` before the command ran)."""
    if out is None:
        sys.stdout.write(text)
        return
    write_output(Path(out), text)


def _inputs(args: argparse.Namespace) -> list[Path]:
    """Every path the command reads: its output may be none of them (`main` checks)."""
    given: list[str] = []
    for name in ("results", "shards", "base", "head", "reasons", "matrix", "snapshots"):
        value = cast("str | list[str] | None", getattr(args, name, None))
        if isinstance(value, str):
            given.append(value)
        elif value:
            given += value
    reads_matrix = args.command == "repro" or (args.command == "compare" and args.repro)
    if reads_matrix and not getattr(args, "matrix", None):
        given.append(_default_matrix())  # the matrix the command reads when none is given
    paths = [Path(value) for value in given]
    if args.command == "repro":
        paths += _module_file(args.target)
    return paths


def _module_file(spec: str) -> list[Path]:
    """The source file of a `module:attr` target, found without importing it."""
    import importlib.util

    module = spec.partition(":")[0] if ":" in spec else ""
    if not module:
        return []
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return []
    origin = found.origin if found is not None else None
    return [Path(origin)] if origin and origin not in ("built-in", "frozen") else []


def _check_output(args: argparse.Namespace) -> None:
    """Before any work: the output file (or, for `badges`, folder) is one this command may
    write, and none of its inputs."""
    out = cast("str | None", getattr(args, "output", None))
    if out is None:
        return
    if args.command == "badges":
        check_folder(Path(out), "-o", writable=True)
        for given in _inputs(args):
            if same_file(Path(out), given):
                raise PathProblem(f"-o {out}: is an input of this run ({given})")
        return
    if args.command == "site":  # a folder `write_site` replaces (only one it wrote)
        results_dir = [Path(args.results_dir)] if args.results_dir else []
        check_output_folder(Path(out), "-o", [*_inputs(args), *results_dir])
        return
    check_output_file(Path(out), "-o", _inputs(args))


def _check(args: argparse.Namespace) -> int:
    from conformance.adoption import init as adoption

    return adoption.check(args.matrix, today=args.today)


def _init(args: argparse.Namespace) -> int:
    from conformance.adoption import init as adoption

    return adoption.init(Path(args.dir), args.target_name)


def _deviations(args: argparse.Namespace) -> int:
    from conformance.adoption import init as adoption

    return adoption.write_deviations(args.results, args.target, args.reasons, args.output)


def _classes(args: argparse.Namespace) -> int:
    from conformance.adoption import classes

    return classes.write_classes(args.results, args.target, args.reasons)


def _day(text: str) -> dt.date:
    if text == "now":
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; use YYYY-MM-DD") from None


def _schema(args: argparse.Namespace) -> int:
    from conformance.judging.deviations import deviations_schema

    schema = deviations_schema() if args.deviations else _matrix.json_schema()
    _write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", args.output)
    return 0


def _report(args: argparse.Namespace) -> int:
    report = build_report(load_results(args.results))
    if args.format == "md":
        text = render_markdown(report)
    elif args.format == "json":
        text = report.model_dump_json(indent=2) + "\n"
    else:
        from conformance.reports.html import render_html  # only this format needs it

        citations = _citations(args.matrix, report) if args.matrix else None
        snapshots = Path(args.snapshots) if args.snapshots else None
        text = render_html(report, snapshots=snapshots, citations=citations)
    _write(text, args.output)
    return 0


def _citations(path: str, report: Report) -> dict[str, Citation]:
    from conformance.reports.html import Citation

    matrix = load_matrix(path)
    if matrix.digest != report.matrix_digest:
        raise ReportError(
            f"{path}: digest {matrix.digest} is not the results' matrix digest"
            f" {report.matrix_digest}; pass the matrix the run used"
        )
    return {key: Citation(c.url, c.says) for key, c in matrix.citations.items()}


def _merge(args: argparse.Namespace) -> int:
    known: dict[bytes, ResultLine] = {}  # each cell line's bytes, written as they were read
    results = load_results(args.shards, known=known)
    check_report(results)  # the merged file must be one that `report` accepts
    _write(merge_results(results, known=known), args.output)
    return 0


def _diff(args: argparse.Namespace) -> int:
    from conformance.adoption import init as adoption

    gate = adoption.gate_levels(args.gate)
    known: dict[bytes, ResultLine] = {}  # the head's lines the base has are read once
    base_results = load_results([args.base], known=known)
    head_results = load_results([args.head], known=known)
    capability = (capabilities(base_results), capabilities(head_results))  # every level's lines
    # Only the cells whose lines differ are built (`known`: a line both sides have is one model)
    diff = diff_results(
        adoption.gated(base_results, gate),
        adoption.gated(head_results, gate),
        capability=capability,
    )
    levels = cast("tuple[Level, ...]", args.fail_on)
    unsettled, on_capability = bool(args.include_unsettled), bool(args.fail_on_capability)
    text = render_diff(diff, levels, include_unsettled=unsettled, fail_on_capability=on_capability)
    _write(text, args.output)
    failed = diff.regressions(levels, include_unsettled=unsettled)
    return 1 if failed or (on_capability and diff.capability_drops()) else 0


def _levels(text: str) -> tuple[Level, ...]:
    """`required,recommended` -> the levels, strongest first; an unknown name is an error."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in LEVELS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown level {', '.join(unknown) or repr(text)}; choose from {', '.join(LEVELS)}"
        )
    return tuple(level for level in LEVELS if level in names)


def _badges(args: argparse.Namespace) -> int:
    out = Path(args.output)
    made = badges(build_report(load_results(args.results)))
    inputs = _inputs(args)
    for name in made:  # every file checked before the first is written
        check_output_file(out / name, "-o", inputs)
    for name, badge in made.items():
        write_output(out / name, json.dumps(badge, ensure_ascii=False) + "\n")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from conformance.reports.compare import build_comparison, render_compare_markdown
    from conformance.reports.compare_html import render_compare_html

    paths: list[str | Path] = list(args.results)
    if args.results_dir:
        from conformance.reports.store import release_files, stored_results

        chosen, notes = release_files(
            stored_results(Path(args.results_dir)), [Path(p) for p in args.results]
        )
        for note in notes:
            print(note, file=sys.stderr)
        paths = list(chosen)
    comparison = build_comparison(paths)
    fmt = args.format or ("html" if str(args.output or "").endswith(".html") else "md")
    if fmt == "md":
        if args.repro:
            raise ReportError("--repro only applies to the HTML page")
        _write(render_compare_markdown(comparison), args.output)
        return 0
    given = cast("list[str]", args.repro_target or [])
    specs = {name: spec for name, _, spec in (g.partition("=") for g in given) if spec}
    scripts = _repro_scripts(comparison, args.matrix, specs) if args.repro else {}
    _write(render_compare_html(comparison, scripts=scripts), args.output)
    return 0


def _site(args: argparse.Namespace) -> int:
    from conformance.reports.site import write_site
    from conformance.reports.store import release_files, stored_results

    stored = stored_results(Path(args.results_dir)) if args.results_dir else []
    paths, notes = release_files(stored, [Path(p) for p in args.results])
    for note in notes:
        print(note, file=sys.stderr)
    citations: dict[str, tuple[str, str]] = {}
    digest = None
    if args.matrix:
        matrix = load_matrix(args.matrix)
        digest = matrix.digest
        citations = {key: (c.url, c.says) for key, c in matrix.citations.items()}
    scripts: dict[tuple[str, str], str] = {}
    if args.repro:
        from conformance.reports.compare import build_comparison

        given = cast("list[str]", args.repro_target or [])
        specs = {name: spec for name, _, spec in (g.partition("=") for g in given) if spec}
        scripts = _repro_scripts(build_comparison(paths), args.matrix, specs)
    out = Path(args.output)
    data = write_site(
        paths,
        out,
        snapshots=Path(args.snapshots) if args.snapshots else None,
        citations=citations,
        current_matrix=digest,
        scripts=scripts,
    )
    print(
        f"wrote {out}/index.html: {len(data.releases)} releases, {len(data.cells)} cells"
        f" (open it from disk, or serve the folder)"
    )
    return 0


def _import_results(args: argparse.Namespace) -> int:
    from conformance.reports.store import import_results

    skipped: list[str] | None = [] if args.skip_refused else None
    for done in import_results(args.results, Path(args.into), skipped=skipped):
        said = "imported" if done.changed else "unchanged"
        print(f"{said}: {done.source} -> {done.stored}")
    for problem in skipped or []:
        print(f"left out: {problem}", file=sys.stderr)
    return 0


def _repro_scripts(
    comparison: Any, matrix_path: str | None, specs: dict[str, str]
) -> dict[tuple[str, str], str]:
    """Reproducers for every failing or deviating cell of the targets importable here that
    have a `repro`; others keep just the command in their dialogs."""
    from conformance.adoption.repro import ReproError, repro_script
    from conformance.reports.compare import Comparison

    assert isinstance(comparison, Comparison)
    matrix = load_matrix(matrix_path or _default_matrix())
    scripts: dict[tuple[str, str], str] = {}
    for column in comparison.columns:
        for finding in comparison.findings[column.target]:
            if finding.cell.startswith("property/"):
                continue
            key = (column.target, finding.cell)
            if key in scripts:
                continue
            try:
                spec = specs.get(column.target, column.target)
                scripts[key] = repro_script(matrix, finding.cell, spec)
            except ReproError as error:
                print(f"no reproducer for {key[1]} on {key[0]}: {error}", file=sys.stderr)
                break  # the same reason holds for the target's other cells
    return scripts


def _default_matrix() -> str:
    """The matrix shipped in the wheel, or the repository's own in a source checkout."""
    package = Path(__file__).parent
    shipped = package / "data" / "matrix.yaml"
    return str(shipped if shipped.exists() else package.parent / "matrix.yaml")


def _repro(args: argparse.Namespace) -> int:
    from conformance.adoption.repro import ReproError, project_matrix, repro_script

    try:
        matrix = load_matrix(args.matrix or project_matrix())
        script = repro_script(matrix, args.cell, args.target)
    except ReproError as error:
        print(f"conformance repro: {error}", file=sys.stderr)
        return 2
    _write(script, args.output)
    if args.output:
        runner = "node" if args.output.endswith((".mjs", ".js")) else "python"  # a bridge's
        print(f"wrote {args.output}; run it with the framework installed: {runner} {args.output}")
    return 0


def _scan_secrets(args: argparse.Namespace) -> int:
    from conformance.recording import secrets

    return secrets.main(args.paths)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance", description="Tool-result conformance suite for LLM frameworks."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser(
        "check",
        help="validate the matrix ([tool.conformance] matrix, else the packaged one), the"
        " project's [tool.conformance] and its deviations files",
    )
    check.add_argument("matrix", nargs="?", help="a matrix file (default: the project's)")
    check.add_argument(
        "--today",
        nargs="?",
        const="now",
        type=_day,
        help="judge shutdown dates against today (or the given YYYY-MM-DD), not the matrix's as_of",
    )
    check.set_defaults(run=_check)

    init = commands.add_parser(
        "init", help="scaffold a framework repository: target, test, deviations, nox, workflow"
    )
    init.add_argument("dir", nargs="?", default=".", help="the repository (default: here)")
    init.add_argument("--target-name", required=True, help="the target's name, e.g. my-framework")
    init.set_defaults(run=_init)

    devs = commands.add_parser(
        "deviations", help="write the deviations a results file shows (reasons from rules)"
    )
    devs.add_argument("results", help="a results file (JSON Lines) of a run of the target")
    devs.add_argument("--target", required=True, help="the target's name in the results")
    devs.add_argument("--reasons", help="person-written rules: deviations/<target>.reasons.yaml")
    devs.add_argument("-o", "--output", help="write here instead of stdout")
    devs.set_defaults(run=_deviations)

    kinds = commands.add_parser(
        "classes",
        help="print a target's required failures by class (the rules of its reasons file)",
    )
    kinds.add_argument("results", help="a results file (JSON Lines) of a run of the target")
    kinds.add_argument("--target", required=True, help="the target's name in the results")
    kinds.add_argument("--reasons", help="person-written rules: deviations/<target>.reasons.yaml")
    kinds.set_defaults(run=_classes)

    schema = commands.add_parser("schema", help="print the JSON Schema of matrix.yaml")
    schema.add_argument(
        "--deviations", action="store_true", help="the schema of a deviations file instead"
    )
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    schema.set_defaults(run=_schema)

    report = commands.add_parser("report", help="render results files as a compatibility report")
    report.add_argument("results", nargs="+", help="results files (JSON Lines) from a run")
    report.add_argument("--format", choices=("md", "json", "html"), default="md")
    report.add_argument(
        "--snapshots", help="html: the snapshot folder, to show each cell's payload"
    )
    report.add_argument(
        "--matrix", help="html: the matrix the run used, to show each citation's URL and words"
    )
    report.add_argument("-o", "--output", help="write to this file instead of stdout")
    report.set_defaults(run=_report)

    merge = commands.add_parser("merge", help="join results shards of one run into one file")
    merge.add_argument("shards", nargs="+", help="results files (JSON Lines) of one run")
    merge.add_argument("-o", "--output", help="write to this file instead of stdout")
    merge.set_defaults(run=_merge)

    diff = commands.add_parser(
        "diff", help="cells added, removed and changed; exit 1 on a regression"
    )
    diff.add_argument("base", help="results file of the base (e.g. the target branch)")
    diff.add_argument("head", help="results file of the change")
    diff.add_argument(
        "--gate",
        help="comma-separated levels whose checks are compared (required, recommended,"
        " reference); default: [tool.conformance] gate, else required,recommended",
    )
    diff.add_argument("-o", "--output", help="write the Markdown here instead of stdout")
    diff.add_argument(
        "--fail-on",
        type=_levels,
        default=LEVELS,
        metavar="LEVELS",
        help="exit 1 only on a regression breaking a rule of these levels, comma separated"
        f" (default: all of {','.join(LEVELS)})",
    )
    diff.add_argument(
        "--include-unsettled",
        action="store_true",
        help="gate on regressions of cells whose expectation the matrix marks uncertain too"
        " (default: listed, not gated; docs/live-verification.md settles them)",
    )
    diff.add_argument(
        "--fail-on-capability",
        action="store_true",
        help="exit 1 too when a target carries fewer carriable cells than in the base",
    )
    diff.set_defaults(run=_diff)

    badge = commands.add_parser("badges", help="write a shields.io endpoint JSON per target")
    badge.add_argument("results", nargs="+", help="results files (JSON Lines) from a run")
    badge.add_argument("-o", "--output", required=True, help="the folder to write them in")
    badge.set_defaults(run=_badges)

    compare = commands.add_parser(
        "compare", help="targets side by side per model row and content type, across versions"
    )
    compare.add_argument(
        "results", nargs="+", help="results files, each a run (one per framework release)"
    )
    compare.add_argument("--format", choices=("md", "html"), help="default: from -o, else md")
    compare.add_argument(
        "--repro",
        action="store_true",
        help="html: embed the reproducer of each failing cell of targets importable here",
    )
    compare.add_argument(
        "--repro-target",
        action="append",
        metavar="NAME=SPEC",
        help="--repro: how to import a target the results name, e.g. my-fw=my_pkg.conf:Target"
        " (default: the name itself, as an entry point)",
    )
    compare.add_argument("--matrix", help="the matrix, for --repro (default: the packaged one)")
    compare.add_argument(
        "--results-dir",
        help="also every release committed in this folder (results/<target>/<version>.jsonl.gz);"
        " a file given of the same release replaces its stored one",
    )
    compare.add_argument("-o", "--output", help="write to this file instead of stdout")
    compare.set_defaults(run=_compare)

    site = commands.add_parser(
        "site", help="write the static site: the can-I-use grid, a page per release and cell"
    )
    site.add_argument("results", nargs="*", help="results files run afresh (e.g. the reference's)")
    site.add_argument(
        "--results-dir",
        default="results",
        help="the committed results folder, results/<target>/<version>.jsonl.gz (default:"
        " results; a fresh file of the same release replaces its stored one)",
    )
    site.add_argument("--snapshots", help="the snapshot folder, for each cell's payloads")
    site.add_argument(
        "--matrix", help="the current matrix: its citations, and its digest (older: stale)"
    )
    site.add_argument(
        "--repro", action="store_true", help="reproducers to download, of targets importable here"
    )
    site.add_argument(
        "--repro-target",
        action="append",
        metavar="NAME=SPEC",
        help="--repro: how to import a target the results name (default: the name itself)",
    )
    site.add_argument("-o", "--output", default="report/site", help="default: report/site")
    site.set_defaults(run=_site)

    imports = commands.add_parser(
        "import-results",
        help="copy complete results files into the results folder, one per target release",
    )
    imports.add_argument("results", nargs="+", help="results files, one target each")
    imports.add_argument("--into", default="results", help="the folder (default: results)")
    imports.add_argument(
        "--skip-refused",
        action="store_true",
        help="leave out (and name) files that are not complete results, import the others",
    )
    imports.set_defaults(run=_import_results)

    repro = commands.add_parser(
        "repro", help="write a standalone script reproducing one cell on a target"
    )
    repro.add_argument("cell", help="the cell id, e.g. openai-chat/gpt-4o/image/inline/result")
    repro.add_argument(
        "--target",
        required=True,
        help="a target: its name (an entry point, or one of [tool.conformance] targets) or"
        " module:attr, imported from the project folder",
    )
    repro.add_argument(
        "--matrix", help="matrix.yaml (default: [tool.conformance] matrix, else the packaged one)"
    )
    repro.add_argument("-o", "--output", help="write the script here instead of stdout")
    repro.set_defaults(run=_repro)

    scan = commands.add_parser(
        "scan-secrets", help="find credential-shaped strings (cassettes); exit 1 on a finding"
    )
    scan.add_argument("paths", nargs="*", default=["cassettes"], help="files or folders")
    scan.set_defaults(run=_scan_secrets)
    return parser


_READING = frozenset(
    {
        "report",
        "merge",
        "diff",
        "badges",
        "compare",
        "deviations",
        "classes",
        "site",
        "import-results",
    }
)
"""Commands that read results files: their objects (300,000 for 100,000 lines) live until the
command ends and hold no cycle, so the cycle collector, walking them again and again as they
are made, was a third of their time (docs/performance.md); it is off while they run."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "report" and args.format != "html" and (args.snapshots or args.matrix):
        parser.error("--snapshots and --matrix only apply to --format html")
    collecting = gc.isenabled()
    if args.command in _READING:
        gc.disable()
    try:
        _check_output(args)
        return int(args.run(args))
    except (_matrix.MatrixError, ReportError, PathProblem) as error:
        print(error, file=sys.stderr)
        return 2
    except Exception as error:
        from conformance.adoption import init as adoption

        if not isinstance(error, adoption.USER_ERRORS):
            raise
        print(error, file=sys.stderr)
        return 2
    finally:
        if collecting:
            gc.enable()


if __name__ == "__main__":
    raise SystemExit(main())
