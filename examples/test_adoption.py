"""The worked example end to end, outside the source tree: the README's adoption steps, word
for word, on the toy framework, then a regression PR that `conformance diff` fails.

Run by `nox -s example` (it builds the wheel and passes it as CONFORMANCE_WHEEL); on its own,
`pytest examples/test_adoption.py` builds the wheel itself with `uv build`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "examples" / "toy-framework"
NAME = "toy-framework"

# The exit status each README step must give, in order: the first two runs fail on the toy's
# two known bugs; once the deviations are written, everything passes.
EXPECTED = [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]


def readme_steps() -> list[str]:
    """The commands of the README's adoption block, one per line, verbatim."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- adoption-steps -->\n```sh\n(.*?)```", readme, flags=re.DOTALL)
    assert block, "README.md has no adoption-steps block"
    return [line for line in block[1].splitlines() if line.strip()]


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


def test_the_readme_steps_then_a_regression_pr(workspace: Path, wheel: Path) -> None:
    assert not workspace.is_relative_to(ROOT)
    repo = workspace / "toy-framework"
    shutil.copytree(TOY, repo, ignore=shutil.ignore_patterns("filled", "__pycache__"))
    person = workspace / "person"
    shutil.copytree(TOY / "filled", person)
    venv = workspace / "venv"
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

    steps = readme_steps()
    assert len(steps) == len(EXPECTED)
    for step, expected in zip(steps, EXPECTED, strict=True):
        done = _run(step, repo, env)
        assert done.returncode == expected, f"{step}: exit {done.returncode}, expected {expected}"

    # The suite came from the wheel, not this checkout.
    where = _run("python -c 'import conformance; print(conformance.__file__)'", repo, env)
    assert str(venv) in where.stdout
    # The two bugs are declared, with a person's reasons, in the toy's own file.
    declared = (repo / "deviations" / f"{NAME}.yaml").read_text(encoding="utf-8")
    assert "TODO" not in declared
    assert declared.count("- cell:") == 4
    assert "anthropic/claude-sonnet-5/text/inline/error" in declared
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
