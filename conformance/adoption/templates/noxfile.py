"""The tool-result conformance matrix on __TARGET_NAME__ (nox -s conformance)."""

import os

import nox

nox.options.default_venv_backend = "uv|virtualenv"

PYPROJECT = nox.project.load_toml("pyproject.toml")


def _requirements() -> list[str]:
    """What the run needs beside the suite: the project itself when it is a package (it has a
    [build-system]); in a plain folder, the [project] dependencies other than the suite."""
    if "build-system" in PYPROJECT:
        return ["."]
    listed: list[str] = PYPROJECT.get("project", {}).get("dependencies", [])
    return [d for d in listed if not d.replace("_", "-").startswith("tool-result-conformance")]


@nox.session
def conformance(session: nox.Session) -> None:
    """The matrix: writes report/results.jsonl and report/compatibility.md (the PR workflow
    gates on `conformance diff` against the base branch)."""
    # CONFORMANCE_SUITE: where to install the suite from (a wheel, a git URL, a version).
    session.install(
        os.environ.get("CONFORMANCE_SUITE", "tool-result-conformance"), *_requirements()
    )
    session.run(
        "pytest",
        "-m",
        "conformance",
        "--conformance-results",
        "report/results.jsonl",
        *session.posargs,
        success_codes=[0, 1],  # the report is written either way; judged below
    )
    session.run(
        "conformance",
        "report",
        "report/results.jsonl",
        "--format",
        "md",
        "-o",
        "report/compatibility.md",
    )
