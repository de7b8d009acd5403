"""Sessions: tests, schemas, example, conformance (the report), site, import_results, lint,
typecheck, update_snapshots."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, cast

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
    """A results file's meta line (a committed one is gzipped)."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return cast("dict[str, Any]", json.loads(lines.readline()))


def _first_and_last(path: Path) -> tuple[dict[str, Any], dict[str, Any]] | str:
    """A results file's meta and end lines, or why it cannot be used (empty, not JSON, cut
    short before its end line): read before the matrix runs, so a broken file is named up
    front instead of failing the report after the whole run."""
    try:
        lines = _lines(path)
    except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile) as error:
        return f"cannot be read ({error})"
    if not lines:
        return "is empty (a run that was killed before it started?)"
    try:
        first: object = json.loads(lines[0])
        last: object = json.loads(lines[-1])
    except ValueError as error:
        return f"is not a results file: a line is not JSON ({error}); it looks truncated"
    if not isinstance(first, dict) or cast("dict[str, Any]", first).get("kind") != "meta":
        return "is not a results file: its first line is not a meta line"
    if not isinstance(last, dict) or cast("dict[str, Any]", last).get("kind") != "end":
        return "has no end line: the run that wrote it never finished, or the file is cut short"
    end = cast("dict[str, Any]", last)
    if end.get("status", "complete") != "complete":
        return f"is of a run that did not complete (status {end.get('status')!r})"
    return cast("dict[str, Any]", first), end


def _complete(path: Path) -> bool:
    """The file's run finished (its end line says `complete`): only such a file is imported."""
    return path.exists() and not isinstance(_first_and_last(path), str)


def _stored() -> list[Path]:
    return sorted(RESULTS.glob("*/*.jsonl.gz"))


def _framework_results(session: nox.Session) -> dict[Path, dict[str, Any]]:
    """The framework results that can be used, committed (results/) and fresh (report/), with
    their meta lines; each other one is named with what is wrong with it and left out."""
    usable: dict[Path, dict[str, Any]] = {}
    for path in [*_stored(), *sorted(REPORT.glob("results-*.jsonl"))]:
        found = _first_and_last(path)
        if isinstance(found, str):
            session.warn(f"{path} {found}; left out of the report (run its target again)")
            continue
        usable[path] = found[0]
    return usable


def _latest_target_results(
    session: nox.Session, usable: dict[Path, dict[str, Any]], results: Path
) -> list[str]:
    """Per target name, the results file of its newest version among the usable ones (a fresh
    run in report/ over its committed file), those run on the same matrix, suite and Python as
    `results` (a report is one run's; the comparison shows the rest, stale ones marked); older
    ones are named and left out. A framework's variants come with its file (a file holds a
    framework release and its variants, its meta line's `variant_of`), each file named once."""
    mine = _meta(results)
    same = ("matrix_digest", "suite_version", "python")
    newest: dict[str, tuple[tuple[int, ...], str]] = {}
    for path, meta in usable.items():
        differs = [key for key in same if meta.get(key) != mine.get(key)]
        if differs:
            session.log(f"{path}: another {', '.join(differs)}; in the comparison only")
            continue
        targets: dict[str, Any] = meta.get("targets", {})
        variants = meta.get("variant_of", {})
        frameworks = {n: v for n, v in targets.items() if n not in variants} or targets
        for name, version in frameworks.items():
            key = tuple(int(x) for x in re.findall(r"\d+", str(version)))
            if name not in newest or key >= newest[name][0]:
                newest[name] = (key, str(path))
    return sorted({path for _, path in newest.values()})


def _reference(session: nox.Session) -> Path | None:
    """Run the matrix and the properties on the reference target: report/results.jsonl (None
    with --install-only, when nothing runs)."""
    _install(session, "conformance")
    REPORT.mkdir(exist_ok=True)
    results = REPORT / "results.jsonl"
    ran = session.run(
        "pytest",
        "-q",
        "--rootdir",
        ".",  # pytest's root is this project, whatever path an option names
        # Only the module holding the generated test: importing and collecting the 40 self-test
        # modules only to deselect them doubled the start-up (docs/performance.md). No path
        # argument, so syrupy still checks for unused snapshots cheaply.
        "-o",
        "python_files=test_matrix.py",
        "-m",
        "conformance",
        f"--conformance-results={results}",
        "--conformance-sdk-schema",
        # One test per cell, judging its checks in turn: the same results lines, a seventh of
        # the pytest items (docs/cost.md); `-- --conformance-items=check` gives one per check.
        "--conformance-items=cell",
        *session.posargs,
        success_codes=[0, 1],  # failing cells still get their report; the session fails below
        env=BYTECODE,
    )
    return None if ran is None else results


@nox.session
def conformance(session: nox.Session) -> None:
    """The matrix and the properties on the reference target: writes the results, the report
    (md, json, html), badges per target and level, and the comparison of the reference with
    every framework release committed in results/ (compare.md, compare.html), no framework
    installed."""
    # Before the matrix runs: the framework results to show beside the reference's, each
    # broken one named now rather than failing the report after the run.
    usable = _framework_results(session)
    results = _reference(session)
    if results is None:
        return  # --install-only: nothing ran, so there is nothing to report
    # Every framework side by side with the reference: the newest release of each target, from
    # results/ or a fresh `nox -s "target(NAME)"` run left in report/ (same matrix, suite and
    # Python required: a report is one run's; the older releases are in the comparison).
    targets = _latest_target_results(session, usable, results)
    report = ["conformance", "report", str(results), *targets]
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
    releases = [str(results), *(str(p) for p in usable if p.parent == REPORT)]
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
# strands-agents: 1.62.0 is the newest (2026-10); 1.54.0 was the newest on 2026-09-01 and 1.45.0
# on 2026-07-01 (uv `--exclude-newer` at those dates). strands-litellm is the same releases with
# Strands' LiteLLM provider (LiteLLM as its `litellm` extra resolves).
TARGETS = {
    "pydantic-ai": ("pydantic-ai", ("2.68.0", "1.85.0")),
    "litellm": ("litellm", ("1.110.2", "1.100.0", "1.90.0")),
    "langchain": ("langchain", ("1.8.3", "1.5.6", "1.2.6")),
    # openai-agents: 0.24.0 is the latest (2026-12); 0.20.0 was released 2026-08-11 and 0.16.1
    # 2026-05-07 (their "Release" commits in openai/openai-agents-python).
    "openai-agents": ("openai-agents", ("0.24.0", "0.20.0", "0.16.1")),
    "openai-agents-litellm": ("openai-agents-litellm", ("0.24.0", "0.20.0", "0.16.1")),
    "strands": ("strands", ("1.62.0", "1.54.0", "1.45.0")),
    "strands-litellm": ("strands-litellm", ("1.62.0", "1.54.0", "1.45.0")),
    "llamaindex": ("llamaindex", ("0.14.25", "0.14.17", "0.14.10")),
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
# langchain-google-vertexai (ChatVertexAI, ChatAnthropicVertex) is the release of that day too:
# 3.2.5 (2026-10-23), 3.2.4 (2026-06-09), 3.2.0 (2025-12-08; 3.2.1 came 2026-01-05), with the
# google-cloud-aiplatform the resolver gave beside it. Every aiplatform requires
# google-genai<3, so with it in the latest set the resolver gives google-genai 2.34.0 (the
# newest 2.x, which langchain-google-genai 4.4.3's >=2.20 accepts), not 3.6.1.
_LANGCHAIN_PINS = {
    "1.8.3": "langchain-core==1.8.3 langchain-openai==1.7.4 langchain-anthropic==1.7.10 "
    "langchain-google-genai==4.4.3 langchain-aws==1.9.1 langchain-mistralai==1.1.6 "
    "langchain-cohere==0.6.0 langchain-groq==1.1.3 langchain-xai==1.3.0 "
    "langchain-huggingface==1.2.3 langchain-google-vertexai==3.2.5 openai==3.57.0 "
    "anthropic==2.15.0 google-genai==2.34.0 google-cloud-aiplatform==2.7.0 boto3==1.44.8 "
    "botocore==1.44.8 cohere==5.21.1 groq==0.37.1 huggingface-hub==1.33.0",
    "1.5.6": "langchain-core==1.5.6 langchain-openai==1.5.2 langchain-anthropic==1.5.6 "
    "langchain-google-genai==4.3.4 langchain-aws==1.7.2 langchain-mistralai==1.1.6 "
    "langchain-cohere==0.6.0 langchain-groq==1.1.3 langchain-xai==1.3.0 "
    "langchain-huggingface==1.2.2 langchain-google-vertexai==3.2.4 openai==3.3.0 "
    "anthropic==0.122.0 google-genai==2.18.1 google-cloud-aiplatform==1.165.0 boto3==1.43.74 "
    "botocore==1.43.74 cohere==5.21.1 groq==0.37.1 huggingface-hub==1.28.0",
    "1.2.6": "langchain-core==1.2.6 langchain-openai==1.1.6 langchain-anthropic==1.3.0 "
    "langchain-google-genai==4.1.2 langchain-aws==1.2.0 langchain-mistralai==1.1.1 "
    "langchain-cohere==0.5.0 langchain-groq==1.1.1 langchain-xai==1.2.0 "
    "langchain-huggingface==1.2.0 langchain-google-vertexai==3.2.0 openai==2.14.0 "
    "anthropic==0.75.0 google-genai==1.56.0 google-cloud-aiplatform==1.132.0 boto3==1.42.21 "
    "botocore==1.42.21 cohere==5.20.1 groq==0.37.1 huggingface-hub==0.36.0",
}
# LlamaIndex: llama-index-core and its `llama-index-llms-*` integrations, with the SDKs under
# them. 0.14.25 is the latest; for each older core (0.14.17, 0.14.10), the newest integrations
# that accept it, as a resolver gives them today (uv pip compile with the core pinned): the
# integrations of this set all require core >=0.14.5,<0.15, so the older sets differ in the core
# (its content blocks, ChatMessage, FunctionTool) and not in the integrations. anthropic stays
# under 2 in every
# set: llama-index-llms-anthropic requires anthropic>=0.75 with no cap, and anthropic 2 made
# `MessageParam` a `Union`, which its `messages_to_anthropic_messages` instantiates (TypeError
# on every Anthropic cell), so a user today pins it as these sets do.
_LLAMAINDEX_PINS = {
    "0.14.25": "llama-index-core==0.14.25 llama-index-llms-openai==0.8.3 "
    "llama-index-llms-anthropic==0.12.3 llama-index-llms-google-genai==0.11.3 "
    "llama-index-llms-bedrock-converse==0.15.5 llama-index-llms-mistralai==0.11.0 "
    "llama-index-llms-cohere==0.9.0 llama-index-llms-groq==0.6.1 openai==2.54.0 "
    "anthropic==1.17.0 google-genai==2.34.0 boto3==1.44.8 botocore==1.44.8 mistralai==3.7.0 "
    "cohere==5.21.1 pyyaml>=6",
}
_LLAMAINDEX_PINS.update(
    {
        old: _LLAMAINDEX_PINS["0.14.25"].replace(
            "llama-index-core==0.14.25", f"llama-index-core=={old}"
        )
        for old in ("0.14.17", "0.14.10")
    }
)
HYPOTHESIS = "hypothesis==6.170.17"
"""The hypothesis the framework sessions draw their property histories with: the version in the
meta line (`hypothesis`) of every committed results file. Another version draws other
histories, so a session on a fresh machine, with the latest hypothesis, could write other
property counterexamples, or other verdicts, than those committed. Bump it with a rerun of
every target (`tests/test_preflight.py` checks the committed files against it)."""

PINS = {
    "langchain": {v: pins.split() for v, pins in _LANGCHAIN_PINS.items()},
    "llamaindex": {v: pins.split() for v, pins in _LLAMAINDEX_PINS.items()},
}
SLOW_PROPERTIES = {
    "langchain": "slow-target",
    "litellm": "slow-target",
    "openai-agents-litellm": "slow-target",
    "ai-sdk": "slow-target",
    "strands": "slow-target",
    "strands-litellm": "slow-target",
    "llamaindex": "slow-target",
    "google-adk": "slow-target",
    "google-adk-litellm": "slow-target",
}
# What a user of an older release must install beside it today, where the release's own
# requirements let a newer, incompatible SDK in: pydantic-ai 1.85 requires anthropic>=0.96 with
# no cap, and anthropic>=1 takes an httpx2 client where 1.85 passes an httpx one (TypeError on
# every Anthropic cell). The results record the SDK versions used (`sdk_versions`).
# openai-agents 0.16.1 requires openai>=2.26,<3 and builds `InputTokensDetails(cached_tokens=0)`
# for every run's usage; openai 2.54 (the newest under 3) requires `cache_write_tokens` there,
# so every `Runner.run` raises a ValidationError. openai 2.36.0 is what a resolver gave on the
# day after the release (uv `--exclude-newer 2026-05-08`).
# LiteLLM 1.100.0 and 1.90.0 import `vertexai` (google-cloud-aiplatform) for every Vertex partner
# model, Claude included (`VertexAIPartnerModels.completion`, "vertexai import failed please run
# `pip install -U "google-cloud-aiplatform>=1.38"`"); 1.106.12 and 1.110.2 no longer do.
RELEASE_NEEDS = {
    ("litellm", "1.100.0"): ("google-cloud-aiplatform>=1.38",),
    ("litellm", "1.90.0"): ("google-cloud-aiplatform>=1.38",),
    # (strands-litellm 1.54.0 and 1.45.0 resolve LiteLLM 1.96.0 and older: the same import)
    ("strands-litellm", "1.54.0"): ("google-cloud-aiplatform>=1.38",),
    ("strands-litellm", "1.45.0"): ("google-cloud-aiplatform>=1.38",),
    ("pydantic-ai", "1.85.0"): ("anthropic<1",),
    ("openai-agents", "0.16.1"): ("openai==2.36.0",),
    ("openai-agents-litellm", "0.16.1"): ("openai==2.36.0",),
}


_AS_IF_FRESH = {
    True: ("--upgrade",),
    False: ("--upgrade", "--upgrade-strategy", "eager"),
}
"""How a release is installed into a venv an earlier run may have left on another release: its
dependencies resolved afresh (uv's `--upgrade`, pip's eager strategy), as a new venv would get
them. Without it a release run alone kept what an older one had pulled in (strands-litellm
1.62.0 ran on litellm 1.89.3, left by 1.45.0, where a new venv resolves 1.106.12; its snapshots
caught it)."""


def _release_deviations(session: nox.Session, name: str, version: str) -> list[str]:
    """pytest options judging an older release with its own deviations files, or with none:
    never with the latest release's (`conformance compare` compares observations either way,
    but the release's own report should not list the newest release's deviations as xpass).
    One file per target of the run, the framework's and each variant's
    (deviations/releases/<target>-<version>.yaml): a target without one in the folder would
    fall back to the latest release's file."""
    folder = Path(session.create_tmp()).resolve() / f"deviations-{name}-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    for each in _run_targets(name):
        own = Path("deviations/releases") / f"{each}-{version}.yaml"
        text = (
            own.read_text(encoding="utf-8") if own.exists() else f"target: {each}\ndeviations: []\n"
        )
        (folder / f"{each}.yaml").write_text(text, encoding="utf-8")
    return ["-o", f"conformance_deviations={folder}"]


# Per framework target, its variants: the targets of its other entry points, each named
# `<framework>.<variant>` with `variant_of = "<framework>"` and registered as an entry point
# like any target (docs/writing-a-target.md, "a variant"). `nox -s "target(NAME)"` runs the
# framework and all its variants in one pytest run per release, so one results file holds them
# (stored under the framework, shown as sub-columns in the comparison). Adding an entry point
# of a framework is one name here.
VARIANTS: dict[str, tuple[str, ...]] = {
    "litellm": ("litellm.anthropic-messages", "litellm.responses"),
    "langchain": (
        "langchain.source-type-blocks",
        "langchain.native-blocks",
        "langchain.openai-converter",
    ),
}


def _run_targets(name: str) -> tuple[str, ...]:
    """The targets one release's run covers: the framework, then its variants."""
    return (name, *VARIANTS.get(name, ()))


def _variant_problems(variants: dict[str, tuple[str, ...]]) -> list[str]:
    """What is wrong with a `VARIANTS` table: a framework no session runs, a variant not named
    `<framework>.<variant>`, a variant given twice."""
    frameworks = {*TARGETS, *BRIDGE_TARGETS}
    problems = [f"{f}: not in TARGETS or BRIDGE_TARGETS" for f in variants if f not in frameworks]
    seen: set[str] = set()
    for framework, names in variants.items():
        for name in names:
            if not name.startswith(framework + ".") or name == framework + ".":
                problems.append(f"{framework}: variant {name!r} is not named {framework}.<variant>")
            if name in seen:
                problems.append(f"{framework}: variant {name!r} is given twice")
            seen.add(name)
    return problems


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
    """The matrix and the properties on a framework target and its variants (`VARIANTS`, in
    the same pytest run and results file), for its latest release and older ones; then the
    target's own tests and its type check.

    The latest release is gated (snapshots in snapshots/<target>/, deviations in
    deviations/<target>.yaml describe it); the older ones are classified cell by cell without
    the snapshot check, each judged with the deviations that describe it
    (deviations/releases/<target>-<version>.yaml) or none, and their verdicts are reported,
    not gated. Writes report/results-<name>-<version>.jsonl and, once complete, imports it into
    the committed results/<name>/<version>.jsonl.gz. `CONFORMANCE_RELEASE=<version>` runs that
    release alone (a CI job per target and release, .github/workflows/report.yml).
    """
    if problems := _variant_problems(VARIANTS):
        session.error("VARIANTS in noxfile.py: " + "; ".join(problems))
    if name in BRIDGE_TARGETS:
        _bridge_target(session, name)
        return
    group, versions = TARGETS[name]
    only = os.environ.get("CONFORMANCE_RELEASE")  # one release, as a CI job runs it
    if only and only not in versions:
        session.error(f"{name} has no release {only!r} in TARGETS; known: {', '.join(versions)}")
    session.install("-e", ".", HYPOTHESIS, "pyright")  # pytest, syrupy; SDKs with the target
    REPORT.mkdir(exist_ok=True)
    env = {"CONFORMANCE_REQUIRE_TARGETS": "1"}  # a missing dependency fails here, never skips
    pins = PINS.get(name)
    requirement, *beside = nox.project.dependency_groups(PYPROJECT, group)
    if beside and not pins:  # the rest of the group, unpinned (litellm's boto3 signs Bedrock)
        session.install(*beside)
    unpinned = re.split(r"[<>=!~;]", requirement)[0]  # the distribution with its extras
    latest_set: Path | None = None
    for index, version in enumerate(versions):
        if only and version != only:
            continue
        session.install(
            *(pins[version] if pins else [f"{unpinned}=={version}"]),
            *RELEASE_NEEDS.get((name, version), ()),
            *_AS_IF_FRESH[session.venv_backend == "uv"],
        )
        results = REPORT / f"results-{name}-{version}.jsonl"
        latest = index == 0
        own: list[str] = [] if latest else _release_deviations(session, name, version)
        if latest:
            latest_set = _freeze(session)
        try:
            _run_release(session, name, results, latest, env, own)
        finally:
            # The release's results, complete, into the committed folder (the data the site
            # and the main job's comparison show), even when the latest release's gate fails.
            _import_release(session, name, version, results)
        session.log(f"{name} {version}: {results}")
        if latest:
            # The target's own tests skip in the `tests` session (no framework there): run here.
            _target_tests(session, name, env)
            _pyright_target(session, name)
            if latest_set is None:
                # --install-only (nothing ran, nothing to freeze): the older releases would only
                # be installed over the latest, and the venv left on the oldest.
                break
    if latest_set is not None and len(versions) > 1:
        _restore(session, latest_set)  # the venv is left on the latest release, as it says


def _module(target: str) -> str:
    """`litellm.anthropic-messages` -> `litellm_anthropic_messages`: its name in file names."""
    return re.sub(r"[-.]", "_", target)


def _own_files(variant: str) -> list[str]:
    """A variant's module and test module where it has its own, those that exist: a module (or
    package) beside its framework's, `conformance/targets/<framework>_<variant>`, and
    `tests/test_<framework>_<variant>_target.py` (code inside its framework's package is
    checked with the framework's)."""
    module = Path(f"conformance/targets/{_module(variant)}")
    found = [str(module)] if module.is_dir() else []
    found += [str(module.with_suffix(".py"))] if module.with_suffix(".py").is_file() else []
    test = Path(f"tests/test_{_module(variant)}_target.py")
    return found + ([str(test)] if test.is_file() else [])


def _target_tests(session: nox.Session, name: str, env: dict[str, str]) -> None:
    """The framework's own tests (tests/test_<target>_target.py), and each variant's that has a
    test module of its own, in one pytest run."""
    module = _module(name)
    variants = [f"tests/test_{_module(v)}_target.py" for v in VARIANTS.get(name, ())]
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"tests/test_{module}_target.py",
        *(test for test in variants if Path(test).is_file()),
        "--snapshot-disable-unused",  # a path argument: skip syrupy's unused scan
        env={**env, "HYPOTHESIS_PROFILE": SLOW_PROPERTIES.get(name, "dev")},
    )


def _pyright_target(session: nox.Session, name: str) -> None:
    """pyright over the target's module and its tests, and each variant's where it has its
    own. pyright applies pyproject's `exclude` even to files named on its command line (it
    analyzed none of them), so these get a config of their own, beside the venvs."""
    module = name.replace("-", "_")
    package = Path(f"conformance/targets/{module}")  # a module or a package
    files = [
        str(package if package.is_dir() else package.with_suffix(".py")),
        f"tests/test_{module}_target.py",
    ]
    for variant in VARIANTS.get(name, ()):
        files += _own_files(variant)
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
    session.install("-e", ".", HYPOTHESIS, "pyright")
    REPORT.mkdir(exist_ok=True)
    selector = "CONFORMANCE_" + name.upper().replace("-", "_")
    only = os.environ.get("CONFORMANCE_RELEASE")  # one release, as a CI job runs it
    if only and only not in {version for _, _, version in releases}:
        session.error(f"{name} has no release {only!r} in BRIDGE_TARGETS")
    for index, (release, selected, version) in enumerate(releases):
        if only and version != only:
            continue
        where = Path(folder) / release
        session.run("npm", "ci", "--no-audit", "--no-fund", "--prefix", str(where), external=True)
        env = {"CONFORMANCE_REQUIRE_TARGETS": "1", selector: selected}
        results = REPORT / f"results-{name}-{version}.jsonl"
        latest = index == 0
        own = [] if latest else _release_deviations(session, name, version)
        try:
            _run_release(session, name, results, latest, env, own)
        finally:  # a complete run into the committed folder, as for a Python target
            _import_release(session, name, version, results)
        session.log(f"{name} {version}: {results}")
        if latest:
            _target_tests(session, name, env)
            _pyright_target(session, name)


def _freeze(session: nox.Session) -> Path | None:
    """The exact distributions of the session's venv now (the latest release installed)."""
    python = session.virtualenv.bin + "/python"
    if shutil.which("uv"):
        # --quiet: uv names the environment on stderr, which `silent` captures with stdout
        frozen = session.run(
            "uv", "pip", "freeze", "--quiet", "--python", python, silent=True, external=True
        )
    else:
        frozen = session.run("python", "-m", "pip", "freeze", silent=True)
    if not isinstance(frozen, str):
        return None  # --install-only: nothing runs, nothing to restore
    path = Path(session.create_tmp()) / "latest-release.txt"
    path.write_text(frozen, encoding="utf-8")
    return path


def _restore(session: nox.Session, frozen: Path) -> None:
    """Put the venv back on the set `_freeze` wrote: the older releases installed over it
    (and what they needed beside them) are replaced, so a later `nox -R` or a hand run of
    the venv runs the latest release, not the oldest."""
    python = session.virtualenv.bin + "/python"
    if shutil.which("uv"):
        session.run("uv", "pip", "sync", "--python", python, str(frozen), external=True)
    else:
        session.run("python", "-m", "pip", "install", "-r", str(frozen))
    session.log(f"venv restored to the latest release ({frozen})")


def _import_release(session: nox.Session, name: str, version: str, results: Path) -> None:
    """A complete run of the release into results/, once its meta line shows it ran as that
    version: `nox -R` skips the installs, so an older release would run as the latest and be
    stored under the other's version (the session stops instead)."""
    if not _complete(results):
        return
    targets: dict[str, Any] = _meta(results).get("targets", {})
    recorded = targets.get(name)
    if recorded != version:
        session.error(
            f"{name} {version} ran as version {recorded} ({results}); not imported. Was the"
            " release installed? `nox -R` skips installs: run the session with -r"
        )
    expected = _run_targets(name)
    problems = [
        *(f"{t} {v} is not a target of this run" for t, v in targets.items() if t not in expected),
        *(f"{t} ran at {targets[t]}" for t in expected[1:] if targets.get(t, version) != version),
        *(f"{t} did not run" for t in expected if t not in targets),
    ]
    if problems:
        session.error(
            f"{results}: a run of {name} {version} with its variants"
            f" ({', '.join(expected[1:]) or 'none'}), but {'; '.join(problems)}; not imported"
            " (VARIANTS in noxfile.py names each framework's variants)"
        )
    session.run("conformance", "import-results", str(results), "--into", str(RESULTS))


def _run_release(
    session: nox.Session,
    name: str,
    results: Path,
    latest: bool,
    env: dict[str, str],
    own: list[str],
) -> None:
    """The matrix and the properties on one installed release: the latest gated (snapshots),
    an older one judged with `own` (its own deviations, or none) and reported."""
    session.run(
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        ".",  # pytest's root is this project, whatever path an option names
        # Only the module holding the generated test, as in the main job: collecting the
        # self-test modules only to deselect them doubled the start-up (docs/performance.md).
        "-o",
        "python_files=test_matrix.py",
        "-m",
        "conformance",
        # The framework and its variants in one run: one results file holds them all.
        *(arg for each in _run_targets(name) for arg in ("--conformance-target", each)),
        f"--conformance-results={results}",
        "--conformance-items=cell",  # as in the main job: the same lines, fewer pytest items
        *([] if latest else ["--conformance-check=!snapshot", *own]),
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
    venv that `nox -s "target(NAME)"` left in .nox/, and so does `share` (not run unless named:
    it samples the gate with py-spy, which needs ptrace), after sampling the reference with the
    main job's checks in this session's venv."""
    _install(session, "conformance")  # what the main job runs with: no test-only tools
    session.install("pytest-xdist")
    chosen = session.posargs or [*BENCHMARKS, "framework"]
    for name in chosen:
        if name in ("framework", "share"):  # per target venv; `share` samples with py-spy
            if name == "share":
                session.install("py-spy")
                session.log("== share: reference (the main job's checks)")
                session.run(
                    "python", "benchmarks/bench_share.py", "--target", "reference",
                    "--python", str(Path(session.bin) / "python"), "--sdk-schema",
                    "--cassettes", "cassettes",
                )  # fmt: skip
            for target in TARGETS:
                python = Path(".nox") / f"target-{target}" / "bin" / "python"
                if not python.exists():
                    session.log(f"{name} {target}: no venv at {python}; skipped")
                    continue
                session.log(f"== {name}: {target}")
                session.run(
                    "python", f"benchmarks/bench_{name}.py", "--target", target,
                    "--python", str(python),
                )  # fmt: skip
            continue
        if name not in BENCHMARKS:
            known = ", ".join(BENCHMARKS)
            session.error(f"no benchmark {name!r}; known: {known}, framework, share")
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
