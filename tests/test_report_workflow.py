"""The report workflow (.github/workflows/report.yml) runs what docs/site.md says: a job per
target and release from the noxfile's own list, the results merged into results/ by the nox
sessions a person runs locally, a pull request with the new data, the site deployed on merge.
actionlint validates the file itself in `nox -s lint`."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / ".github" / "workflows" / "report.yml"


def _workflow() -> dict[str, Any]:
    loader: Any = YAML(typ="safe")
    return cast("dict[str, Any]", loader.load(WORKFLOW.read_text(encoding="utf-8")))


def _runs(job: dict[str, Any]) -> list[str]:
    return [str(step.get("run", "")) for step in job["steps"]]


def _targets() -> dict[str, tuple[str, tuple[str, ...]]]:
    """noxfile.TARGETS, read from its source (the tests run without nox installed)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "TARGETS" for t in node.targets
        ):
            return cast("dict[str, tuple[str, tuple[str, ...]]]", ast.literal_eval(node.value))
    raise AssertionError("noxfile.py has no TARGETS")


def test_a_job_per_target_and_release_from_the_noxfiles_list() -> None:
    jobs = _workflow()["jobs"]
    assert set(jobs) == {"releases", "run", "merge", "deploy"}
    assert any("python tools/releases.py" in run for run in _runs(jobs["releases"]))
    run = jobs["run"]
    assert run["strategy"]["matrix"] == "${{ fromJSON(needs.releases.outputs.matrix) }}"
    assert run["strategy"]["fail-fast"] is False
    (step,) = [s for s in run["steps"] if "nox -s" in str(s.get("run", ""))]
    assert step["run"] == 'nox -s "target($TARGET)"'
    assert step["env"]["CONFORMANCE_RELEASE"] == "${{ matrix.version }}"
    upload = run["steps"][-1]
    assert upload["with"]["path"] == (
        "report/results-${{ matrix.target }}-${{ matrix.version }}.jsonl"
    )


def test_the_merge_runs_the_local_sessions_and_opens_a_pull_request() -> None:
    jobs = _workflow()["jobs"]
    merge = jobs["merge"]
    runs = _runs(merge)
    assert runs.index("nox -s import_results -- artifacts") < runs.index("nox -s conformance")
    assert runs.index("nox -s conformance") < runs.index("nox -s site")
    (pull,) = [s for s in merge["steps"] if "create-pull-request" in str(s.get("uses", ""))]
    assert pull["with"]["add-paths"] == "results/"
    assert merge["permissions"] == {"contents": "write", "pull-requests": "write"}
    deploy = jobs["deploy"]
    assert deploy["if"] == "github.event_name == 'push'"
    assert "nox -s site" in _runs(deploy)
    assert any("deploy-pages" in str(s.get("uses", "")) for s in deploy["steps"])
    assert _workflow()["on"]["push"]["branches"] == ["main"]


def test_the_release_list_is_every_target_and_release() -> None:
    pytest.importorskip("nox")  # tools/releases.py reads the noxfile itself
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "releases.py")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    jobs = json.loads(done.stdout)["include"]
    expected = [
        {"target": name, "version": version}
        for name, (_, versions) in _targets().items()
        for version in versions
    ]
    assert jobs[: len(expected)] == expected
    bridged = [job for job in jobs[len(expected) :] if job["target"] == "ai-sdk"]
    assert [job["version"] for job in bridged] == ["7.0.173", "6.0.326"]
    assert len(jobs) == len(expected) + len(bridged)
