"""One rule for every file a command writes: checked before any work against every input of
the command (the same path, a symbolic link, a hard link, a file inside an input folder),
against folders and places that cannot be written; then written atomically. Exit 2 with a
one-line message otherwise, every input untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.cli import main
from results_data import ALL_PASS, write

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
REASONS = "rules:\n  - when: {check: outcome}\n    reason: the framework drops images\n"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    r, r2 = write(tmp_path / "r.jsonl", ALL_PASS), write(tmp_path / "r2.jsonl", ALL_PASS)
    (tmp_path / "out").mkdir()
    (tmp_path / "notes.md").write_text("# notes\n", encoding="utf-8")
    reasons = tmp_path / "x.reasons.yaml"
    reasons.write_text(REASONS, encoding="utf-8")
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text((ROOT / "matrix.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    (snaps / "a.json").write_text("{}\n", encoding="utf-8")
    return {"r": r, "r2": r2, "reasons": reasons, "matrix": matrix, "snaps": snaps}


def _contents(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _refused(tmp_path: Path, argv: list[str], says: str, capsys: pytest.CaptureFixture[str]):
    before = _contents(tmp_path)
    names = {"t": str(tmp_path)}
    assert main([arg.format(**names) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert "Traceback" not in err
    assert _contents(tmp_path) == before  # no input replaced, nothing half-written


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["deviations", "{t}/r.jsonl", "--target", "reference", "-o", "{t}/r.jsonl"], "input"),
        (
            [
                "deviations",
                "{t}/r.jsonl",
                "--target",
                "reference",
                "--reasons",
                "{t}/x.reasons.yaml",
                "-o",
                "{t}/x.reasons.yaml",
            ],
            "is an input of this run",
        ),
        (
            [
                "repro",
                CELL,
                "--target",
                "repro_target:ReproTarget",
                "--matrix",
                "{t}/matrix.yaml",
                "-o",
                "{t}/matrix.yaml",
            ],
            "is an input of this run",
        ),
        (["compare", "{t}/r.jsonl", "{t}/r2.jsonl", "-o", "{t}/r.jsonl"], "is an input"),
        (["compare", "{t}/r.jsonl", "-o", "{t}/out"], "is a folder"),
        (["report", "{t}/r.jsonl", "-o", "{t}/r.jsonl"], "is an input of this run"),
        (
            [
                "report",
                "{t}/r.jsonl",
                "--format",
                "html",
                "--matrix",
                "{t}/matrix.yaml",
                "-o",
                "{t}/matrix.yaml",
            ],
            "is an input of this run",
        ),
        (
            [
                "report",
                "{t}/r.jsonl",
                "--format",
                "html",
                "--snapshots",
                "{t}/snaps",
                "-o",
                "{t}/snaps/index.html",
            ],
            "a folder this run reads",
        ),
        (["merge", "{t}/r.jsonl", "{t}/r2.jsonl", "-o", "{t}/r2.jsonl"], "is an input"),
        (["diff", "{t}/r.jsonl", "{t}/r2.jsonl", "-o", "{t}/r.jsonl"], "is an input"),
        (["badges", "{t}/r.jsonl", "-o", "{t}/notes.md"], "is a file, not a folder"),
        (["schema", "-o", "{t}/out"], "is a folder"),
        (["report", "{t}/r.jsonl", "-o", "{t}/notes.md/report.md"], "is a file, not a folder"),
        (["merge", "{t}/r.jsonl", "-o", "{t}/" + "x" * 300], "give another path"),
        (["init", "{t}/notes.md", "--target-name", "fw"], "is a file, not a folder"),
    ],
)
def test_every_command_refuses_an_output_it_must_not_write(
    tmp_path: Path,
    inputs: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    says: str,
) -> None:
    _refused(tmp_path, argv, says, capsys)


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
@pytest.mark.parametrize(
    "argv",
    [
        ["deviations", "{t}/r.jsonl", "--target", "reference", "-o", "{t}/alias"],
        ["compare", "{t}/r2.jsonl", "{t}/r.jsonl", "-o", "{t}/alias"],
        ["merge", "{t}/r.jsonl", "-o", "{t}/alias"],
        ["report", "{t}/r.jsonl", "-o", "{t}/alias"],
        ["diff", "{t}/r2.jsonl", "{t}/r.jsonl", "-o", "{t}/alias"],
    ],
)
def test_an_input_reached_through_a_link_is_still_an_input(
    tmp_path: Path,
    inputs: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    link: str,
    argv: list[str],
) -> None:
    alias = tmp_path / "alias"
    (os.symlink if link == "symlink" else os.link)(inputs["r"], alias)
    _refused(tmp_path, argv, "is an input of this run", capsys)


def test_the_output_is_checked_before_any_work(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad output stops the command before it reads its (here broken) input: the user learns
    of the output path first, not after a long read."""
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n", encoding="utf-8")
    assert main(["merge", str(broken), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "is a folder" in err
    assert "broken.jsonl" not in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_output_is_refused(
    tmp_path: Path, inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        for argv in (
            ["report", str(inputs["r"]), "-o", str(locked / "r.md")],
            ["badges", str(inputs["r"]), "-o", str(locked)],
            ["init", str(locked), "--target-name", "fw"],
        ):
            assert main(argv) == 2, argv
            assert "permission denied" in capsys.readouterr().err
    finally:
        locked.chmod(0o755)


def test_a_written_output_is_complete_and_leaves_no_temporary_file(
    tmp_path: Path, inputs: dict[str, Path]
) -> None:
    out = tmp_path / "o" / "d.yaml"
    assert main(["deviations", str(inputs["r"]), "--target", "reference", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith(("target:", "#"))
    assert [p.name for p in out.parent.iterdir()] == ["d.yaml"]


def test_a_results_lock_file_that_is_an_input_stops_the_run(pytester: pytest.Pytester) -> None:
    """`<results>.lock` is truncated when a run starts: `--conformance-results uv` must not
    truncate `uv.lock`."""
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    (pytester.path / "matrix.yaml").write_text(
        (ROOT / "matrix.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (pytester.path / "matrix.lock").write_text("pinned\n", encoding="utf-8")
    run = pytester.runpytest(
        "--conformance-results", "matrix", "--conformance-matrix", "matrix.lock"
    )
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*its lock file*is an input of this run*"])
    assert (pytester.path / "matrix.lock").read_text(encoding="utf-8") == "pinned\n"
