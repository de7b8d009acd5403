"""The public toolkit for targets: recorder, body-or-raise, exception snapshots, fixture host."""

from __future__ import annotations

import http.client
import threading
import urllib.error
import urllib.request
from collections.abc import Generator

import pytest

from conformance.errors import NoRequestSent
from conformance.scenarios.fixtures import FIXTURE_TYPES, ORIGIN_STAND_IN, fixture_bytes
from conformance.targets.kit import (
    Exchange,
    FixtureHost,
    Recorder,
    StrayRequest,
    body_or_raise,
    exception_snapshot,
    fixture_host,
    payload_of,
    recorder,
    thread_token,
)


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(url, data=body, method="POST", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def _get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status), answer.headers["content-type"], answer.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["content-type"], error.read()


@pytest.fixture
def own_recorder() -> Generator[Recorder]:
    server = Recorder()
    yield server
    server.close()


# --- the recorder -------------------------------------------------------------------------------


def test_a_channel_records_method_path_headers_and_body(own_recorder: Recorder) -> None:
    with own_recorder.channel() as (base, taken):
        status = _post(base + "/v1/chat/completions", b'{"a":1}', {"X-Custom": "yes"})
    assert status == 400, "the recorder answers with an error, so exactly one request is made"
    (exchange,) = taken
    assert (exchange.method, exchange.path, exchange.body) == (
        "POST",
        "/v1/chat/completions",
        b'{"a":1}',
    )
    assert exchange.headers["x-custom"] == "yes", "header names in lower case"
    assert exchange.json() == {"a": 1}


def test_each_answer_closes_its_connection(own_recorder: Recorder) -> None:
    """A client the framework never closes keeps no socket open (and no ResourceWarning)."""
    connection = http.client.HTTPConnection("127.0.0.1", int(own_recorder.origin.rsplit(":", 1)[1]))
    try:
        with own_recorder.channel() as (base, _):
            connection.request("POST", base.removeprefix(own_recorder.origin) + "/x", body=b"{}")
            answer = connection.getresponse()
            answer.read()
        assert (answer.status, answer.getheader("connection")) == (400, "close")
        assert answer.will_close
    finally:
        connection.close()


def test_channels_keep_their_requests_apart(own_recorder: Recorder) -> None:
    with (
        own_recorder.channel() as (first, taken_first),
        own_recorder.channel() as (second, taken_second),
    ):
        assert first != second
        _post(second + "/two", b"2")
        _post(first + "/one", b"1")
    assert [e.body for e in taken_first] == [b"1"]
    assert [e.body for e in taken_second] == [b"2"]


def test_concurrent_channels_each_get_their_own_requests(own_recorder: Recorder) -> None:
    seen: dict[int, list[bytes]] = {}

    def work(n: int) -> None:
        with own_recorder.channel() as (base, taken):
            for k in range(3):
                _post(f"{base}/p", f"{n}-{k}".encode())
        seen[n] = [e.body for e in taken]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {n: [f"{n}-{k}".encode() for k in range(3)] for n in range(8)}


def test_a_request_outside_any_open_channel_reaches_no_channel(own_recorder: Recorder) -> None:
    with own_recorder.channel() as (base, taken):
        pass
    _post(base + "/late", b"x")
    assert taken == []


def test_a_reused_channel_keeps_its_base_and_takes_only_its_own_block(
    own_recorder: Recorder,
) -> None:
    token = own_recorder.token()
    with own_recorder.channel(token) as (first, taken_first):
        _post(first + "/one", b"1")
    with own_recorder.channel(token) as (second, taken_second):
        _post(second + "/two", b"2")
    assert first == second == f"{own_recorder.origin}/{token}"
    assert [e.body for e in taken_first] == [b"1"]
    assert [e.body for e in taken_second] == [b"2"]


def test_a_late_request_on_a_reused_channel_is_an_error_not_the_next_render(
    own_recorder: Recorder,
) -> None:
    token = own_recorder.token()
    with own_recorder.channel(token) as (base, _):
        pass
    _post(base + "/late", b"late")
    with pytest.raises(StrayRequest, match="1 request"), own_recorder.channel(token):
        pytest.fail("the block never runs")  # pragma: no cover
    with own_recorder.channel(token) as (again, taken):  # reported once, then the channel is clean
        _post(again + "/now", b"now")
    assert [e.body for e in taken] == [b"now"]


def test_each_thread_has_its_own_token() -> None:
    here = thread_token()
    there: list[str] = []
    worker = threading.Thread(target=lambda: there.append(thread_token()))
    worker.start()
    worker.join()
    assert thread_token() == here
    assert len(there) == 1
    assert there[0] != here


def test_the_process_recorder_is_one_instance() -> None:
    assert recorder() is recorder()


def test_bedrock_payload_carries_the_model_id_from_the_path() -> None:
    exchange = Exchange("POST", "/model/us.amazon.nova-pro-v1%3A0/converse", {}, b'{"messages":[]}')
    assert payload_of("bedrock-converse", exchange) == {
        "modelId": "us.amazon.nova-pro-v1:0",
        "messages": [],
    }
    streamed = Exchange("POST", "/model/m/converse-stream?x=1", {}, b"{}")
    assert payload_of("bedrock-converse", streamed) == {"modelId": "m"}
    assert payload_of("openai-chat", exchange) == {"messages": []}, "other apis: the body"


def test_a_payload_must_be_a_json_object() -> None:
    with pytest.raises(NoRequestSent, match="no JSON object body"):
        payload_of("openai-chat", Exchange("POST", "/v1/x", {}, b"[1, 2]"))


def _upload(boundary: str) -> Exchange:
    """A multipart file upload as an OpenAI client sends it, with its per-request boundary."""
    body = (
        f"--{boundary}\r\n"
        'Content-Disposition: form-data; name="file"; filename="report.pdf"\r\n'
        "Content-Type: application/pdf\r\n\r\n%PDF-1.4 stand-in\r\n"
        f"--{boundary}--\r\n"
    ).encode()
    headers = {"content-type": f"multipart/form-data; boundary={boundary}"}
    return Exchange("POST", "/v1/files", headers, body)


def test_a_multipart_body_gives_the_same_message_on_every_run() -> None:
    messages: list[str] = []
    for boundary in ("a" * 32, "0f" * 16):  # two runs: a random boundary of the same length
        with pytest.raises(NoRequestSent) as raised:
            payload_of("openai-chat", _upload(boundary))
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "boundary" not in messages[0], "no bytes of the body"
    assert "PDF" not in messages[0], "no bytes of the body"
    assert "/v1/files" in messages[0]
    assert "multipart/form-data" in messages[0]
    assert f"{len(_upload('a' * 32).body)} bytes" in messages[0], "the size is named"


# --- body_or_raise ------------------------------------------------------------------------------


def test_sent_then_raised_gives_the_payload() -> None:
    def send(base: str) -> None:
        _post(base + "/v1/messages", b'{"model":"m"}')
        raise RuntimeError("the client raised on the recorder's 400")

    assert body_or_raise("anthropic", send) == {"model": "m"}


def test_raised_before_sending_is_reraised_as_is() -> None:
    refusal = ValueError("cannot carry video")

    def send(base: str) -> None:
        raise refusal

    with pytest.raises(ValueError, match="cannot carry video") as raised:
        body_or_raise("anthropic", send)
    assert raised.value is refusal


def test_neither_sent_nor_raised_is_no_request_sent() -> None:
    with pytest.raises(NoRequestSent, match="nothing was sent to groq"):
        body_or_raise("groq", lambda base: None)


def test_the_first_request_with_a_body_is_the_payload() -> None:
    def send(base: str) -> None:
        _get(base + "/v1/models")  # a GET without a body is not the request judged
        _post(base + "/v1/chat/completions", b'{"n":1}')
        _post(base + "/v1/chat/completions", b'{"n":2}')

    assert body_or_raise("openai-chat", send) == {"n": 1}


# --- exception snapshots ------------------------------------------------------------------------


class FrameworkError(Exception):
    pass


def _message(text: str) -> str:
    return exception_snapshot(FrameworkError(text))["message"]


def test_the_type_is_qualified_except_builtins() -> None:
    assert exception_snapshot(ValueError("x"))["raised"] == "ValueError"
    assert exception_snapshot(FrameworkError("x"))["raised"] == f"{__name__}.FrameworkError"


def test_only_the_first_line_is_kept() -> None:
    assert _message("first line\n  Traceback and more\nlast") == "first line"
    assert _message("") == ""


@pytest.mark.parametrize(
    ("raw", "stable"),
    [
        ("in /home/ci/.venv/lib/python3.11/site-packages/pkg/x.py", "in <path>"),
        (r"at C:\Users\me\venv\Lib\pkg.py", "at <path>"),
        ("pydantic-ai 2.68.0 does not", "pydantic-ai <version> does not"),
        ("requires v1.2.3rc1 or newer", "requires <version> or newer"),
        ("version 1.85.0.post2.", "version <version>."),
        ("object at 0x7f3a2b1c4d50", "object at <addr>"),
        ("id 123e4567-e89b-12d3-a456-426614174000 failed", "id <uuid> failed"),
        ("POST http://127.0.0.1:49152/v1/x", "POST http://127.0.0.1:<port>/v1/x"),
        ("GET http://localhost:8080/a", "GET http://localhost:<port>/a"),
        (
            "to http://127.0.0.1:5000/c17-0a1b2c3d/v1/messages",
            "to http://127.0.0.1:<port>/<channel>/v1/messages",
        ),
        ("host 10.0.0.1 refused", "host 10.0.0.1 refused"),
        ("resolved to 192.168.1.20", "resolved to 192.168.1.20"),
        (
            "see https://ai.pydantic.dev/api/models/base/ for details",
            "see https://ai.pydantic.dev/api/models/base/ for details",
        ),
    ],
)
def test_messages_are_scrubbed_of_what_differs_between_runs(raw: str, stable: str) -> None:
    assert _message(raw) == stable


def test_the_fixture_origin_becomes_its_stand_in() -> None:
    url = fixture_host().url("chart.png")
    assert (
        _message(f"cannot download {url}")
        == f"cannot download {ORIGIN_STAND_IN}/conformance/chart.png"
    )


# --- the fixture host ---------------------------------------------------------------------------


@pytest.fixture
def host() -> Generator[FixtureHost]:
    served = FixtureHost()
    yield served
    served.close()


@pytest.mark.parametrize("name", sorted(FIXTURE_TYPES))
def test_every_fixture_is_served_with_its_media_type(host: FixtureHost, name: str) -> None:
    status, content_type, body = _get(host.url(name))
    assert (status, content_type, body) == (200, FIXTURE_TYPES[name], fixture_bytes(name))


@pytest.mark.parametrize(
    "path", ["/conformance/nope.png", "/conformance/../pyproject.toml", "/chart.png"]
)
def test_anything_else_is_404_and_recorded(host: FixtureHost, path: str) -> None:
    with host.watch() as fetches:
        status, _, _ = _get(host.origin + path)
    assert status == 404
    assert [(f.method, f.status) for f in fetches] == [("GET", 404)]


def test_head_sends_headers_only(host: FixtureHost) -> None:
    status, content_type, body = _get(host.url("clip.mp4"), method="HEAD")
    assert (status, content_type, body) == (200, "video/mp4", b"")
    assert host.fetches[-1].method == "HEAD"


def test_watch_sees_the_fetches_of_its_block_only(host: FixtureHost) -> None:
    _get(host.url("tone.wav"))
    with host.watch() as fetches:
        _get(host.url("chart.png?size=1"))
        assert fetches == [], "the list fills when the block ends"
    _get(host.url("report.pdf"))
    (fetch,) = fetches
    assert (fetch.method, fetch.path, fetch.status) == ("GET", "/conformance/chart.png?size=1", 200)
    assert fetch.user_agent.startswith("Python-urllib/")
    assert len(host.fetches) == 3


def test_the_process_fixture_host_is_one_instance() -> None:
    assert fixture_host() is fixture_host()
    assert fixture_host().url("chart.png").startswith("http://127.0.0.1:")


def test_an_exchange_without_a_body_has_no_json() -> None:
    assert Exchange("GET", "/", {}, b"").json() is None
    assert Exchange("POST", "/", {}, b'{"k": [1]}').json() == {"k": [1]}


def test_a_request_whose_body_is_not_json_is_the_suites_error_never_a_refusal() -> None:
    """A ValueError out of the body would be a refusal for a target declaring ValueError."""
    from conformance.errors import NoRequestSent, SuiteError
    from conformance.targets.kit import Exchange, payload_of

    exchange = Exchange(method="POST", path="/v1/files", headers={}, body=b"--boundary\r\n")
    with pytest.raises(NoRequestSent, match="no JSON object body") as raised:
        payload_of("openai-chat", exchange)
    assert isinstance(raised.value, SuiteError)
    assert not isinstance(raised.value, ValueError)
