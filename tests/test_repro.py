"""`conformance repro`: a standalone reproducer with the cell, its expectation and the expected
shape in a header; a clear error for a target without `repro`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.adoption.repro import ReproError, repro_script
from conformance.cli import main
from conformance.matrix import load_matrix

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load_matrix(ROOT / "matrix.yaml")
IMAGE = "openai-chat/gpt-6/image/inline/result"


def test_the_script_runs_standalone_and_prints_the_request_body(tmp_path: Path) -> None:
    out = tmp_path / "repro.py"
    status = main(
        [
            "repro",
            IMAGE,
            "--target",
            "repro_target:ReproTarget",
            "--matrix",
            str(ROOT / "matrix.yaml"),
            "-o",
            str(out),
        ]
    )
    assert status == 0
    script = out.read_text(encoding="utf-8")
    assert "import conformance" not in script
    assert "from conformance" not in script
    header = [line for line in script.splitlines() if line.startswith("#")]
    assert header[0] == f"# Reproducer for {IMAGE} on repro-demo 1.0.0"
    cell = next(c for c in MATRIX.all_cells() if c.id == IMAGE)
    assert f"# The matrix expects: {cell.expect} (known from {cell.known})." in header
    assert f"# Source: {MATRIX.citations[cell.cite_id].url}" in header
    assert '#   "model": "gpt-6-luna",' in header  # the reference payload, as the expected shape
    ran = subprocess.run(  # a clean interpreter: the suite is not importable from there
        [sys.executable, "-I", str(out)], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    printed = json.loads(ran.stdout)
    assert printed["model"] == "gpt-6-luna"
    assert any(m.get("role") == "user" for m in printed["messages"])


def test_an_unsupported_cell_shows_the_refusal_as_the_expected_shape() -> None:
    cell = next(
        c for c in MATRIX.all_cells() if c.expect == "unsupported" and c.api == "openai-chat"
    )
    script = repro_script(MATRIX, cell.id, "repro_target:FixedScript")
    assert '#   "raised": "conformance.errors.UnsupportedContent",' in script.splitlines()
    assert script.endswith("\nprint('the framework sent nothing')\n")


def test_a_target_without_repro_gets_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["repro", IMAGE, "--target", "reference", "--matrix", str(ROOT / "matrix.yaml")])
    assert status == 2
    err = capsys.readouterr().err
    assert "target 'reference' has no repro(row, history)" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("cell", "target", "words"),
    [
        ("openai-chat/gpt-6/image/inline/nowhere", "reference", "no cell"),
        (IMAGE, "no_such_module:Target", "no_such_module"),
        (IMAGE, "repro_target:BrokenRepro", "broken-repro.repro raised RuntimeError"),
    ],
)
def test_bad_requests_say_what_is_wrong(cell: str, target: str, words: str) -> None:
    with pytest.raises(ReproError, match=words):
        repro_script(MATRIX, cell, target)


_PROJECT_TARGET = """\
from conformance.targets.kit import render_script
from conformance.targets.reference import ReferenceTarget


class Target(ReferenceTarget):
    name = "{name}"

    def repro(self, row, history):
        return render_script(row, history, f"{{__name__}}:Target")
"""


def _project(tmp_path: Path, module: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An adopter's folder: a target module beside a pyproject.toml naming it, as `init`
    writes them; the folder is the current one, and not on sys.path beforehand."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / f"{module}.py").write_text(_PROJECT_TARGET.format(name=name), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.conformance]\ntargets = ["{module}:Target"]\n', encoding="utf-8"
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # below the project root, as a person may stand
    assert str(tmp_path) not in sys.path
    return tmp_path


def test_repro_finds_the_project_target_by_name_from_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command the report's dialog shows (`--target <name>`), run in the project: the name
    is one of `[tool.conformance] targets`, imported from the project folder, and the script it
    writes (the template's `render_script` stub) runs and prints the request body."""
    from conformance.reports.html import repro_command

    root = _project(tmp_path, "adopter_target_a", "adopter-a", monkeypatch)
    command = repro_command(IMAGE, "adopter-a")
    args = command.split()[1:]
    assert args[:4] == ["repro", IMAGE, "--target", "adopter-a"]
    assert main(args) == 0
    script = root / "sub" / args[-1]
    ran = subprocess.run(
        [sys.executable, script.name],
        capture_output=True, text=True, check=False, cwd=script.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["model"] == "gpt-6-luna"


def test_repro_imports_module_attr_from_the_project_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(tmp_path, "adopter_target_b", "adopter-b", monkeypatch)
    out = tmp_path / "b.py"
    assert main(["repro", IMAGE, "--target", "adopter_target_b:Target", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith(f"# Reproducer for {IMAGE} on adopter-b")


def test_an_unknown_name_lists_the_project_targets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, "adopter_target_c", "adopter-c", monkeypatch)
    assert main(["repro", IMAGE, "--target", "adopter-x"]) == 2
    err = capsys.readouterr().err
    assert "unknown target 'adopter-x'" in err
    assert "targets in pyproject.toml name: adopter-c (adopter_target_c:Target)" in err
