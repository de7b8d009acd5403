"""The committed results folder: results/<target>/<version>.jsonl.gz, imported from complete
runs only, read back by every results reader, a fresh run replacing its stored release."""

from __future__ import annotations

import gzip
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.reports.lines import MetaLine
from conformance.reports.results import ReportError, load_results, read_meta
from conformance.reports.store import import_results, release_files, stored_results
from conformance.running import runlog
from results_data import checks, meta, write

IMAGE = "openai-chat/gpt-4o/image/inline/result"
PAI = "pydantic-ai"


def release(tmp_path: Path, version: str, name: str | None = None, **head: Any) -> Path:
    lines = [
        line | {"target": PAI, "target_version": version} for line in checks(IMAGE, detail="x")
    ]
    path = tmp_path / (name or f"results-{PAI}-{version}.jsonl")
    return write(path, lines, head=meta(**{PAI: version}) | head)


def test_a_complete_run_is_stored_compressed_byte_for_byte(tmp_path: Path) -> None:
    source = release(tmp_path, "2.68.0")
    folder = tmp_path / "results"
    (done,) = import_results([source], folder)
    assert done.stored == folder / PAI / "2.68.0.jsonl.gz"
    assert done.changed
    assert gzip.decompress(done.stored.read_bytes()) == source.read_bytes()
    (again,) = import_results([source], folder)  # no name, no time in the gzip header
    assert not again.changed
    assert stored_results(folder) == [done.stored]
    loaded = load_results([done.stored])  # every reader reads the compressed file
    assert loaded.files[0].meta.targets == {PAI: "2.68.0"}
    assert read_meta(done.stored).targets == {PAI: "2.68.0"}


def test_an_unfinished_run_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    good = release(tmp_path, "2.68.0")
    cut = tmp_path / "results-pydantic-ai-1.85.0.jsonl"
    lines = release(tmp_path, "1.85.0", name="full.jsonl").read_text().splitlines()
    cut.write_text("\n".join(lines[:-1]) + "\n")  # the end line is missing
    folder = tmp_path / "results"
    with pytest.raises(ReportError, match="no end line"):
        import_results([good, cut], folder)
    assert not folder.exists()
    skipped: list[str] = []
    (done,) = import_results([good, cut], folder, skipped=skipped)
    assert done.stored.name == "2.68.0.jsonl.gz"
    assert len(skipped) == 1
    assert "results-pydantic-ai-1.85.0.jsonl" in skipped[0]


def test_a_run_of_two_targets_is_refused(tmp_path: Path) -> None:
    lines = checks(IMAGE)  # the reference's, beside a pydantic-ai target declared in meta
    path = write(tmp_path / "r.jsonl", lines, head=meta(reference="0.1.0", **{PAI: "2.0.0"}))
    with pytest.raises(ReportError, match="one target's release per file"):
        import_results([path], tmp_path / "results")


def test_a_version_that_is_no_file_name_is_refused(tmp_path: Path) -> None:
    source = release(tmp_path, "../../etc", name="odd.jsonl")
    with pytest.raises(ReportError, match="not a plain file name"):
        import_results([source], tmp_path / "results")


def test_a_damaged_gzip_file_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl.gz"
    path.write_bytes(gzip.compress(release(tmp_path, "1.0.0").read_bytes())[:40])
    with pytest.raises(ReportError, match=r"x\.jsonl\.gz: not a gzip file, or cut short"):
        load_results([path])


def test_a_fresh_run_replaces_its_stored_release(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    import_results([release(tmp_path, "2.68.0"), release(tmp_path, "1.85.0")], folder)
    fresh = release(tmp_path, "2.68.0", name="fresh.jsonl")
    reference = write(tmp_path / "results.jsonl", checks(IMAGE))
    chosen, notes = release_files(stored_results(folder), [reference, fresh])
    assert chosen == [reference, fresh, folder / PAI / "1.85.0.jsonl.gz"]
    assert len(notes) == 1
    assert "run afresh" in notes[0]


def test_cli_imports_and_compares_from_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    old, new = release(tmp_path, "1.85.0"), release(tmp_path, "2.68.0")
    assert main(["import-results", str(old), str(new), "--into", str(folder)]) == 0
    assert "imported:" in capsys.readouterr().out
    reference = write(tmp_path / "results.jsonl", checks(IMAGE))
    out = tmp_path / "compare.md"
    assert main(["compare", str(reference), "--results-dir", str(folder), "-o", str(out)]) == 0
    assert "- pydantic-ai: 1.85.0 → 2.68.0" in out.read_text(encoding="utf-8")


def test_the_meta_line_names_the_suites_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    runlog.suite_commit.cache_clear()
    monkeypatch.setenv("CONFORMANCE_SUITE_COMMIT", "0123abc")
    try:
        line = runlog.meta_line("0.1.0", Path("m.yaml"), "d", {"x": "1"})
    finally:
        runlog.suite_commit.cache_clear()
    assert line["suite_commit"] == "0123abc"
    assert list(line)[:3] == ["kind", "suite_version", "suite_commit"]
    parsed = json.loads(json.dumps(line))
    assert parsed["suite_commit"] == "0123abc"


def test_the_meta_line_names_the_hypothesis_that_drew_the_histories() -> None:
    line = runlog.meta_line("0.1.0", Path("m.yaml"), "d", {"x": "1"})
    assert line["hypothesis"] == version("hypothesis")
    assert MetaLine.model_validate(line).hypothesis == version("hypothesis")
