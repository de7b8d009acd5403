"""The Pythons the package says it supports are the Pythons its tests run on: `requires-python`
and the version classifiers in pyproject.toml, and the version matrix of the tests workflow
(.github/workflows/tests.yml), name the same versions, from the lowest allowed up, none left
out. A version added to one and not the others fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, cast

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
WORKFLOW = ROOT / ".github" / "workflows" / "tests.yml"

_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)$")


def _minor(version: str) -> int:
    major, minor = version.split(".")
    assert major == "3", version
    return int(minor)


def _mismatches(pyproject: str, workflow: str) -> list[str]:
    """What keeps the three lists from naming the same contiguous versions (none: in step)."""
    project = tomllib.loads(pyproject)["project"]
    lowest = re.fullmatch(r">=\s*(3\.\d+)", project["requires-python"])
    if lowest is None:
        return [f"requires-python {project['requires-python']!r} is not '>=3.N'"]
    classified = sorted(
        (m.group(1) for c in project["classifiers"] if (m := _CLASSIFIER.match(c))), key=_minor
    )
    loader: Any = YAML(typ="safe")
    jobs = cast("dict[str, Any]", loader.load(workflow))["jobs"]
    matrix = jobs["tests"]["strategy"]["matrix"]
    tested = sorted((str(v) for v in matrix["python-version"]), key=_minor)
    problems: list[str] = []
    if classified != tested:
        problems.append(f"classifiers {classified} but the workflow tests {tested}")
    if not classified or classified[0] != lowest.group(1):
        problems.append(
            f"requires-python says {lowest.group(1)}, the classifiers start at {classified[:1]}"
        )
    minors = [_minor(v) for v in classified]
    if minors and minors != list(range(minors[0], minors[0] + len(minors))):
        problems.append(f"the classifiers skip a version: {classified}")
    return problems


def test_the_supported_pythons_are_the_tested_ones() -> None:
    pyproject = PYPROJECT.read_text(encoding="utf-8")
    workflow = WORKFLOW.read_text(encoding="utf-8")
    assert _mismatches(pyproject, workflow) == []


def test_a_version_classified_and_not_tested_is_named() -> None:
    pyproject = PYPROJECT.read_text(encoding="utf-8")
    workflow = WORKFLOW.read_text(encoding="utf-8")
    untested = workflow.replace('"3.11", "3.12", "3.13"', '"3.11", "3.12"')
    assert untested != workflow
    assert _mismatches(pyproject, untested) == [
        "classifiers ['3.11', '3.12', '3.13'] but the workflow tests ['3.11', '3.12']"
    ]
    raised = pyproject.replace('requires-python = ">=3.11"', 'requires-python = ">=3.12"')
    assert raised != pyproject
    assert _mismatches(raised, workflow) == [
        "requires-python says 3.12, the classifiers start at ['3.11']"
    ]
    gap = pyproject.replace('  "Programming Language :: Python :: 3.12",\n', "")
    assert gap != pyproject
    assert "the classifiers skip a version: ['3.11', '3.13']" in _mismatches(
        gap, workflow.replace('"3.11", "3.12", "3.13"', '"3.11", "3.13"')
    )
