"""The bridge protocol: a target behind a process gets the verdicts a Python target gets.

The bridges are `tests/bridge_double.py` (the reference mappers behind the protocol, well
behaved or misbehaving in one way), targets in `tests/bridge_targets.py`; the Python targets
they are compared with are `tests/hostile.py`'s.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from bridge_targets import Hangs, command, environment
from conformance.adoption.verify_bridge import verify_bridge
from conformance.judging import guard, isolation
from conformance.judging.observe import is_refusal
from conformance.reports.results import load_results
from conformance.scenarios.build import scenario
from conformance.targets.base import RowRef
from conformance.targets.bridge import (
    BridgeDied,
    BridgeProtocolError,
    BridgeStartError,
    BridgeTarget,
    BridgeTimeout,
    UndeclaredRefusal,
)
from conformance.targets.bridge.protocol import decode_payload, encode_payload, json_schema
from conformance.targets.reference import ReferenceTarget

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
UNSUPPORTED = "openai-chat/gpt-6/video/inline/result"
RESULTS = "out/r.jsonl"
ROW = RowRef("openai-chat/gpt-6", "openai-chat", "gpt-6", "gpt-6-luna")
IMAGE = scenario("image", "inline", "result")
VIDEO = scenario("video", "inline", "result")


def bridge(mode: str, time_limit: float | None = None) -> BridgeTarget:
    return BridgeTarget(command(mode), env=environment("bridge-" + mode), time_limit=time_limit)


# --- a bridge that behaves --------------------------------------------------------------------


def test_a_good_bridge_renders_what_its_python_side_would() -> None:
    target = bridge("good")
    assert (target.name, target.version) == ("bridge-good", "1.0.0")
    assert target.sdk_versions == {"conformance": "0.1.0"}
    reference = ReferenceTarget()
    assert target.render(ROW, IMAGE) == reference.render(ROW, IMAGE)
    assert target.render_stored(ROW, IMAGE) == reference.render_stored(ROW, IMAGE)
    with pytest.raises(target.refusal_types) as raised:
        target.render(ROW, VIDEO)
    assert is_refusal(raised.value, target.refusal_types)
    assert type(raised.value).__module__ == "bridge.bridge-good"
    assert "cannot carry video" in str(raised.value)
    assert target.restarts == 0
    target.close()


def test_bedrock_bytes_travel_as_base64_objects() -> None:
    target = bridge("good")
    row = RowRef(
        "bedrock-converse/claude", "bedrock-converse", "claude", "anthropic.claude-sonnet-5"
    )
    assert target.render(row, IMAGE) == ReferenceTarget().render(row, IMAGE)
    assert decode_payload(encode_payload({"a": [b"\x89PNG"]})) == {"a": [b"\x89PNG"]}
    with pytest.raises(ValueError, match="not base64"):
        decode_payload({"x": {"$bytes": "not base64!"}})
    with pytest.raises(ValueError, match="that one key"):
        decode_payload({"x": {"$bytes": "AA==", "more": 1}})


def test_the_handshake_says_which_rows_are_served() -> None:
    target = bridge("good")
    assert target.supports(ROW) is None
    assert target.supports(RowRef("gemini/gemini-2.5", "gemini", "gemini-2.5", "m")) is None
    assert target.supports(RowRef("gemini/gemini-3", "gemini", "gemini-3", "m")) == (
        "this bridge has no Gemini 3 profile"
    )
    xai = RowRef("xai/grok-4", "xai", "grok-4", "m")
    assert "does not serve xai/grok-4" in str(target.supports(xai))
    assert "does not serve bedrock-converse/nova" in str(
        target.supports(RowRef("bedrock-converse/nova", "bedrock-converse", "nova", "m"))
    )


# --- a bridge that misbehaves, directly ---------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "error", "says"),
    [
        ("dies", BridgeDied, "closed its stdout; exit status 3; its stderr ends: bridge_double"),
        ("hangs", BridgeTimeout, "did not answer within 0.5 s; its process was killed"),
        ("garbage", BridgeProtocolError, "a line that is not JSON: 'this is not JSON'"),
        ("wrong-id", BridgeProtocolError, "answered request 'r1-other' when 'r1' was asked"),
        ("error", Exception, "x is not a function"),
    ],
)
def test_a_misbehaving_bridge_raises_no_refusal(
    mode: str, error: type[Exception], says: str
) -> None:
    target = bridge(mode, time_limit=0.5)
    with pytest.raises(error, match=re.escape(says)) as raised:
        target.render(ROW, IMAGE)
    assert not is_refusal(raised.value, target.refusal_types)
    if mode == "error":
        assert type(raised.value).__name__ == "TypeError"  # the bridge's own error type
    target.close()


def test_an_undeclared_refusal_kind_is_no_refusal() -> None:
    target = bridge("undeclared")
    with pytest.raises(UndeclaredRefusal, match="'NotDeclared', which the handshake") as raised:
        target.render(ROW, VIDEO)
    assert not is_refusal(raised.value, target.refusal_types)
    assert target.render(ROW, IMAGE) == ReferenceTarget().render(ROW, IMAGE)  # still running


@pytest.mark.parametrize("mode", ["dies-once", "hangs-once"])
def test_the_process_is_restarted_after_a_death_or_a_hang(mode: str) -> None:
    target = bridge(mode, time_limit=0.5)
    with pytest.raises(BridgeDied if mode == "dies-once" else BridgeTimeout):
        target.render(ROW, IMAGE)
    assert target.render_stored(ROW, IMAGE) == ReferenceTarget().render(ROW, IMAGE)
    assert target.restarts == 1


def test_under_the_suite_a_hang_is_the_suites_own_timeout_and_the_next_render_is_served() -> None:
    """The bridge waits a little past the cell time limit, so the suite's `CellTimeout` judges
    the hang (as for a Python target); the next render finds the request unanswered, kills
    that process and starts another at once, within its own time limit."""
    target = bridge("hangs-once")
    guard.set_time_limit(2.0)  # the next render starts a new process within it
    try:
        _, first = guard.attempt(lambda: target.render(ROW, IMAGE), "openai-chat")
        payload, second = guard.attempt(lambda: target.render(ROW, IMAGE), "openai-chat")
    finally:
        guard.set_time_limit(guard.DEFAULT_TIME_LIMIT)
    assert isinstance(first, guard.CellTimeout)
    assert second is None
    assert payload == ReferenceTarget().render(ROW, IMAGE)


def _running(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie, ended but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        return stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _survivors(pids: Path, within: float = 10.0) -> list[int]:
    made = [int(line) for line in pids.read_text(encoding="utf-8").split()]
    deadline = time.monotonic() + within
    while (alive := [p for p in made if _running(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def test_a_hung_bridge_process_ends_with_its_target_in_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a first timeout the suite renders a target in a worker process, which makes the
    target, and so the bridge process, anew. The hung render gets the worker killed; the bridge
    process the worker started must end with it, not hang on, an orphan, after the run."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("BRIDGE_PID_FILE", str(pids))  # inherited by the worker and its bridge
    target = Hangs()
    isolated = isolation.Isolated("bridge_targets:Hangs", target)
    guard.set_time_limit(1.0)
    try:
        with pytest.raises(guard.CellTimeout, match="its worker process was killed"):
            isolated.render(ROW, IMAGE)
    finally:
        guard.set_time_limit(guard.DEFAULT_TIME_LIMIT)
    isolated.close()
    target.close()
    assert len(pids.read_text(encoding="utf-8").split()) == 2, "this process's and the worker's"
    assert _survivors(pids) == []


@pytest.mark.parametrize("mode", ["bad-handshake", "no-handshake"])
def test_a_bridge_without_a_handshake_cannot_be_made(mode: str) -> None:
    says = "did not start with a protocol handshake" if mode == "bad-handshake" else "no handshake"
    with pytest.raises(BridgeStartError, match=says):
        BridgeTarget(command(mode), env=environment("x"), handshake_time_limit=1.0)


def test_a_missing_command_cannot_be_started() -> None:
    with pytest.raises(BridgeStartError, match="cannot start the bridge"):
        BridgeTarget(["/nonexistent/bridge-command"])


# --- through the suite: the verdicts of misbehaving Python targets ----------------------------


def _observed(detail: str) -> str:
    found = re.search(r"observed (\S+)", detail)
    return found[1] if found else detail


# bridge target -> (the Python target it behaves like, what the outcome detail says)
PAIRS: dict[str, tuple[str, str]] = {
    "Dies": ("RaisesSystemExit", "crashed: BridgeDied: the bridge process died"),
    "Hangs": ("Hangs", "crashed: CellTimeout: the render did not return within 1 s"),
    "Garbage": ("RaisesSystemExit", "crashed: BridgeProtocolError: the bridge wrote a line"),
    "WrongId": ("RaisesSystemExit", "crashed: BridgeProtocolError: the bridge answered request"),
    "Error": ("RaisesSystemExit", "crashed: TypeError: x is not a function"),
    "BytesElsewhere": ("ReturnsBytes", "bytes at $.extra; the openai-chat request body is JSON"),
}
ONLY_RENDERED = {"BytesElsewhere"}
"""Misbehaving in a payload only: on the refusal cell this bridge refuses, as it should."""


def _cells(name: str) -> tuple[str, ...]:
    return (CELL,) if name in ONLY_RENDERED else (CELL, UNSUPPORTED)


def test_misbehaving_bridges_get_the_verdicts_of_misbehaving_python_targets(
    project: pytest.Pytester,
) -> None:
    """Each misbehaving bridge beside the Python target that misbehaves the same way, in one
    run: the same verdict and the same observed outcome on a fallback cell and on a cell where
    a refusal is expected (a crash must not pass for one)."""
    python = sorted({p for p, _ in PAIRS.values()})
    targets = [f"bridge_targets:{name}" for name in PAIRS] + [f"hostile:{name}" for name in python]
    targets += ["bridge_targets:Undeclared"]
    run = project.runpytest(
        "-k",
        f"{CELL} or {UNSUPPORTED}",
        *[arg for spec in targets for arg in ("--conformance-target", spec)],
        "--conformance-results",
        RESULTS,
        "--conformance-cell-timeout",
        "1",  # a bridge that dies is started anew within it for every render
    )
    output = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in output
    assert run.ret == 1
    (file,) = load_results([project.path / RESULTS]).files  # complete, or it would raise
    outcomes = {(r.target, r.cell): r for r in file.results if r.check == "outcome"}
    got: dict[tuple[str, str], tuple[str, str]] = {}
    want: dict[tuple[str, str], tuple[str, str]] = {}
    for name, (like, _) in PAIRS.items():
        for cell in _cells(name):
            mine = outcomes["bridge-" + _mode_of(name), cell]
            theirs = outcomes[like.lower(), cell]
            got[name, cell] = (mine.verdict, _observed(mine.detail))
            want[name, cell] = (theirs.verdict, _observed(theirs.detail))
    assert got == want
    assert {v for v, _ in got.values()} == {"fail"}
    missing = {
        name: outcomes["bridge-" + _mode_of(name), cell].detail
        for name, (_, says) in PAIRS.items()
        for cell in _cells(name)
        if says not in outcomes["bridge-" + _mode_of(name), cell].detail
    }
    assert missing == {}
    undeclared = outcomes["bridge-undeclared", UNSUPPORTED]
    assert (undeclared.verdict, _observed(undeclared.detail)) == ("fail", "crashed")
    assert "crashed: UndeclaredRefusal" in undeclared.detail
    assert outcomes["bridge-undeclared", CELL].verdict == "pass"  # it renders the rest well


def _mode_of(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower()


def test_a_good_bridge_passes_every_check_the_reference_passes(project: pytest.Pytester) -> None:
    run = project.runpytest(
        "-k",
        "openai-chat/gpt-6/ and not :snapshot]",
        "--conformance-target",
        "bridge_targets:Good",
        "--conformance-results",
        RESULTS,
    )
    assert run.ret == 0, run.stdout.str()[-3000:]
    (file,) = load_results([project.path / RESULTS]).files
    assert {r.verdict for r in file.results} == {"pass"}
    assert len(file.results) > 50


def test_a_bridge_whose_handshake_is_broken_stops_the_run(project: pytest.Pytester) -> None:
    run = project.runpytest("-k", CELL, "--conformance-target", "bridge_targets:BadHandshake")
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*constructing it raised BridgeStartError*handshake*"])


# --- the schema and the protocol check for bridge authors --------------------------------------


def test_the_published_schema_is_the_protocols() -> None:
    """bridge.schema.json is `json_schema()`; regenerate it after a change:
    python -c "import json; from conformance.targets.bridge.protocol import json_schema;
    print(json.dumps(json_schema(), indent=2))" > bridge.schema.json"""
    committed = json.loads((ROOT / "bridge.schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema()


def test_the_protocol_check_passes_a_good_bridge() -> None:
    assert verify_bridge(command("good"), env=environment("good")) == []


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("garbage", "not a protocol line: a line that is not JSON"),
        ("wrong-id", "answered request 'v1-other' instead"),
        ("undeclared", "refusal kind 'NotDeclared' is not in the handshake's refusal_kinds"),
        ("dies", "the process died"),
        ("bad-handshake", "handshake: ValidationError"),
    ],
)
def test_the_protocol_check_names_what_a_bridge_gets_wrong(mode: str, says: str) -> None:
    problems = verify_bridge(command(mode), env=environment("x"), time_limit=5.0)
    assert any(says in p for p in problems), problems


def test_the_protocol_check_runs_from_the_command_line(pytester: pytest.Pytester) -> None:
    run = pytester.run(
        sys.executable, "-m", "conformance.adoption.verify_bridge", "--", *command("garbage")
    )
    assert run.ret == 1
    run.stdout.fnmatch_lines(["*not a protocol line*", "*protocol problem(s)"])
