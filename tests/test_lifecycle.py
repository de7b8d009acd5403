"""Model lifecycle: dated rows and citations, `conformance check` warnings, and the report's marks.

A row names a model id a provider will retire: `check` warns within 60 days of the row's
shutdown and fails once it is past, relative to the matrix's `as_of` or to `--today`; the
report shows `as_of` and marks rows near or past shutdown. The matrices here are
tests/data/bad_matrix/valid.yaml (as_of 2026-12-01) with lifecycle dates added.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.matrix import (
    WARN_DAYS,
    MatrixError,
    lifecycle_findings,
    load_matrix,
    row_status,
)
from conformance.reports.html import render_html
from conformance.reports.markdown import render_markdown
from conformance.reports.report import build_report
from conformance.reports.results import load_results, merge_results
from results_data import checks, meta, write

ROOT = Path(__file__).resolve().parent.parent
VALID = ROOT / "tests" / "data" / "bad_matrix" / "valid.yaml"
RELEASED = "    released: {date: 2024-05-13, cite: c1}\n"
ROW = "openai-chat/gpt-4o"


def with_lifecycle(tmp_path: Path, extra: str, *, name: str = "m.yaml") -> Path:
    """valid.yaml with `extra` row lines after its `released` line."""
    text = VALID.read_text(encoding="utf-8")
    assert RELEASED in text
    path = tmp_path / name
    path.write_text(text.replace(RELEASED, RELEASED + extra), encoding="utf-8")
    return path


def shutdown_on(tmp_path: Path, day: str) -> Path:
    return with_lifecycle(
        tmp_path,
        "    deprecated: {date: 2026-10-14, cite: c1}\n"
        f"    shutdown: {{date: {day}, cite: c1}}\n",
    )


def run_check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`conformance check` from the matrix's own folder: a project's deviations files (this
    repository's, from its root) are judged against the project's matrix, not this one."""
    where = Path(args[0]).parent if args else Path.cwd()
    previous = Path.cwd()
    os.chdir(where)
    try:
        code = cli.main(["check", *args])
    finally:
        os.chdir(previous)
    out = capsys.readouterr()
    return code, out.out, out.err


# --- conformance check ----------------------------------------------------------------------


def test_check_warns_on_a_row_within_60_days_of_shutdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shutdown_on(tmp_path, "2027-01-14")
    code, out, err = run_check([str(path)], capsys)
    assert code == 0
    assert out == f"{path}: 1 model rows, 10 cells, valid, 1 near shutdown\n"
    line = next(n for n, t in enumerate(path.read_text().splitlines(), 1) if "shutdown:" in t)
    assert err.startswith(f"{path}:{line}:")
    assert (
        ": warning: row 'openai-chat/gpt-4o' names 'gpt-4o', which shuts down on 2027-01-14" in err
    )
    assert "44 days after as_of 2026-12-01" in err


def test_check_fails_on_a_row_past_shutdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shutdown_on(tmp_path, "2026-11-30")
    code, out, err = run_check([str(path)], capsys)
    assert code == 2
    assert out == ""
    assert ": error: row 'openai-chat/gpt-4o' names 'gpt-4o', shut down on 2026-11-30" in err
    assert "(1 days before as_of 2026-12-01)" in err


def test_check_is_quiet_beyond_60_days(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = shutdown_on(tmp_path, "2027-06-01")
    assert run_check([str(path)], capsys) == (0, f"{path}: 1 model rows, 10 cells, valid\n", "")


@pytest.mark.parametrize(
    ("shutdown", "status"),
    [
        ("2026-11-30", "past-shutdown"),
        ("2026-12-01", "past-shutdown"),  # requests fail from the shutdown day on
        ("2026-12-02", "near-shutdown"),
        ("2027-01-30", "near-shutdown"),  # 60 days
        ("2027-01-31", "deprecated"),  # 61 days
    ],
)
def test_status_boundaries(tmp_path: Path, shutdown: str, status: str) -> None:
    matrix = load_matrix(shutdown_on(tmp_path, shutdown))
    assert row_status(matrix.row(ROW), matrix.as_of) == status
    assert WARN_DAYS == 60


def test_today_judges_against_another_day(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shutdown_on(tmp_path, "2027-06-01")
    code, _, err = run_check([str(path), "--today", "2027-05-01"], capsys)
    assert code == 0
    assert "31 days after the given day 2027-05-01" in err
    code, _, err = run_check([str(path), "--today", "2027-06-01"], capsys)
    assert code == 2
    assert "(0 days before the given day 2027-06-01)" in err


def test_today_without_a_value_is_the_current_date(tmp_path: Path) -> None:
    path = shutdown_on(tmp_path, "2027-06-01")
    args = cli._parser().parse_args(["check", str(path), "--today"])  # pyright: ignore[reportPrivateUsage]
    assert isinstance(args.today, dt.date)
    assert args.today >= dt.date(2026, 12, 1)


def test_today_rejects_a_non_date(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["check", str(VALID), "--today", "soon"])
    assert "'soon' is not a date; use YYYY-MM-DD" in capsys.readouterr().err


def test_a_row_without_dates_gets_no_finding() -> None:
    matrix = load_matrix(VALID)
    assert row_status(matrix.row(ROW), matrix.as_of) == "active"
    assert lifecycle_findings(matrix) == []


# --- dates and citations in the file ----------------------------------------------------------


def errors_of(path: Path) -> list[str]:
    with pytest.raises(MatrixError) as info:
        load_matrix(path)
    return [str(e) for e in info.value.errors]


def test_dates_must_fall_in_order(tmp_path: Path) -> None:
    path = with_lifecycle(
        tmp_path,
        "    deprecated: {date: 2027-02-01, cite: c1}\n"
        "    shutdown: {date: 2027-01-01, cite: c1}\n",
    )
    [error] = errors_of(path)
    assert (
        "rows.openai-chat/gpt-4o.shutdown.date: shutdown 2027-01-01 is before deprecated" in error
    )


def test_a_lifecycle_date_cites_a_known_source(tmp_path: Path) -> None:
    path = with_lifecycle(tmp_path, "    shutdown: {date: 2027-06-01, cite: c2}\n")
    [error] = errors_of(path)
    assert "rows.openai-chat/gpt-4o.shutdown.cite: unknown citation 'c2'" in error


def test_a_date_must_be_a_date(tmp_path: Path) -> None:
    path = with_lifecycle(tmp_path, "    shutdown: {date: next spring, cite: c1}\n")
    [error] = errors_of(path)
    assert "the string 'next spring' is not a date; write it as YYYY-MM-DD" in error


def test_a_row_is_not_released_after_as_of(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(VALID.read_text().replace("date: 2024-05-13", "date: 2027-01-01"))
    [error] = errors_of(path)
    assert "released 2027-01-01 is after the matrix's as_of 2026-12-01" in error


def test_no_citation_is_read_after_as_of(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(VALID.read_text().replace("read: 2026-11-30", "read: 2026-12-02"))
    [error] = errors_of(path)
    assert error.startswith(f"{path}:5:")
    assert "citations.c1.read: read 2026-12-02, after the matrix's as_of 2026-12-01" in error


def test_a_citation_needs_its_read_date(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(VALID.read_text().replace(", read: 2026-11-30", ""))
    [error] = errors_of(path)
    assert "citations.c1: missing key 'read' — a citation needs url, says and read" in error


def test_served_cites_known_sources(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(VALID.read_text().replace("served: [c1]", "served: [c1, c3]"))
    [error] = errors_of(path)
    assert "rows.openai-chat/gpt-4o.served.1: unknown citation 'c3' in served" in error


# --- the real matrix.yaml ---------------------------------------------------------------------


def test_as_of_is_no_older_than_the_newest_reading() -> None:
    matrix = load_matrix(ROOT / "matrix.yaml")
    newest = max(citation.read for citation in matrix.citations.values())
    assert matrix.as_of >= newest


def test_no_row_is_past_shutdown_on_as_of() -> None:
    matrix = load_matrix(ROOT / "matrix.yaml")
    assert [f.row_id for f in lifecycle_findings(matrix) if f.severity == "error"] == []
    for row in matrix.rows.values():
        assert row.released.date <= matrix.as_of
        assert row.served


# --- the report -------------------------------------------------------------------------------


def lifecycle_head() -> dict[str, Any]:
    return meta() | {
        "as_of": "2026-12-01",
        "lifecycle": {
            "openai-chat/gpt-4o": {"released": "2024-05-13", "shutdown": "2027-01-14"},
            "anthropic/claude-4": {"released": "2025-05-22", "shutdown": "2026-11-30"},
            "gemini/gemini-3": {"released": "2026-09-02"},
        },
    }


ROWS = [
    *checks("openai-chat/gpt-4o/image/inline/result"),
    *checks("anthropic/claude-4/image/inline/result", expect="native", outcome="native"),
    *checks("gemini/gemini-3/image/inline/result", expect="native", outcome="native"),
]


def test_report_shows_as_of_and_marks_rows_near_or_past_shutdown(tmp_path: Path) -> None:
    report = build_report(load_results([write(tmp_path / "r.jsonl", ROWS, head=lifecycle_head())]))
    assert report.as_of == dt.date(2026, 12, 1)
    status = {row.id: row.status for row in report.targets[0].rows}
    assert status == {
        "openai-chat/gpt-4o": "near-shutdown",
        "anthropic/claude-4": "past-shutdown",
        "gemini/gemini-3": "active",
    }
    md = render_markdown(report)
    assert "· matrix as of 2026-12-01" in md.splitlines()[2]
    assert "- ⏳ openai-chat/gpt-4o (`gpt-4o`) shuts down on 2027-01-14" in md
    assert "- ⛔ anthropic/claude-4 (`claude-4`) shut down on 2026-11-30" in md
    assert "| openai-chat/gpt-4o ⏳ |" in md
    assert "| anthropic/claude-4 ⛔ |" in md
    assert "| gemini/gemini-3 |" in md
    html = render_html(report)
    assert "matrix as of 2026-12-01" in html
    assert 'class="lifecycle near" title="shuts down on 2027-01-14"' in html
    assert 'class="lifecycle past" title="shut down on 2026-11-30"' in html


def test_results_without_lifecycle_render_as_before(tmp_path: Path) -> None:
    report = build_report(load_results([write(tmp_path / "r.jsonl", ROWS)]))
    assert report.as_of is None
    md = render_markdown(report)
    assert "as of" not in md
    assert "⏳" not in md
    assert "⛔" not in md


def test_merge_keeps_as_of_and_lifecycle(tmp_path: Path) -> None:
    head = lifecycle_head()
    path = write(tmp_path / "r.jsonl", ROWS, head=head)
    merged = json.loads(merge_results(load_results([path])).splitlines()[0])
    assert merged["as_of"] == head["as_of"]
    assert merged["lifecycle"] == head["lifecycle"]
    plain = json.loads(
        merge_results(load_results([write(tmp_path / "p.jsonl", ROWS)])).split("\n")[0]
    )
    assert "as_of" not in plain
    assert "lifecycle" not in plain


# --- docs/live-verification.md ----------------------------------------------------------------


def test_the_live_verification_plan_lists_every_uncertain_cell() -> None:
    """Each uncertain or third-party result cell has its line, with what settles it."""
    plan = (ROOT / "docs" / "live-verification.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([^`]+/result)` \| ([\w-]+) \|", plan, flags=re.MULTILINE))
    matrix = load_matrix(ROOT / "matrix.yaml")
    doubtful = {
        (c.id, c.expect)
        for c in matrix.cells()
        if c.style == "result" and c.known in ("uncertain", "third-party")
    }
    assert listed == doubtful
    assert "nox -s record -- --live -k" in plan
