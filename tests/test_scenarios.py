"""Scenarios and fixtures: two parallel calls whose results differ, text that normalization
changes, fixture files that are real and distinct, URLs on the fixture host, and stored data
that does not depend on the host's port."""

from __future__ import annotations

import importlib.util
import unicodedata
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.history import Message, Text, ToolCall, ToolResult
from conformance.judging.payload import snapshot_text, to_bytes
from conformance.matrix import load_matrix
from conformance.recording.cassettes import Cassettes, Replayer, cassette_path
from conformance.scenarios.build import (
    CALL_IDS,
    ERROR_FIXTURE,
    PROMPT_STYLE_RESULT_TEXT,
    TEXT_FIXTURE,
    TEXT_FIXTURE_2,
    fixture_name,
    fixture_part,
    scenario,
    tool_name,
)
from conformance.scenarios.fixtures import FIXTURE_TYPES, ORIGIN_STAND_IN, fixture_bytes, stand_in
from conformance.targets import resolve_target
from conformance.targets.base import RowRef
from conformance.targets.kit import FixtureHost, fixture_host

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load_matrix(ROOT / "matrix.yaml")
CELLS = list(MATRIX.all_cells())
MEDIA = ("image", "document", "audio", "video")


def _results(history: list[Any]) -> list[ToolResult]:
    return [i for i in history if isinstance(i, ToolResult)]


@pytest.mark.parametrize("cell", CELLS, ids=lambda c: c.id)
def test_every_cell_has_two_parallel_calls_of_its_tool_whose_results_differ(cell: Any) -> None:
    history = scenario(cell.content_type, cell.source, cell.style)
    calls = [i for i in history if isinstance(i, ToolCall)]
    assert [(c.tool_call_id, c.name) for c in calls] == [
        (call_id, tool_name(cell.content_type)) for call_id in CALL_IDS
    ]
    first_result = history.index(_results(history)[0])
    assert history.index(calls[1]) == history.index(calls[0]) + 1 < first_result, "one turn"
    assert [r.tool_call_id for r in _results(history)] == list(CALL_IDS), "results in call order"
    by_call: dict[str, Any] = {}
    for item in history:
        if isinstance(item, ToolResult):
            by_call.setdefault(item.tool_call_id, []).append(
                item.model_dump(exclude={"tool_call_id"})
            )
        elif isinstance(item, Message) and item.source is not None:
            by_call.setdefault(item.source.tool_call_id, []).append(
                item.model_dump(exclude={"source"})
            )
    assert by_call[CALL_IDS[0]] != by_call[CALL_IDS[1]]


@pytest.mark.parametrize("content_type", ["text", *MEDIA])
def test_the_prompt_style_gives_each_call_its_own_provenance_after_the_results(
    content_type: Any,
) -> None:
    history = scenario(content_type, "inline", "prompt")
    assert [r.content for r in _results(history)] == [[Text(text=PROMPT_STYLE_RESULT_TEXT)]] * 2
    produced = [i for i in history if isinstance(i, Message) and i.source is not None]
    assert [(m.source.tool_call_id, m.source.tool_name) for m in produced if m.source] == [
        (call_id, tool_name(content_type)) for call_id in CALL_IDS
    ]
    assert history[-2:] == produced, "tool-produced content follows every tool result"
    assert [m.content for m in produced] == [
        [fixture_part(content_type, "inline", 1)],
        [fixture_part(content_type, "inline", 2)],
    ]


def test_the_error_style_fails_the_first_call_only() -> None:
    first, second = _results(scenario("text", "inline", "error"))
    assert (first.status, first.content) == ("error", [Text(text=ERROR_FIXTURE)])
    assert (second.status, second.content) == ("success", [Text(text=TEXT_FIXTURE_2)])


def test_one_call_keeps_call_1_alone() -> None:
    history = scenario("image", "url", "prompt", calls=1)
    ids: list[str] = []
    for item in history:
        if isinstance(item, ToolCall | ToolResult):
            ids.append(item.tool_call_id)
        elif item.source is not None:
            ids.append(item.source.tool_call_id)
    assert ids == ["call_1", "call_1", "call_1"]
    assert len(history) == 4


# --- the text fixtures ---------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["NFC", "NFKC", "NFD", "NFKD"])
def test_normalization_changes_the_text_fixture(form: Any) -> None:
    assert unicodedata.normalize(form, TEXT_FIXTURE) != TEXT_FIXTURE


def test_nfc_alone_changes_the_text_fixture_too() -> None:
    """Not only compatibility characters: a target that applies plain NFC is seen as well."""
    compat_free = "".join(
        c
        for c in TEXT_FIXTURE
        if unicodedata.normalize("NFKC", c) == unicodedata.normalize("NFC", c)
    )
    assert unicodedata.normalize("NFC", compat_free) != compat_free


@pytest.mark.parametrize(
    "needle",
    [
        "\r\n",
        "   \r\n",
        "\t",
        "\u200b",
        "\u200d",
        "\u202e",
        "\u2066",
        "\u200f",
        "e\u0301",
        "\ufb01",
        "\uff14",
    ],
)
def test_the_text_fixture_holds(needle: str) -> None:
    assert needle in TEXT_FIXTURE


@pytest.mark.parametrize("text", [TEXT_FIXTURE, TEXT_FIXTURE_2, ERROR_FIXTURE])
def test_the_texts_are_valid_utf8_and_end_in_spaces(text: str) -> None:
    assert text.encode("utf-8").decode("utf-8") == text  # no lone surrogates: encoding would fail
    assert text.endswith("  ")
    assert "\r\n" in text


def test_the_second_text_differs_and_normalization_changes_it() -> None:
    assert TEXT_FIXTURE_2 != TEXT_FIXTURE
    assert unicodedata.normalize("NFKC", TEXT_FIXTURE_2) != TEXT_FIXTURE_2


# --- the fixture files ---------------------------------------------------------------------------

MAGIC = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "application/pdf": b"%PDF-",
    "audio/wav": b"RIFF",
    "video/mp4": b"ftyp",
}


@pytest.mark.parametrize("name", sorted(FIXTURE_TYPES))
def test_every_fixture_file_is_real_media_of_its_type(name: str) -> None:
    data = fixture_bytes(name)
    magic = MAGIC[FIXTURE_TYPES[name]]
    assert magic in data[:12], name
    assert len(data) < 2048, "tiny"


@pytest.mark.parametrize("content_type", MEDIA)
def test_the_two_items_of_a_type_differ_in_bytes_and_share_the_media_type(
    content_type: Any,
) -> None:
    first, second = fixture_name(content_type, 1), fixture_name(content_type, 2)
    assert fixture_bytes(first) != fixture_bytes(second)
    assert FIXTURE_TYPES[first] == FIXTURE_TYPES[second]


def test_make_fixtures_writes_the_committed_files_byte_for_byte() -> None:
    spec = importlib.util.spec_from_file_location(
        "make_fixtures", ROOT / "tools" / "make_fixtures.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = {
        "chart.png": module.png(),
        "chart-2.png": module.png(second=True),
        "report.pdf": module.pdf(),
        "report-2.pdf": module.pdf(second=True),
        "tone.wav": module.wav(),
        "tone-2.wav": module.wav(second=True),
    }
    assert {name: data == fixture_bytes(name) for name, data in made.items()} == dict.fromkeys(
        made, True
    )


# --- URLs on the fixture host, and a stand-in for its origin in stored data --------------------


@pytest.mark.parametrize("content_type", MEDIA)
def test_url_parts_point_at_the_fixture_host_which_serves_them(content_type: Any) -> None:
    host = fixture_host()
    for which in (1, 2):
        part: Any = fixture_part(content_type, "url", which)
        name = fixture_name(content_type, which)
        assert part.url == f"{host.origin}/conformance/{name}"
        with host.watch() as fetches, urllib.request.urlopen(part.url, timeout=30) as answer:
            assert answer.headers["content-type"] == part.media_type
            assert answer.read() == fixture_bytes(name)
        assert [f.path for f in fetches] == [f"/conformance/{name}"]


def test_the_snapshot_view_stands_in_for_the_origin_and_the_exact_bytes_keep_it() -> None:
    url = fixture_host().url("chart.png")
    payload = {"image_url": {"url": url}, "data": b"\x00"}
    assert f'"url": "{ORIGIN_STAND_IN}/conformance/chart.png"' in snapshot_text(payload)
    assert url.encode() in to_bytes(payload), "what byte-identical compares is the payload itself"
    assert stand_in(payload) == {
        "image_url": {"url": f"{ORIGIN_STAND_IN}/conformance/chart.png"},
        "data": b"\x00",
    }


def test_a_closed_host_origin_is_left_alone() -> None:
    host = FixtureHost()
    url = host.url("chart.png")
    host.close()
    assert stand_in(url) == url


def _url_payload(host: FixtureHost) -> tuple[Any, dict[str, Any]]:
    """The reference's payload for an anthropic url cell, its URLs on `host`."""
    cell = next(c for c in CELLS if c.id == "anthropic/claude-sonnet-5/image/url/result")
    live = fixture_host().origin
    history = [
        item.model_copy(
            update={
                "content": [
                    p.model_copy(
                        update={"url": str(getattr(p, "url", "")).replace(live, host.origin)}
                    )
                    for p in item.content
                ]
            }
        )
        if isinstance(item, ToolResult)
        else item
        for item in scenario("image", "url", "result")
    ]
    row = RowRef(id=cell.row_id, api=cell.api, family=cell.family, model=cell.model)
    return cell, resolve_target("reference").render(row, history)


def test_a_url_cell_cassette_replays_on_another_port(tmp_path: Path) -> None:
    first = FixtureHost()
    try:
        cell, payload = _url_payload(first)
        assert first.origin in to_bytes(payload).decode()
        cassettes = Cassettes(tmp_path, record="double")
        try:
            assert cassettes.check("reference", cell, payload).passed
        finally:
            cassettes.close()
    finally:
        first.close()
    text = cassette_path(tmp_path, "reference", cell).read_text(encoding="utf-8")
    body = yaml.safe_load(text)["interactions"][0]["request"]["body"]
    assert f"{ORIGIN_STAND_IN}/conformance/chart.png" in str(body)
    assert first.origin not in text
    second = FixtureHost()
    try:
        assert second.origin != first.origin
        _, again = _url_payload(second)
        result = Replayer(tmp_path).check("reference", cell, again)
        assert result.passed, result.detail
        changed = stand_in(again)
        changed["messages"][0]["content"] = "changed"
        assert not Replayer(tmp_path).check("reference", cell, changed).passed
    finally:
        second.close()
