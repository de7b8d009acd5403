"""Located errors for every input file, and a setup checked before the run: control characters
and NUL bytes in deviations and reasons files are located like in the matrix (no INTERNALERROR,
no `ReaderError`); a broken framework results file in report/ is named and left out before the
matrix runs; an option's path cannot move pytest's root away from the project; the nox sessions
survive `--install-only` and leave a framework's venv on its latest release."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import warnings
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from conformance import cli
from conformance.reports.results import read_meta
from results_data import ALL_PASS, meta, write

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
DEVIATIONS = f"""\
target: toy
deviations:
  - cell: {CELL}
    checks: [outcome]
    outcome: fallback-unmarked
    level: reference
    reason: the toy moves images{{here}}
"""
REASONS = "rules:\n  - when: {{check: outcome}}\n    reason: the toy moves images{here}\n"
BAD = [
    ("\x1b", "the control character U+001B"),
    ("\x07", "the control character U+0007"),
    ("\x00", "a NUL byte; is the file binary, or saved as UTF-16?"),
]


@pytest.mark.parametrize(("char", "says"), BAD)
def test_a_control_character_in_a_deviations_file_is_located(
    pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str], char: str, says: str
) -> None:
    folder = pytester.path / "deviations"
    folder.mkdir()
    (folder / "toy.yaml").write_text(DEVIATIONS.format(here=char), encoding="utf-8")
    (pytester.path / "pyproject.toml").write_text(
        '[tool.conformance]\ndeviations = "deviations"\n', encoding="utf-8"
    )
    assert cli.main(["check", str(ROOT / "matrix.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"deviations/toy.yaml:7:{len('    reason: the toy moves images') + 1}: {says}" in err
    assert "Traceback" not in err
    assert "ReaderError" not in err


@pytest.mark.parametrize(("char", "says"), BAD)
def test_a_control_character_stops_the_run_with_its_location(
    project: pytest.Pytester, char: str, says: str
) -> None:
    folder = project.path / "deviations"
    folder.mkdir()
    text = DEVIATIONS.format(here=char).replace("target: toy", "target: reference")
    (folder / "reference.yaml").write_text(text, encoding="utf-8")
    project.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_deviations = deviations\n"
    )
    run = project.runpytest("-k", CELL)
    assert run.ret == 4
    output = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in output
    run.stderr.fnmatch_lines([f"*deviations/reference.yaml:7:*: {says}*"])


@pytest.mark.parametrize(("char", "says"), BAD)
def test_a_control_character_in_a_reasons_file_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str, says: str
) -> None:
    results = write(tmp_path / "r.jsonl", ALL_PASS)
    reasons = tmp_path / "x.reasons.yaml"
    reasons.write_text(REASONS.format(here=char), encoding="utf-8")
    argv = ["deviations", str(results), "--target", "reference", "--reasons", str(reasons)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "x.reasons.yaml:3:" in err
    assert says in err
    assert "Traceback" not in err


# --- the noxfile ------------------------------------------------------------------------------


@functools.cache
def _noxfile() -> ModuleType:
    """The project's noxfile, loaded once (nox registers each session when it is loaded)."""
    spec = importlib.util.spec_from_file_location("project_noxfile", ROOT / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # loaded by another test already
        spec.loader.exec_module(module)
    return module


class _Session:
    """What the sessions call of `nox.Session`, recorded; `run` returns what nox returns under
    `--install-only` (None) unless `running`."""

    def __init__(self, tmp_path: Path, *, running: bool) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.warnings: list[str] = []
        self.running = running
        self.posargs: list[str] = []
        self.tmp = tmp_path / "tmp"
        self.virtualenv = SimpleNamespace(bin=str(tmp_path / "venv" / "bin"), location="venv")
        self.venv_backend = "uv"

    def install(self, *args: str) -> None:
        self.calls.append(("install", args))

    def run(self, *args: str, **kwargs: Any) -> Any:
        self.calls.append(("run", args))
        if not self.running:
            return None
        return "frozen-set==1\n" if kwargs.get("silent") else True

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def log(self, text: str) -> None:
        pass

    def error(self, text: str) -> None:
        raise AssertionError(text)

    def create_tmp(self) -> str:
        self.tmp.mkdir(exist_ok=True)
        return str(self.tmp)


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the project's matrix and a report/ folder, as the noxfile sees them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    (tmp_path / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    (tmp_path / "report").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("", "is empty"),
        ('{"kind": "meta", "matrix_dig', "a line is not JSON"),
        ("CUT", "has no end line"),
    ],
)
def test_a_broken_framework_results_file_is_named_before_the_matrix_runs(
    repository: Path, content: str, says: str
) -> None:
    noxfile = _noxfile()
    broken = repository / "report" / "results-fw-1.0.jsonl"
    if content == "CUT":
        write(broken, ALL_PASS, head=meta(fw="1.0"))
        broken.write_text("\n".join(broken.read_text().splitlines()[:-1]) + "\n")
    else:
        broken.write_text(content, encoding="utf-8")
    good = write(repository / "report" / "results-fw-2.0.jsonl", ALL_PASS, head=meta(fw="2.0"))
    session = _Session(repository, running=False)
    noxfile.conformance(session)  # --install-only: returns once nothing ran, no crash
    shown = str(broken.relative_to(repository))
    assert [w for w in session.warnings if shown in w and says in w], session.warnings
    pytest_runs = [args for kind, args in session.calls if kind == "run" and args[0] == "pytest"]
    assert len(pytest_runs) == 1  # the warning came first, the matrix after
    assert "--rootdir" in pytest_runs[0]
    assert any(a.startswith("--conformance-results=") for a in pytest_runs[0])
    usable = noxfile._framework_results(session)
    assert list(usable) == [good.relative_to(repository)]
    # against a reference run on the same matrix, suite and Python (here: good's own meta line)
    assert noxfile._latest_target_results(session, usable, good) == [
        str(good.relative_to(repository))
    ]


def test_install_only_runs_nothing_and_does_not_crash(repository: Path) -> None:
    session = _Session(repository, running=False)
    _noxfile().conformance(session)
    assert not (repository / "report" / "results.jsonl").exists()


def _uv(name: str) -> str:
    return "/usr/bin/uv"


def _no_write(self: Path, *args: object, **kwargs: object) -> int:
    return 0


def test_a_framework_session_leaves_its_venv_on_the_latest_release(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    noxfile = _noxfile()
    monkeypatch.setattr(noxfile.shutil, "which", _uv)
    session = _Session(repository, running=True)
    monkeypatch.setattr(noxfile.Path, "write_text", _no_write)  # the pyright config
    noxfile.target(session, "litellm")
    installs = [args for kind, args in session.calls if kind == "install"]
    assert any("litellm==1.90.0" in " ".join(a) for a in installs)  # the oldest, installed last
    last = session.calls[-1]
    assert last[0] == "run"
    assert last[1][:3] == ("uv", "pip", "sync")  # then the latest's exact set, restored
    calls = [args for _, args in session.calls]
    freeze = next(i for i, a in enumerate(calls) if a[:3] == ("uv", "pip", "freeze"))
    first_install_of_older = next(i for i, a in enumerate(calls) if "litellm==1.100.0" in a)
    assert freeze < first_install_of_older  # frozen while the latest was installed


def test_install_only_leaves_a_framework_venv_on_its_latest_release(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `nox -s "target(litellm)" --install-only` prepares the venv a hand run (or `nox -R`) uses:
    # nothing runs, so nothing is frozen to restore, and no older release may be installed last.
    noxfile = _noxfile()
    monkeypatch.setattr(noxfile.shutil, "which", _uv)
    monkeypatch.setattr(noxfile.Path, "write_text", _no_write)
    session = _Session(repository, running=False)
    noxfile.target(session, "litellm")
    latest = noxfile.TARGETS["litellm"][1][0]
    releases = [a for kind, a in session.calls if kind == "install" and "litellm==" in " ".join(a)]
    assert releases
    assert all(f"litellm=={latest}" in " ".join(a) for a in releases), releases


@pytest.mark.parametrize(
    ("backend", "flags"),
    [("uv", ["--upgrade"]), ("virtualenv", ["--upgrade", "--upgrade-strategy", "eager"])],
)
def test_each_release_is_installed_with_its_dependencies_resolved_afresh(
    repository: Path, monkeypatch: pytest.MonkeyPatch, backend: str, flags: list[str]
) -> None:
    """A release run alone (`CONFORMANCE_RELEASE`) in a venv an older release's run left must
    not keep that release's dependencies: its install resolves them as a new venv would."""
    noxfile = _noxfile()
    monkeypatch.setattr(noxfile.shutil, "which", _uv)
    monkeypatch.setattr(noxfile.Path, "write_text", _no_write)
    monkeypatch.setenv("CONFORMANCE_RELEASE", "1.110.2")
    session = _Session(repository, running=True)
    session.venv_backend = backend
    noxfile.target(session, "litellm")
    (release,) = [a for kind, a in session.calls if kind == "install" and "litellm==1.110.2" in a]
    assert list(release[-len(flags) :]) == flags


def test_a_results_path_outside_the_project_cannot_move_pytests_root(
    project: pytest.Pytester,
) -> None:
    outside = project.path.parent / f"{project.path.name}-r.jsonl"
    outside.write_text("", encoding="utf-8")
    run = project.runpytest("-k", CELL, "--conformance-results", str(outside))
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*made pytest take*as its root*read no config from*tox.ini*"])
    run = project.runpytest("-k", f"{CELL} and outcome", f"--conformance-results={outside}")
    assert run.ret == 0
    assert '"status": "complete"' in outside.read_text(encoding="utf-8")


# --- a framework's variants in its session -----------------------------------------------------

TOY = "litellm.toy"
"""A variant name for the noxfile's logic; `tests/test_variants.py` runs a real one."""


@pytest.fixture
def variants(repository: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The noxfile with litellm given a variant, its own deviations for 1.100.0, its own test
    module, and a .nox folder for the pyright config."""
    noxfile = _noxfile()
    monkeypatch.setitem(noxfile.VARIANTS, "litellm", (TOY,))
    monkeypatch.setattr(noxfile.shutil, "which", _uv)
    (repository / ".nox").mkdir()
    (repository / "deviations" / "releases").mkdir(parents=True)
    own = "target: litellm.toy\ndeviations: []  # its own\n"
    (repository / "deviations" / "releases" / f"{TOY}-1.100.0.yaml").write_text(own)
    (repository / "tests").mkdir()
    (repository / "tests" / "test_litellm_toy_target.py").write_text("")
    return noxfile


def _pytest_runs(session: _Session) -> list[tuple[str, ...]]:
    return [args for kind, args in session.calls if kind == "run" and args[0] == "pytest"]


def _targets_of(args: tuple[str, ...]) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == "--conformance-target"]


def test_a_framework_and_its_variants_run_in_one_pytest_run_per_release(
    variants: ModuleType, repository: Path
) -> None:
    session = _Session(repository, running=True)
    variants.target(session, "litellm")
    matrix = [a for a in _pytest_runs(session) if "--conformance-results" in " ".join(a)]
    assert len(matrix) == 3  # one run per release, not one per target
    assert all(_targets_of(a) == ["litellm", TOY] for a in matrix)
    # an older release: each target judged with its own deviations, none falling back to the
    # latest release's deviations/<target>.yaml
    older = next(a for a in matrix if "results-litellm-1.100.0" in " ".join(a))
    skips = older.index("--conformance-check=!snapshot")  # no snapshot check for an older one
    folder = Path(older[older.index("-o", skips) + 1].split("=", 1)[1])
    assert sorted(p.name for p in folder.iterdir()) == ["litellm.toy.yaml", "litellm.yaml"]
    assert "# its own" in (folder / "litellm.toy.yaml").read_text()
    assert (folder / "litellm.yaml").read_text() == "target: litellm\ndeviations: []\n"
    # the variant's own test module beside the framework's, and in the type check
    tests = [a for a in _pytest_runs(session) if "tests/test_litellm_target.py" in a]
    assert len(tests) == 1
    assert "tests/test_litellm_toy_target.py" in tests[0]
    config = json.loads((repository / ".nox" / "pyright-litellm.json").read_text())
    assert "../tests/test_litellm_toy_target.py" in config["include"]


def test_a_framework_without_variants_runs_as_before(repository: Path) -> None:
    noxfile = _noxfile()
    assert "pydantic-ai" not in noxfile.VARIANTS
    session = _Session(repository, running=True)
    (repository / ".nox").mkdir()
    noxfile.target(session, "pydantic-ai")
    matrix = [a for a in _pytest_runs(session) if "--conformance-results" in " ".join(a)]
    assert [_targets_of(a) for a in matrix] == [["pydantic-ai"], ["pydantic-ai"]]


def _run_file(repository: Path, targets: dict[str, str], variant_of: dict[str, str]) -> Path:
    head = meta(**targets) | ({"variant_of": variant_of} if variant_of else {})
    return write(repository / "report" / "results-litellm-1.110.2.jsonl", ALL_PASS, head=head)


def _imports(session: _Session) -> list[tuple[str, ...]]:
    return [args for _, args in session.calls if args[:2] == ("conformance", "import-results")]


@pytest.mark.parametrize(
    ("targets", "says"),
    [
        ({"litellm": "1.110.2"}, "litellm.toy did not run"),
        ({"litellm": "1.110.2", TOY: "1.90.0"}, "litellm.toy ran at 1.90.0"),
        (
            {"litellm": "1.110.2", TOY: "1.110.2", "langchain": "1.8.3"},
            "langchain 1.8.3 is not a target of this run",
        ),
    ],
    ids=["variant-missing", "variant-at-another-version", "another-target"],
)
def test_a_release_run_without_its_variants_at_its_version_is_not_imported(
    variants: ModuleType, repository: Path, targets: dict[str, str], says: str
) -> None:
    path = _run_file(repository, targets, {TOY: "litellm"} if TOY in targets else {})
    session = _Session(repository, running=True)
    with pytest.raises(AssertionError, match=re.escape(says)):
        variants._import_release(session, "litellm", "1.110.2", path)
    assert not _imports(session)


def test_a_release_run_with_its_variants_is_imported(
    variants: ModuleType, repository: Path
) -> None:
    path = _run_file(repository, {"litellm": "1.110.2", TOY: "1.110.2"}, {TOY: "litellm"})
    session = _Session(repository, running=True)
    variants._import_release(session, "litellm", "1.110.2", path)
    assert len(_imports(session)) == 1


def test_the_framework_version_is_still_checked(variants: ModuleType, repository: Path) -> None:
    path = _run_file(repository, {"litellm": "1.90.0", TOY: "1.90.0"}, {TOY: "litellm"})
    session = _Session(repository, running=True)
    with pytest.raises(AssertionError, match=r"litellm 1\.110\.2 ran as version 1\.90\.0"):
        variants._import_release(session, "litellm", "1.110.2", path)


def test_a_file_with_a_framework_and_its_variant_goes_to_the_report_once(
    repository: Path,
) -> None:
    noxfile = _noxfile()
    head = meta(litellm="1.110.2", **{TOY: "1.110.2"}) | {"variant_of": {TOY: "litellm"}}
    both = write(repository / "report" / "results-litellm-1.110.2.jsonl", ALL_PASS, head=head)
    older = write(
        repository / "report" / "results-litellm-1.90.0.jsonl",
        ALL_PASS,
        head=meta(litellm="1.90.0", **{TOY: "1.90.0"}) | {"variant_of": {TOY: "litellm"}},
    )
    session = _Session(repository, running=False)
    usable = noxfile._framework_results(session)
    assert sorted(usable) == sorted(p.relative_to(repository) for p in (both, older))
    assert noxfile._latest_target_results(session, usable, both) == [
        str(both.relative_to(repository))
    ]


def test_a_variants_table_that_cannot_be_run_is_named() -> None:
    noxfile = _noxfile()
    assert noxfile._variant_problems(noxfile.VARIANTS) == []  # the committed table
    assert noxfile._variant_problems({"litellm": (TOY,), "ai-sdk": ("ai-sdk.v",)}) == []
    bad = {"nope": ("nope.x",), "litellm": ("anthropic-messages", TOY, "litellm.", TOY)}
    assert noxfile._variant_problems(bad) == [
        "nope: not in TARGETS or BRIDGE_TARGETS",
        "litellm: variant 'anthropic-messages' is not named litellm.<variant>",
        "litellm: variant 'litellm.' is not named litellm.<variant>",
        "litellm: variant 'litellm.toy' is given twice",
    ]


def test_the_session_stops_on_such_a_table(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    noxfile = _noxfile()
    monkeypatch.setitem(noxfile.VARIANTS, "litellm", ("anthropic-messages",))
    session = _Session(repository, running=False)
    with pytest.raises(AssertionError, match=r"VARIANTS in noxfile\.py: litellm: variant"):
        noxfile.target(session, "pydantic-ai")
    assert not session.calls  # before anything is installed or run


def test_every_committed_results_file_was_drawn_with_the_sessions_hypothesis() -> None:
    # Another hypothesis draws other property histories: a committed file drawn with another
    # version than the sessions install could not be written again by rerunning its session.
    pinned = _noxfile().HYPOTHESIS.removeprefix("hypothesis==")
    files = sorted((ROOT / "results").glob("*/*.jsonl.gz"))
    assert files
    drawn = {path.relative_to(ROOT).as_posix(): read_meta(path).hypothesis for path in files}
    assert {path: version for path, version in drawn.items() if version != pinned} == {}
