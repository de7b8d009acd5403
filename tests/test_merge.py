"""`conformance merge`: shards of one run join into one file; any conflict is refused."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from conformance.adoption.init import gated
from conformance.cli import main
from conformance.judging.levels import LEVELS, level_of
from conformance.reports import shards
from conformance.reports.lines import Results
from conformance.reports.results import ReportError, load_results
from conformance.reports.shards import check_shards
from results_data import CELL, checks, meta, result, write

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

OTHER = "anthropic/claude-4/image/inline/result"


def merge(tmp_path: Path, *shards: Path) -> tuple[int, Path]:
    out = tmp_path / "merged.jsonl"
    return main(["merge", *map(str, shards), "-o", str(out)]), out


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], *shards: Path) -> list[str]:
    """Merge must exit 2 and write nothing; returns its problems, one per line."""
    status, out = merge(tmp_path, *shards)
    err = capsys.readouterr().err
    assert status == 2
    assert not out.exists()
    assert "Traceback" not in err
    return err.splitlines()


def test_good_shards_merge_into_one_file(tmp_path: Path) -> None:
    one = write(tmp_path / "one.jsonl", checks(CELL))
    later = meta(**{"pydantic-ai": "1.2.3"}) | {"date": "2026-11-30T06:30:00+00:00"}
    two = write(
        tmp_path / "two.jsonl",
        checks(OTHER, target="pydantic-ai", target_version="1.2.3"),
        head=later,
    )
    status, out = merge(tmp_path, one, two)
    assert status == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["kind"] for line in lines] == ["meta"] + ["result"] * 12 + ["end"]
    assert lines[0]["targets"] == {"reference": "0.1.0", "pydantic-ai": "1.2.3"}
    assert lines[0]["date"] == "2026-11-30T06:30:00+00:00"
    assert lines[-1] == {"kind": "end", "results": 12}
    # Lines written before levels get their check's level on the way through.
    assert lines[1:-1] == [
        line | {"level": level_of(line["check"])}
        for line in [*checks(CELL), *checks(OTHER, target="pydantic-ai", target_version="1.2.3")]
    ]
    merged = load_results([out])  # the merged file loads on its own
    assert len(merged.files[0].results) == 12


def test_a_line_is_written_as_it_was_read(tmp_path: Path) -> None:
    """A cell line the plugin wrote (with its level) comes out byte for byte as it went in,
    whatever order its fields were in, non-ASCII text as it is; a shard with CRLF line ends
    gives plain lines; a line without its level is written again, with it."""
    leveled = [line | {"level": level_of(line["check"])} for line in checks(CELL)]
    reordered = {"level": "required", **result(OTHER, "no-silent-loss", detail="naïve ✓")}
    one = write(tmp_path / "one.jsonl", leveled)
    two = tmp_path / "two.jsonl"
    lines = [meta(), reordered, result(OTHER, "outcome"), {"kind": "end", "results": 2}]
    two.write_bytes(b"".join(json.dumps(x, ensure_ascii=False).encode() + b"\r\n" for x in lines))
    status, out = merge(tmp_path, one, two)
    assert status == 0
    written = out.read_text(encoding="utf-8").split("\n")
    read = one.read_text(encoding="utf-8").splitlines()[1:-1]
    assert written[1:7] == read
    assert written[7] == json.dumps(reordered, ensure_ascii=False)
    assert json.loads(written[8]) == result(OTHER, "outcome") | {"level": "reference"}
    assert "\r" not in out.read_text(encoding="utf-8")
    assert len(load_results([out]).files[0].results) == 8


def test_shards_splitting_one_cell_merge(tmp_path: Path) -> None:
    six = checks(CELL)
    one = write(tmp_path / "one.jsonl", six[:3])
    two = write(tmp_path / "two.jsonl", six[3:])
    status, out = merge(tmp_path, one, two)
    assert status == 0
    assert (
        load_results([out]).files[0].results
        == load_results([write(tmp_path / "a.jsonl", six)]).files[0].results
    )


def test_different_matrix_digest_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    other = meta() | {"matrix_digest": "sha256:" + "cd" * 32}
    two = write(tmp_path / "two.jsonl", [result(OTHER)], head=other)
    assert refused(tmp_path, capsys, one, two) == [
        f"{two}:1: matrix_digest 'sha256:{'cd' * 32}' differs from 'sha256:{'ab' * 32}' in {one}"
    ]


def test_different_suite_version_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result(OTHER)], head=meta() | {"suite_version": "0.2.0"})
    assert refused(tmp_path, capsys, one, two) == [
        f"{two}:1: suite_version '0.2.0' differs from '0.1.0' in {one}"
    ]


def test_different_python_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result(OTHER)], head=meta() | {"python": "3.13.1"})
    assert refused(tmp_path, capsys, one, two) == [
        f"{two}:1: python '3.13.1' differs from '3.11.7' in {one}"
    ]


def test_target_with_two_versions_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(
        tmp_path / "two.jsonl",
        [result(OTHER, target_version="0.2.0")],
        head=meta(reference="0.2.0"),
    )
    assert refused(tmp_path, capsys, one, two) == [
        f"{two}:1: target 'reference' is version '0.2.0' here but '0.1.0' in {one}"
    ]


def test_duplicate_cell_and_check_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result(check="snapshot"), result()])
    two = write(tmp_path / "two.jsonl", [result(OTHER), result(verdict="fail", outcome="dropped")])
    assert refused(tmp_path, capsys, one, two) == [
        f"{two}:3: duplicate result for target 'reference', cell '{CELL}', check 'outcome'"
        f" (first at {one}:3)"
    ]


def test_the_same_shard_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    assert refused(tmp_path, capsys, one, one) == [f"{one}: given more than once"]


def _no_end_line(text: str) -> str:
    return text.rsplit("\n", 2)[0] + "\n"


def _cut_mid_line(text: str) -> str:
    return text[: text.rindex('{"kind": "end"') + 10]


def _wrong_count(text: str) -> str:
    return text.replace('"results": 2', '"results": 3')


@pytest.mark.parametrize(
    ("cut", "problem"),
    [
        (_no_end_line, "no end line after line 3"),
        (_cut_mid_line, "not valid JSON"),
        (_wrong_count, "the end line counts 3"),
    ],
    ids=["no-end-line", "cut-mid-line", "wrong-count"],
)
def test_truncated_shard_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cut: Callable[[str], str], problem: str
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result(OTHER), result(OTHER, check="snapshot")])
    two.write_text(cut(two.read_text(encoding="utf-8")), encoding="utf-8")
    [line] = refused(tmp_path, capsys, one, two)
    assert line.startswith(f"{two}:")
    assert problem in line
    assert "truncated" in line


def test_every_problem_is_reported_on_its_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(
        tmp_path / "two.jsonl",
        [result(target_version="0.2.0"), result(OTHER, target_version="0.2.0")],
        head=meta(reference="0.2.0") | {"suite_version": "0.2.0"},
    )
    three = write(tmp_path / "three.jsonl", [result()])
    three.write_text(three.read_text(encoding="utf-8").rsplit("\n", 2)[0] + "\n")
    problems = refused(tmp_path, capsys, one, two, three)
    assert problems[0].startswith(f"{three}: no end line")
    assert problems[1:] == [
        f"{two}:1: suite_version '0.2.0' differs from '0.1.0' in {one}",
        f"{two}:1: target 'reference' is version '0.2.0' here but '0.1.0' in {one}",
        f"{two}:2: duplicate result for target 'reference', cell '{CELL}', check 'outcome'"
        f" (first at {one}:2)",
    ]


def test_cells_whose_checks_disagree_across_shards_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write(tmp_path / "one.jsonl", [result(check="snapshot")])
    two = write(tmp_path / "two.jsonl", [result(outcome="dropped", verdict="fail")])
    [line] = refused(tmp_path, capsys, one, two)
    assert line == (
        f"target 'reference', cell '{CELL}': checks observed different outcomes"
        " ['fallback-marked', 'dropped']"
    )


def _counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the shard checks that really run (`check_shards` skips a `Results` it checked)."""
    calls: list[int] = []
    check = shards._check_shards  # pyright: ignore[reportPrivateUsage]

    def counted(results: object) -> None:
        calls.append(1)
        check(results)  # pyright: ignore[reportArgumentType]

    monkeypatch.setattr(shards, "_check_shards", counted)
    return calls


def test_merge_checks_its_shards_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting_checks(monkeypatch)
    one = write(tmp_path / "one.jsonl", [result(check="snapshot")])
    two = write(tmp_path / "two.jsonl", [result(OTHER)])
    assert merge(tmp_path, one, two)[0] == 0
    assert len(calls) == 1  # load_results, check_report and merge_results


def test_results_checked_once_are_checked_again_when_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `Results` put together again (not by `load_results`) is checked: a duplicate in it is
    refused even though each of its files was checked alone."""

    calls = _counting_checks(monkeypatch)
    one = write(tmp_path / "one.jsonl", [result()])
    two = write(tmp_path / "two.jsonl", [result()])
    alone = [load_results([path]) for path in (one, two)]
    assert len(calls) == 2
    check_shards(gated(alone[0], LEVELS))  # lines of a checked one: no new check
    assert len(calls) == 2
    together = Results(files=[results.files[0] for results in alone])
    with pytest.raises(ReportError, match="duplicate result for target 'reference'"):
        check_shards(gated(together, LEVELS))
    with pytest.raises(ReportError, match="duplicate result for target 'reference'"):
        check_shards(together)
    assert len(calls) == 4


def test_merge_keeps_the_hypothesis_version_its_shards_share_and_only_that(
    tmp_path: Path,
) -> None:
    # The version that drew the property searches' histories: another version draws others.
    drew = meta() | {"hypothesis": "6.170.17"}
    one = write(tmp_path / "one.jsonl", [result()], head=drew)
    two = write(tmp_path / "two.jsonl", [result(OTHER)], head=drew)
    status, out = merge(tmp_path, one, two)
    assert status == 0
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["hypothesis"] == "6.170.17"
    other = write(
        tmp_path / "other.jsonl", [result(OTHER)], head=meta() | {"hypothesis": "6.171.0"}
    )
    out.unlink()
    status, out = merge(tmp_path, one, other)
    assert status == 0
    assert "hypothesis" not in json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    out.unlink()
    status, out = merge(tmp_path, one, write(tmp_path / "old.jsonl", [result(OTHER)]))
    assert status == 0  # a shard older than the field says nothing of its draws
    assert "hypothesis" not in json.loads(out.read_text(encoding="utf-8").splitlines()[0])
