"""`benchmarks/bench_share.py` sorts py-spy's samples by who spends them: the checks that make
its figure (the framework's share of a gate) mean what it says."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

_BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(_BENCHMARKS))  # the script imports its neighbour `_bench`
_SPEC = importlib.util.spec_from_file_location("bench_share", _BENCHMARKS / "bench_share.py")
assert _SPEC is not None
assert _SPEC.loader is not None
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)
classify = cast("Callable[[str], str | None]", _MODULE.classify)

MAIN = ";".join(
    [
        "<module> (pytest:8)",
        "_run_module_as_main (<frozen runpy>:198)",
        "pytest_runtest_call (_pytest/runner.py:174)",
    ]
)
WORKER = "Thread.run (threading.py:982);_Worker._loop (conformance/judging/guard.py:89)"
RENDER = f"{WORKER};PydanticAITarget.render (conformance/targets/pydantic_ai/__init__.py:310)"


def test_the_frameworks_work_under_a_render_is_the_frameworks() -> None:
    stack = f"{RENDER};Agent.run (pydantic_ai/agent.py:1);create_default_context (ssl.py:770)"
    assert classify(stack) == "the framework: called by the target (its renders)"


def test_the_targets_code_and_waiting_are_not() -> None:
    assert classify(f"{RENDER};to_messages (conformance/targets/pydantic_ai/_messages.py:9)") == (
        "the suite: the target's own code"
    )
    assert classify(WORKER) is None, "the render thread between renders waits"
    assert classify(f"{MAIN};Condition.wait (threading.py:327)") is None


def test_imports_are_the_framework_s_or_the_suite_s_by_the_module() -> None:
    load = "_find_and_load (<frozen importlib._bootstrap>:1176)"
    framework = f"{MAIN};{load};<module> (anthropic/types/__init__.py:3)"
    assert classify(framework) == "the framework: importing it and its SDKs"
    assert classify(f"{MAIN};{load};<module> (hypothesis/core.py:1)") == (
        "the suite: hypothesis drawing and shrinking histories"
    )
    assert classify(f"{MAIN};{load};<module> (syrupy/__init__.py:1)") == (
        "the suite: imports of its own stack"
    )


def test_pydantic_under_the_judging_is_the_suite_s() -> None:
    stack = f"{MAIN};observe (conformance/judging/observe.py:500);validate (pydantic/main.py:1)"
    assert classify(stack) == "the suite: judging, results, the plugin"
    assert classify(f"{MAIN};draw (hypothesis/core.py:1)") == (
        "the suite: hypothesis drawing and shrinking histories"
    )


CHECK = f"{MAIN};run_case (conformance/running/engine.py:700)"
VALIDATE = f"{CHECK};validate (conformance/recording/sdk_schema/__init__.py:400)"
REPLAY = f"{CHECK};Replayer.check (conformance/recording/cassettes.py:371)"


def test_the_sdk_checks_work_in_the_sdks_is_the_sdks_and_around_them_the_suites() -> None:
    sdks = _MODULE.SDKS
    load = "_find_and_load (<frozen importlib._bootstrap>:1176)"
    imported = f"{VALIDATE};sdk_module (conformance/recording/sdk_schema/validation.py:50);{load}"
    assert classify(f"{imported};<module> (anthropic/__init__.py:3)") == sdks
    adapter = f"{VALIDATE};adapter_for (conformance/recording/sdk_schema/validation.py:70)"
    assert classify(f"{adapter};TypeAdapter.__init__ (pydantic/type_adapter.py:1)") == sdks
    client = f"{REPLAY};Senders.send (conformance/recording/send.py:168)"
    assert classify(f"{client};Chat.complete (mistralai/client/chat.py:1)") == sdks
    replay_import = f"{REPLAY};_vcr (conformance/recording/cassettes.py:200);{load}"
    vcrpy = f"{replay_import};<module> (vcr/__init__.py:4)"
    assert classify(f"{vcrpy};{load};<module> (urllib3/__init__.py:1)") == _MODULE.MACHINERY
    vcr = f"{REPLAY};CassetteContextDecorator.__enter__ (vcr/cassette.py:93)"
    assert classify(vcr) == _MODULE.MACHINERY
    assert classify(f"{REPLAY};_shown (conformance/recording/cassettes.py:300)") == (
        _MODULE.MACHINERY
    )
    judged = f"{MAIN};observe (conformance/judging/observe.py:500);validate (pydantic/main.py:1)"
    assert classify(judged) == "the suite: judging, results, the plugin", "not under the checks"


def test_a_thread_the_framework_runs_alone_is_the_framework_s() -> None:
    """pydantic-ai sends a Bedrock request from anyio's worker thread: no frame of the suite is
    in that thread's stack, so neither its sockets nor its http.client are the recorder's."""
    thread = (
        "Thread._bootstrap (threading.py:1002);WorkerThread.run (anyio/_backends/_asyncio.py:9)"
    )
    sending = f"{thread};_call_bedrock.<locals>.call (pydantic_ai/models/bedrock.py:1)"
    assert classify(f"{sending};HTTPConnection.send (http/client.py:1)") == (
        "the framework: called by the target (its renders)"
    )
    server = (
        "Thread.run (threading.py:982);ThreadingMixIn.process_request_thread (socketserver.py:1)"
    )
    assert classify(f"{server};BaseHTTPRequestHandler.handle (http/server.py:1)") == (
        "the suite: its recorder and fixture host"
    )
    plugin = f"{MAIN};pytest_collection_modifyitems (anyio/pytest_plugin.py:1)"
    assert classify(plugin) == "the suite: pytest, its plugins, the rest", (
        "a framework dependency's pytest plugin runs in pytest's thread: the suite's"
    )
