"""The fast path of reading results agrees with the validating path it stands in for.

`conformance.reports.results` reads a cell line as `ResultLine`'s fields and checks the rules across
fields itself (`_FastResults`), and assembles report and diff models without validating them
again (`construct_trusted`). These tests pin that every line the fast path accepts is the
model validation makes, every line validation refuses the fast path leaves to it (so the
error is the validating path's, word for word), and every model assembled without validation
is one validation accepts unchanged.
"""

from __future__ import annotations

import gc
import json
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel

from conformance.cli import main
from conformance.reports import results, shards
from conformance.reports.diff import CellSide, diff_reports
from conformance.reports.report import CellReport, CheckReport, Report, build_report
from conformance.reports.results import ReportError, ResultLine, load_results, merge_results
from results_data import ALL_PASS, LINK, checks, meta, result, write

if TYPE_CHECKING:
    from pathlib import Path

TARGETS = {"reference": "0.1.0", "other": "2.0"}
URL_CELL = "openai-chat/gpt-4o/image/url/result"
FastResults = results._FastResults  # pyright: ignore[reportPrivateUsage]
from conformance.reports.lines import LINE  # noqa: E402

parse = results._parse  # pyright: ignore[reportPrivateUsage]
result_record = shards._result_record  # pyright: ignore[reportPrivateUsage]

GOOD: list[dict[str, Any]] = [
    result(),
    result(check="snapshot", detail="a detail with ✅, a tab\t and a newline\n"),
    result(verdict="fail", outcome="dropped", detail="the image is gone"),
    result(verdict="xfail", reason="a known deviation", link=LINK),
    result(verdict="xpass", reason="it no longer happens", link=None),
    result(verdict="skip", detail="the API has no such block", outcome=None),
    result(level="required"),
    result(level=None),
    {k: v for k, v in result(check="no-silent-loss").items() if k != "level"},
    result(check="my-own-check", level="recommended"),
    result(URL_CELL, url="sent-url"),
    result(URL_CELL, url=None, notes="our own note"),
    result(notes=None),
    result(live={"accepted": True, "date": "2026-11-30"}),
    result(live=None),
    result(target="other", target_version="2.0"),
    result(expect="unsupported", outcome="raised", known="uncertain"),
    result(verdict="skip", outcome=None, detail="n/a (style:result): none", na="declared"),
    result(verdict="skip", outcome=None, detail="no such model here", na="unserved"),
    result(na=None),
]
"""Lines validation accepts, each unusual in its own way."""


def _raw(line: dict[str, Any]) -> bytes:
    return json.dumps(line, ensure_ascii=False).encode("utf-8")


def _validated(raw: bytes) -> ResultLine:
    model = LINE.validate_json(raw)
    assert isinstance(model, ResultLine)
    return model


@pytest.mark.parametrize("line", GOOD)
def test_a_line_read_fast_is_the_model_validation_makes(line: dict[str, Any]) -> None:
    raw = _raw(line)
    fast = FastResults(TARGETS, None).line(raw)
    slow = _validated(raw)
    if "live" in line and line["live"] is not None:
        assert fast == slow or fast is None
    else:
        assert fast is not None, "a line the plugin writes takes the fast path"
    if fast is not None:
        assert fast == slow
        assert list(fast.__dict__) == list(slow.__dict__)  # the order model_dump follows
        assert fast.model_dump_json() == slow.model_dump_json()
        assert fast.model_fields_set == slow.model_fields_set


def _mutations() -> list[tuple[str, dict[str, Any]]]:
    """Every field of a line set to values of every wrong kind, removed, and one added."""
    base = result(URL_CELL, check="snapshot", url="sent-url", notes="n", level="reference")
    odd: list[Any] = ["", "nonsense", None, 0, 1.5, True, [], ["x"], {"a": 1}]
    out: list[tuple[str, dict[str, Any]]] = []
    for name in base:
        out += [(f"{name}={value!r}", base | {name: value}) for value in odd]
        out.append((f"no {name}", {k: v for k, v in base.items() if k != name}))
    out += [
        ("extra field", base | {"extra": 1}),
        ("a property's field", base | {"property": "media-exactly-once"}),
        ("xfail without reason", base | {"verdict": "xfail", "reason": None}),
        ("xfail with an empty reason", base | {"verdict": "xfail", "reason": ""}),
        ("skip without detail", base | {"verdict": "skip", "detail": ""}),
        ("cell of another source", base | {"source": "inline"}),
        ("row of another api", base | {"api": "anthropic"}),
        ("unknown check without level", base | {"check": "mine", "level": None}),
        ("live not a record", base | {"live": {"accepted": "maybe", "date": "2026-11-30"}}),
        ("live with a bad date", base | {"live": {"accepted": True, "date": "yesterday"}}),
        ("target not declared", base | {"target": "litellm"}),
        ("version not declared", base | {"target_version": "9.9"}),
        ("n/a on a pass", base | {"na": "declared"}),
        ("n/a on a fail", base | {"na": "unserved", "verdict": "fail"}),
        ("n/a of an unknown kind", base | {"na": "mine", "verdict": "skip", "detail": "d"}),
    ]
    return out


MUTATIONS = _mutations()


@pytest.mark.parametrize(("name", "line"), MUTATIONS, ids=[name for name, _ in MUTATIONS])
def test_the_fast_path_leaves_every_refused_line_to_validation(
    name: str, line: dict[str, Any]
) -> None:
    raw = _raw(line)
    fast = FastResults(TARGETS, None).line(raw)
    try:
        slow = _validated(raw)
    except ValueError:
        assert fast is None, f"{name}: the fast path accepted a line validation refuses"
        return
    if line.get("target") == "litellm" or line.get("target_version") == "9.9":
        assert fast is None, "a target the meta line does not declare is the loader's error"
    elif fast is not None:
        assert fast == slow
        assert fast.model_dump_json() == slow.model_dump_json()


def _validating(raw: str, where: str) -> object:
    """What the validating path makes of a line: its model, or its error's message."""
    try:
        return parse(raw, where, cut=False)
    except ReportError as error:
        return str(error)


@pytest.mark.parametrize(("name", "line"), MUTATIONS, ids=[name for name, _ in MUTATIONS])
def test_a_bad_line_among_good_ones_is_refused_with_the_validating_paths_message(
    tmp_path: Path, name: str, line: dict[str, Any]
) -> None:
    path = write(
        tmp_path / "r.jsonl",
        [result(check="outcome"), line, result(check="text-identical")],
        head=meta(**TARGETS),
    )
    expected = _validating(_raw(line).decode("utf-8"), f"{path}:3")
    if isinstance(expected, str):
        with pytest.raises(ReportError) as raised:
            load_results([path])
        assert str(raised.value) == expected, name
        return
    assert isinstance(expected, ResultLine)
    if expected.target not in TARGETS or TARGETS[expected.target] != expected.target_version:
        with pytest.raises(ReportError, match=r"r\.jsonl:3: target .* is not declared"):
            load_results([path])
    else:
        (file,) = load_results([path]).files
        assert file.results[1] == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", ":3: not valid JSON (Invalid JSON: key must be a string"),
        ("", ":3: an empty line"),
        ("\u00a0 ", ":3: an empty line"),  # no ASCII whitespace, but whitespace all the same
        ('"a string"', ":3: not a valid record: "),
        ("[]", ":3: not a valid record: "),
        (json.dumps(meta()), ":3: a second meta line"),
    ],
)
def test_lines_that_are_no_cell_line_keep_their_messages(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = write(tmp_path / "r.jsonl", [result(check="outcome"), result(check="snapshot")])
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] = text
    path.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(ReportError) as raised:
        load_results([path])
    assert str(raised.value).startswith(f"{path}{problem}")


def test_a_line_after_the_end_line_is_named(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", [result()])
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(result(check="snapshot")) + "\n")
    with pytest.raises(ReportError, match=rf"^{path}:4: a line after the end line$"):
        load_results([path])


def _write_utf8(path: Path, results: list[dict[str, Any]]) -> Path:
    """A complete results file with its text in UTF-8, not escaped."""
    lines = [meta(), *results, {"kind": "end", "results": len(results)}]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_file_not_in_utf8_names_the_byte(tmp_path: Path) -> None:
    path = _write_utf8(tmp_path / "r.jsonl", [result(detail="caf\u00e9")])
    data = path.read_bytes()
    at = data.index("\u00e9".encode())
    path.write_bytes(data[:at] + b"\xe9" + data[at + 2 :])
    with pytest.raises(ReportError) as raised:
        load_results([path])
    assert str(raised.value) == f"{path}: not UTF-8: invalid continuation byte at byte {at}"


def test_a_file_in_utf8_reads_its_text(tmp_path: Path) -> None:
    detail = "caf\u00e9 ✅ \u2028 end"
    path = _write_utf8(tmp_path / "r.jsonl", [result(detail=detail), result(check="snapshot")])
    assert not path.read_bytes().isascii()
    (file,) = load_results([path]).files
    assert [line.detail for line in file.results] == [detail, ""]


@pytest.mark.parametrize("line", GOOD)
def test_a_merged_line_is_the_lines_json_form(line: dict[str, Any]) -> None:
    model = _validated(_raw(line))
    expected = model.model_dump(mode="json")  # what merge wrote before the fast path
    for optional in ("live", "level", "url", "notes", "na"):
        if getattr(model, optional) is None:
            expected.pop(optional)
    assert result_record(model) == expected
    assert list(result_record(model)) == list(expected)


def _varied(tmp_path: Path) -> Path:
    cells = [
        *ALL_PASS,
        *checks("openai-chat/gpt-4o/document/inline/result", "xfail", reason="known", link=LINK),
        *checks("openai-chat/gpt-4o/video/inline/result", "skip", detail="no video"),
        *checks(URL_CELL, url="sent-url", notes="n", live={"accepted": True, "date": "2026-11-30"}),
        *[
            line | {"target": "other", "target_version": "2.0"}
            for line in checks("anthropic/claude-4/image/inline/result", "fail", detail="lost")
        ],
    ]
    return write(tmp_path / "r.jsonl", cells, head=meta(**TARGETS))


def test_report_models_assembled_without_validation_are_valid(tmp_path: Path) -> None:
    report = build_report(load_results([_varied(tmp_path)]))
    assert Report.model_validate_json(report.model_dump_json()) == report
    cells = [c for t in report.targets for r in t.rows for ct in r.content_types for c in ct.cells]
    assert len(cells) == 8
    for cell in cells:
        assert CellReport.model_validate(cell.model_dump()) == cell
        assert CellReport.model_validate(cell.model_dump()).model_dump_json() == (
            cell.model_dump_json()
        )
        for check in cell.checks:
            assert CheckReport.model_validate(check.model_dump()) == check


def test_diff_sides_assembled_without_validation_are_valid(tmp_path: Path) -> None:
    report = build_report(load_results([_varied(tmp_path)]))
    diff = diff_reports(report, report)
    assert diff.unchanged == 8
    worse = report.model_copy(update={"targets": report.targets[1:]})
    removed = diff_reports(report, worse).changes
    assert removed
    for change in removed:
        assert change.base is not None
        assert CellSide.model_validate(change.base.model_dump()) == change.base


def test_lines_read_fast_share_fields_sets_that_pydantic_copies_before_changing(
    tmp_path: Path,
) -> None:
    (file,) = load_results([write(tmp_path / "r.jsonl", ALL_PASS)]).files
    first, second = file.results[:2]
    before = set(second.model_fields_set)
    changed = first.model_copy(update={"detail": "changed"})
    assert changed.model_fields_set >= {"detail"}
    assert second.model_fields_set == before


def test_a_merge_of_lines_read_fast_reads_back_the_same(tmp_path: Path) -> None:
    path = _varied(tmp_path)
    merged = tmp_path / "merged.jsonl"
    merged.write_text(merge_results(load_results([path])), encoding="utf-8")
    again = load_results([merged])
    assert again.files[0].results == load_results([path]).files[0].results


def test_the_cycle_collector_is_on_again_after_a_command(tmp_path: Path) -> None:
    path = write(tmp_path / "r.jsonl", ALL_PASS)
    assert gc.isenabled()
    assert main(["report", str(path), "-o", str(tmp_path / "r.md")]) == 0
    assert gc.isenabled()
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2  # and after an error
    assert gc.isenabled()


def test_lines_known_from_another_file_are_judged_by_their_own_file(tmp_path: Path) -> None:
    base = write(tmp_path / "base.jsonl", ALL_PASS)
    changed = [*ALL_PASS[:-1], ALL_PASS[-1] | {"verdict": "fail", "detail": "lost"}]
    head = write(tmp_path / "head.jsonl", changed)
    known: dict[bytes, ResultLine] = {}
    assert load_results([base], known=known) == load_results([base])
    assert len(known) == len(ALL_PASS)
    assert load_results([head], known=known) == load_results([head])
    other = write(tmp_path / "other.jsonl", ALL_PASS, head=meta(other="1.0"))
    with pytest.raises(ReportError) as raised:
        load_results([other], known=known)
    with pytest.raises(ReportError) as alone:
        load_results([other])
    assert "other.jsonl:2: target 'reference' '0.1.0' is not declared" in str(raised.value)
    assert str(raised.value) == str(alone.value)


@pytest.mark.parametrize("model", [ResultLine, CheckReport, CellReport, CellSide])
def test_the_models_assembled_without_validation_have_nothing_construct_trusted_skips(
    model: type[BaseModel],
) -> None:
    """`construct_trusted` sets no private attributes and calls no `model_post_init`."""
    assert not model.__private_attributes__
    assert model.__pydantic_post_init__ is None
    assert model.model_config.get("extra") == "forbid"
    assert model.model_config.get("frozen")
