"""Sessions: tests, schemas, example, conformance (the report), site, import_results, lint,
typecheck, update_snapshots."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import nox

nox.options.sessions = ["lint", "typecheck", "tests", "schemas", "example"]
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"

os.environ.setdefault("UV_PYTHON_DOWNLOADS", "never")
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")  # this machine sets PYTHONDONTWRITEBYTECODE

PYPROJECT = nox.project.load_toml("pyproject.toml")

BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
"""Python's default, bytecode written and reused, for the main job. This machine sets
PYTHONDONTWRITEBYTECODE=1, so pytest's assertion rewriter (which covers every package that
registers a pytest plugin: hypothesis, anyio, syrupy and this one) parsed and compiled about 190
modules afresh at every start, half the start-up (docs/performance.md). Cached bytecode is
Python's own cache, checked against each source file's size and modification time."""
REPORT = Path("report")
RESULTS = Path("results")
"""The committed results folder: results/<target>/<version>.jsonl.gz, one per framework release
(conformance/reports/store.py), written by `nox -s "target(NAME)"` and `nox -s import_results`."""


def _install(session: nox.Session, *groups: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, *groups))
    session.install("-e", ".")


@nox.session
def tests(session: nox.Session) -> None:
    """Self-tests and the matrix on the reference target (hypothesis `ci` profile)."""
    _install(session, "test")
    session.run("pytest", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})


def _lines(path: Path) -> list[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [line for line in lines if line.strip()]


def _meta(path: Path) -> dict[str, Any]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return json.loads(lines.readline())


def _complete(path: Path) -> bool:
    """The file's run finished (its end line says `complete`): only such a file is imported."""
    if not path.exists():
        return False
    last = json.loads(_lines(path)[-1])
    return last.get("kind") == "end" and last.get("status", "complete") == "complete"


def _stored() -> list[Path]:
    return sorted(RESULTS.glob("*/*.jsonl.gz"))


def _latest_target_results(session: nox.Session, results: Path) -> list[str]:
    """Per target name, the results file of its newest version among the committed results
    folder and `report/results-<name>-<version>.jsonl` (a fresh run of a release over its
    committed file), those run on the same matrix, suite and Python as `results` (a report
    is one run's; the comparison shows the rest, stale ones marked); older ones are named
    and left out."""
    mine = _meta(results)
    same = ("matrix_digest", "suite_version", "python")
    newest: dict[str, tuple[tuple[int, ...], str]] = {}
    for path in [*_stored(), *sorted(REPORT.glob("results-*.jsonl"))]:
        meta = _meta(path)
        differs = [key for key in same if meta.get(key) != mine.get(key)]
        if differs:
            session.log(f"{path}: another {', '.join(differs)}; in the comparison only")
            continue
        for name, version in meta.get("targets", {}).items():
            key = tuple(int(x) for x in re.findall(r"\d+", version))
            if name not in newest or key >= newest[name][0]:
                newest[name] = (key, str(path))
    return sorted(path for _, path in newest.values())


def _reference(session: nox.Session) -> Path:
    """Run the matrix and the properties on the reference target: report/results.jsonl."""
    _install(session, "conformance")
    REPORT.mkdir(exist_ok=True)
    results = REPORT / "results.jsonl"
    session.run(
        "pytest",
        "-q",
        # Only the module holding the generated test: importing and collecting the 40 self-test
        # modules only to deselect them doubled the start-up (docs/performance.md). No path
        # argument, so syrupy still checks for unused snapshots cheaply.
        "-o",
        "python_files=test_matrix.py",
        "-m",
        "conformance",
        "--conformance-results",
        str(results),
        "--conformance-sdk-schema",
        *session.posargs,
        success_codes=[0, 1],  # failing cells still get their report; the session fails below
        env=BYTECODE,
    )
    return results


@nox.session
def conformance(session: nox.Session) -> None:
    """The matrix and the properties on the reference target: writes the results, the report
    (md, json, html), badges per target and level, and the comparison of the reference with
    every framework release committed in results/ (compare.md, compare.html), no framework
    installed."""
    results = _reference(session)
    # Every framework side by side with the reference: the newest release of each target, from
    # results/ or a fresh `nox -s "target(NAME)"` run left in report/ (same matrix, suite and
    # Python required: a report is one run's; the older releases are in the comparison).
    report = ["conformance", "report", str(results), *_latest_target_results(session, results)]
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
    session.run("conformance", "badges", *report[2:], "-o", str(REPORT / "badges"))
    # Frameworks side by side: the newest release of each target as a column, and the version
    # timeline ("fixed in", "broke in") from every release committed in results/ (no framework
    # installed), a fresh run's file in report/ replacing its release's committed one. A
    # release run on another matrix is marked stale, cell by cell.
    releases = [str(results), *sorted(str(p) for p in REPORT.glob("results-*.jsonl"))]
    for name in ("compare.md", "compare.html"):
        session.run(
            "conformance", "compare", *releases, "--results-dir", str(RESULTS),
            "-o", str(REPORT / name),
        )  # fmt: skip
    failed = [
        line["cell"] + " " + line["check"]
        for line in map(json.loads, results.read_text(encoding="utf-8").splitlines())
        if line.get("kind") == "result" and line["verdict"] in {"fail", "xpass"}
    ]
    session.log(
        f"report written to {REPORT / 'index.html'}, {REPORT / 'compatibility.md'} and"
        f" {REPORT / 'compare.html'} ({len(_stored())} committed framework releases)"
    )
    if failed:
        session.error(f"{len(failed)} checks failed, first: {failed[0]}")


# Per target: its dependency group and the releases run, latest first. The
# older pydantic-ai is 1.85.0, released 2026-04-21 (GitHub releases), on the 1.x line.
# litellm: 1.110.2 is the newest release (late 2026-11); 1.100.0 was built 2026-09-06; 1.90.0
# came out in 2026-06 (its 1.90.x patches are in the 2026-07-04 notes, BerriAI/litellm-docs#485).
TARGETS = {
    "pydantic-ai": ("pydantic-ai", ("2.68.0", "1.85.0")),
    "litellm": ("litellm", ("1.110.2", "1.100.0", "1.90.0")),
    "langchain": ("langchain", ("1.8.3", "1.5.6", "1.2.6")),
}

# A target made of several distributions installs a pin set per version instead of
# `<group>==<version>`. LangChain: langchain-core and its integration packages, with the
# provider SDKs under them, as a resolver gave them on the day after each core release (uv
# `--exclude-newer`): 1.8.3 is the latest (2026-11); 1.5.6 was released 2026-08-17
# (langchain-ai/langchain#39704), 1.2.6 at the turn of 2026 (1.2.5 was released 2026-01-02,
# langchain-ai/langchain#34456). So each set is what a user who installed then got.
_LANGCHAIN_PINS = {
    "1.8.3": "langchain-core==1.8.3 langchain-openai==1.7.4 langchain-anthropic==1.7.10 "
    "langchain-google-genai==4.4.3 langchain-aws==1.9.1 langchain-mistralai==1.1.6 "
    "langchain-cohere==0.6.0 langchain-groq==1.1.3 langchain-xai==1.3.0 "
    "langchain-huggingface==1.2.3 openai==3.57.0 anthropic==2.15.0 google-genai==3.6.1 "
    "boto3==1.44.8 botocore==1.44.8 cohere==5.21.1 groq==0.37.1 huggingface-hub==1.33.0",
    "1.5.6": "langchain-core==1.5.6 langchain-openai==1.5.2 langchain-anthropic==1.5.6 "
    "langchain-google-genai==4.3.4 langchain-aws==1.7.2 langchain-mistralai==1.1.6 "
    "langchain-cohere==0.6.0 langchain-groq==1.1.3 langchain-xai==1.3.0 "
    "langchain-huggingface==1.2.2 openai==3.3.0 anthropic==0.122.0 google-genai==2.18.1 "
    "boto3==1.43.74 botocore==1.43.74 cohere==5.21.1 groq==0.37.1 huggingface-hub==1.28.0",
    "1.2.6": "langchain-core==1.2.6 langchain-openai==1.1.6 langchain-anthropic==1.3.0 "
    "langchain-google-genai==4.1.2 langchain-aws==1.2.0 langchain-mistralai==1.1.1 "
    "langchain-cohere==0.5.0 langchain-groq==1.1.1 langchain-xai==1.2.0 "
    "langchain-huggingface==1.2.0 openai==2.14.0 anthropic==0.75.0 google-genai==1.56.0 "
    "boto3==1.42.21 botocore==1.42.21 cohere==5.20.1 groq==0.37.1 huggingface-hub==0.36.0",
}
PINS = {"langchain": {v: pins.split() for v, pins in _LANGCHAIN_PINS.items()}}
SLOW_PROPERTIES = {"langchain": "slow-target", "litellm": "slow-target"}
# What a user of an older release must install beside it today, where the release's own
# requirements let a newer, incompatible SDK in: pydantic-ai 1.85 requires anthropic>=0.96 with
# no cap, and anthropic>=1 takes an httpx2 client where 1.85 passes an httpx one (TypeError on
# every Anthropic cell). The results record the SDK versions used (`sdk_versions`).
RELEASE_NEEDS = {("pydantic-ai", "1.85.0"): ("anthropic<1",)}


@nox.session(default=False)
@nox.parametrize("name", [nox.param(n, id=n) for n in TARGETS])
def target(session: nox.Session, name: str) -> None:
    """The matrix and the properties on a framework target, for its latest release and older
    ones; then the target's own tests and its type check.

    The latest release is gated (snapshots in snapshots/<target>/, deviations in
    deviations/<target>.yaml describe it); the older ones are classified cell by cell without
    the snapshot check, and their verdicts are reported, not gated. Writes
    report/results-<name>-<version>.jsonl and, once complete, imports it into the committed
    results/<name>/<version>.jsonl.gz. `CONFORMANCE_RELEASE=<version>` runs that release alone
    (a CI job per target and release, .github/workflows/report.yml).
    """
    group, versions = TARGETS[name]
    only = os.environ.get("CONFORMANCE_RELEASE")  # one release, as a CI job runs it
    if only and only not in versions:
        session.error(f"{name} has no release {only!r} in TARGETS; known: {', '.join(versions)}")
    session.install("-e", ".", "hypothesis", "pyright")  # pytest, syrupy; SDKs with the target
    REPORT.mkdir(exist_ok=True)
    env = {"CONFORMANCE_REQUIRE_TARGETS": "1"}  # a missing dependency fails here, never skips
    pins = PINS.get(name)
    requirement, *beside = nox.project.dependency_groups(PYPROJECT, group)
    if beside and not pins:  # the rest of the group, unpinned (litellm's boto3 signs Bedrock)
        session.install(*beside)
    unpinned = re.split(r"[<>=!~;]", requirement)[0]  # the distribution with its extras
    module = name.replace("-", "_")
    for index, version in enumerate(versions):
        if only and version != only:
            continue
        session.install(
            *(pins[version] if pins else [f"{unpinned}=={version}"]),
            *RELEASE_NEEDS.get((name, version), ()),
        )
        results = REPORT / f"results-{name}-{version}.jsonl"
        latest = index == 0
        try:
            _run_release(session, name, results, latest, env)
        finally:
            # The release's results, complete, into the committed folder (the data the site
            # and the main job's comparison show), even when the latest release's gate fails.
            if _complete(results):
                session.run("conformance", "import-results", str(results), "--into", str(RESULTS))
        session.log(f"{name} {version}: {results}")
        if not latest:
            continue
        # The target's own tests skip in the `tests` session (no framework there): run here.
        session.run(
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"tests/test_{module}_target.py",
            "--snapshot-disable-unused",  # a path argument: skip syrupy's unused scan
            env={**env, "HYPOTHESIS_PROFILE": SLOW_PROPERTIES.get(name, "dev")},
        )
        # pyright applies pyproject's `exclude` even to files named on its command line (it
        # analyzed none of them), so these get a config of their own, beside the venvs.
        package = Path(f"conformance/targets/{module}")  # a module or a package
        files = [
            str(package if package.is_dir() else package.with_suffix(".py")),
            f"tests/test_{module}_target.py",
        ]
        config = Path(".nox") / f"pyright-{name}.json"
        config.write_text(
            json.dumps(
                {
                    "include": [f"../{f}" for f in files],
                    "typeCheckingMode": "strict",
                    "pythonVersion": "3.11",
                    "executionEnvironments": [{"root": "..", "extraPaths": ["../tests"]}],
                }
            ),
            encoding="utf-8",
        )
        session.run(
            "pyright", "-p", str(config), "--pythonpath", session.virtualenv.bin + "/python"
        )


def _run_release(
    session: nox.Session, name: str, results: Path, latest: bool, env: dict[str, str]
) -> None:
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "conformance",
        "--conformance-target",
        name,
        "--conformance-results",
        str(results),
        *([] if latest else ["-k", "not :snapshot]"]),
        # A framework that renders through real clients takes a few hundred ms a request:
        # fewer histories per property (the gate's default is 50).
        *(["--conformance-property-examples", "10"] if name in SLOW_PROPERTIES else []),
        *session.posargs,
        env=env,
        success_codes=[0] if latest else [0, 1],
    )


@nox.session(default=False)
def import_results(session: nox.Session) -> None:
    """Copy complete results files of framework releases into results/ (the committed data):
    `report/results-*.jsonl` by default, or the files and folders given as posargs (a CI
    job's downloaded artifacts)."""
    session.install("-e", ".")
    given = [Path(arg) for arg in session.posargs] or [REPORT]
    files = [
        path
        for arg in given
        for path in (sorted(arg.rglob("results-*.jsonl")) if arg.is_dir() else [arg])
    ]
    if not files:
        session.error(f"no results-*.jsonl in {', '.join(map(str, given))}")
    # A file of a run cut short is named and left out; the complete ones are imported.
    session.run(
        "conformance", "import-results", *map(str, files), "--into", str(RESULTS),
        "--skip-refused",
    )  # fmt: skip


SITE = REPORT / "site"


@nox.session(default=False)
def site(session: nox.Session) -> None:
    """The static site (report/site/): the reference run afresh beside every release committed
    in results/, with a page per release and per cell and the JSON API. Opens from disk."""
    results = _reference(session)
    session.run(
        "conformance", "site", str(results), "--results-dir", str(RESULTS),
        "--snapshots", "snapshots", "--matrix", "matrix.yaml", "-o", str(SITE),
    )  # fmt: skip


@nox.session
def example(session: nox.Session) -> None:
    """The worked example: build the wheel, adopt it in examples/toy-framework from a fresh venv
    outside the source tree (the README's steps, word for word), gate a regression PR."""
    # pytest and the plugin, for this repository's own pytest config (which names hypothesis)
    session.install("-e", ".", "hypothesis")
    dist = Path(session.create_tmp()).resolve() / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    if shutil.which("uv"):
        session.run("uv", "build", "--wheel", "--out-dir", str(dist), external=True)
    else:
        session.install("build")
        session.run("python", "-m", "build", "--wheel", "--outdir", str(dist))
    (wheel,) = dist.glob("*.whl")
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "examples/test_adoption.py",
        "--snapshot-disable-unused",  # a path argument: skip syrupy's unused scan
        *session.posargs,
        env={"CONFORMANCE_WHEEL": str(wheel)},
    )


@nox.session
def schemas(session: nox.Session) -> None:
    """Every reference payload validated with the official SDKs' request types."""
    _install(session, "schemas")
    session.run("pytest", "-q", "-k", "sdk", "--conformance-sdk-schema", *session.posargs)


BENCHMARKS = ("reference", "cells", "growth", "results", "golden", "large_media", "xdist")


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """The benchmarks of docs/performance.md, one table each (slow: minutes). Posargs name some
    of them (`nox -s bench -- reference results`); the framework figure runs on each target's
    venv that `nox -s "target(NAME)"` left in .nox/."""
    _install(session, "conformance")  # what the main job runs with: no test-only tools
    session.install("pytest-xdist")
    chosen = session.posargs or [*BENCHMARKS, "framework"]
    for name in chosen:
        if name == "framework":
            for target in TARGETS:
                python = Path(".nox") / f"target-{target}" / "bin" / "python"
                if not python.exists():
                    session.log(f"framework {target}: no venv at {python}; skipped")
                    continue
                session.log(f"== framework: {target}")
                session.run(
                    "python", "benchmarks/bench_framework.py", "--target", target,
                    "--python", str(python),
                )  # fmt: skip
            continue
        if name not in BENCHMARKS:
            session.error(f"no benchmark {name!r}; known: {', '.join(BENCHMARKS)}, framework")
        session.log(f"== {name}")
        session.run("python", f"benchmarks/bench_{name}.py")


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
    """ruff lint and format check; actionlint on the workflow files."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "--diff", ".")
    session.run("actionlint", *sorted(map(str, Path(".github/workflows").glob("*.yml"))))
    # The secret scanner is plain Python with no dependencies: run from the source tree.
    session.run(
        "python",
        "-c",
        "import sys; from conformance.recording.secrets import main; sys.exit(main(sys.argv[1:]))",
        "cassettes",
    )


@nox.session
def typecheck(session: nox.Session) -> None:
    """pyright, strict."""
    _install(session, "typecheck")
    session.install("nox")
    session.run("pyright", "--pythonpath", session.virtualenv.bin + "/python")


@nox.session(default=False)
def record(session: nox.Session) -> None:
    """Record the cassettes: `nox -s record` against the local provider double (offline);
    `nox -s record -- --live` against the real APIs, keys from the environment (never in CI).

    Other arguments go to pytest, e.g. `-- --live -k openai-chat` for one api.
    """
    live = "--live" in session.posargs
    args = [arg for arg in session.posargs if arg != "--live"]
    if live and os.environ.get("CI"):
        session.error("live recording never runs in CI")
    _install(session, "test")
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "conformance",
        f"--conformance-record={'live' if live else 'double'}",
        *args,
    )
    session.run("conformance", "scan-secrets", "cassettes")


@nox.session(default=False)
def update_snapshots(session: nox.Session) -> None:
    """Write snapshots anew for the matrix; review the diff before committing."""
    _install(session, "test")
    session.run("pytest", "-q", "-m", "conformance", "--snapshot-update", *session.posargs)
