"""Time limits that hold for any target: per render in the cells and in the property searches
alike (a search that meets a hung render stops and fails that property once), and a hard limit
for renders that hold the GIL or ignore signals (a worker process, killed at the limit), with
the results file ending in a truthful end line. Each run is a subprocess with a deadline of its
own, so that a limit that does not hold fails the test instead of hanging it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conformance.judging.levels import PROPERTY_LEVELS
from conformance.reports.results import load_results

CELL = "openai-chat/gpt-6/image/inline/result"
RESULTS = "out/r.jsonl"
DEADLINE = 240.0
"""Seconds a whole run in these tests may take (each limit is 0.5 s)."""


@pytest.fixture
def project(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The conftest project; its runs are subprocesses, which find the hostile targets here."""
    here = Path(__file__).resolve().parent  # the suite as this run imports it, and tests/
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(here.parent), str(here)]))
    return project


def _run(project: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, float]:
    started = time.monotonic()
    run = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--conformance-results", RESULTS,
        "--conformance-cell-timeout", "0.5", *args, timeout=DEADLINE,
    )  # fmt: skip
    return run, time.monotonic() - started


@pytest.mark.parametrize("target", ["Hangs", "HangsOnSomeHistories"])
def test_a_search_that_meets_a_hung_render_fails_its_property_once(
    project: pytest.Pytester, target: str
) -> None:
    run, _ = _run(project, "-k", "property/", "--conformance-target", f"hostile:{target}")
    output = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in output
    assert run.ret == 1
    (file,) = load_results([project.path / RESULTS]).files  # complete, or it would raise
    verdicts = {p.property: p for p in file.properties}
    assert set(verdicts) == set(PROPERTY_LEVELS)
    hung = {name: p for name, p in verdicts.items() if "did not return within 0.5 s" in p.detail}
    assert hung, verdicts
    for p in hung.values():
        assert p.verdict == "fail"
        assert "the search stopped at this history" in p.detail
        assert p.detail.count("did not return") == 1
    if target == "Hangs":  # every history hangs: every property fails at its first history
        assert set(hung) == set(PROPERTY_LEVELS)
        assert all(p.examples <= 2 for p in hung.values())


@pytest.mark.parametrize("target", ["HoldsTheGil", "HoldsTheGilAndIgnoresSignals"])
def test_a_render_holding_the_gil_is_cut_in_its_worker_process(
    project: pytest.Pytester, target: str
) -> None:
    run, _ = _run(project, "-k", CELL, "--conformance-target", f"hostile:{target}")
    assert "INTERNALERROR" not in run.stdout.str() + run.stderr.str()
    assert run.ret == 1
    (file,) = load_results([project.path / RESULTS]).files
    outcomes = [r for r in file.results if r.check == "outcome"]
    assert [r.verdict for r in outcomes] == ["fail"]
    assert "CellTimeout: the render did not return within 0.5 s" in outcomes[0].detail
    assert "worker process was killed" in outcomes[0].detail
    end = (project.path / RESULTS).read_text(encoding="utf-8").splitlines()[-1]
    assert '"kind": "end"' in end  # a truthful end line: the run finished, with a failure
    assert '"status": "complete", "exit_status": 1' in end


def test_isolation_can_be_asked_for_every_target_and_judges_alike(
    project: pytest.Pytester,
) -> None:
    """The reference in a worker process gets the verdicts it gets in the run's process."""
    run, _ = _run(project, "-k", f"{CELL} or openai-chat/gpt-6/video/inline/result")
    assert run.ret == 0, run.stdout.str()
    inline = load_results([project.path / RESULTS]).files[0].results
    run, _ = _run(
        project, "--conformance-isolate", "-k", f"{CELL} or openai-chat/gpt-6/video/inline/result"
    )
    assert run.ret == 0, run.stdout.str()
    isolated = load_results([project.path / RESULTS]).files[0].results
    assert [(r.cell, r.check, r.verdict, r.detail) for r in isolated] == [
        (r.cell, r.check, r.verdict, r.detail) for r in inline
    ]


def test_after_a_first_timeout_a_target_renders_in_a_worker_process(
    project: pytest.Pytester,
) -> None:
    """A render that hung on a thread may still hold what it holds: the target's next renders
    run in a worker process, each cut at the limit."""
    cells = f"{CELL} or openai-chat/gpt-6/image/url/result"
    run, _ = _run(project, "-k", f"({cells}) and outcome", "--conformance-target", "hostile:Hangs")
    assert run.ret == 1
    (file,) = load_results([project.path / RESULTS]).files
    details = [r.detail for r in file.results]
    assert len(details) == 2
    assert "it was abandoned" in details[0]  # the thread's limit
    assert "worker process was killed" in details[1]  # then the process's
