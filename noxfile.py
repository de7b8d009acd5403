"""Sessions: tests, schemas, example, conformance (the report), lint, typecheck,
update_snapshots."""

from __future__ import annotations

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


def _install(session: nox.Session, *groups: str) -> None:
    session.install(*nox.project.dependency_groups(PYPROJECT, *groups))
    session.install("-e", ".")


@nox.session
def tests(session: nox.Session) -> None:
    """Self-tests and the matrix on the reference target (hypothesis `ci` profile)."""
    _install(session, "test")
    session.run("pytest", *session.posargs, env={"HYPOTHESIS_PROFILE": "ci"})


def _meta(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as lines:
        return json.loads(lines.readline())


def _latest_target_results(session: nox.Session, results: Path) -> list[str]:
    """Per target name, the `report/results-<name>-<version>.jsonl` of its newest version,
    among those run on the same matrix as `results`; older ones are named and left out."""
    digest = _meta(results).get("matrix_digest")
    newest: dict[str, tuple[tuple[int, ...], str]] = {}
    for path in REPORT.glob("results-*.jsonl"):
        meta = _meta(path)
        if meta.get("matrix_digest") != digest:
            session.warn(f"{path} was run on another matrix.yaml; left out of the report")
            continue
        for name, version in meta.get("targets", {}).items():
            key = tuple(int(x) for x in re.findall(r"\d+", version))
            if name not in newest or key > newest[name][0]:
                newest[name] = (key, str(path))
    return sorted(path for _, path in newest.values())


@nox.session
def conformance(session: nox.Session) -> None:
    """The matrix and the properties on the reference target: writes the results, the report
    (md, json, html), badges per target and level, and the comparison of every target's
    releases (compare.md, compare.html)."""
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
    # Every installed target side by side: the results `nox -s "target(NAME)"` left in report/
    # are rendered with the reference's (same matrix required), the newest release of each target
    # (a report holds one version per target; the older ones keep their own results files).
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
    # timeline ("fixed in", "broke in") from every release's results file left in report/.
    releases = [str(results), *sorted(str(p) for p in REPORT.glob("results-*.jsonl"))]
    for name in ("compare.md", "compare.html"):
        session.run("conformance", "compare", *releases, "-o", str(REPORT / name))
    failed = [
        line["cell"] + " " + line["check"]
        for line in map(json.loads, results.read_text(encoding="utf-8").splitlines())
        if line.get("kind") == "result" and line["verdict"] in {"fail", "xpass"}
    ]
    session.log(f"report written to {REPORT / 'index.html'} and {REPORT / 'compatibility.md'}")
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
    # Google ADK: 2.13.0 is the newest (its wheel built 2026-10-23), 2.9.0 from 2026-09-10,
    # 2.5.0 from 2026-07-16 (the file dates in each wheel); all three have the resumable apps
    # the target resumes and `Gemini.base_url`.
    "google-adk": ("google-adk", ("2.13.0", "2.9.0", "2.5.0")),
    "google-adk-litellm": ("google-adk-litellm", ("2.13.0", "2.9.0", "2.5.0")),
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
SLOW_PROPERTIES = {
    "langchain": "slow-target",
    "litellm": "slow-target",
    "ai-sdk": "slow-target",
    "google-adk": "slow-target",
    "google-adk-litellm": "slow-target",
}
# What a user of an older release must install beside it today, where the release's own
# requirements let a newer, incompatible SDK in: pydantic-ai 1.85 requires anthropic>=0.96 with
# no cap, and anthropic>=1 takes an httpx2 client where 1.85 passes an httpx one (TypeError on
# every Anthropic cell). The results record the SDK versions used (`sdk_versions`).
RELEASE_NEEDS = {("pydantic-ai", "1.85.0"): ("anthropic<1",)}


def _release_deviations(session: nox.Session, name: str, version: str) -> list[str]:
    """pytest options judging an older release with its own deviations file, or with none:
    never with the latest release's (`conformance compare` compares observations either way,
    but the release's own report should not list the newest release's deviations as xpass)."""
    folder = Path(session.create_tmp()).resolve() / f"deviations-{name}-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    own = Path("deviations/releases") / f"{name}-{version}.yaml"
    text = own.read_text(encoding="utf-8") if own.exists() else f"target: {name}\ndeviations: []\n"
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return ["-o", f"conformance_deviations={folder}"]


# Targets in another language, behind the bridge protocol (conformance/targets/bridge): per
# target its folder and the releases run, latest first, as (folder under it, the value of
# `CONFORMANCE_<NAME>` that selects it, version). Each release folder pins its packages in a
# package-lock.json that `npm ci` installs. The Vercel AI SDK: 7.0.173 is the newest release
# (2026-12); 6.0.326 the last of the 6 line, which declares node >= 18 where 7 needs 22.
BRIDGE_TARGETS = {
    "ai-sdk": ("bridges/ai-sdk", (("ai7", "7", "7.0.173"), ("ai6", "6", "6.0.326"))),
}


@nox.session(default=False)
@nox.parametrize("name", [nox.param(n, id=n) for n in [*TARGETS, *BRIDGE_TARGETS]])
def target(session: nox.Session, name: str) -> None:
    """The matrix and the properties on a framework target, for its latest release and older
    ones; then the target's own tests and its type check.

    The latest release is gated (snapshots in snapshots/<target>/, deviations in
    deviations/<target>.yaml describe it); the older ones are classified cell by cell without
    the snapshot check, each judged with the deviations that describe it
    (deviations/releases/<target>-<version>.yaml) or none, and their verdicts are reported,
    not gated. Writes report/results-<name>-<version>.jsonl.
    """
    if name in BRIDGE_TARGETS:
        _bridge_target(session, name)
        return
    group, versions = TARGETS[name]
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
        session.install(
            *(pins[version] if pins else [f"{unpinned}=={version}"]),
            *RELEASE_NEEDS.get((name, version), ()),
        )
        results = REPORT / f"results-{name}-{version}.jsonl"
        latest = index == 0
        own: list[str] = [] if latest else _release_deviations(session, name, version)
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
            *([] if latest else ["-k", "not :snapshot]", *own]),
            # A framework that renders through real clients takes a few hundred ms a request:
            # fewer histories per property (the gate's default is 50).
            *(["--conformance-property-examples", "10"] if name in SLOW_PROPERTIES else []),
            *session.posargs,
            env=env,
            success_codes=[0] if latest else [0, 1],
        )
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
        _pyright_target(session, name)


def _pyright_target(session: nox.Session, name: str) -> None:
    """pyright over the target's module and its tests. pyright applies pyproject's `exclude` even
    to files named on its command line (it analyzed none of them), so these get a config of their
    own, beside the venvs."""
    module = name.replace("-", "_")
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
    session.run("pyright", "-p", str(config), "--pythonpath", session.virtualenv.bin + "/python")


def _bridge_target(session: nox.Session, name: str) -> None:
    """`target(NAME)` for a target behind the bridge protocol: `npm ci` in each release's folder
    (the machine's Node and npm, packages from the registry as the lockfile pins them), then the
    matrix and the properties per release as for a Python target, its tests and its type check."""
    folder, releases = BRIDGE_TARGETS[name]
    session.install("-e", ".", "hypothesis", "pyright")
    REPORT.mkdir(exist_ok=True)
    selector = "CONFORMANCE_" + name.upper().replace("-", "_")
    for index, (release, selected, version) in enumerate(releases):
        where = Path(folder) / release
        session.run("npm", "ci", "--no-audit", "--no-fund", "--prefix", str(where), external=True)
        env = {"CONFORMANCE_REQUIRE_TARGETS": "1", selector: selected}
        results = REPORT / f"results-{name}-{version}.jsonl"
        latest = index == 0
        session.run(
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "python_files=test_matrix.py",
            "-m",
            "conformance",
            "--conformance-target",
            name,
            "--conformance-results",
            str(results),
            *(
                []
                if latest
                else ["-k", "not :snapshot]", *_release_deviations(session, name, version)]
            ),
            *(["--conformance-property-examples", "10"] if name in SLOW_PROPERTIES else []),
            *session.posargs,
            env=env,
            success_codes=[0] if latest else [0, 1],
        )
        recorded = _meta(results).get("targets", {}).get(name)
        if recorded != version:
            session.error(f"{name} {release} ran as version {recorded}, not {version}")
        session.log(f"{name} {version}: {results}")
        if latest:
            module = name.replace("-", "_")
            session.run(
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"tests/test_{module}_target.py",
                "--snapshot-disable-unused",  # a path argument: skip syrupy's unused scan
                env={**env, "HYPOTHESIS_PROFILE": SLOW_PROPERTIES.get(name, "dev")},
            )
            _pyright_target(session, name)


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
    """ruff lint and format check."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "--diff", ".")
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
