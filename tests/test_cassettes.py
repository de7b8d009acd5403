"""Cassettes: the double, recording, replay as a check, and what makes the check fail."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import shutil
import socket
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

import pytest
import yaml

from conformance.judging.checks import CellRun, run_cell
from conformance.matrix import CellSpec, load_matrix
from conformance.recording.cassettes import (
    Cassettes,
    MissingKeys,
    Recorder,
    Replayer,
    cassette_path,
    exact_body,
    live_keys,
)
from conformance.recording.double import running
from conformance.recording.media import copy_snapshot
from conformance.recording.send import CANONICAL, LIVE_KEYS, Senders
from conformance.scenarios import build as scenarios
from conformance.targets import resolve_target

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = ROOT / "cassettes"
MATRIX = load_matrix(ROOT / "matrix.yaml")
REFERENCE = resolve_target("reference")
TEXT_CELL = "openai-chat/gpt-6/text/inline/result"


def _cell(cell_id: str) -> CellSpec:
    return next(c for c in MATRIX.all_cells() if c.id == cell_id)


def _run(cell_id: str) -> CellRun:
    return run_cell(REFERENCE, _cell(cell_id))


def _payload(run: CellRun) -> dict[str, Any]:
    assert run.first.payload is not None
    return run.first.payload


def _copy(cell_id: str, into: Path) -> Path:
    """The committed cassette of a reference cell, copied below `into` at its usual place."""
    cell = _cell(cell_id)
    source = cassette_path(CASSETTES, "reference", cell)
    target = cassette_path(into, "reference", cell)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


# --- every rendering cell has its cassette ----------------------------------------------------


def test_every_rendering_reference_cell_has_a_cassette_and_no_other_is_kept() -> None:
    rendering = {
        cassette_path(CASSETTES, "reference", cell)
        for cell in MATRIX.all_cells()
        if run_cell(REFERENCE, cell).first.payload is not None
    }
    on_disk = set((CASSETTES / "reference").rglob("*.yaml"))
    assert sorted(map(str, rendering - on_disk)) == [], "record them with `nox -s record`"
    assert sorted(map(str, on_disk - rendering)) == [], "cassettes of cells that render nothing"
    assert len(rendering) > 100


def test_committed_cassettes_say_where_they_come_from_and_hold_the_real_host() -> None:
    for path in sorted((CASSETTES / "reference").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert data["metadata"]["origin"] in {"double", "live"}, path
        dt.date.fromisoformat(data["metadata"]["date"])
        (interaction,) = data["interactions"]
        api = path.parent.name
        host = CANONICAL[api].split("/")[2]
        assert interaction["request"]["uri"].startswith(f"https://{host}/"), path
        assert interaction["request"]["headers"].get("host", [host]) == [host], path
        assert "127.0.0.1" not in path.read_text(encoding="utf-8"), path


# --- the double -------------------------------------------------------------------------------


def _post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_double_answers_known_paths_and_refuses_the_rest() -> None:
    with running() as double:
        status, answer = _post(f"{double.base_url}/v1/chat/completions", b'{"model":"m"}')
        assert (status, answer["choices"][0]["message"]["content"]) == (200, "ok")
        status, answer = _post(f"{double.base_url}/v1/nowhere", b"{}")
        assert status == 404
        assert "/v1/nowhere" in answer["error"]["message"]
        status, _ = _post(f"{double.base_url}/v1/messages", b"not json")
        assert status == 400
        assert [r.path for r in double.received] == [
            "/v1/chat/completions",
            "/v1/nowhere",
            "/v1/messages",
        ]
    with pytest.raises(ConnectionRefusedError):  # stopped: nothing listens any more
        socket.create_connection((double.host, double.port), timeout=1).close()


@pytest.mark.parametrize("api", sorted(CANONICAL))
def test_each_official_client_parses_the_doubles_answer(api: str) -> None:
    cell = next(c for c in MATRIX.all_cells() if c.api == api and c.content_type == "text")
    payload = _payload(run_cell(REFERENCE, cell))
    with running() as double:
        senders = Senders(
            base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
        )
        try:
            answer = senders.send(api, cell.model, payload)
        finally:
            senders.close()
        assert len(double.received) == 1
    assert "ok" in repr(answer)


# --- replay: what fails it --------------------------------------------------------------------


def test_replay_passes_and_says_what_was_replayed(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    _copy(TEXT_CELL, tmp_path)
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert result.passed, result.detail
    assert "request byte-identical" in result.detail
    assert "recorded double" in result.detail
    assert result.live is None  # the double proves nothing about the provider


def test_a_missing_cassette_fails_and_says_how_to_record_it(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert "no cassette at" in result.detail
    assert "gpt-6.text.inline.result.yaml" in result.detail
    assert "nox -s record" in result.detail


def test_a_corrupt_cassette_fails_naming_the_file(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    path.write_text("interactions:\n- request: [unclosed\n", encoding="utf-8")
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert str(path) in result.detail or path.name in result.detail
    assert "not a readable cassette" in result.detail


def test_a_cassette_without_its_origin_fails(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    del data["metadata"]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert "metadata.origin" in result.detail


def test_an_unused_interaction_fails(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["interactions"] *= 2  # the same exchange twice: one would stay unplayed
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert "holds 2 interactions" in result.detail


def test_one_changed_byte_fails_with_a_readable_diff(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    _copy(TEXT_CELL, tmp_path)
    payload = json.loads(json.dumps(_payload(run)))
    tool = payload["messages"][2]
    assert tool["role"] == "tool"
    tool["content"] = tool["content"].replace("dry", "dru")
    result = Replayer(tmp_path).check("reference", run.cell, payload)
    assert not result.passed
    assert "does not hold the request the SDK sent" in result.detail
    minus = [line for line in result.detail.splitlines() if line.startswith("-   ")]
    plus = [line for line in result.detail.splitlines() if line.startswith("+   ")]
    assert any("dry" in line for line in minus)
    assert any("dru" in line for line in plus)


def test_the_body_matcher_compares_bytes_not_json() -> None:
    """vcrpy's own `body` matcher parses JSON, so another key order or escaping would pass."""
    body: Any = importlib.import_module("vcr.matchers").body  # vcrpy has no type stubs
    request: Any = importlib.import_module("vcr.request").Request

    headers = {"content-type": "application/json"}
    recorded = request("POST", "https://api.openai.com/v1/x", b'{"a":"\xc3\xa9","b":1}', headers)
    reordered = request("POST", "https://api.openai.com/v1/x", b'{"b":1,"a":"\xc3\xa9"}', headers)
    escaped = request("POST", "https://api.openai.com/v1/x", b'{"a":"\\u00e9","b":1}', headers)
    for sent in (reordered, escaped):
        body(sent, recorded)  # vcrpy: no difference
        with pytest.raises(AssertionError) as info:
            exact_body(sent, recorded)
        assert "recorded" in str(info.value)
    with pytest.raises(AssertionError, match="the same JSON, different bytes"):
        exact_body(escaped, recorded)
    exact_body(recorded, recorded)


class _Dialer(Senders):
    """Sends nothing through an SDK: opens a plain socket to `address` instead."""

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__()
        self.address = address

    def send(self, api: str, model: str, payload: Mapping[str, Any]) -> Any:
        with socket.socket() as plain:
            plain.settimeout(1)
            plain.connect(self.address)


def test_the_network_is_blocked_during_replay(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    _copy(TEXT_CELL, tmp_path)
    with running() as double:
        replayer = Replayer(tmp_path, senders=_Dialer((double.host, double.port)))
        result = replayer.check("reference", run.cell, _payload(run))
        assert double.received == []
    assert not result.passed
    assert "Network is disabled" in result.detail


# --- recording --------------------------------------------------------------------------------


def test_recording_against_the_double_filters_keys_and_rewrites_the_host(tmp_path: Path) -> None:
    cells = [
        "bedrock-converse/nova/image/inline/result",
        "gemini/gemini-3/image/inline/result",
        "anthropic/claude-sonnet-5/image/inline/result",
    ]
    cassettes = Cassettes(tmp_path, record="double")
    try:
        for cell_id in cells:
            run = _run(cell_id)
            result = cassettes.check("reference", run.cell, _payload(run))
            assert result.passed, result.detail
    finally:
        cassettes.close()
    for cell_id in cells:
        path = cassette_path(tmp_path, "reference", _cell(cell_id))
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        assert data["metadata"] == {"origin": "double", "date": dt.date.today().isoformat()}
        headers = {k.lower() for k in data["interactions"][0]["request"]["headers"]}
        assert not headers & {"authorization", "x-api-key", "x-goog-api-key", "x-amz-date"}
        assert "127.0.0.1" not in text
        assert "!!binary" not in text  # botocore's bytes headers are stored as text
        # ... and the recording replays
        run = _run(cell_id)
        assert Replayer(tmp_path).check("reference", run.cell, _payload(run)).passed


def test_a_live_cassette_fills_the_live_slot(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["metadata"] = {"origin": "live", "date": "2026-11-29"}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert result.passed, result.detail
    assert result.live is not None
    assert (result.live.accepted, result.live.date) == (True, dt.date(2026, 11, 29))
    data["interactions"][0]["response"]["status"] = {"code": 400, "message": "Bad Request"}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    rejected = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert rejected.passed, rejected.detail  # the request matched; the api said no
    assert rejected.live is not None
    assert not rejected.live.accepted
    assert "answered 400" in rejected.detail


def test_live_recording_names_every_missing_key() -> None:
    with pytest.raises(MissingKeys) as info:
        live_keys({"anthropic", "gemini", "bedrock-converse"}, {"GOOGLE_API_KEY": "x"})
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message
    assert "AWS_ACCESS_KEY_ID" in message
    assert "AWS_SECRET_ACCESS_KEY" in message
    assert "GEMINI_API_KEY" not in message  # GOOGLE_API_KEY stands in for it
    env = {name: f"value-of-{name}" for names in LIVE_KEYS.values() for n in names for name in n}
    env["AWS_SESSION_TOKEN"] = "token"
    keys = live_keys(set(LIVE_KEYS), env)
    assert keys["gemini"] == "value-of-GEMINI_API_KEY"
    assert keys["aws_secret_access_key"] == "value-of-AWS_SECRET_ACCESS_KEY"
    assert keys["aws_session_token"] == "token"


def test_a_failed_recording_keeps_no_cassette(tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    # nothing listens on this port: the client cannot connect, so nothing is recorded
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    senders = Senders(base_urls={"openai-chat": f"http://127.0.0.1:{port}/v1"}, timeout=1)
    result = Recorder(tmp_path, senders, "double").record("reference", run.cell, _payload(run))
    senders.close()
    assert not result.passed
    assert "0 exchanges recorded" in result.detail
    assert not cassette_path(tmp_path, "reference", run.cell).exists()


# --- one changed byte fails the snapshot and the cassette, through the plugin ------------------


def test_one_changed_byte_of_the_text_fixture_fails_snapshot_and_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_cassettes = cassettes\n"
    )
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    for snapshot in (ROOT / "snapshots/reference/openai-chat").glob("*.json"):
        copy_snapshot(snapshot, pytester.path / snapshot.relative_to(ROOT))  # with its blobs
    shutil.copytree(
        CASSETTES / "reference/openai-chat", pytester.path / "cassettes/reference/openai-chat"
    )
    selected = [
        f"test_conformance.py::test_conformance[reference:{TEXT_CELL}:{check}]"
        for check in ("snapshot", "cassette")
    ]
    pytester.runpytest(*selected).assert_outcomes(passed=2)

    changed = scenarios.TEXT_FIXTURE.replace("dry", "drY", 1)
    assert len(changed.encode()) == len(scenarios.TEXT_FIXTURE.encode())
    monkeypatch.setattr(scenarios, "TEXT_FIXTURE", changed)
    run = pytester.runpytest(*selected)
    run.assert_outcomes(failed=2)
    output = run.stdout.str()
    assert f"{TEXT_CELL}:snapshot" in output
    assert f"{TEXT_CELL}:cassette" in output
    assert "does not hold the request the SDK sent" in output
    assert "drY" in output


def test_the_results_file_carries_the_live_slot_of_a_live_cassette(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_cassettes = cassettes\n"
    )
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    path = _copy(TEXT_CELL, pytester.path / "cassettes")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["metadata"] = {"origin": "live", "date": "2026-11-29"}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    checks = ("cassette", "outcome")
    run = pytester.runpytest(
        *(f"test_conformance.py::test_conformance[reference:{TEXT_CELL}:{c}]" for c in checks),
        "--conformance-results",
        "r.jsonl",
    )
    run.assert_outcomes(passed=2)
    lines = [json.loads(x) for x in (pytester.path / "r.jsonl").read_text().splitlines()]
    by_check = {line.get("check"): line for line in lines if line["kind"] == "result"}
    assert by_check["cassette"]["live"] == {"accepted": True, "date": "2026-11-29"}
    assert "live" not in by_check["outcome"]
    report = importlib.import_module("conformance.reports.report")
    results = importlib.import_module("conformance.reports.results")
    built = report.build_report(results.load_results([str(pytester.path / "r.jsonl")]))
    assert '"live":{"accepted":true,"date":"2026-11-29"}' in built.model_dump_json()


# --- every comparison of the cassette check can fail ------------------------------------------


def _edit_request(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data["interactions"][0]["request"])
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def _uri(change: Callable[[SplitResult], SplitResult]) -> Callable[[dict[str, Any]], None]:
    def edit(request: dict[str, Any]) -> None:
        request["uri"] = urlunsplit(change(urlsplit(str(request["uri"]))))

    return edit


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(request: dict[str, Any]) -> None:
        request[key] = value

    return edit


# A mutant cassette per comparison: the request it holds differs from the one the SDK sends
# in exactly one way, and the check must fail naming the difference.
MUTANT_CASSETTES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "method": (_set("method", "PUT"), "method: recorded PUT, sent POST"),
    "host": (_uri(lambda u: u._replace(netloc="api.openai.example")), "uri: recorded"),
    "scheme": (_uri(lambda u: u._replace(scheme="http")), "uri: recorded http://"),
    "port": (_uri(lambda u: u._replace(netloc=u.netloc + ":8443")), ":8443"),
    "path": (_uri(lambda u: u._replace(path=u.path + "/v2")), "/v2, sent"),
    "query": (_uri(lambda u: u._replace(query="stream=true")), "?stream=true"),
    "body": (_set("body", '{"model": "gpt-4o", "messages": []}'), '-  "messages": []'),
}


@pytest.mark.parametrize("comparison", sorted(MUTANT_CASSETTES))
def test_each_comparison_of_the_cassette_check_can_fail(comparison: str, tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    assert Replayer(tmp_path).check("reference", run.cell, _payload(run)).passed
    edit, says = MUTANT_CASSETTES[comparison]
    _edit_request(path, edit)
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert "does not hold the request the SDK sent" in result.detail
    assert says in result.detail


def test_a_client_sending_to_another_host_fails(tmp_path: Path) -> None:
    """The host the SDK sends to is compared as sent: a client pointed elsewhere (a proxy, a
    wrong region, a framework's own base URL) does not match a cassette of the real host."""
    run = _run(TEXT_CELL)
    _copy(TEXT_CELL, tmp_path)
    elsewhere = dict(CANONICAL) | {"openai-chat": "https://llm-proxy.example/v1"}
    replayer = Replayer(tmp_path, senders=Senders(base_urls=elsewhere))
    result = replayer.check("reference", run.cell, _payload(run))
    assert not result.passed
    assert "sent https://llm-proxy.example/v1/chat/completions" in result.detail


@pytest.mark.parametrize("count", [0, 2])
def test_a_cassette_must_hold_exactly_one_interaction(count: int, tmp_path: Path) -> None:
    run = _run(TEXT_CELL)
    path = _copy(TEXT_CELL, tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["interactions"] = data["interactions"][:1] * count
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = Replayer(tmp_path).check("reference", run.cell, _payload(run))
    assert not result.passed
    assert f"holds {count} interactions" in result.detail
