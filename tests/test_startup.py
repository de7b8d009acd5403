"""What pytest start-up costs a project: the plugin is registered wherever the package is
installed, so it must stay inert and import nothing heavy until the project is configured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from conformance import history, plugin
from conformance.matrix.vocabulary import CONTENT_TYPES
from conformance.running.config import run_settings

HEAVY = (
    "conformance.running.engine",
    "conformance.matrix.load",
    "conformance.history",
    "conformance.running.property_gate",
    "conformance.recording.sdk_schema",
    "pydantic",
    "ruamel.yaml",
)
"""Modules the plugin must not import in a project that does not use it."""

ROOT = Path(__file__).resolve().parent.parent

SDKS = ("openai", "anthropic", "google.genai", "mistralai", "cohere", "groq", "botocore")
"""The provider SDKs that the sdk-schema check validates with and the cassette check sends with."""

_REPORT = """
import json, sys
import pytest
code = pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[2:]])
names = [n for n in sys.modules if n.startswith(tuple(json.loads(sys.argv[1])))]
print("MODULES " + json.dumps({"exit": int(code), "modules": sorted(names)}))
"""


def _modules_after_pytest(
    folder: Path, *args: str, prefixes: tuple[str, ...] = ("conformance", "pydantic", "ruamel")
) -> tuple[int, set[str]]:
    """Run pytest in a fresh interpreter in `folder`; its exit code and what it imported (the
    modules whose names start with one of `prefixes`)."""
    done = subprocess.run(
        [sys.executable, "-c", _REPORT, json.dumps(prefixes), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("MODULES ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(line.removeprefix("MODULES "))
    return found["exit"], set(found["modules"])


def _project(folder: Path, pyproject: str) -> Path:
    folder.mkdir()
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    (folder / "test_plain.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n")
    return folder


def test_an_unconfigured_project_imports_nothing_heavy(tmp_path: Path) -> None:
    folder = _project(tmp_path / "plain", "[tool.pytest.ini_options]\n")
    code, modules = _modules_after_pytest(folder)
    assert code == 0
    assert "conformance.plugin" in modules  # the plugin was loaded, and stayed inert
    assert sorted(m for m in modules if m.startswith(HEAVY)) == []


def test_a_configured_project_loads_the_engine(tmp_path: Path) -> None:
    """The other side of the test above: configured, the same run imports the engine."""
    folder = _project(tmp_path / "configured", "[tool.pytest.ini_options]\n[tool.conformance]\n")
    code, modules = _modules_after_pytest(folder, "--co")
    assert code == 0
    assert {"conformance.running.engine", "conformance.matrix.load", "pydantic"} <= modules


@pytest.mark.parametrize(
    ("files", "args", "expected"),
    [
        ({}, [], False),
        ({"pyproject.toml": "[tool.other]\nx = 1\n"}, [], False),
        ({"pyproject.toml": "[tool.conformance]\n"}, [], True),
        ({"pyproject.toml": '[tool.conformance]\ntargets = ["reference"]\n'}, [], True),
        ({"pyproject.toml": "[tool]\nconformance = {}\n"}, [], True),
        ({"pytest.ini": "[pytest]\nconformance_matrix = matrix.yaml\n"}, [], True),
        ({"pytest.ini": "[pytest]\nconformance_targets = reference\n"}, [], True),
        ({}, ["--conformance-api", "anthropic"], True),
        ({}, ["--conformance-results", "r.jsonl"], True),
        ({}, ["--conformance-sdk-schema"], False),
    ],
)
def test_configured_decides_as_run_settings_does(
    pytester: pytest.Pytester, files: dict[str, str], args: list[str], expected: bool
) -> None:
    """`plugin.configured` decides at start-up without pydantic; `config.run_settings` then
    builds the settings. Both must agree on whether the project uses the suite."""
    for name, text in files.items():
        (pytester.path / name).write_text(text, encoding="utf-8")
    config = pytester.parseconfig(*args)
    assert plugin.configured(config) is expected
    assert (run_settings(config) is not None) is expected


def test_the_vocabulary_spells_the_history_content_types() -> None:
    """`matrix.vocabulary` lists the content types itself, so as not to import the history
    models at start-up; they must stay the history's, in its order."""
    assert get_args(history.ContentType) == CONTENT_TYPES


def _sdks(modules: set[str]) -> set[str]:
    return {sdk for sdk in SDKS if any(m == sdk or m.startswith(f"{sdk}.") for m in modules)}


def test_a_run_of_one_api_imports_that_apis_sdk_alone() -> None:
    # The repository's main job, on one api: its validators and its client, no other SDK.
    one = ["--rootdir", ".", "-o", "python_files=test_matrix.py", "-m", "conformance"]
    one += ["--conformance-sdk-schema", "--conformance-api", "anthropic"]
    one += ["--conformance-property-examples", "0"]
    code, modules = _modules_after_pytest(
        ROOT, *one, "--conformance-check=sdk-schema", prefixes=SDKS
    )
    assert code == 0
    assert _sdks(modules) == {"anthropic"}
    # The cassette check replays with vcrpy, which imports botocore on its own (to patch the
    # connections of boto3, were it used): nothing else.
    done = subprocess.run(
        [sys.executable, "-c", "import sys, vcr; print(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    by_vcr = _sdks(set(done.stdout.split()))
    code, modules = _modules_after_pytest(
        ROOT, *one, "--conformance-check=sdk-schema,cassette", prefixes=SDKS
    )
    assert code == 0
    assert _sdks(modules) == {"anthropic"} | by_vcr
    assert by_vcr <= {"botocore"}


def test_the_cassette_check_runs_with_pytest_recordings_plugin_disabled(tmp_path: Path) -> None:
    # The suite uses pytest-recording's network guard, not its plugin, whose two autouse fixtures
    # cost every test their set-up: the repository's own commands run with `-p no:recording`.
    # Its package then loads only when a cassette replays, and must not load after vcrpy (it asks
    # pytest to rewrite `vcr.matchers`, and this project turns pytest's warning into an error).
    results = tmp_path / "results.jsonl"
    one = ["--rootdir", ".", "-o", "python_files=test_matrix.py", "-m", "conformance"]
    one += ["--conformance-api", "anthropic", "--conformance-check", "cassette"]
    one += ["--conformance-property-examples", "0", f"--conformance-results={results}"]
    code, modules = _modules_after_pytest(
        ROOT, *one, "-p", "no:recording", prefixes=("pytest_recording", "vcr")
    )
    assert code == 0
    assert "pytest_recording.network" in modules  # the replay ran inside the guard
    assert "pytest_recording.plugin" not in modules
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    checked = [line for line in lines if line.get("check") == "cassette"]
    assert len(checked) > 5
    assert {line["verdict"] for line in checked} == {"pass"}
