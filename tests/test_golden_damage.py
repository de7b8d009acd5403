"""Damaged golden data is a failure everywhere: a media blob of `snapshots/<target>/_media/`
with one changed bit, a missing or an unused blob, or a snapshot that does not parse becomes
failing results lines (or, for what no judged cell names, the end line's `golden`, which every
reader refuses), so that the results file, `report`, `diff` and the main job's gate all fail;
never "complete, all pass"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.recording.media import blob_path, references

ROOT = Path(__file__).resolve().parent.parent
ROW = "openai-chat/gpt-6"
SNAPSHOT = "snapshots/reference/openai-chat/gpt-6.image.inline.result.json"


@pytest.fixture
def project(project: pytest.Pytester) -> pytest.Pytester:
    """The conftest project with its own copy of the reference's committed snapshots."""
    shutil.copytree(ROOT / "snapshots/reference", project.path / "snapshots/reference")
    return project


def _run(project: pytest.Pytester, name: str, *selection: str) -> tuple[int, list[dict[str, Any]]]:
    """The main job's pytest run, on the selected cells: the results file and the exit."""
    run = project.runpytest(
        "-p", "no:cacheprovider", "-m", "conformance", "--conformance-results", name,
        "--conformance-property-examples", "0", "-k", " or ".join(selection),
    )  # fmt: skip
    lines = (project.path / name).read_text(encoding="utf-8").splitlines()
    return int(run.ret), [json.loads(line) for line in lines]


def _failed(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the main job's gate (`nox -s conformance`) counts as failed."""
    return [r for r in lines if r.get("kind") == "result" and r["verdict"] in {"fail", "xpass"}]


def _blob(project: pytest.Pytester) -> Path:
    """The first media blob the image cell's snapshot names."""
    value = json.loads((project.path / SNAPSHOT).read_text(encoding="utf-8"))
    return blob_path(project.path / "snapshots/reference/_media", next(references(value)))


def test_one_changed_bit_of_a_blob_fails_the_results_report_and_diff(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    selection = (f"{ROW}/image/inline/result and snapshot",)
    status, clean = _run(project, "base.jsonl", *selection)
    assert status == 0
    assert not _failed(clean)
    blob = _blob(project)
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 1
    blob.write_bytes(bytes(data))
    status, lines = _run(project, "head.jsonl", *selection)
    assert status == 1
    assert lines[-1]["status"] == "complete"  # the run went through, and says what failed:
    failed = _failed(lines)
    assert [r["check"] for r in failed] == ["snapshot"]
    assert failed[0]["cell"] == f"{ROW}/image/inline/result"
    # shown relative to the project, as every detail is (nothing of the machine in results)
    assert f"damaged media blob {blob.relative_to(project.path)}" in failed[0]["detail"]
    assert "git checkout" in failed[0]["detail"]
    head, base = str(project.path / "head.jsonl"), str(project.path / "base.jsonl")
    assert main(["report", head]) == 0
    assert "damaged media blob" in capsys.readouterr().out
    assert main(["diff", "--gate", "reference", base, head]) == 1  # the snapshot check's level
    assert "snapshot" in capsys.readouterr().out


def test_a_damaged_blob_of_a_cell_not_judged_and_an_unused_blob_are_refused_by_readers(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    blob = _blob(project)
    blob.write_bytes(b"not the image")
    unused = blob.with_name("ab" * 32 + ".png")
    unused.write_bytes(b"an image no snapshot names")
    status, lines = _run(project, "r.jsonl", f"{ROW}/text/inline/result and outcome")
    assert status == 1
    assert not _failed(lines)  # no judged cell names the blob: the end line does
    golden = "\n".join(lines[-1]["golden"])
    assert f"damaged media blob (digest or size differs): {blob}" in golden
    assert f"unused media blob: {unused}" in golden
    for argv in (["report"], ["merge"], ["diff", str(project.path / "r.jsonl")]):
        assert main([*argv, str(project.path / "r.jsonl")]) == 2
        err = capsys.readouterr().err
        assert "damaged golden data" in err
        assert unused.name in err


def test_a_missing_blob_fails_its_cells(project: pytest.Pytester) -> None:
    blob = _blob(project)
    blob.unlink()
    status, lines = _run(project, "r.jsonl", f"{ROW}/image/inline/result and snapshot")
    assert status == 1
    (failed,) = _failed(lines)
    assert f"missing media blob {blob.relative_to(project.path)}" in failed["detail"]


def test_a_snapshot_that_does_not_parse_fails_with_its_location(project: pytest.Pytester) -> None:
    path = project.path / SNAPSHOT
    path.write_text(path.read_text(encoding="utf-8")[:-40], encoding="utf-8")
    status, lines = _run(project, "r.jsonl", f"{ROW}/image/inline/result and snapshot")
    assert status == 1
    (failed,) = _failed(lines)
    assert f"{path.relative_to(project.path)}:" in failed["detail"]
    assert "does not parse as JSON" in failed["detail"]


def test_a_cassette_that_does_not_parse_fails_with_its_path(project: pytest.Pytester) -> None:
    shutil.copytree(ROOT / "cassettes/reference", project.path / "cassettes/reference")
    (path,) = (project.path / "cassettes/reference/openai-chat").glob("gpt-6.image.inline.result.*")
    path.write_text("interactions:\n- request: [unclosed\n", encoding="utf-8")
    project.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_cassettes = cassettes\n"
    )
    status, lines = _run(project, "r.jsonl", f"{ROW}/image/inline/result and cassette")
    assert status == 1
    (failed,) = _failed(lines)
    assert failed["check"] == "cassette"
    assert path.name in failed["detail"]
    assert "not a readable cassette" in failed["detail"]
