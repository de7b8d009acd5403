"""The worked example end to end, outside the source tree: the README's adoption steps, word
for word, on the toy framework, in its package and from an empty folder that is not one; the
reproducer command the report's cell dialog shows, run as written; nothing of the machine in
the results, the reports or the page; then a regression PR that `conformance diff` fails.

Run by `nox -s example` (it builds the wheel and passes it as CONFORMANCE_WHEEL); on its own,
`pytest examples/test_adoption.py` builds the wheel itself with `uv build`.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "examples" / "toy-framework"
NAME = "toy-framework"

# The exit status each README step must give, in order: the first two runs fail on the toy's
# two known bugs; once the deviations are written, everything passes.
EXPECTED = [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]
EXPECTED_PLAIN = [0, 0, 0, 1, 1, 0, 0, 0, 0]
LOCAL = re.compile(r"127\.0\.0\.1:\d|localhost:\d")
"""A loopback origin with its port: never in a results file, a report or the page."""


def readme_steps(block: str = "adoption-steps") -> list[str]:
    """The commands of one of the README's adoption blocks, one per line, verbatim."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {block} -->\n```sh\n(.*?)```", readme, flags=re.DOTALL)
    assert found, f"README.md has no {block} block"
    return [line for line in found[1].splitlines() if line.strip()]


@pytest.fixture(scope="module")
def workspace() -> Iterator[Path]:
    base = Path(tempfile.gettempdir())
    if base.resolve().is_relative_to(ROOT):  # nox points TMPDIR into .nox/
        base = Path("/tmp")
    with tempfile.TemporaryDirectory(prefix="conformance-example-", dir=base) as tmp:
        yield Path(tmp)


@pytest.fixture(scope="module")
def wheel(workspace: Path) -> Path:
    given = os.environ.get("CONFORMANCE_WHEEL")
    if given:
        return Path(given).resolve()
    out = workspace / "dist"
    subprocess.run(["uv", "build", "--wheel", "--out-dir", str(out), str(ROOT)], check=True)
    (built,) = out.glob("*.whl")
    return built


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    sys.stdout.write(f"$ {command}\n{done.stdout[-3000:]}{done.stderr[-3000:]}\n")
    return done


def _environment(workspace: Path, wheel: Path, name: str) -> tuple[Path, dict[str, str]]:
    """A fresh venv of its own, and the environment the README's steps run in: the suite to
    install (the wheel) and an EDITOR that writes what a person would."""
    person = workspace / "person"
    if not person.exists():
        shutil.copytree(TOY / "filled", person)
    venv = workspace / f"venv-{name}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS"}
    }
    env |= {
        "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "CONFORMANCE_SUITE": str(wheel),
        "EDITOR": str(person / "edit.sh"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return venv, env


def _steps(block: str, expected: list[int], folder: Path, env: dict[str, str]) -> None:
    steps = readme_steps(block)
    assert len(steps) == len(expected)
    for step, status in zip(steps, expected, strict=True):
        done = _run(step, folder, env)
        assert done.returncode == status, f"{step}: exit {done.returncode}, expected {status}"
        if step.startswith("pytest") and status == 0:  # a clean run warns nothing
            assert "warnings summary" not in done.stdout, step


def _dialog_reproducer(folder: Path, env: dict[str, str], venv: Path, cell: str) -> None:
    """The command the page's dialog shows for `cell`, run word for word in the project
    folder, then the script it writes: it prints the request body the toy framework sends."""
    page = (folder / "report" / "index.html").read_text(encoding="utf-8")
    commands = [html.unescape(c) for c in re.findall(r"(conformance repro [^<\n]+)", page)]
    shown = f"conformance repro {cell} --target {NAME} -o "
    command = next(c for c in commands if c.startswith(shown))
    done = _run(command, folder, env)
    assert done.returncode == 0, done.stderr
    script = command.rsplit(" ", 1)[1]
    ran = _run(f"python {script}", folder, env)
    assert ran.returncode == 0, ran.stderr
    body = json.loads(ran.stdout)
    assert body["model"] == "claude-sonnet-5-5"
    assert str(venv) not in (folder / script).read_text(encoding="utf-8")


def _nothing_local(folder: Path, venv: Path, workspace: Path) -> None:
    """No results file, report or page of the run holds a path of this machine or a port."""
    written = [p for p in (folder / "report").iterdir() if p.suffix in {".jsonl", ".md", ".html"}]
    assert written
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert not LOCAL.findall(text), (path.name, LOCAL.findall(text)[:3])
        for local in (str(venv), str(workspace), str(ROOT), sys.prefix):
            assert local not in text, (path.name, local)


def test_the_readme_steps_then_a_regression_pr(workspace: Path, wheel: Path) -> None:
    assert not workspace.is_relative_to(ROOT)
    repo = workspace / "toy-framework"
    shutil.copytree(TOY, repo, ignore=shutil.ignore_patterns("filled", "__pycache__"))
    venv, env = _environment(workspace, wheel, "package")
    _steps("adoption-steps", EXPECTED, repo, env)

    # The suite came from the wheel, not this checkout.
    where = _run("python -c 'import conformance; print(conformance.__file__)'", repo, env)
    assert str(venv) in where.stdout
    # init added its table to the toy's pyproject.toml and changed nothing else there.
    before = (TOY / "pyproject.toml").read_text(encoding="utf-8")
    assert (repo / "pyproject.toml").read_text(encoding="utf-8").startswith(before)
    _dialog_reproducer(repo, env, venv, "anthropic/claude-sonnet-5/text/inline/error")
    _nothing_local(repo, venv, workspace)
    meta = json.loads((repo / "report" / "results.jsonl").read_text("utf-8").splitlines()[0])
    assert meta["matrix"] == "conformance:matrix.yaml"
    # The two bugs are declared, with a person's reasons, in the toy's own file: three cells
    # of one, one of the other, and the two properties whose histories hold the prompt style.
    declared = (repo / "deviations" / f"{NAME}.yaml").read_text(encoding="utf-8")
    assert "TODO" not in declared
    assert declared.count("- cell:") == 6
    assert "anthropic/claude-sonnet-5/text/inline/error" in declared
    assert "openai-chat/gpt-6/image/inline/result" in declared
    assert "/prompt" not in declared
    # One report holds the toy framework and the reference, on the same matrix.
    report = (repo / "report" / "compatibility.md").read_text(encoding="utf-8")
    assert NAME in report
    assert "reference" in report
    metas = [
        json.loads((repo / "report" / name).read_text(encoding="utf-8").splitlines()[0])
        for name in ("results.jsonl", "results-reference.jsonl")
    ]
    assert metas[0]["matrix_digest"] == metas[1]["matrix_digest"]
    assert metas[0]["deviations"][NAME]["path"] == f"deviations/{NAME}.yaml"

    # A pull request that sends audio to gpt-6-luna, which cannot take it: a regression at the
    # required level, which the workflow's `conformance diff` fails on.
    shutil.copy(repo / "report" / "results.jsonl", repo / "report" / "base.jsonl")
    adapter = repo / "toyfw" / "openai_chat.py"
    source = adapter.read_text(encoding="utf-8")
    assert "AUDIO_INPUT = False" in source
    adapter.write_text(source.replace("AUDIO_INPUT = False", "AUDIO_INPUT = True"), "utf-8")
    head = _run("pytest -q --conformance-results report/head.jsonl", repo, env)
    assert head.returncode == 1
    diff = _run("conformance diff report/base.jsonl report/head.jsonl -o report/diff.md", repo, env)
    assert diff.returncode == 1
    text = (repo / "report" / "diff.md").read_text(encoding="utf-8")
    assert "openai-chat/gpt-6/audio/inline/result" in text
    assert "regression" in text


def test_the_plain_folder_steps(workspace: Path, wheel: Path) -> None:
    """The README's steps for a folder that is not a package, from an empty one, with the
    framework installed from elsewhere (here the toy's folder)."""
    framework = workspace / "toy-framework-dist"
    shutil.copytree(TOY, framework, ignore=shutil.ignore_patterns("filled", "__pycache__"))
    folder = workspace / "plain"
    folder.mkdir()
    venv, env = _environment(workspace, wheel, "plain")
    env["FRAMEWORK"] = str(framework)
    _steps("adoption-steps-plain", EXPECTED_PLAIN, folder, env)

    project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    assert "build-system" not in project  # not a package
    assert project["project"]["name"] == "toy-framework-conformance"
    declared = (folder / "deviations" / f"{NAME}.yaml").read_text(encoding="utf-8")
    assert declared.count("- cell:") == 6
    _dialog_reproducer(folder, env, venv, "anthropic/claude-sonnet-5/text/inline/error")
    _nothing_local(folder, venv, workspace)
