"""The package's layers hold: imports only run down, the classifier never imports target code,
the reference never reads the matrix (the import-linter contracts in pyproject.toml). Each
contract is also shown to fail on a copy of the package with one import that breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the package found under `root`, with this repository's contracts."""
    return subprocess.run(
        [str(LINT), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": str(LINT.parent)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def lint() -> Path:
    if not LINT.exists():
        pytest.skip("import-linter is not installed (the `test` dependency group has it)")
    return LINT


def test_the_contracts_hold(lint: Path) -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 kept, 0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # a lower stage reaching up: the matrix importing the reports
        ("matrix/problems.py", "import conformance.reports.results", "below them BROKEN"),
        # the classifier importing a mapper
        (
            "wire/gemini.py",
            "import conformance.targets.reference.mappers.gemini",
            "target code BROKEN",
        ),
        # a mapper reading the matrix
        (
            "targets/reference/mappers/gemini.py",
            "import conformance.matrix.model",
            "never read the matrix BROKEN",
        ),
        # one locator borrowing another's
        ("wire/groq.py", "import conformance.wire.openai_chat", "independent of each other BROKEN"),
    ],
)
def test_each_contract_fails_on_an_import_that_breaks_it(
    lint: Path, tmp_path: Path, module: str, line: str, broken: str
) -> None:
    shutil.copytree(ROOT / "conformance", tmp_path / "conformance")
    path = tmp_path / "conformance" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    done = _lint(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert broken in done.stdout
