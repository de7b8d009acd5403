"""The `conformance` command: check the matrix, print its schema, render reports.

    conformance check [matrix.yaml]
    conformance schema [-o matrix.schema.json]
    conformance report RESULTS... [--format md|json] [-o FILE]

Errors are one line each, `file:line:col: what is wrong`, with exit status 2 and no
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from conformance import __version__
from conformance.matrix import MatrixError, json_schema, load_matrix
from conformance.report import ReportError, write_report

__all__ = ["main"]


def _write(text: str, out: str | None) -> None:
    if out is None:
        sys.stdout.write(text)
        return
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _check(args: argparse.Namespace) -> int:
    matrix = load_matrix(args.matrix)
    cells = matrix.cells()
    print(f"{args.matrix}: {len(matrix.rows)} model rows, {len(cells)} cells, valid")
    return 0


def _schema(args: argparse.Namespace) -> int:
    _write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n", args.output)
    return 0


def _report(args: argparse.Namespace) -> int:
    text = write_report([Path(p) for p in args.results], args.format)
    _write(text if text.endswith("\n") else text + "\n", args.output)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="conformance", description="Tool-result conformance suite for LLM frameworks."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="validate matrix.yaml and say how many cells it has")
    check.add_argument("matrix", nargs="?", default="matrix.yaml")
    check.set_defaults(run=_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of matrix.yaml")
    schema.add_argument("-o", "--output", help="write to this file instead of stdout")
    schema.set_defaults(run=_schema)

    report = commands.add_parser("report", help="render results files as a compatibility report")
    report.add_argument("results", nargs="+", help="results files (JSON Lines) from a run")
    report.add_argument("--format", choices=("md", "json"), default="md")
    report.add_argument("-o", "--output", help="write to this file instead of stdout")
    report.set_defaults(run=_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (MatrixError, ReportError) as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
