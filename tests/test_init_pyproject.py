"""`conformance init` and pyproject.toml: a complete file for a plain folder, the table added
to an existing one with every byte of it kept, and a refusal (nothing written) where an added
table would not mean what it says; the noxfile installs what each kind of folder needs."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
import types
from pathlib import Path
from typing import Any

import pytest

from conformance import cli

TEMPLATES = Path(cli.__file__).parent / "adoption" / "templates"


def test_a_plain_folder_gets_a_complete_pyproject(tmp_path: Path) -> None:
    assert cli.main(["init", str(tmp_path), "--target-name", "my-fw"]) == 0
    data = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"] == {
        "name": "my-fw-conformance",
        "version": "0",
        "requires-python": ">=3.11",
        "dependencies": ["tool-result-conformance"],
    }
    assert "build-system" not in data  # not a package: nothing to build
    assert data["tool"]["pytest"]["ini_options"]["testpaths"] == ["tests"]
    assert data["tool"]["conformance"]["targets"] == ["conformance_target:Target"]


@pytest.mark.parametrize(
    "before",
    [
        '[project]\nname = "fw"\n',
        '# comment\r\n[project]\r\nname = "fw"  # kept\r\n\r\n[tool.ruff]\r\nline-length = 99',
        '[build-system]\nrequires = ["hatchling"]\n\n[tool]\nblack = {line-length = 88}\n\n\n',
        "",
    ],
    ids=["plain", "crlf-no-final-newline", "tool-table", "empty"],
)
def test_an_existing_pyproject_keeps_every_byte(tmp_path: Path, before: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(before.encode("utf-8"))
    assert cli.main(["init", str(tmp_path), "--target-name", "my-fw"]) == 0
    after = path.read_bytes().decode("utf-8")
    assert after.startswith(before)
    added = after[len(before) :]
    if "\r\n" in before:
        assert "\n" not in added.replace("\r\n", "")  # the file's own line ends
    data = tomllib.loads(after)
    assert data.pop("tool")["conformance"]["gate"] == ["required", "recommended"]
    original = tomllib.loads(before)
    original.pop("tool", None)
    assert data == original


@pytest.mark.parametrize(
    ("before", "words"),
    [
        ("tool = {black = {line-length = 88}}\n", "would change what the file says"),
        ('[project\nname = "fw"\n', "pyproject.toml:1:"),
    ],
    ids=["inline-tool-table", "invalid-toml"],
)
def test_a_pyproject_that_cannot_take_the_table_is_refused_and_nothing_written(
    tmp_path: Path, before: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(before, encoding="utf-8")
    assert cli.main(["init", str(tmp_path), "--target-name", "my-fw"]) == 2
    assert words in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]


def _nox_requirements(folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The template noxfile's `_requirements()` for the pyproject.toml in `folder`, with a
    stand-in for nox (whose `project.load_toml` reads the file as nox does)."""
    fake: Any = types.ModuleType("nox")
    fake.options = types.SimpleNamespace()

    def load_toml(name: str) -> dict[str, Any]:
        return tomllib.loads(Path(name).read_text(encoding="utf-8"))

    fake.session = lambda function: function  # pyright: ignore[reportUnknownLambdaType]
    fake.Session = object
    fake.project = types.SimpleNamespace(load_toml=load_toml)
    monkeypatch.setitem(sys.modules, "nox", fake)
    monkeypatch.chdir(folder)
    spec = importlib.util.spec_from_file_location("scaffold_noxfile", folder / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._requirements()


def test_the_noxfile_installs_the_package_or_the_plain_folders_dependencies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, plain = tmp_path / "package", tmp_path / "plain"
    package.mkdir()
    plain.mkdir()
    (package / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "fw"\nversion = "1"\n',
        encoding="utf-8",
    )
    for folder in (package, plain):
        assert cli.main(["init", str(folder), "--target-name", "my-fw"]) == 0
    assert _nox_requirements(package, monkeypatch) == ["."]
    assert _nox_requirements(plain, monkeypatch) == []  # the suite alone, from CONFORMANCE_SUITE
    text = (plain / "pyproject.toml").read_text(encoding="utf-8")
    (plain / "pyproject.toml").write_text(
        text.replace('["tool-result-conformance"]', '["tool-result-conformance", "my-fw>=2"]'),
        encoding="utf-8",
    )
    assert _nox_requirements(plain, monkeypatch) == ["my-fw>=2"]
