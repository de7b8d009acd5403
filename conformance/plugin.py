"""The pytest plugin: one test per target, cell and check, snapshots, and a results file.

Options (all under `--conformance-*`, or the `conformance_*` ini keys):

- `--conformance-matrix PATH`: the matrix; a bad file stops the run with `file:line:col` errors.
- `--conformance-target NAME`: `reference`, an entry-point name or `module:attr` (repeatable).
- `--conformance-results PATH`: write one JSON line per cell and check
  (`conformance.running.runlog`: atomic, locked, naming the run and how it ended; the path is
  checked before the run).
- `--conformance-cell-timeout SECONDS` (ini `conformance_cell_timeout`): how long a render may
  take before its cell is judged without it (default 60, 0 for no limit;
  `conformance.judging.guard`).
- `--conformance-cassettes DIR` (ini `conformance_cassettes`): replay every rendered payload
  through its api's official client from `DIR/<target>/<api>/<cell>.yaml` (the `cassette`
  check); `--conformance-record double|live` records them instead (`nox -s record`).
- `--conformance-api`, `--conformance-check`, `--conformance-level`: run a part of the matrix
  (`conformance.running.selection`).
- `--conformance-items check|cell` (ini `conformance_items`): one test per cell and check (the
  default), or one per cell judging each of its checks in turn; the results lines are the same
  either way, and a cell test fails if any of its checks does.

The plugin stays inert until a project configures it (`[tool.conformance]` in pyproject.toml,
a `conformance_*` ini key or a `--conformance-*` option; `conformance.running.config`); a test
module then opts in by holding `test_conformance` from `conformance.suite`.

This module is imported at every pytest start wherever the package is installed, so it imports
only what registering the options needs (pytest, `conformance.running.selection`, the levels and the
matrix vocabulary). Everything that runs the suite is in `conformance.running.engine`, imported once
the project is found configured (`conformance.running.config.configured`, a look at pyproject.toml,
the ini keys and the options, without pydantic).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conformance.running import selection
from conformance.running.options import ENGINE, INI_KEYS, ITEMS, OPTIONS

__all__ = ["ENGINE", "INI_KEYS", "OPTIONS", "configured"]


def configured(config: pytest.Config) -> bool:
    """Whether the project uses the suite: a `[tool.conformance]` table in its pyproject.toml
    (or one that cannot be read: `conformance.running.config` then says what is wrong), a
    `conformance_*` ini key or a `--conformance-*` option. The same rule as
    `conformance.running.config.run_settings`, decided without pydantic or the matrix, since it runs
    at every pytest start."""
    option = config.option
    if any(getattr(option, name, None) for name in OPTIONS):
        return True
    if any(config.getini(key) for key in INI_KEYS):
        return True
    inipath = config.inipath
    pyproject = inipath if inipath is not None and inipath.name == "pyproject.toml" else None
    path: Path = pyproject or config.rootpath / "pyproject.toml"
    if not path.is_file():
        return False
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return True  # reported, with its line, by `conformance.running.config`
    tool: object = data.get("tool")
    return isinstance(tool, dict) and "conformance" in tool


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "tool-result conformance")
    group.addoption("--conformance-matrix", help="matrix.yaml to generate tests from")
    group.addoption(
        "--conformance-target",
        action="append",
        help="target under test: reference, an entry-point name, or module:attr (repeatable)",
    )
    group.addoption("--conformance-results", help="write one JSON line per cell and check here")
    group.addoption(
        "--conformance-cassettes",
        help="cassette folder: replay each payload through its official SDK (the cassette check)",
    )
    group.addoption(
        "--conformance-record",
        choices=("double", "live"),
        help="record the cassettes instead of replaying them: against the local provider double,"
        " or the live APIs with keys from the environment (runs the cassette check alone)",
    )
    group.addoption(
        "--conformance-require-targets",
        action="store_true",
        help="fail, instead of skipping, when a target is unavailable (an optional dependency is"
        " missing); also set by CONFORMANCE_REQUIRE_TARGETS=1",
    )
    group.addoption(
        "--conformance-cell-timeout",
        type=float,
        help="seconds a target's render may take before its cell is judged without it"
        " (default 60; 0: no limit)",
    )
    group.addoption(
        "--conformance-isolate",
        action="store_true",
        help="render every target in a worker process, killed at the time limit: a hard limit"
        " for renders that hold the GIL or ignore signals (a target asks with `isolate = True`;"
        " every target switches after a first timeout)",
    )
    group.addoption(
        "--conformance-sdk-schema",
        action="store_true",
        help="also validate every payload with the official SDKs' types (needs the SDKs)",
    )
    group.addoption(
        "--conformance-property-examples",
        type=int,
        help="histories each property tries per target (default: the gate's,"
        " conformance.running.property_gate.DEFAULT_EXAMPLES); 0 leaves the properties out",
    )
    group.addoption(
        "--conformance-items",
        choices=ITEMS,
        help="one test per cell and check (check, the default) or one per cell, judging all its"
        " checks (cell: fewer pytest items, the same results lines)",
    )
    selection.addoptions(group)
    parser.addini("conformance_items", "check or cell: what one generated test is", default="")
    parser.addini("conformance_matrix", "matrix.yaml to generate tests from", default="")
    parser.addini("conformance_snapshots", "snapshot folder (default snapshots)", default="")
    parser.addini("conformance_deviations", "folder of deviations files, <target>.yaml", default="")
    parser.addini("conformance_cassettes", "cassette folder (the cassette check)", default="")
    parser.addini("conformance_targets", "targets under test", type="linelist", default=[])
    parser.addini("conformance_cell_timeout", "seconds a render may take (0: no limit)", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a generated conformance test")
    if not configured(config):
        return  # inert: nothing else is imported, read or generated
    from conformance.running import engine

    engine.configure(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    if not metafunc.config.pluginmanager.has_plugin(ENGINE):
        pytest.fail(
            f"{metafunc.definition.nodeid}: the conformance suite is not configured; add"
            " [tool.conformance] to pyproject.toml (`conformance init` writes it, see the README)",
            pytrace=False,
        )
