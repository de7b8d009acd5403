"""A results file never lies about its run: written atomically, naming the run, complete only
when the run finished normally; interrupted, killed, crashed or partial runs leave a file
that says so, which `report`, `merge` and `diff` refuse; two runs cannot share one file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.recording.media import copy_snapshot
from conformance.reports.results import ReportError, load_results
from conformance.running import runlog
from results_data import ALL_PASS, meta, write

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
RESULTS = "out/r.jsonl"


@pytest.fixture
def project(project: pytest.Pytester) -> pytest.Pytester:
    """conftest's project, with what this module needs beside it."""
    snapshot = Path("snapshots/reference/openai-chat/gpt-6.image.inline.result.json")
    copy_snapshot(ROOT / snapshot, project.path / snapshot)  # with the media blobs it names
    return project


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _refused_everywhere(path: Path, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`report`, `merge` and `diff` all refuse the file, saying why, with exit 2."""
    with pytest.raises(ReportError, match=words):
        load_results([path])
    good = write(path.parent / "good.jsonl", ALL_PASS)
    for argv in (["report", str(path)], ["merge", str(path)], ["diff", str(good), str(path)]):
        capsys.readouterr()
        assert main(argv) == 2, argv
        assert words in capsys.readouterr().err


def test_a_finished_run_names_itself_and_is_complete(project: pytest.Pytester) -> None:
    run = project.runpytest("-k", CELL, "--conformance-results", RESULTS)
    assert run.ret == 0
    lines = _lines(project.path / RESULTS)
    head, end = lines[0], lines[-1]
    assert set(head["run"]) == {"id", "start", "command"}
    assert head["run"]["command"][:5] == ["pytest", "-k", CELL, "--conformance-results", RESULTS]
    assert (end["status"], end["exit_status"], end["run"]) == ("complete", 0, head["run"]["id"])
    assert load_results([project.path / RESULTS]).files[0].meta.run is not None
    assert not list((project.path / "out").glob(".r.jsonl.*.tmp"))  # no temporary file left


def test_a_failing_run_is_still_complete(project: pytest.Pytester) -> None:
    run = project.runpytest(
        "-k", CELL, "--conformance-target", "mutants:DropsMedia", "--conformance-results", RESULTS
    )
    assert run.ret == 1
    end = _lines(project.path / RESULTS)[-1]
    assert (end["status"], end["exit_status"]) == ("complete", 1)
    load_results([project.path / RESULTS])


def test_a_target_raising_keyboard_interrupt_leaves_an_interrupted_file(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    run = project.inline_run(  # pyright: ignore[reportUnknownMemberType] (pytest's `plugins`)
        "-k",
        CELL,
        "--conformance-target",
        "hostile:RaisesKeyboardInterrupt",
        "--conformance-results",
        RESULTS,
        no_reraise_ctrlc=True,
    )
    assert run.ret == 2  # pytest's "interrupted"
    end = _lines(project.path / RESULTS)[-1]
    assert (end["status"], end["exit_status"]) == ("interrupted", 2)
    _refused_everywhere(project.path / RESULTS, "was interrupted", capsys)


def test_a_killed_run_replaces_the_previous_results_with_an_unfinished_file(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    assert project.runpytest("-k", CELL, "--conformance-results", RESULTS).ret == 0
    load_results([project.path / RESULTS])  # the previous run's results, complete
    run = project.runpytest_subprocess(
        "-k",
        CELL,
        "--conformance-target",
        "hostile:KillsItself",
        "--conformance-results",
        RESULTS,
    )
    assert run.ret < 0 or run.ret == 137  # SIGKILL
    (head,) = _lines(project.path / RESULTS)  # the meta line alone
    assert head["kind"] == "meta"
    _refused_everywhere(project.path / RESULTS, "never finished", capsys)


def test_a_crashed_run_says_so(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    project.makeconftest(
        "def pytest_runtest_logfinish(nodeid, location):\n"
        "    raise RuntimeError('a plugin crashed')\n"
    )
    run = project.runpytest("-k", CELL, "--conformance-results", RESULTS)
    assert run.ret == 3  # INTERNALERROR, from the plugin, not from a target
    end = _lines(project.path / RESULTS)[-1]
    assert end["status"] == "crashed"
    _refused_everywhere(project.path / RESULTS, "crashed", capsys)


def test_a_run_stopped_by_maxfail_is_incomplete(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    run = project.runpytest(
        "-x",
        "-k",
        CELL,
        "--conformance-target",
        "mutants:DropsMedia",
        "--conformance-results",
        RESULTS,
    )
    assert run.ret == 1
    end = _lines(project.path / RESULTS)[-1]
    assert (end["status"], end["exit_status"]) == ("incomplete", 1)
    _refused_everywhere(project.path / RESULTS, "stopped before every selected test ran", capsys)


def test_a_second_run_on_the_same_results_file_stops_before_it_runs(
    project: pytest.Pytester,
) -> None:
    path = project.path / RESULTS
    first = runlog.RunLog(path, ["pytest", "first"])
    first.acquire()
    try:
        first.start(meta())
        run = project.runpytest("-k", CELL, "--conformance-results", RESULTS)
        assert run.ret == 4
        run.stderr.fnmatch_lines([f"*run {first.run_id}*is writing this results file*"])
        assert _lines(path) == [meta() | {"run": first.run_info()}]  # untouched
    finally:
        first.release()
    assert project.runpytest("-k", CELL, "--conformance-results", RESULTS).ret == 0


def test_a_target_writing_over_the_results_file_cannot_corrupt_it(
    project: pytest.Pytester,
) -> None:
    run = project.runpytest(
        "-k",
        CELL,
        "--conformance-target",
        "hostile:WritesOverTheResults",
        "--conformance-results",
        RESULTS,
    )
    assert run.ret == 1  # its snapshots are missing; the results are still whole
    assert load_results([project.path / RESULTS]).files[0].results


def test_writing_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("old\n", encoding="utf-8")

    def fail(source: str, target: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        runlog.write_atomic(path, "new\n")
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.jsonl"]


def test_a_written_file_has_the_umasks_permissions(tmp_path: Path) -> None:
    """Not mkstemp's 0600: a results file is read by CI's artifact upload, other users, tools."""
    previous = os.umask(0o022)
    try:
        runlog.write_atomic(tmp_path / "r.jsonl", "new\n")
    finally:
        os.umask(previous)
    assert (tmp_path / "r.jsonl").stat().st_mode & 0o777 == 0o644


def test_the_end_line_must_be_of_the_meta_lines_run(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run: dict[str, Any] = {"id": "run-a", "start": "2026-11-30T05:00:00+00:00", "command": []}
    lines: list[dict[str, Any]] = [
        meta() | {"run": run},
        {"kind": "end", "results": 0, "status": "complete", "run": "run-b"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(ReportError, match="two runs wrote this file"):
        load_results([path])


def test_files_older_than_run_tracking_still_load(tmp_path: Path) -> None:
    load_results([write(tmp_path / "old.jsonl", ALL_PASS)])


def test_a_merged_file_names_the_runs_it_joins(tmp_path: Path) -> None:
    shards: list[str] = []
    for index, lines in enumerate((ALL_PASS[:6], ALL_PASS[6:])):
        run = {"id": f"run-{index}", "start": "2026-11-30T05:00:00+00:00", "command": ["pytest"]}
        path = tmp_path / f"s{index}.jsonl"
        write(path, lines, head=meta() | {"run": run})
        shards.append(str(path))
    assert main(["merge", *shards, "-o", str(tmp_path / "m.jsonl")]) == 0
    merged = load_results([tmp_path / "m.jsonl"]).files[0].meta
    assert (merged.run, merged.merged_from) == (None, ["run-0", "run-1"])


@pytest.mark.parametrize(
    ("exit_status", "ran", "selected", "stopped", "status"),
    [
        (0, 3, 3, False, "complete"),
        (1, 3, 3, False, "complete"),
        (5, 0, None, False, "complete"),
        (1, 1, 3, True, "incomplete"),
        (0, 2, 3, False, "incomplete"),
        (2, 3, 3, False, "interrupted"),
        (3, 3, 3, False, "crashed"),
        (4, 0, None, False, "incomplete"),
    ],
)
def test_run_status(
    exit_status: int, ran: int, selected: int | None, stopped: bool, status: str
) -> None:
    got = runlog.run_status(exit_status, ran=ran, selected=selected, stopped=stopped)
    assert got == status
