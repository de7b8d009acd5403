"""Hostile inputs: every path option is checked before the run, and matrix files the YAML
reader cannot take (control characters, NUL bytes, deep nesting, a huge size) get located
errors instead of a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.matrix import MatrixError, load_matrix
from conformance.matrix.load import MAX_BYTES
from results_data import ALL_PASS, write

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
MATRIX = (ROOT / "matrix.yaml").read_text(encoding="utf-8")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    return pytester


# --- path options -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("report", "--conformance-results report: is a folder; give a file path"),
        ("matrix.yaml", "is an input of this run (matrix.yaml)"),
        ("notes.md", "exists and is not a results file"),
        ("notes.md/r.jsonl", "notes.md is a file, not a folder"),
    ],
)
def test_a_bad_results_path_stops_the_run_before_it_runs(
    project: pytest.Pytester, given: str, says: str
) -> None:
    (project.path / "report").mkdir()
    (project.path / "notes.md").write_text("# my notes\n", encoding="utf-8")
    run = project.runpytest("-k", CELL, "--conformance-results", given)
    assert run.ret == 4
    run.stderr.fnmatch_lines([f"*{says}*"])
    assert (project.path / "matrix.yaml").read_text(encoding="utf-8") == MATRIX
    assert (project.path / "notes.md").read_text(encoding="utf-8") == "# my notes\n"
    assert list((project.path / "report").iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_results_folder_stops_the_run(project: pytest.Pytester) -> None:
    locked = project.path / "locked"
    locked.mkdir(mode=0o555)
    run = project.runpytest("-k", CELL, "--conformance-results", "locked/r.jsonl")
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*cannot write in*locked*permission denied*"])


def test_an_existing_results_file_is_replaced(project: pytest.Pytester) -> None:
    write(project.path / "r.jsonl", ALL_PASS)
    run = project.runpytest("-k", CELL, "--conformance-results", "r.jsonl")
    assert run.ret == 0  # the packaged reference snapshots judge it; the run went through
    assert '"status": "complete"' in (project.path / "r.jsonl").read_text(encoding="utf-8")


def test_a_snapshot_or_cassette_folder_that_is_a_file_stops_the_run(
    project: pytest.Pytester,
) -> None:
    (project.path / "snaps").write_text("", encoding="utf-8")
    project.makeini("[pytest]\nconformance_matrix = matrix.yaml\nconformance_snapshots = snaps\n")
    run = project.runpytest("-k", CELL)
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*conformance_snapshots*snaps: is a file, not a folder*"])
    run = project.runpytest(
        "-k", CELL, "-p", "no:cacheprovider", "--conformance-cassettes", "matrix.yaml"
    )
    assert run.ret == 4


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["report", "{r}", "-o", "{dir}"], "is a folder"),
        (["report", "{r}", "-o", "{r}"], "is an input of this run"),
        (["merge", "{r}", "-o", "{r}"], "is an input of this run"),
        (["diff", "{r}", "{r2}", "-o", "{r2}"], "is an input of this run"),
        (["badges", "{r}", "-o", "{r}"], "is a file, not a folder"),
    ],
)
def test_cli_outputs_never_replace_a_folder_or_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    r, r2 = write(tmp_path / "r.jsonl", ALL_PASS), write(tmp_path / "r2.jsonl", ALL_PASS)
    (tmp_path / "out").mkdir()
    before = r.read_bytes()
    names = {"r": str(r), "r2": str(r2), "dir": str(tmp_path / "out")}
    assert main([arg.format(**names) for arg in argv]) == 2
    assert says in capsys.readouterr().err
    assert r.read_bytes() == before
    assert r2.read_bytes() == before


# --- matrix files the YAML reader cannot take ----------------------------------------------


def _matrix(tmp_path: Path, text: str) -> str:
    path = tmp_path / "matrix.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MatrixError) as info:
        load_matrix(path)
    return str(info.value)


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(
    ("char", "says"),
    [
        ("\x07", "the control character U+0007"),
        ("\x1b", "the control character U+001B"),
        ("\x7f", "the control character U+007F"),
        ("\x9b", "the control character U+009B"),
        ("\x00", "a NUL byte; is the file binary, or saved as UTF-16?"),
    ],
)
def test_a_control_character_is_located(tmp_path: Path, char: str, says: str) -> None:
    text = MATRIX.replace("rows:", f"rows: #{char}", 1)
    line = _line_of(text, "rows:")
    assert _matrix(tmp_path, text) == f"{tmp_path / 'matrix.yaml'}:{line}:8: {says}" + (
        "; delete it, or write it as an escape inside a double-quoted string"
        if char != "\x00"
        else ""
    )


def test_deep_flow_nesting_is_located(tmp_path: Path) -> None:
    error = _matrix(tmp_path, "version: 1\nrows: " + "[" * 5000 + "]" * 5000 + "\n")
    assert error.startswith(f"{tmp_path / 'matrix.yaml'}:2:")
    assert "nesting deeper than 64 levels" in error


def test_deep_block_nesting_is_located(tmp_path: Path) -> None:
    text = "version: 1\nrows:\n" + "".join(" " * i + "- a:\n" for i in range(1, 300))
    error = _matrix(tmp_path, text)
    assert error.startswith(f"{tmp_path / 'matrix.yaml'}:65:")
    assert "nesting deeper than 64 levels" in error


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    error = _matrix(tmp_path, MATRIX + "#" + "x" * MAX_BYTES + "\n")
    assert error.startswith(f"{tmp_path / 'matrix.yaml'}:1:1: the file is ")
    assert f"a matrix is at most {MAX_BYTES:,} bytes" in error


def test_a_matrix_with_a_nul_byte_stops_the_run_with_its_location(
    project: pytest.Pytester,
) -> None:
    (project.path / "matrix.yaml").write_text(MATRIX.replace("rows:", "rows: \x00", 1))
    run = project.runpytest("-k", CELL)
    assert run.ret == 4
    assert "Traceback" not in run.stdout.str() + run.stderr.str()
    run.stderr.fnmatch_lines([f"*matrix.yaml:{_line_of(MATRIX, 'rows:')}:7: a NUL byte*"])
