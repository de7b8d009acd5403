"""`conformance init`'s `pyproject.toml`: a complete one for a folder that has none, or the
`[tool.conformance]` table added to an existing one, with nothing else of the file changed.

The file is edited as text (no TOML writer is a dependency): the table is appended after the
file's last byte, in the file's own line ends, and the result is parsed again and compared
with the original, so a file where an appended table would not mean what it says (an inline
`tool = {...}` table, say) is refused with what to do instead of being written.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["AlreadyConfigured", "PyprojectError", "PyprojectPlan", "is_package", "plan"]

_PLAIN = """\
# A folder that runs the tool-result conformance suite on __TARGET_NAME__ (`conformance init`).
# It is not an installable package (no [build-system]): `pip install tool-result-conformance`
# and the framework under test, then `pytest`. The nox session installs the dependencies below.
[project]
name = "__TARGET_NAME__-conformance"
version = "0"
requires-python = ">=3.11"
dependencies = ["tool-result-conformance"]

[tool.pytest.ini_options]
testpaths = ["tests"]
# The suite uses pytest-recording's network guard, not its plugin: without its autouse fixtures
# each test is cheaper. Remove this if a test here uses `@pytest.mark.vcr`.
addopts = ["-p", "no:recording"]

"""


class PyprojectError(ValueError):
    """The existing pyproject.toml cannot take the table; the message says what to do."""


class AlreadyConfigured(PyprojectError):
    """The existing pyproject.toml has a `[tool.conformance]` table already."""


@dataclass(frozen=True)
class PyprojectPlan:
    text: str
    """The whole file to write."""
    created: bool
    """No file was there: `text` is a complete pyproject.toml."""


def is_package(data: dict[str, Any]) -> bool:
    """A project pip can build and install (`pip install -e .`): it names a build backend."""
    return "build-system" in data


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        line, col = (found[1], found[2]) if found else ("1", "1")
        raise PyprojectError(
            f"{where}:{line}:{col}: {error}; fix the file, then run `conformance init` again"
        ) from None


def plan(path: Path, table: str, name: str) -> PyprojectPlan:
    """The pyproject.toml to write at `path` with the `[tool.conformance]` table `table`."""
    if not path.exists():
        return PyprojectPlan(_PLAIN.replace("__TARGET_NAME__", name) + table, created=True)
    raw = path.read_bytes()
    try:
        before = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PyprojectError(f"{path}: not UTF-8 ({error}); TOML files are UTF-8") from None
    data = _parse(before, str(path))
    if "conformance" in data.get("tool", {}):
        raise AlreadyConfigured(f"{path}: already has [tool.conformance]")
    newline = "\r\n" if "\r\n" in before else "\n"
    lead = "" if not before or before.endswith("\n") else newline
    gap = newline if before.strip() else ""
    text = before + lead + gap + table.replace("\n", newline)
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        after = {}
    added = after.get("tool", {}).pop("conformance", None)
    if not after.get("tool") and "tool" not in data:
        after.pop("tool", None)
    if after != data or added != tomllib.loads(table)["tool"]["conformance"]:
        raise PyprojectError(
            f"{path}: appending [tool.conformance] would change what the file says (an inline"
            " `tool` table?); add this table by hand:\n" + table
        )
    return PyprojectPlan(text, created=False)
