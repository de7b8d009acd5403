"""The worked example end to end, outside the source tree: the README's adoption steps, word
for word, on the toy framework, in its package and from an empty folder that is not one; the
reproducer command the report's cell dialog shows, run as written; the prompt style, which the
toy has no notion of and its target declares not applicable, shown `n/a` and counted apart in
the report's Markdown, JSON and page; nothing of the machine in the results, the reports or
the page; then a regression PR that `conformance diff` fails.

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
LOCAL = re.compile(r"127\.0\.0\.1:\d|localhost:\d|\[::1\]:\d")
"""A loopback origin with its port: never in a results file, a report or the page."""
SERVED = ("openai-chat/gpt-6", "anthropic/claude-sonnet-5")
"""The toy target's rows (`supports`): every other row's cells are n/a, unserved."""
NOT_APPLICABLE = "n/a (style:prompt): toyfw has no tool-produced user content"
"""How a cell of the style the toy's target declares not applicable is skipped."""


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
    written = [
        p for p in (folder / "report").iterdir() if p.suffix in {".jsonl", ".json", ".md", ".html"}
    ]
    assert written
    home = Path.home()
    local = [str(venv), str(workspace), str(ROOT), sys.prefix, sys.base_prefix]
    local += [str(home)] if home != Path(home.anchor) else []
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert not LOCAL.findall(text), (path.name, LOCAL.findall(text)[:3])
        for where in local:
            assert where not in text, (path.name, where)


def _counted_apart(folder: Path, env: dict[str, str]) -> None:
    """The prompt style, declared not applicable by the toy's target, in the report's JSON,
    Markdown and page: each of its cells `n/a` with the reason, apart from the cells that
    apply, over which compliance is given, with the number of n/a cells beside it."""
    for fmt, name in (("json", "report.json"), ("md", "compatibility.md")):
        if not (folder / "report" / name).exists():  # the plain folder's steps write no .md
            command = f"conformance report report/results.jsonl --format {fmt} -o report/{name}"
            assert _run(command, folder, env).returncode == 0
    report = json.loads((folder / "report" / "report.json").read_text(encoding="utf-8"))
    (toy,) = [t for t in report["targets"] if t["name"] == NAME]
    cells = [c for row in toy["rows"] for ct in row["content_types"] for c in ct["cells"]]
    for cell in cells:
        served = cell["id"].rsplit("/", 3)[0] in SERVED
        if cell["style"] == "prompt":
            assert cell["na"] == "declared", cell["id"]
            assert all(k["detail"].startswith(NOT_APPLICABLE) for k in cell["checks"]), cell
        else:
            assert cell["na"] == (None if served else "unserved"), cell["id"]
    applying = [c for c in cells if c["na"] is None]
    apart = len(cells) - len(applying)
    declared = sum(c["na"] == "declared" for c in cells)
    assert applying
    assert declared
    passed = sum(c["status"] == "pass" for c in applying)
    totals = toy["totals"]
    assert (totals["cells"], totals["not_applicable"]) == (len(applying), apart)
    assert totals["conformant_share"] == passed / len(applying)
    required = next(c for c in toy["compliance"] if c["level"] == "required")
    held = sum(c["levels"]["required"] == "pass" for c in applying)
    assert (required["cells"], required["not_applicable"]) == (len(applying), apart)
    assert required["conformant_share"] == held / len(applying)
    share = f"{held} of {len(applying)} cells ({held / len(applying):.1%}) · {apart} n/a"
    conformant = f"{passed} of {len(applying)} cells conformant ({passed / len(applying):.1%})"

    markdown = (folder / "report" / "compatibility.md").read_text(encoding="utf-8")
    section = markdown.split(f"## {NAME} ", 1)[1].split("\n## ", 1)[0]
    assert f"\n| required | {share} " in section
    assert f"; {apart} more not applicable); conformant: {passed} of {len(applying)}" in section
    assert section.count(f" (declared): {NOT_APPLICABLE}") == declared

    page = html.unescape((folder / "report" / "index.html").read_text(encoding="utf-8"))
    (totals_line,) = re.findall(r'<p class="totals">(.*?)</p>', page)
    assert totals_line.startswith(conformant), totals_line
    assert totals_line.endswith(f" · n/a {apart}"), totals_line
    assert f"<strong>required</strong>: {share}" in page
    assert page.count('<span class="glyph" aria-hidden="true">n/a</span>') == apart
    dialogs = re.findall(r"<dialog .*?</dialog>", page, flags=re.DOTALL)
    assert sum(NOT_APPLICABLE in d for d in dialogs) == declared  # the reason, in each one's


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
    _counted_apart(repo, env)
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
    _counted_apart(folder, env)
    _nothing_local(folder, venv, workspace)
