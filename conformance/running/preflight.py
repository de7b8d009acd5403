"""Checks of a run's setting before it runs, that no single option can see: the files the results
file must not replace, and a pytest root that an option's path moved away from the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.running.config import RunSettings

__all__ = ["misplaced_root", "run_inputs"]

_CONFIG_FILES = {
    "pytest.ini": "",
    ".pytest.ini": "",
    "pyproject.toml": "[tool.",
    "tox.ini": "[pytest]",
    "setup.cfg": "[tool:pytest]",
}
"""The files pytest takes its configuration from, and what each must hold to count."""


def misplaced_root(config: pytest.Config) -> str | None:
    """pytest picks its root before plugins register their options, so the value of
    `--conformance-results PATH` (two words) counts as a path argument: an existing file
    outside the project moves the root up to a common folder, where pytest finds no config,
    and the project's settings (the cassette check among them) silently go. Say so."""
    args = [str(arg) for arg in config.invocation_params.args]
    given = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--conformance-results"]
    if not given or not Path(given[0]).exists() or "--rootdir" in " ".join(args):
        return None
    here = config.invocation_params.dir
    for folder in [here, *here.parents]:
        if folder == config.rootpath or not folder.is_relative_to(config.rootpath):
            return None
        for name, marker in _CONFIG_FILES.items():
            found = folder / name
            if found.is_file() and marker in found.read_text(encoding="utf-8", errors="replace"):
                if config.inipath == found:
                    return None
                return (
                    f"--conformance-results {given[0]}: an existing file outside this project"
                    f" made pytest take {config.rootpath} as its root, so it read no config"
                    f" from {found} (and the checks it configures would silently go); write"
                    f" --conformance-results={given[0]} (one word), or pass --rootdir"
                )
    return None


def run_inputs(config: pytest.Config, settings: RunSettings) -> list[Path]:
    """The files a run reads besides the matrix, which its results file must not replace:
    the config file and the project's deviations and reasons files."""
    found: list[Path] = [config.inipath] if config.inipath is not None else []
    value = settings.project.settings.deviations
    if isinstance(value, dict):
        found += [settings.project.resolve(path) for path in value.values()]
    else:
        folder = settings.project.resolve(value or settings.deviations_folder or "deviations")
        if folder.is_dir():
            found += sorted(folder.glob("*.yaml"))
    return found
