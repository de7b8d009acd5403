"""The toolkit's recipes for sub-layers (`conformance.targets.recipes`), each doing what
docs/history.md says it does, and `scrub_origins`."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import conformance
from conformance.history import Image, ToolResult
from conformance.scenarios.build import scenario
from conformance.scenarios.fixtures import ORIGIN_STAND_IN, fixture_bytes, stand_in
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget

ROW = RowRef(id="anthropic/claude-sonnet-5", api="anthropic", family="claude-sonnet-5",
             model="claude-sonnet-5-5")  # fmt: skip
REFERENCE = "conformance.targets.reference:ReferenceTarget"


def test_environment_sets_and_restores_even_on_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_T_OLD", "before")
    monkeypatch.delenv("CONFORMANCE_T_NEW", raising=False)
    seen: dict[str, str] = {}

    def inside() -> None:
        with conformance.environment({"CONFORMANCE_T_OLD": "x", "CONFORMANCE_T_NEW": "y"}):
            seen.update({k: os.environ[k] for k in ("CONFORMANCE_T_OLD", "CONFORMANCE_T_NEW")})
            raise KeyError("inside")

    with pytest.raises(KeyError):
        inside()
    assert seen == {"CONFORMANCE_T_OLD": "x", "CONFORMANCE_T_NEW": "y"}
    assert os.environ["CONFORMANCE_T_OLD"] == "before"
    assert "CONFORMANCE_T_NEW" not in os.environ


def test_loopback_hosts_names_the_fixture_host_once() -> None:
    history = scenario("image", "url", "prompt")
    origin = conformance.fixture_host().origin
    assert conformance.loopback_hosts(history) == [origin.removeprefix("http://")]
    assert conformance.loopback_hosts(scenario("image", "inline", "result")) == []


def test_litellm_media_allowed_adds_the_host_for_the_block_only() -> None:
    fake = types.SimpleNamespace(user_url_allowed_hosts=["example.org"])
    history = scenario("document", "url", "result")
    host = conformance.loopback_hosts(history)[0]
    with conformance.litellm_media_allowed(fake, history):
        assert fake.user_url_allowed_hosts == ["example.org", host]
    assert fake.user_url_allowed_hosts == ["example.org"]
    older = types.SimpleNamespace()  # a release without the guard: nothing is set
    with conformance.litellm_media_allowed(older, history):
        assert not hasattr(older, "user_url_allowed_hosts")


def test_litellm_offline_sets_the_cost_map_banner_and_loggers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = types.ModuleType("litellm")
    fake.suppress_debug_info = False  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", fake)
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    logger = logging.getLogger("LiteLLM")
    monkeypatch.setattr(logger, "level", logging.DEBUG)
    assert conformance.litellm_offline() is fake
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert fake.suppress_debug_info is True  # type: ignore[attr-defined]
    assert logger.level == logging.WARNING


def test_run_async_keeps_one_loop_per_thread() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def which() -> int:
        loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return len(loops)

    assert conformance.run_async(which) == 1
    assert conformance.run_async(which) == 2
    assert loops[0] is loops[1]

    async def nested() -> None:
        conformance.run_async(which)

    with pytest.raises(RuntimeError, match="await it instead"):
        asyncio.run(nested())


def test_scrub_origins_replaces_loopback_ports_and_nothing_else() -> None:
    origin = conformance.fixture_host().origin
    text = (
        f"fetched {origin}/conformance/chart.png; sent to http://127.0.0.1:41234/c3-0123abcd/v1"
        " and 127.0.0.1:5000, kept: https://example.org:8443/x v1.2.3 /usr/lib/x"
    )
    assert conformance.scrub_origins(text) == (
        f"fetched {ORIGIN_STAND_IN}/conformance/chart.png; sent to"
        " http://127.0.0.1:<port>/<channel>/v1 and 127.0.0.1:<port>, kept:"
        " https://example.org:8443/x v1.2.3 /usr/lib/x"
    )


def test_render_script_prints_what_the_target_renders(tmp_path: Path) -> None:
    """The stub reproducer, run from a folder of its own in a fresh interpreter, prints the
    reference's payload for a URL cell (its fixture media served again), and a refusal."""
    history = scenario("image", "url", "result")
    script = conformance.render_script(ROW, history, REFERENCE)
    assert "127.0.0.1:" not in script  # nothing of this run's ports
    (tmp_path / "repro.py").write_text(script, encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "repro.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    expected = stand_in(ReferenceTarget().render(ROW, history))
    assert "http://127.0.0.1:" in done.stdout  # the URL on the script's own fixture host
    assert json.loads(json.dumps(expected)) == _origins_as_stand_in(printed, done.stdout)

    refused = scenario("video", "inline", "result")  # Anthropic has no video: a refusal
    (tmp_path / "refused.py").write_text(
        conformance.render_script(ROW, refused, REFERENCE),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "refused.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("raised before sending: conformance.errors.UnsupportedContent")


def _origins_as_stand_in(printed: object, text: str) -> object:
    """The printed payload with the script's fixture origin (http://127.0.0.1:PORT) as the
    stand-in, as the suite stores it."""
    found = text.split("http://127.0.0.1:", 1)[1].split("/", 1)[0]
    origin = f"http://127.0.0.1:{found}"
    return json.loads(json.dumps(printed).replace(origin, ORIGIN_STAND_IN))


# --- the pieces of a standalone reproducer -------------------------------------------------------

_CLIENT = """
import urllib.error
import urllib.request


def fetch(path, data=None):
    request = urllib.request.Request(ORIGIN + path, data=data)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers["content-type"], answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["content-type"], error.read()
"""

_DRIVER = """
status, kind, body = fetch("/conformance/chart.png")
print(json.dumps([status, kind, base64.b64encode(body).decode()]))
status, kind, body = fetch("/conformance/report.pdf")
print(json.dumps([status, kind, base64.b64encode(body).decode()]))
status, kind, body = fetch("/api/v1/chat", b'{"model": "m"}')
print(json.dumps([status, kind, json.loads(body)]))
print(json.dumps([[path, body.decode()] for path, body in CAPTURED]))
"""


def _run(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`source` run in a fresh interpreter that sees the standard library only (`-I`)."""
    (tmp_path / "block.py").write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-I", "block.py"], cwd=tmp_path, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip


def _check_recorder(block: str, tmp_path: Path) -> None:
    """The block, run on its own with a stdlib client: it serves its fixture (and no other
    path), records the POST with its path and body, and answers it 400 with the reply."""
    done = _run(block + _CLIENT + _DRIVER, tmp_path)
    assert done.returncode == 0, done.stderr
    served, missing, posted, captured = map(json.loads, done.stdout.splitlines())
    assert served == [200, "image/png", base64.b64encode(fixture_bytes("chart.png")).decode()]
    assert missing[0] == 404
    assert posted == [400, "application/json", {"error": {"code": 400, "status": "BAD"}}]
    assert captured == [["/api/v1/chat", '{"model": "m"}']]


def test_repro_recorder_serves_its_fixtures_and_records_a_post(tmp_path: Path) -> None:
    block = conformance.repro_recorder(["chart.png"], {"error": {"code": 400, "status": "BAD"}})
    assert "127.0.0.1:" not in block.replace("127.0.0.1:%d", "")  # no port of this run
    _check_recorder(block, tmp_path)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("CAPTURED.append((self.path, body))", "pass"),  # records nothing
        ("self.answer(400,", "self.answer(200,"),  # answers as if served: an SDK parses it
        ("base64.b64decode(found[1])", "b'x'"),  # serves other bytes
        ('self.path.split("?", 1)[0]', '"/conformance/chart.png"'),  # the fixture at any path
    ],
)
def test_a_broken_recorder_fails_the_check(old: str, new: str, tmp_path: Path) -> None:
    good = conformance.repro_recorder(["chart.png"], {"error": {"code": 400, "status": "BAD"}})
    assert old in good
    with pytest.raises(AssertionError):
        _check_recorder(good.replace(old, new), tmp_path)


def test_repro_recorder_refuses_a_name_that_is_not_a_fixture() -> None:
    with pytest.raises(ValueError, match=r"'chart\.gif' is not a fixture file"):
        conformance.repro_recorder(["chart.gif"])


_SENDS = """
class Refused(Exception):
    pass


class Wrapped(Exception):
    def __init__(self, inner):
        super().__init__("wrapped")
        self.inner = inner


def send(refuse=False):  # a framework: one request, and the 400 answer raised
    if refuse:
        raise Wrapped(Refused("no video here"))
    sent = {"url": ORIGIN + "/conformance/chart.png"}
    status, _, _ = fetch("/api/v1/chat", json.dumps(sent).encode())
    raise Wrapped(RuntimeError("answered %d" % status))


def shown(path, payload):
    return {"path": path, **payload}
"""


def _report(tmp_path: Path, call: str, **options: Any) -> subprocess.CompletedProcess[str]:
    block = conformance.repro_recorder(["chart.png"])
    return _run(block + _CLIENT + _SENDS + conformance.repro_report(call, **options), tmp_path)


def test_repro_report_prints_the_request_sent(tmp_path: Path) -> None:
    done = _report(tmp_path, "send()")
    assert done.returncode == 0, done.stderr
    first, _, body = done.stdout.partition("\n")
    assert first == "POST /api/v1/chat"
    assert json.loads(body)["url"].startswith("http://127.0.0.1:")
    assert body.startswith('{\n  "url": ')  # indented
    done = _report(tmp_path, "send()", path_line=False, payload="shown", stand_in="http://x")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "path": "/api/v1/chat",
        "url": "http://x/conformance/chart.png",
    }


@pytest.mark.parametrize(
    ("refusal", "unwrap", "stdout", "stderr", "status"),
    [
        ("one line", "inner", "nothing sent; raised Refused: no video here\n", "", 0),
        ("one line", None, "nothing sent; raised Wrapped: wrapped\n", "", 0),
        ("two lines", None, "raised before sending: __main__.Wrapped\nwrapped\n", "", 0),
        ("exit", "inner", "", "raised before sending: Refused: no video here\n", 1),
    ],
)
def test_repro_report_says_what_was_raised_before_sending(
    tmp_path: Path, refusal: str, unwrap: str | None, stdout: str, stderr: str, status: int
) -> None:
    done = _report(tmp_path, "send(refuse=True)", refusal=refusal, unwrap=unwrap)
    assert (done.stdout, done.stderr, done.returncode) == (stdout, stderr, status)


def test_fixture_names_are_the_fixtures_the_url_media_name() -> None:
    history = [*scenario("image", "url", "result"), *scenario("document", "url", "prompt")]
    assert conformance.fixture_names(history) == [
        "chart.png",
        "chart-2.png",
        "report.pdf",
        "report-2.pdf",
    ]
    assert conformance.fixture_names(scenario("image", "inline", "result")) == []
    elsewhere = Image(
        media_type="image/png", url="https://example.org/chart.png", identifier="chart.png"
    )
    assert (
        conformance.fixture_names([ToolResult(tool_call_id="c", name="t", content=[elsewhere])])
        == []
    )
