"""Sessions: tests, schemas, conformance (the report), lint, typecheck, update_snapshots."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "schemas"]
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"

os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")  # this machine sets PYTHONDONTWRITEBYTECODE

PYPROJECT = nox.project.load_toml("pyproject.toml")
REPORT = Path("report")


def _install(session: nox.Session, *groups: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, *groups))
    session.install("-e", ".")


@nox.session
def tests(session: nox.Session) -> None:
    """Self-tests and the matrix on the reference target (hypothesis `ci` profile)."""
    _install(session, "test")
    session.run("pytest", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})


@nox.session
def conformance(session: nox.Session) -> None:
    """The matrix on the reference target: writes the results, report (md, json, html), badges."""
    _install(session, "schemas")
    REPORT.mkdir(exist_ok=True)
    results = REPORT / "results.jsonl"
    session.run(
        "pytest",
        "-q",
        "-m",
        "conformance",
        "--conformance-results",
        str(results),
        "--conformance-sdk-schema",
        *session.posargs,
        success_codes=[0, 1],  # failing cells still get their report; the session fails below
    )
    report = ["conformance", "report", str(results)]
    session.run(*report, "--format", "md", "-o", str(REPORT / "compatibility.md"))
    session.run(*report, "--format", "json", "-o", str(REPORT / "report.json"))
    session.run(
        *report,
        "--format",
        "html",
        "--snapshots",
        "snapshots",
        "--matrix",
        "matrix.yaml",
        "-o",
        str(REPORT / "index.html"),
    )
    session.run("conformance", "badges", str(results), "-o", str(REPORT / "badges"))
    failed = [
        line["cell"] + " " + line["check"]
        for line in map(json.loads, results.read_text(encoding="utf-8").splitlines())
        if line.get("kind") == "result" and line["verdict"] in {"fail", "xpass"}
    ]
    session.log(f"report written to {REPORT / 'index.html'} and {REPORT / 'compatibility.md'}")
    if failed:
        session.error(f"{len(failed)} checks failed, first: {failed[0]}")


@nox.session
def schemas(session: nox.Session) -> None:
    """Every reference payload validated with the official SDKs' request types."""
    _install(session, "schemas")
    session.run("pytest", "-q", "-k", "sdk", "--conformance-sdk-schema", *session.posargs)


@nox.session(default=False)
def nightly(session: nox.Session) -> None:
    """The properties with 2,000+ examples each; failures are saved as examples to review."""
    _install(session, "test")
    session.run(
        "pytest",
        "-q",
        "tests/test_properties.py",
        "--snapshot-disable-unused",  # a path argument: skip syrupy's slow unused scan
        *session.posargs,
        env={"HYPOTHESIS_PROFILE": "nightly", "CONFORMANCE_SAVE_EXAMPLES": "1"},
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff lint and format check."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "--diff", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """pyright, strict."""
    _install(session, "typecheck")
    session.install("nox")
    session.run("pyright", "--pythonpath", session.virtualenv.bin + "/python")


@nox.session(default=False)
def update_snapshots(session: nox.Session) -> None:
    """Write snapshots anew for the matrix; review the diff before committing."""
    _install(session, "test")
    session.run("pytest", "-q", "-m", "conformance", "--snapshot-update", *session.posargs)
