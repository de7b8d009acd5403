"""Hostile targets: whatever a target does (any exception class, a hang, a body JSON cannot
hold, printing, writing files, a socket that never answers) ends in a verdict for its cell
or a clear stop with an exit status: never an INTERNALERROR, never a pass, and the results
file is complete. The targets are in `tests/hostile.py`."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from conformance.judging import guard
from conformance.recording.media import copy_snapshot
from conformance.reports.results import load_results
from conformance.targets import TargetError, resolve_target

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
UNSUPPORTED = "openai-chat/gpt-6/video/inline/result"
"""A cell where a refusal is expected: a hostile exception must not pass for one."""
RESULTS = "out/r.jsonl"
SNAPSHOT = Path("snapshots/reference/openai-chat/gpt-6.image.inline.result.json")


# target -> what the cell's outcome detail says
VERDICTS: dict[str, str] = {
    "RaisesSystemExit": "crashed: SystemExit: 3",
    "RaisesBaseException": "crashed: Weird: not an Exception",
    "RaisesGeneratorExit": "crashed: GeneratorExit",
    "RaisesUnprintable": "crashed: UnreadableError: raised _Unprintable, whose message cannot be",
    "RaisesHugeMessage": "crashed: ValueError: xxxxxxxx",
    "RaisesALoneSurrogate": "crashed: ValueError: half a character: \\ud800",
    "Hangs": "crashed: CellTimeout: the render did not return within 0.5 s",
    "WaitsOnASilentSocket": "crashed: CellTimeout: the render did not return within 0.5 s",
    "ReturnsNaN": "nan at $.temperature, which JSON cannot hold",
    "ReturnsInfinity": "inf at $.messages[0].max, which JSON cannot hold",
    "ReturnsASet": "a set at $.messages[0].content, which JSON cannot hold",
    "ReturnsBytes": "bytes at $.messages[0].content; the openai-chat request body is JSON",
    "ReturnsAnIntKey": "a int key 1 at $; JSON keys are strings",
    "ReturnsAnObject": "a object at $.messages[0], which JSON cannot hold",
    "ReturnsALoneSurrogate": "not valid Unicode (a lone surrogate) at $.messages[0].content",
    "ReturnsAList": "the render returned a list, not a JSON object",
    "ReturnsDeepNesting": "nesting deeper than 64 at $.messages",
    "ReturnsACycle": "nesting deeper than 64 at $.messages[0].messages",
}


def test_each_hostile_target_gets_a_failing_verdict_and_the_file_is_complete(
    project: pytest.Pytester,
) -> None:
    """All of them in one run, side by side (each is its own target)."""
    targets = [
        arg for name in sorted(VERDICTS) for arg in ("--conformance-target", f"hostile:{name}")
    ]
    run = project.runpytest(
        "-k",
        f"{CELL} or {UNSUPPORTED}",
        *targets,
        "--conformance-results",
        RESULTS,
        "--conformance-cell-timeout",
        "0.5",
    )
    output = run.stdout.str() + run.stderr.str()
    assert "INTERNALERROR" not in output
    assert run.ret == 1
    (file,) = load_results([project.path / RESULTS]).files  # complete, or it would raise
    outcomes = {(r.target, r.cell): r for r in file.results if r.check == "outcome"}
    keys = [(name, cell) for name in VERDICTS for cell in (CELL, UNSUPPORTED)]
    assert {key: outcomes[key[0].lower(), key[1]].verdict for key in keys} == dict.fromkeys(
        keys, "fail"
    )
    missing = {
        key: outcomes[key[0].lower(), key[1]].detail
        for key in keys
        if VERDICTS[key[0]] not in outcomes[key[0].lower(), key[1]].detail
    }
    assert missing == {}
    assert all(len(r.detail) <= 4100 for r in file.results)  # a 3 MB message is cut


@pytest.mark.parametrize("target", ["Prints", "WritesOverTheResults"])
def test_a_noisy_target_is_judged_on_its_payload(project: pytest.Pytester, target: str) -> None:
    snapshot = (
        project.path / "snapshots" / target.lower() / SNAPSHOT.relative_to("snapshots/reference")
    )
    copy_snapshot(ROOT / SNAPSHOT, snapshot)  # with the media blobs it names
    run = project.runpytest(
        "-k", CELL, "--conformance-target", f"hostile:{target}", "--conformance-results", RESULTS
    )
    assert run.ret == 0
    (file,) = load_results([project.path / RESULTS]).files
    assert {r.verdict for r in file.results} == {"pass"}


@pytest.mark.parametrize(
    ("module", "says"),
    [
        (
            "raise SystemExit('module says no')",
            "cannot import 'broken': SystemExit: module says no",
        ),
        ("1 / 0", "cannot import 'broken': ZeroDivisionError: division by zero"),
        ("def (:", "cannot import 'broken': SyntaxError"),
        ("raise GeneratorExit", "cannot import 'broken': GeneratorExit"),
        (
            "def __getattr__(name):\n    raise RuntimeError('lazy import failed')",
            "reading 'T' raised RuntimeError: lazy import failed",
        ),
    ],
)
def test_a_target_module_that_fails_to_import_stops_the_run(
    project: pytest.Pytester, module: str, says: str
) -> None:
    project.makepyfile(broken=module)
    project.syspathinsert()
    run = project.runpytest("-k", CELL, "--conformance-target", "broken:T")
    assert run.ret == 4
    assert "INTERNALERROR" not in run.stdout.str() + run.stderr.str()
    run.stderr.fnmatch_lines([f"*target 'broken:T': {says}*"])


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("FailsToConstruct", "constructing it raised SystemExit: constructor says no"),
        ("EscapingName", "its name '../../escape' cannot be a folder name"),
        ("NotAStringName", "its name is a int, not a string"),
    ],
)
def test_a_target_that_cannot_be_made_or_named_stops_the_run(
    project: pytest.Pytester, target: str, says: str
) -> None:
    run = project.runpytest("-k", CELL, "--conformance-target", f"hostile:{target}")
    assert run.ret == 4
    run.stderr.fnmatch_lines([f"*{says}*"])
    assert not (project.path.parent / "escape").exists()


def test_resolving_never_lets_a_keyboard_interrupt_pass_as_an_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(interrupts="raise KeyboardInterrupt")
    pytester.syspathinsert()
    with pytest.raises(KeyboardInterrupt):
        resolve_target("interrupts:T")
    with pytest.raises(TargetError, match="has no 'Missing'"):
        resolve_target("hostile:Missing")


@pytest.mark.parametrize("value", ["-1", "nan", "soon"])
def test_a_bad_cell_time_limit_is_a_usage_error(project: pytest.Pytester, value: str) -> None:
    if value == "soon":
        project.makeini(
            "[pytest]\nconformance_matrix = matrix.yaml\nconformance_cell_timeout = soon\n"
        )
        run = project.runpytest("-k", CELL)
    else:
        run = project.runpytest("-k", CELL, f"--conformance-cell-timeout={value}")
    assert run.ret == 4
    run.stderr.fnmatch_lines(["*cell*timeout*"])
    if value == "soon":  # located at the value
        run.stderr.fnmatch_lines(["*tox.ini:3:28: conformance_cell_timeout = 'soon': give a*"])


def test_the_time_limit_is_restored_after_a_run(project: pytest.Pytester) -> None:
    project.runpytest("-k", CELL, "--conformance-cell-timeout", "0.5")
    assert guard.time_limit() == guard.DEFAULT_TIME_LIMIT


def test_bytes_are_a_body_only_where_the_client_takes_them() -> None:
    body = {"messages": [{"content": [{"image": {"source": {"bytes": b"\x89PNG"}}}]}]}
    assert guard.json_problem(body, "bedrock-converse") is None
    assert "bytes at $.messages[0].content[0].image.source.bytes" in str(
        guard.json_problem(body, "anthropic")
    )


def test_without_a_time_limit_renders_run_inline() -> None:
    guard.set_time_limit(0)
    try:
        assert guard.time_limit() is None
        assert guard.attempt(lambda: {"model": "m"}, "openai-chat") == ({"model": "m"}, None)
        payload, error = guard.attempt(lambda: (_ for _ in ()).throw(SystemExit(2)), "xai")
        assert payload is None
        assert isinstance(error, SystemExit)
    finally:
        guard.set_time_limit(guard.DEFAULT_TIME_LIMIT)


def _raise(error: BaseException) -> Any:
    raise error


def test_a_keyboard_interrupt_in_a_render_reaches_the_run() -> None:
    """Ctrl-C and a target's KeyboardInterrupt cannot be told apart: both stop the run (and
    the results file says it was interrupted)."""
    with pytest.raises(KeyboardInterrupt):
        guard.attempt(lambda: _raise(KeyboardInterrupt()), "openai-chat")


def test_after_an_abandoned_render_the_next_one_runs() -> None:
    release = threading.Event()
    guard.set_time_limit(0.2)
    try:
        payload, error = guard.attempt(lambda: release.wait() and {}, "openai-chat")
        assert payload is None
        assert isinstance(error, guard.CellTimeout)
        assert guard.attempt(lambda: {"model": "m"}, "openai-chat") == ({"model": "m"}, None)
    finally:
        release.set()
        guard.set_time_limit(guard.DEFAULT_TIME_LIMIT)
