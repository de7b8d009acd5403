"""`--conformance-items cell`: one pytest test per cell judging all its checks, writing the same
results lines as one test per cell and check.

Each run below is made twice, once per mode, on the same project, and the two results files
must be the same line for line apart from what names the run (its id, command and times).
The targets between them give every verdict a line can have: pass, fail (a check, a missing
snapshot, a payload that differs from its snapshot), xfail and xpass (a deviations file),
skip (a target that cannot run here, a row it does not serve, a `supports` that raises, a
declared `n/a`) and a target that crashes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance.running import engine

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
APIS = ("openai-chat", "anthropic")

DEVIATIONS = f"""\
target: mutant-drops-media
deviations:
  - cell: {CELL}
    checks: [outcome, no-silent-loss]
    outcome: dropped
    level: required
    reason: drops tool images
  - cell: anthropic/claude-sonnet-5/text/inline/result
    checks: [outcome]
    outcome: native
    level: reference
    reason: declared, but the cell passes
"""


@pytest.fixture
def cells(project: pytest.Pytester) -> pytest.Pytester:
    """`project` with the reference's snapshots of two apis, under its own name and under the
    media-dropping mutant's (whose payloads then differ from them), and a deviations file."""
    for api in APIS:
        for name in ("reference", "mutant-drops-media"):
            shutil.copytree(
                ROOT / "snapshots/reference" / api, project.path / "snapshots" / name / api
            )
    for name in ("reference", "mutant-drops-media"):
        shutil.copytree(
            ROOT / "snapshots/reference/_media", project.path / "snapshots" / name / "_media"
        )
    (project.path / "deviations").mkdir()
    (project.path / "deviations/mutant-drops-media.yaml").write_text(DEVIATIONS, encoding="utf-8")
    project.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_deviations = deviations\n"
    )
    return project


def _run(project: pytest.Pytester, items: str, *args: str) -> tuple[list[dict[str, Any]], Any]:
    results = project.path / f"{items}.jsonl"
    results.unlink(missing_ok=True)
    recorded = project.inline_run(  # pyright: ignore[reportUnknownMemberType] (pytest's `plugins`)
        "-p",
        "no:cacheprovider",
        f"--conformance-items={items}",
        f"--conformance-results={results}",
        "--conformance-property-examples=3",
        *args,
    )
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    return lines, recorded


def _apart_from_run(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines without what names the run: its id, command line and times."""
    kept = {"meta": ("run", "date"), "end": ("run", "end")}
    return [
        {k: v for k, v in line.items() if k not in kept.get(line["kind"], ())} for line in lines
    ]


def _both(project: pytest.Pytester, *args: str) -> tuple[list[dict[str, Any]], Any, Any]:
    """The results lines of a run in each mode (which must be the same), and both recordings."""
    by_check, checks = _run(project, "check", *args)
    by_cell, cells = _run(project, "cell", *args)
    assert _apart_from_run(by_cell) == _apart_from_run(by_check)
    return by_check, checks, cells


def _calls(recorded: Any) -> list[Any]:
    return [
        r
        for r in recorded.getreports("pytest_runtest_logreport")
        if r.when == "call" or (r.when == "setup" and not r.passed)
    ]


def _verdicts(lines: list[dict[str, Any]]) -> set[str]:
    return {line["verdict"] for line in lines if line["kind"] == "result"}


def test_the_reference_passes_every_check_with_one_test_per_cell(cells: pytest.Pytester) -> None:
    apis = [f"--conformance-api={api}" for api in APIS]
    lines, checks, by_cell = _both(cells, "--conformance-target=reference", *apis)
    results = [line for line in lines if line["kind"] == "result"]
    assert _verdicts(lines) == {"pass"}
    assert lines[-1]["status"] == "complete"
    assert len(_calls(checks)) == len(results)
    assert len(_calls(by_cell)) == len({line["cell"] for line in results}) < len(results) / 3
    by_cell.assertoutcome(passed=len(_calls(by_cell)))


def test_fails_declared_deviations_and_differing_snapshots_give_the_same_lines(
    cells: pytest.Pytester,
) -> None:
    apis = [f"--conformance-api={api}" for api in APIS]
    lines, _, by_cell = _both(cells, "--conformance-target=mutants:DropsMedia", *apis)
    assert _verdicts(lines) == {"pass", "fail", "xfail", "xpass"}
    body = {(line["cell"], line["check"]): line for line in lines if line["kind"] == "result"}
    assert body[(CELL, "outcome")]["verdict"] == "xfail"
    assert body[(CELL, "snapshot")]["verdict"] == "fail"
    assert body[(CELL, "snapshot")]["detail"].startswith("payload differs from snapshots/")
    assert body[("anthropic/claude-sonnet-5/text/inline/result", "outcome")]["verdict"] == "xpass"
    # A cell test fails when any of its checks does, naming each; one whose only shortfalls
    # are declared deviations is an xfail, with their reasons.
    reports = {r.nodeid.rsplit("[", 1)[1].rstrip("]").split(":", 1)[1]: r for r in _calls(by_cell)}
    image = reports[CELL]
    assert image.failed
    assert image.longreprtext.startswith(f"{CELL} [snapshot]: payload differs from snapshots/")
    assert "no-silent-loss" not in image.longreprtext  # declared: not a failure
    for cell, report in reports.items():
        verdicts = {line["verdict"] for (c, _), line in body.items() if c == cell}
        if verdicts & {"fail", "xpass"}:
            assert report.failed, cell
        elif "xfail" in verdicts:
            assert report.wasxfail, cell
        else:
            assert report.passed, cell


def test_a_selection_of_checks_is_made_within_each_cell(cells: pytest.Pytester) -> None:
    lines, _, by_cell = _both(
        cells,
        "--conformance-target=mutants:DropsMedia",
        "--conformance-api=openai-chat",
        "--conformance-check=outcome,provenance,snapshot",
        "--conformance-check=!snapshot",
        "--conformance-property-examples=0",
    )
    results = [line for line in lines if line["kind"] == "result"]
    assert {line["check"] for line in results} == {"outcome", "provenance"}
    assert len(_calls(by_cell)) == len({line["cell"] for line in results})
    lines, _, _ = _both(
        cells,
        "--conformance-target=mutants:DropsMedia",
        "--conformance-api=openai-chat",
        "--conformance-level=required",
        "-k",
        "gpt-6 and image",
    )
    assert {line["level"] for line in lines if line["kind"] == "result"} == {"required"}
    assert {line["row"] for line in lines if line["kind"] == "result"} == {"openai-chat/gpt-6"}


@pytest.mark.parametrize(
    "target",
    [
        "figure_mutants:CannotRunHere",
        "figure_mutants:ServesOneModel",
        "figure_mutants:SupportsRaises",
        "figure_mutants:NoPromptStyle",
        "hostile:RaisesHugeMessage",
        "hostile:RaisesSystemExit",
        "hostile:RaisesUnprintable",
        "hostile:ReturnsNaN",
        "hostile:ReturnsACycle",
    ],
)
def test_skips_and_crashes_give_the_same_lines(cells: pytest.Pytester, target: str) -> None:
    # Without snapshots of their own: every snapshot check fails, the rest as the target makes it.
    lines, _, _ = _both(cells, f"--conformance-target={target}", "--conformance-api=openai-chat")
    assert len(lines) > 50
    assert "skip" in _verdicts(lines) or "fail" in _verdicts(lines)


def test_a_cell_run_stopped_early_is_not_complete(cells: pytest.Pytester) -> None:
    lines, _ = _run(
        cells,
        "cell",
        "-x",
        "--conformance-target=mutants:DropsMedia",
        "--conformance-api=openai-chat",
    )
    assert lines[-1]["status"] != "complete"
    assert lines[-1]["results"] == len(lines) - 2 > 1  # the stopping cell's checks, each a line


def test_a_cell_run_whose_tests_do_not_all_report_is_not_complete(cells: pytest.Pytester) -> None:
    # A plugin that runs the last test without reporting it (as a worker lost mid-run would):
    # the run is incomplete, counted by tests, not lines (a cell test writes one per check,
    # so its lines outnumber the tests selected).
    cells.makeconftest(
        "import pytest\n\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtest_protocol(item, nextitem):\n"
        "    return True if nextitem is None else None\n"
    )
    args = ("--conformance-target=reference", "--conformance-api=anthropic", "-k", "image")
    for items in ("check", "cell"):
        lines, _ = _run(cells, items, *args, "--conformance-property-examples=0")
        assert lines[-1]["status"] == "incomplete", items
        assert lines[-1]["results"] == len(lines) - 2 > 1


def test_the_ini_key_chooses_and_a_bad_value_is_refused(cells: pytest.Pytester) -> None:
    cells.makeini("[pytest]\nconformance_matrix = matrix.yaml\nconformance_items = cell\n")
    found = cells.runpytest("--collect-only", "-q", "--conformance-property-examples=0")
    assert (
        "test_conformance.py::test_conformance[reference:openai-chat/gpt-6/text/inline/result]"
        in (found.stdout.str())
    )
    cells.makeini("[pytest]\nconformance_matrix = matrix.yaml\nconformance_items = cells\n")
    refused = cells.runpytest("--collect-only", "-q")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(
        ["*tox.ini:3:21: conformance_items = 'cells': give `check`*or `cell`*"]
    )
    (cells.path / "tox.ini").unlink()
    cells.makepyprojecttoml(
        "[tool.pytest.ini_options]\n"
        'conformance_matrix = "matrix.yaml"\nconformance_items = "cels"\n'
    )
    quoted = cells.runpytest("--collect-only", "-q")
    quoted.stderr.fnmatch_lines(["*pyproject.toml:3:21: conformance_items = 'cels': give*"])
    given = cells.runpytest("--collect-only", "-q", "-o", "conformance_items=all")
    given.stderr.fnmatch_lines(["*-o conformance_items=all: give `check`*"])


def test_the_comparison_catches_a_recorder_that_keeps_one_line_per_test(
    cells: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mutant of the engine: a recorder that writes only a test's first line (as it did
    # when a test was one check). The two modes then differ, and the comparison says so.
    def first_only(self: Any, report: pytest.TestReport) -> None:
        first = next(((k, v) for k, v in report.user_properties if k == "conformance"), None)
        report.user_properties = [first] if first is not None else []
        keep(self, report)

    keep = engine._Recorder.pytest_runtest_logreport  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(engine._Recorder, "pytest_runtest_logreport", first_only)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(AssertionError):
        _both(cells, "--conformance-target=reference", "--conformance-api=anthropic")


def test_a_check_that_crashes_fails_alone_and_the_cell_goes_on(
    cells: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A crash while judging one check (here `provenance`, by a broken evaluator) fails that
    # check's line with the error; the cell's other checks are judged as in tests of their own.
    evaluate = engine.evaluate

    def broken(run: Any, check: Any) -> Any:
        if check == "provenance":
            raise RuntimeError("the provenance evaluator broke")
        return evaluate(run, check)

    monkeypatch.setattr(engine, "evaluate", broken)
    lines, _, by_cell = _both(
        cells, "--conformance-target=reference", "--conformance-api=anthropic", "-k", "image"
    )
    results = [line for line in lines if line["kind"] == "result"]
    crashed = [line for line in results if line["check"] == "provenance"]
    assert crashed
    assert all(line["verdict"] == "fail" for line in crashed)
    assert all("RuntimeError: the provenance evaluator broke" in line["detail"] for line in crashed)
    assert {line["verdict"] for line in results if line not in crashed} == {"pass"}
    assert {r.outcome for r in _calls(by_cell)} == {"failed"}
