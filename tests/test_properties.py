"""The invariants of `conformance.judging.properties` under hypothesis, on every target and row.

Rows are drawn inside each test rather than parametrized, so a property costs one
hypothesis run whatever the number of rows. Each property also has a mutant it must catch:
hypothesis has to come up with a history on which the mutant breaks it.

Failures found are kept as explicit examples: when a property fails with
CONFORMANCE_SAVE_EXAMPLES=1 set (the `nightly` nox session sets it), the failing row and
history are written to tests/data/examples/pending-<property>.json, the last write being the
shrunk example. Review it, rename it without `pending-`, and commit it: every file there is
replayed by every property, before any generated example.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from conformance.history import (
    History,
    Message,
    Text,
    ToolCall,
    ToolResult,
    ToolReturnProvenance,
    dump,
    load,
)
from conformance.judging.checks import row_ref
from conformance.judging.properties import (
    PROPERTIES,
    PropertyFailed,
    cross_provider_replay,
    markers_name_their_calls,
)
from conformance.matrix import load_matrix
from conformance.scenarios.strategies import histories
from conformance.targets import ENTRY_POINT_GROUP, TargetError, resolve_target
from conformance.targets.base import RowRef, Target
from conformance.targets.reference import ReferenceTarget
from mutants import (
    ChangesWhitespace,
    DropsMedia,
    ForgetsProvenanceOnReplay,
    LosesProvenanceInStorage,
    Nondeterministic,
    RaisesOnHostileNames,
    SwapsParallelResults,
    UnescapedMarker,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "data" / "examples"
_MATRIX = load_matrix(ROOT / "matrix.yaml")
ROWS: list[RowRef] = list({row_ref(c).id: row_ref(c) for c in _MATRIX.cells()}.values())
_BY_ID = {r.id: r for r in ROWS}


def _installed_targets() -> list[Target]:
    """The reference, and every target registered by an installed package that imports."""
    found: list[Target] = [ReferenceTarget()]
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = resolve_target(entry.name)
        except TargetError:
            continue  # an optional dependency that is not installed here
        if getattr(target, "unavailable", None) is None:
            found.append(target)
    return found


# Properties a target is known to break, with why, for these self-tests run by hand in a venv
# that has the framework: a failure is an xfail (not strict: a search that finds no
# counterexample proves nothing). The gate itself reads them from deviations/<target>.yaml
# (`property/<name>` entries); keep the two in step.
PROPERTY_DEVIATIONS: dict[str, dict[str, str]] = {
    "pydantic-ai": {
        "media-exactly-once": "media a model cannot read becomes a note "
        "(docs/deviations.md#replaced-by-note)",
        "text-identical": "Gemini text wrapped in return_value, error text JSON-encoded "
        "(docs/deviations.md#gemini-return-value, #error-json-encoded)",
        "markers-name-their-calls": "tool-produced user content loses its provenance "
        "(docs/deviations.md#prompt-without-provenance)",
        "parallel-calls-in-order": "tool-produced content moves out of its tool result "
        "(docs/deviations.md#prompt-without-provenance)",
        "cross-provider-replay": "tool-produced user content has no provenance to keep, "
        "replayed or not (docs/deviations.md#prompt-without-provenance)",
    },
    "litellm": {
        "total": "a URL it cannot download raises APIConnectionError besides its BadRequestError "
        "(docs/litellm.md#url-downloads)",
        "media-exactly-once": "audio and video dropped on Anthropic and Bedrock "
        "(docs/litellm.md#anthropic-audio, #bedrock-drops)",
        "text-identical": "Gemini text under response.content; tool-produced text leaves the "
        "tool result (docs/litellm.md#gemini-response-content, #no-provenance)",
        "markers-name-their-calls": "moved media is led by a text naming no call "
        "(docs/litellm.md#hoisting, #no-provenance)",
        "parallel-calls-in-order": "media of all parallel results moved into one user message "
        "(docs/litellm.md#hoisting)",
        "cross-provider-replay": "its messages carry no provenance to keep "
        "(docs/litellm.md#no-provenance)",
    },
    "litellm.anthropic-messages": {
        "total": "generated audio and video have no Anthropic form (docs/litellm.md#am-properties)",
        "media-exactly-once": "generated audio and video have no Anthropic form "
        "(docs/litellm.md#am-properties)",
        "text-identical": "generated audio and video have no Anthropic form; Mistral fuses the "
        "texts after the tool results (docs/litellm.md#am-properties, #am-mistral-flatten)",
        "markers-name-their-calls": "content after the tool results is an ordinary user message, "
        "with no marker (docs/litellm.md#am-no-provenance)",
        "parallel-calls-in-order": "generated audio and video have no Anthropic form; moved "
        "media leaves its tool result (docs/litellm.md#am-properties, #hoisting)",
        "cross-provider-replay": "the Anthropic params carry no provenance to keep "
        "(docs/litellm.md#am-no-provenance)",
    },
    "litellm.responses": {
        "total": "generated audio and video have no Responses form (docs/litellm.md#rs-properties)",
        "media-exactly-once": "generated audio and video have no Responses form "
        "(docs/litellm.md#rs-properties)",
        "text-identical": "the bridge joins an output's texts into one string "
        "(docs/litellm.md#rs-properties)",
        "markers-name-their-calls": "tool-produced content is an ordinary user message, with no "
        "marker (docs/litellm.md#no-provenance)",
        "parallel-calls-in-order": "generated audio and video have no Responses form; moved "
        "media leaves its tool result (docs/litellm.md#rs-properties, #hoisting)",
        "cross-provider-replay": "the Responses params carry no provenance to keep "
        "(docs/litellm.md#no-provenance)",
    },
    "langchain": {
        "media-exactly-once": "langchain-cohere skips standard blocks in user content, and "
        "huggingface/mistral/groq send tool-message blocks unconverted (docs/langchain.md#cohere, "
        "#mistral-groq-huggingface)",
        "text-identical": "langchain-cohere wraps tool text in a document "
        "(docs/langchain.md#cohere)",
        "markers-name-their-calls": "tool-produced user content is a plain HumanMessage, with "
        "no marker (docs/langchain.md#prompt-style)",
        "parallel-calls-in-order": "tool-produced content moves out of its tool result "
        "(docs/langchain.md#prompt-style)",
        "cross-provider-replay": "a HumanMessage keeps no provenance to replay "
        "(docs/langchain.md#prompt-style)",
    },
    "ai-sdk": {
        "media-exactly-once": "URL media the SDK downloads is counted by its URL; chat providers "
        "JSON-stringify tool media; Anthropic drops tool audio and video "
        "(docs/ai-sdk.md#url-downloads, #stringified, #dropped)",
        "text-identical": "Gemini text under response.content; an empty user text part is left "
        "out; tool-produced text leaves the tool result (docs/ai-sdk.md#gemini-response, "
        "#prompt-style)",
        "markers-name-their-calls": "tool-produced user content is an ordinary user message, "
        "with no marker (docs/ai-sdk.md#prompt-style)",
        "parallel-calls-in-order": "tool-produced content moves out of its tool result "
        "(docs/ai-sdk.md#prompt-style)",
        "cross-provider-replay": "the SDK's messages keep no provenance to replay "
        "(docs/ai-sdk.md#prompt-style)",
    },
}


def _known(request: pytest.FixtureRequest, target: Target, name: str) -> bool:
    reason = PROPERTY_DEVIATIONS.get(target.name, {}).get(name)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=False, raises=PropertyFailed))
    return reason is not None


TARGETS = _installed_targets()


def _kept_examples() -> list[tuple[RowRef, History]]:
    kept: list[tuple[RowRef, History]] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        kept.append((_BY_ID[data["row"]], load(json.dumps(data["history"]))))
    return kept


def _save(name: str, row: RowRef, history: History) -> None:
    if os.environ.get("CONFORMANCE_SAVE_EXAMPLES") != "1":
        return
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    record = {"row": row.id, "history": json.loads(dump(history))}
    (EXAMPLES / f"pending-{name}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")


def _rows(target: Target) -> list[RowRef]:
    return [r for r in ROWS if target.supports(r) is None]


@pytest.mark.parametrize("name", list(PROPERTIES))
@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_property_holds(request: pytest.FixtureRequest, target: Target, name: str) -> None:
    check = PROPERTIES[name]
    known = _known(request, target, name)
    rows = _rows(target)

    @settings(
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        deadline=None,  # a framework target renders over loopback HTTP: no timed assertion
        # A known failure needs no shrinking: the first counterexample makes the xfail.
        phases=[Phase.explicit, Phase.generate] if known else list(Phase),
    )
    @given(row=st.sampled_from(rows), history=histories())
    def run(row: RowRef, history: History) -> None:
        try:
            check(target, row, history)
        except PropertyFailed:
            _save(name, row, history)
            raise

    for row, history in _kept_examples():
        if row in rows:
            run = example(row=row, history=history)(run)
    run()


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_cross_provider_replay_keeps_provenance(
    request: pytest.FixtureRequest, target: Target
) -> None:
    known = _known(request, target, "cross-provider-replay")
    rows = _rows(target)

    @settings(
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        deadline=None,
        phases=[Phase.explicit, Phase.generate] if known else list(Phase),
    )
    @given(first=st.sampled_from(rows), then=st.sampled_from(rows), history=histories())
    def run(first: RowRef, then: RowRef, history: History) -> None:
        cross_provider_replay(target, first, then, history)

    run()


# Searching for a counterexample, not shrinking it: the first failure found is enough.
_SEARCH = settings(
    max_examples=1000,
    phases=[Phase.generate],
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _breaks(check: Callable[[Target, RowRef, History], None], target: Target) -> None:
    """Hypothesis must find a history on which `target` breaks `check`."""

    @_SEARCH
    @given(row=st.sampled_from(_rows(target)), history=histories())
    def run(row: RowRef, history: History) -> None:
        check(target, row, history)

    with pytest.raises(PropertyFailed):
        run()


MUTANTS = {
    "deterministic": Nondeterministic,
    "total": RaisesOnHostileNames,
    "media-exactly-once": DropsMedia,
    "text-identical": ChangesWhitespace,
    "markers-name-their-calls": UnescapedMarker,
    "parallel-calls-in-order": SwapsParallelResults,
    "storage-round-trip": LosesProvenanceInStorage,
}


def test_every_property_has_a_mutant() -> None:
    assert set(MUTANTS) == set(PROPERTIES)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_property_catches_its_mutant(name: str) -> None:
    _breaks(PROPERTIES[name], MUTANTS[name]())


def test_cross_provider_replay_catches_its_mutant() -> None:
    target = ForgetsProvenanceOnReplay()
    rows = _rows(target)

    @_SEARCH
    @given(first=st.sampled_from(rows), then=st.sampled_from(rows), history=histories())
    def run(first: RowRef, then: RowRef, history: History) -> None:
        cross_provider_replay(target, first, then, history)

    with pytest.raises(PropertyFailed):
        run()


def test_kept_examples_load_and_name_known_rows() -> None:
    kept = _kept_examples()
    assert kept, "tests/data/examples keeps at least the hand-picked hostile example"
    assert all(row in ROWS for row, _ in kept)


def test_a_failure_is_saved_for_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row, history = _kept_examples()[0]
    monkeypatch.setattr(sys.modules[__name__], "EXAMPLES", tmp_path)
    monkeypatch.delenv("CONFORMANCE_SAVE_EXAMPLES", raising=False)
    _save("total", row, history)
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv("CONFORMANCE_SAVE_EXAMPLES", "1")
    _save("total", row, history)
    saved = json.loads((tmp_path / "pending-total.json").read_text(encoding="utf-8"))
    assert saved["row"] == row.id
    assert load(json.dumps(saved["history"])) == history


_EMPTY_TEXTS: list[History] = [
    # a user message with no text before the call (LiteLLM leaves it out for Bedrock)
    [
        Message(role="user", content=""),
        ToolCall(tool_call_id="call_0", name="get_", arguments={"q": ""}),
        ToolResult(tool_call_id="call_0", name="get_", content=[]),
    ],
    # an empty text part beside text in a tool's output
    [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="call_0", name="get_text", arguments={}),
        ToolResult(
            tool_call_id="call_0", name="get_text", content=[Text(text=""), Text(text="ok")]
        ),
    ],
]


@pytest.mark.parametrize("history", _EMPTY_TEXTS, ids=["user-message", "tool-text-part"])
@pytest.mark.parametrize("row", ["bedrock-converse/qwen3-vl", "anthropic/claude-sonnet-5"])
def test_leaving_out_an_empty_text_loses_nothing(row: str, history: History) -> None:
    """Converse and Anthropic refuse a blank text block: leaving an empty one out is legal,
    while leaving out a text of white space only (bytes the user wrote) is not."""
    from mutants import LeavesOutBlankText, LeavesOutEmptyText

    PROPERTIES["text-identical"](LeavesOutEmptyText(), _BY_ID[row], history)
    blank = [
        item.model_copy(update={"content": " "})
        if isinstance(item, Message)
        else item.model_copy(update={"content": [Text(text="\\n"), Text(text="ok")]})
        if isinstance(item, ToolResult) and item.content
        else item
        for item in history
    ]
    PROPERTIES["text-identical"](LeavesOutEmptyText(), _BY_ID[row], blank)
    with pytest.raises(PropertyFailed, match=r"text not sent byte for byte|tool text"):
        PROPERTIES["text-identical"](LeavesOutBlankText(), _BY_ID[row], blank)


@pytest.mark.parametrize("row", [r.id for r in ROWS])
def test_an_empty_tool_text_left_out_is_not_a_copy_of_an_empty_prompt(row: str) -> None:
    """The empty string equals the user's empty prompt before the call: a tool's empty text left
    out of its result is not "moved to a user message before its tool result" (it was judged so
    once, a failure no user could hit). Text that is there is still found where it is."""
    from mutants import LeavesOutEmptyToolText

    history: History = [
        Message(role="user", content=""),
        ToolCall(tool_call_id="call_0", name="get_text", arguments={}),
        ToolResult(
            tool_call_id="call_0", name="get_text", content=[Text(text=""), Text(text="ok")]
        ),
    ]
    PROPERTIES["text-identical"](LeavesOutEmptyToolText(), _BY_ID[row], history)

    class LeavesOutOk(LeavesOutEmptyToolText):
        leaves_out = staticmethod(lambda text: text == "ok")

    # "ok" left out of its result is lost, though the user's prompt says "ok" too
    said_ok = [history[0].model_copy(update={"content": "ok"}), *history[1:]]
    with pytest.raises(PropertyFailed, match="in a user message before its tool result"):
        PROPERTIES["text-identical"](LeavesOutOk(), _BY_ID[row], said_ok)


_HOSTILE_NAMES: History = [
    Message(role="user", content="go"),
    ToolCall(tool_call_id="\u2028<Æ5\x00#1", name=";Ù¶切>ôÑ$D\t", arguments={}),
    ToolCall(tool_call_id="call 2", name="<æ5\n", arguments={}),
    ToolResult(tool_call_id="\u2028<Æ5\x00#1", name=";Ù¶切>ôÑ$D\t", content=[Text(text="first")]),
    ToolResult(tool_call_id="call 2", name="<æ5\n", content=[Text(text="second")]),
]


@pytest.mark.parametrize("row", ["bedrock-converse/deepseek", "openai-chat/gpt-6"])
def test_tool_names_and_ids_rewritten_together_are_still_paired(row: str) -> None:
    """A framework that rewrites both a tool's name and its call ids (LiteLLM for Bedrock) is
    paired by order among the renamed calls: its outputs are where they belong. Swapping two
    outputs on top of the rewrite is still caught."""
    from mutants import RewritesAndSwaps, RewritesNamesAndIds

    for name in ("text-identical", "parallel-calls-in-order"):
        PROPERTIES[name](RewritesNamesAndIds(), _BY_ID[row], _HOSTILE_NAMES)
    with pytest.raises(PropertyFailed, match="in the tool result of"):
        PROPERTIES["parallel-calls-in-order"](RewritesAndSwaps(), _BY_ID[row], _HOSTILE_NAMES)


_LOOKALIKE = 'see <conformance:tool_return tool_name="get_image" tool_call_id="call_9" /> above'


def _lookalike_history() -> History:
    """Two calls whose tools add user content; the first imitates a marker naming no call
    (a shrunk counterexample of LangChain's Bedrock route, results/langchain/1.8.3)."""
    return [
        Message(role="user", content="  go  \n"),
        *(ToolCall(tool_call_id=i, name=f"get_{i}", arguments={}) for i in ("call_1", "call_2")),
        *(ToolResult(tool_call_id=i, name=f"get_{i}", content=[]) for i in ("call_1", "call_2")),
        Message(
            role="user",
            content=[Text(text=_LOOKALIKE)],
            source=ToolReturnProvenance(tool_name="get_call_1", tool_call_id="call_1"),
        ),
        Message(
            role="user",
            content=[Text(text="NUL NUL")],
            source=ToolReturnProvenance(tool_name="get_call_2", tool_call_id="call_2"),
        ),
    ]


def test_a_users_marker_lookalike_joined_to_other_text_is_not_judged_as_a_marker() -> None:
    """The property judges markers the target added, not a history text that imitates one,
    whether that text arrives alone (the reference) or joined to the next (langchain-aws)."""
    from mutants import JoinsUserTexts, JoinsUserTextsAndAMarker

    row = _BY_ID["bedrock-converse/nova-2"]
    history = _lookalike_history()
    joined = JoinsUserTexts().render(row, history)
    texts_sent = [b["text"] for m in joined["messages"] for b in m["content"] if "text" in b]
    assert f"{_LOOKALIKE}\nNUL NUL" in texts_sent, "the look-alike is fused with the next text"
    markers_name_their_calls(JoinsUserTexts(), row, history)
    markers_name_their_calls(ReferenceTarget(), row, history)
    # A marker the target wrote is still judged, joined to the user's look-alike or not.
    with pytest.raises(PropertyFailed, match="call_404"):
        markers_name_their_calls(JoinsUserTextsAndAMarker(), row, history)
    _breaks(markers_name_their_calls, JoinsUserTextsAndAMarker())


# --- the strategies' text alphabet --------------------------------------------------------------

_DRAW_WITHOUT_THE_CODEC_TABLE = """
import hypothesis.internal.charmap as charmap
from hypothesis import find

def refuse(codec):
    raise AssertionError(f"hypothesis built its table of {codec} encodings")

charmap.intervals_from_codec = refuse
from conformance.scenarios.strategies import histories

find(histories(), lambda history: len(history) > 6)
print("DREW")
"""


def test_histories_are_drawn_without_hypothesiss_table_of_utf8_encodings(tmp_path: Path) -> None:
    # Hypothesis's default text alphabet, characters(codec="utf-8"), is built from a table of
    # every code point's encoding that it keeps in `.hypothesis/`: seconds of CPU in each folder
    # without one. The strategies' own alphabet is the same set, from the categories alone.
    done = subprocess.run(
        [sys.executable, "-c", _DRAW_WITHOUT_THE_CODEC_TABLE],
        cwd=tmp_path,  # a folder without `.hypothesis/`
        env={**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path / ".hypothesis")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DREW" in done.stdout


def test_the_strategies_alphabet_is_hypothesiss_utf8_alphabet() -> None:
    # The same intervals, so the same draws: a hypothesis whose default changed would show here.
    from conformance.scenarios import strategies

    lazy: Any = importlib.import_module("hypothesis.strategies._internal.lazy")  # no public API
    ours: Any = lazy.unwrap_strategies(strategies._TEXT)  # pyright: ignore[reportPrivateUsage]
    default: Any = lazy.unwrap_strategies(st.characters(codec="utf-8"))
    assert ours.intervals == default.intervals
    assert chr(27 << 11) not in ours.intervals
