"""The toolkit's recipes for sub-layers (`conformance.targets.recipes`), each doing what
docs/history.md says it does, and `scrub_origins`."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import conformance
from conformance.scenarios.build import scenario
from conformance.scenarios.fixtures import ORIGIN_STAND_IN, stand_in
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
