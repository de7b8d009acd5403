"""A project's configuration: `[tool.conformance]` in its pyproject.toml.

```toml
[tool.conformance]
targets = ["my_framework.conformance:Target"]   # default ["reference"]
matrix = "matrix.yaml"          # optional: your own matrix; default the packaged one
snapshots = "snapshots"         # payload snapshots, one folder per target
cassettes = "cassettes"         # optional: turns the cassette check on
deviations = "deviations"       # a folder of <target>.yaml, or a table {target = "file.yaml"}
gate = ["required", "recommended"]   # levels whose regressions fail a PR (default: all)
```

Paths are relative to the file. The pytest ini keys (`conformance_matrix`, `conformance_targets`,
`conformance_snapshots`, `conformance_cassettes`, `conformance_deviations`) still work; a key in
`[tool.conformance]` wins over its ini key, and a command-line option over both. A bad value is
reported as `pyproject.toml:LINE:COL: what is wrong` (`ConfigError`).
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conformance.judging.levels import LEVELS, Level
from conformance.matrix import TARGET_PATTERN, LocatedError
from conformance.running.options import INI_KEYS, OPTIONS

__all__ = [
    "DEFAULT_GATE",
    "ConfigError",
    "ProjectConfig",
    "Settings",
    "find_pyproject",
    "ini_problem",
    "load_config",
    "packaged",
    "scrub_local",
    "shown_path",
]

DEFAULT_GATE: Final[tuple[Level, ...]] = LEVELS
"""Regressions at any level fail a PR unless a project says otherwise (`conformance init`
writes `gate = ["required", "recommended"]`)."""

_DATA: Final = Path(__file__).parent.parent / "data"
_SOURCE_ROOT: Final = Path(__file__).parent.parent.parent


def packaged(name: str) -> Path:
    """A file shipped in the wheel under `conformance/data/`, or the repository's own in a
    source checkout (`matrix.yaml`, `snapshots/reference`, `deviations/pydantic-ai.yaml`)."""
    shipped = _DATA / name
    return shipped if shipped.exists() else _SOURCE_ROOT / name


def shown_path(path: Path, root: Path | None = None) -> str:
    """A path as results files and reports show it, with nothing of the machine in it: relative
    to `root` (default: here) when below it, `conformance:<name>` for a file the package ships
    (`conformance:matrix.yaml`, `conformance:snapshots/reference/...`), else as given."""
    where = path if path.is_absolute() else Path.cwd() / path
    base = (root or Path.cwd()).resolve()
    resolved = where.resolve()
    if resolved.is_relative_to(base):
        return resolved.relative_to(base).as_posix()
    for shipped in (_DATA, _SOURCE_ROOT):
        if resolved.is_relative_to(shipped.resolve()):
            return "conformance:" + resolved.relative_to(shipped.resolve()).as_posix()
    return str(path)


def scrub_local(text: str, root: Path | None = None) -> str:
    """A detail as results files keep it: the loopback origins of the run scrubbed as in
    snapshots (`conformance.targets.kit.scrub_origins`), and the absolute paths of the
    project (`root`, default here), of the package's data and of the Python environment
    shown as `shown_path` would (`conformance:...`, `<python>/...`)."""
    from conformance.targets.kit import scrub_origins  # the kit's rules, loaded with a run

    text = scrub_origins(text)
    for prefix, replacement in _prefixes(str(root or Path.cwd())):
        if prefix != os.sep and prefix in text:
            text = text.replace(prefix, replacement)
    return text


@functools.lru_cache(maxsize=16)
def _prefixes(root: str) -> tuple[tuple[str, str], ...]:
    """What `scrub_local` replaces for a project at `root`, longest first: each path resolved
    once per process and root, not once per results line (the run's results hook scrubs every
    detail; resolving five paths each time was about 4% of the reference run's CPU)."""
    prefixes = [
        (str(Path(root).resolve()) + os.sep, ""),
        (str(_DATA.resolve()) + os.sep, "conformance:"),
        (str(Path(__file__).resolve().parent.parent) + os.sep, "conformance:conformance/"),
        (str(Path(sys.prefix).resolve()) + os.sep, "<python>/"),
        (str(Path(sys.base_prefix).resolve()) + os.sep, "<python>/"),
    ]
    return tuple(sorted(prefixes, key=lambda p: -len(p[0])))


_Target = Annotated[str, Field(min_length=1)]
_Path = Annotated[str, Field(min_length=1)]


class Settings(BaseModel):
    """The `[tool.conformance]` table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    targets: Annotated[tuple[_Target, ...], Field(min_length=1)] | None = None
    """Targets under test: `reference`, an entry-point name, or `module:attr`."""
    matrix: _Path | None = None
    """Your own matrix.yaml; the packaged matrix when absent."""
    snapshots: _Path | None = None
    """The snapshot folder (default `snapshots`)."""
    cassettes: _Path | None = None
    """The cassette folder; absent: no cassette check."""
    deviations: _Path | dict[Annotated[str, Field(pattern=TARGET_PATTERN)], _Path] | None = None
    """A folder holding `<target>.yaml`, or a table of target name to file (default
    `deviations`)."""
    gate: tuple[Level, ...] | None = None
    """The levels at which a regression fails a PR (default: all three)."""


@dataclass(frozen=True)
class ProjectConfig:
    """Settings with their file; paths resolved against the file's folder."""

    path: Path | None
    """The pyproject.toml read, or None when there is no `[tool.conformance]`."""
    settings: Settings
    base: Path | None = None
    """Where relative paths start without a pyproject.toml (pytest's rootdir); default here."""

    @property
    def root(self) -> Path:
        if self.path is not None:
            return self.path.parent
        return self.base if self.base is not None else Path.cwd()

    def resolve(self, value: str) -> Path:
        return self.root / value

    def importable(self) -> None:
        """Targets named `module:attr` in `[tool.conformance]` import from the project's root."""
        if self.path is not None and str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))

    @property
    def gate(self) -> tuple[Level, ...]:
        return self.settings.gate or DEFAULT_GATE

    def deviations_file(self, target: str, folder: str | None = None) -> Path | None:
        """The deviations file of a target: the configured file, `<folder>/<target>.yaml`,
        or the one shipped with the package for its own targets; None if there is none."""
        value = self.settings.deviations
        if isinstance(value, dict):
            if target in value:
                return self.resolve(value[target])
        else:
            candidate = self.resolve(value or folder or "deviations") / f"{target}.yaml"
            if candidate.exists():
                return candidate
        shipped = packaged(f"deviations/{target}.yaml")
        return shipped if shipped.exists() else None


class ConfigError(Exception):
    """A `[tool.conformance]` table that cannot be used; one located line per problem."""

    def __init__(self, errors: list[LocatedError]) -> None:
        super().__init__(errors)
        self.errors = errors

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start`."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(pyproject: Path | None) -> ProjectConfig | None:
    """The project's `[tool.conformance]`, or None when the file has no such table."""
    if pyproject is None or not pyproject.is_file():
        return None
    shown = str(pyproject)
    text = pyproject.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        line, col = (int(match[1]), int(match[2])) if match else (1, 1)
        raise ConfigError([LocatedError(shown, line, col, str(error))]) from None
    table: object = data.get("tool", {}).get("conformance")
    if table is None:
        return None
    if not isinstance(table, Mapping):
        line, col = _locate(text, ())
        raise ConfigError([LocatedError(shown, line, col, "tool.conformance must be a table")])
    try:
        settings = Settings.model_validate(table)
    except ValidationError as error:
        problems = [
            LocatedError(shown, *_locate(text, tuple(err["loc"])), _message(err))
            for err in error.errors(include_url=False)
        ]
        raise ConfigError(problems) from None
    return ProjectConfig(pyproject, settings)


def _message(err: Any) -> str:
    loc: Sequence[str | int] = err["loc"]
    key = ".".join(str(p) for p in loc if not str(p).startswith(("str", "dict[")))
    name = f"tool.conformance.{key}" if key else "tool.conformance"
    if err["type"] == "extra_forbidden":
        allowed = ", ".join(Settings.model_fields)
        return f"unknown key {name!r}; allowed keys: {allowed}"
    if err["type"] == "literal_error":
        return f"{name}: {err['input']!r} is not a level; use some of: {', '.join(LEVELS)}"
    return f"{name}: {err['msg']}"


def _locate(text: str, loc: tuple[str | int, ...]) -> tuple[int, int]:
    """1-based line and column of a key of `[tool.conformance]` by a line search: the key's
    value if the key is found in the table, else the table's header."""
    lines = text.splitlines()
    header = next(
        (n for n, line in enumerate(lines) if re.match(r"\s*\[\s*tool\.conformance\s*\]", line)),
        None,
    )
    if header is None:
        return 1, 1
    keys = [p for p in loc if isinstance(p, str)]
    if not keys:
        return header + 1, 1
    for number in range(header + 1, len(lines)):
        line = lines[number]
        if re.match(r"\s*\[", line):
            break
        found = re.match(rf"(\s*){re.escape(keys[0])}\s*=\s*", line)
        if found:
            return number + 1, found.end() + 1
    return header + 1, 1


# --- the pytest plugin's view --------------------------------------------------------------


def ini_problem(inipath: Path | None, key: str, value: str, problem: str) -> str:
    """A bad value of the pytest ini key `key`, located: `file:line:col: key = 'value': problem`,
    at the value in the ini file (tox.ini, pytest.ini, setup.cfg or pyproject.toml's
    `[tool.pytest.ini_options]`, found by a line search), or as `-o key=value` where the file
    does not set it (the command line's `-o` overrides the file)."""
    said = f"{key} = {value!r}: {problem}"
    if inipath is None or not inipath.is_file():
        return f"-o {key}={value}: {problem}"
    text = inipath.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        found = re.match(rf"\s*{re.escape(key)}\s*[=:]\s*", line)
        if found:
            written = line[found.end() :].strip().strip("\"'")
            if written == value:
                return f"{LocatedError(shown_path(inipath), number, found.end() + 1, said)}"
    return f"-o {key}={value}: {problem}"


@dataclass(frozen=True)
class RunSettings:
    """What one pytest run uses, from the command line, `[tool.conformance]` and ini keys."""

    project: ProjectConfig
    matrix: Path
    matrix_explicit: bool
    """Given by the project or the command line (loaded, so checked, at start-up)."""
    targets: list[str]
    snapshots: Path
    cassettes: Path | None
    deviations_folder: str | None


def run_settings(config: Any) -> RunSettings | None:
    """The run's settings, or None when the project has not configured the suite: then the
    plugin stays inert (no matrix is read, no test generated, nothing written). The rule is
    `conformance.plugin.configured`'s, which decides it at start-up without this module."""
    option = config.option
    inipath: Path | None = config.inipath
    pyproject = inipath if inipath is not None and inipath.name == "pyproject.toml" else None
    project = load_config(pyproject or config.rootpath / "pyproject.toml")
    ini: dict[str, Any] = {key: config.getini(key) for key in INI_KEYS}
    cli = {name: getattr(option, name, None) for name in OPTIONS}
    if project is None and not any(ini.values()) and not any(cli.values()):
        return None
    root: Path = config.rootpath
    project = project or ProjectConfig(None, Settings(), base=root)
    settings = project.settings

    def path(cli_value: str | None, setting: str | None, ini_value: str) -> Path | None:
        if cli_value:
            return Path(cli_value)
        if setting:
            return project.resolve(setting)
        return root / ini_value if ini_value else None

    matrix = path(cli["conformance_matrix"], settings.matrix, ini["conformance_matrix"])
    record = cli["conformance_record"]
    cassettes = path(cli["conformance_cassettes"], settings.cassettes, ini["conformance_cassettes"])
    if cassettes is None and record:
        cassettes = root / "cassettes"
    targets: list[str] = (
        list(cli["conformance_target"] or ())
        or list(settings.targets or ())
        or list(ini["conformance_targets"])
        or ["reference"]
    )
    snapshots = path(None, settings.snapshots, ini["conformance_snapshots"] or "snapshots")
    assert snapshots is not None
    return RunSettings(
        project=project,
        matrix=matrix or packaged("matrix.yaml"),
        matrix_explicit=matrix is not None,
        targets=targets,
        snapshots=snapshots,
        cassettes=cassettes,
        deviations_folder=ini["conformance_deviations"] or None,
    )
