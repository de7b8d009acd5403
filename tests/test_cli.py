"""The `conformance` command: check, schema, report; errors without tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.matrix import json_schema

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "data" / "bad_matrix"


def test_check_accepts_the_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(ROOT / "matrix.yaml")]) == 0
    assert "valid" in capsys.readouterr().out


def test_check_reports_a_bad_matrix_with_its_location(capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / "unknown_content_type.yaml"
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:")
    assert "Traceback" not in err


def test_schema_prints_the_generated_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schema()


def test_schema_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "s" / "matrix.schema.json"
    assert main(["schema", "-o", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == json_schema()


def _results(path: Path) -> Path:
    meta = {
        "kind": "meta",
        "suite_version": "0.1.0",
        "matrix": "matrix.yaml",
        "matrix_digest": "sha256:" + "0" * 64,
        "targets": {"reference": "0.1.0"},
        "python": "3.11.7",
        "date": "2026-11-30T05:00:00+00:00",
    }
    line = {
        "kind": "result",
        "target": "reference",
        "target_version": "0.1.0",
        "cell": "cohere/command-a-vision/image/inline/result",
        "row": "cohere/command-a-vision",
        "api": "cohere",
        "model": "command-a-vision-07-2025",
        "content_type": "image",
        "source": "inline",
        "style": "result",
        "expect": "fallback",
        "known": "sdk",
        "cite": "x",
        "check": "outcome",
        "verdict": "fail",
        "outcome": "dropped",
        "detail": "expected fallback-marked, observed dropped",
        "reason": None,
        "link": None,
    }
    rows = [meta, line, {"kind": "end", "results": 1}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_report_markdown_and_json(tmp_path: Path) -> None:
    results = _results(tmp_path / "r.jsonl")
    assert main(["report", str(results), "-o", str(tmp_path / "r.md")]) == 0
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "❌ dropped" in markdown
    assert "expected fallback-marked, observed dropped" in markdown
    assert main(["report", str(results), "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["targets"][0]["name"] == "reference"


def test_report_on_a_truncated_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(tmp_path / "r.jsonl")
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:-1]))
    assert main(["report", str(results)]) == 2
    assert "truncated" in capsys.readouterr().err


def test_report_html_and_badges(tmp_path: Path) -> None:
    results = _results(tmp_path / "r.jsonl")
    out = tmp_path / "report" / "index.html"
    assert main(["report", str(results), "--format", "html", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "cohere/command-a-vision/image/inline/result" in html
    assert main(["badges", str(results), "-o", str(tmp_path / "badges")]) == 0
    badge = json.loads((tmp_path / "badges" / "reference.json").read_text(encoding="utf-8"))
    assert badge == {
        "schemaVersion": 1,
        "label": "reference conformance",
        "message": "0/1 cells",
        "color": "red",
    }


def test_merge_then_diff_against_itself(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = _results(tmp_path / "r.jsonl")
    merged = tmp_path / "merged.jsonl"
    assert main(["merge", str(results), "-o", str(merged)]) == 0
    assert main(["diff", str(results), str(merged)]) == 0
    assert "✅ no regressions" in capsys.readouterr().out


def test_badges_need_an_output_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["badges", "r.jsonl"])
    assert exited.value.code == 2
    assert "-o/--output" in capsys.readouterr().err


def test_html_options_need_the_html_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = _results(tmp_path / "r.jsonl")
    with pytest.raises(SystemExit) as exited:
        main(["report", str(results), "--snapshots", "snapshots"])
    assert exited.value.code == 2
    assert "only apply to --format html" in capsys.readouterr().err
