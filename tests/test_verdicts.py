"""Rules read as the provider reads the request (issue 20), each shown on a mutant target that
was misjudged before and is judged right now, beside a legal variant that passes.

The cells each mutant must fail (or pass) are derived from the matrix and the scenario.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance import marker
from conformance.judging.checks import CellRun, Check, applicable_checks, evaluate, run_cell
from conformance.judging.properties import PropertyFailed, media_exactly_once
from conformance.matrix import CellSpec, Matrix, load_matrix
from conformance.scenarios.build import scenario
from conformance.targets.base import RowRef, Target
from conformance.targets.reference import ReferenceTarget
from mutants_turns import (
    AudioAsUndefinedToolBlock,
    BreaksOrderingRule,
    DownloadsUnmarked,
    FlagsEveryResult,
    GenericResultName,
    InterleavesFallback,
    KeysToolText,
    PromptTextAsUserMessage,
    ReordersResults,
    SendsUrlAndBytes,
    SplitsParallelTurn,
    StripsMarkers,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix(ROOT / "matrix.yaml")


def _runs(target: Target, matrix: Matrix, keep: Callable[[CellSpec], bool]) -> list[CellRun]:
    return [run_cell(target, cell) for cell in matrix.all_cells() if keep(cell)]


def _failing(runs: list[CellRun], check: Check) -> set[str]:
    return {
        run.cell.id
        for run in runs
        if check in applicable_checks(run.cell) and not evaluate(run, check).passed
    }


def _rendering(runs: list[CellRun]) -> set[str]:
    return {r.cell.id for r in runs if r.first.payload is not None}


# --- 1. text read as the api reads it --------------------------------------------------------


def test_text_under_another_key_is_the_output_with_a_layout_note(matrix: Matrix) -> None:
    apis = ("gemini", "cohere", "bedrock-converse")

    def keyed(c: CellSpec) -> bool:
        return c.api in apis and c.content_type == "text" and c.style != "prompt"

    runs = _runs(KeysToolText(), matrix, keyed)
    rendered = _rendering(runs)
    assert {r.cell.api for r in runs if r.cell.id in rendered} == set(apis)
    # Before: altered ("wrapped in a longer string"), a required failure. Now byte-identical.
    assert _failing(runs, "text-identical") == set()
    assert _failing(runs, "no-silent-loss") == set()
    # The layout differs from the api's own slot: the reference level says so, exactly.
    assert _failing(runs, "outcome") == rendered
    gemini = next(r for r in runs if r.cell.api == "gemini" and r.cell.style == "result")
    detail = evaluate(gemini, "outcome").detail
    assert "the value of key 'return_value' of response" in detail
    assert "wrapped in a longer string" not in gemini.observation.detail
    assert {i.outcome for r in runs for i in r.observation.items} == {"native"}
    # The legal variant: the api's own slot.
    reference = _runs(ReferenceTarget(), matrix, keyed)
    assert _failing(reference, "outcome") == set()


def test_text_beside_an_output_key_is_not_read() -> None:
    """With `output` present, Gemini reads only `output`: text under another key is lost."""
    from conformance.judging.observe import observe

    history = scenario("text", "inline", "result", calls=1)
    row = RowRef(id="gemini/gemini-3", api="gemini", family="gemini-3", model="gemini-3-pro")
    payload = ReferenceTarget().render(row, history)
    response = payload["contents"][2]["parts"][0]["functionResponse"]["response"]
    response["note"] = response["output"]
    response["output"] = ""
    seen = observe("gemini", history, payload, None)
    item = seen.items[0]
    assert (item.outcome, item.identical) == ("altered", False)
    assert "does not read as the tool's output" in item.detail
    assert item.where.endswith("response.note")


# --- 2. prompt-style text --------------------------------------------------------------------


def test_prompt_style_text_in_its_user_message_is_identical(matrix: Matrix) -> None:
    def prompt_text(c: CellSpec) -> bool:
        return c.content_type == "text" and c.style == "prompt"

    runs = _runs(PromptTextAsUserMessage(), matrix, prompt_text)
    cells = {r.cell.id for r in runs}
    assert cells
    assert _rendering(runs) == cells
    # Before: "text moved out of its tool result", a required failure. Now it is where it
    # belongs, byte for byte; that it lost its provenance is the recommended level's finding.
    assert _failing(runs, "text-identical") == set()
    assert _failing(runs, "provenance") == cells
    prompts = [i for r in runs for i in r.observation.items if i.origin == "prompt"]
    assert {(i.outcome, i.identical) for i in prompts} == {("fallback-unmarked", True)}


def test_prompt_style_text_before_its_tool_result_is_not_identical() -> None:
    from conformance.judging.observe import observe

    history = scenario("text", "inline", "prompt", calls=1)
    row = RowRef(id="openai-chat/gpt-6", api="openai-chat", family="gpt-6", model="gpt-6-luna")
    payload = PromptTextAsUserMessage().render(row, history)
    messages = payload["messages"]
    user = messages.pop()
    messages.insert(1, user)  # before the assistant's call
    seen = observe("openai-chat", history, payload, None)
    prompt = next(i for i in seen.items if i.origin == "prompt")
    assert (prompt.outcome, prompt.identical) == ("fallback-unmarked", False)
    assert "before its tool result" in prompt.detail


# --- 3. a downloaded URL is judged as its inline cell ----------------------------------------


def test_a_download_is_judged_exactly_as_its_inline_cell(matrix: Matrix) -> None:
    either = [c for c in matrix.cells() if c.expect == "refuse-or-download"]
    runs = [run_cell(DownloadsUnmarked(), c) for c in either]
    carried = [r for r in runs if r.observation.url == "downloaded" and r.first.payload]
    assert carried, "some refuse-or-download cells are carried as bytes"
    unmarked = 0
    for run in carried:
        inline_id = run.cell.id.replace("/url/", "/inline/")
        inline = run_cell(StripsMarkers(), matrix.cell(inline_id))
        # Before: unsupported-raises failed ("did not carry the bytes") when unmarked.
        assert evaluate(run, "unsupported-raises").passed, run.cell.id
        shared = set(applicable_checks(run.cell)) & set(applicable_checks(inline.cell))
        for check in sorted(shared - {"snapshot", "unsupported-raises"}):
            got = evaluate(run, check).passed
            assert got == evaluate(inline, check).passed, (run.cell.id, check)
        unmarked += not evaluate(run, "provenance").passed
    assert unmarked, "the test covers unmarked downloads"


def test_a_refusal_passes_the_checks_of_its_download() -> None:
    cell = load_matrix(ROOT / "matrix.yaml").cells()
    either = next(c for c in cell if c.expect == "refuse-or-download")
    run = run_cell(ReferenceTarget(), either)
    assert run.observation.outcome == "raised"
    for check in ("text-identical", "provenance", "parallel-turn"):
        assert check in applicable_checks(either)
        assert evaluate(run, check).passed, check


# --- 4. positions per block: media between the results of a turn ---------------------------


# Bedrock's open-weight families take no other block beside their tool results: the reference
# sends the results in a message of their own and the media in the next user message, so there
# is no shared message for the mutant to interleave media into.
RESULTS_APART = {
    "bedrock-converse/llama-4",
    "bedrock-converse/mistral-large-3",
    "bedrock-converse/qwen3-vl",
    "bedrock-converse/deepseek",
}


def test_fallback_between_the_results_of_a_turn(matrix: Matrix) -> None:
    def fallback(c: CellSpec) -> bool:
        return c.expect == "fallback" and c.source == "inline" and c.row_id not in RESULTS_APART

    runs = _runs(InterleavesFallback(), matrix, fallback)
    cells = {r.cell.id for r in runs}
    # Anthropic and Responses carry their media natively (no fallback cell): their interleaved
    # layouts are in test_acceptance and below.
    assert {r.cell.api for r in runs} == {
        "bedrock-converse",
        "cohere",
        "gemini",
        "gemini-vertex",
        "groq",
        "huggingface",
        "mistral",
        "openai-chat",
        "xai",
    }
    # Before: the second call's media read as "before its tool result" in the apis that keep
    # results and media in one message. Now each item sits after its own result, marked.
    assert not [i for r in runs for i in r.observation.items if "before" in i.detail]
    assert _failing(runs, "provenance") == set()
    assert {i.outcome for r in runs for i in r.observation.items if i.content_type != "text"} == {
        "fallback-marked"
    }
    # The turn is broken on every api, and refused where the provider says so.
    assert _failing(runs, "parallel-turn") == cells
    refusing = {r.cell.api for r in runs if r.cell.id in _failing(runs, "api-accepts")}
    # Bedrock's fallback rows are Nova's, where Claude's leading-results rule (BE-5) is not
    # enforced; test_acceptance shows it on a Claude model id.
    assert {r.cell.row_id for r in runs if r.cell.api == "bedrock-converse"} <= {
        "bedrock-converse/nova",
        "bedrock-converse/nova-2",
    }
    assert refusing == {"openai-chat", "mistral"}


# --- 5. undefined blocks ---------------------------------------------------------------------


def test_an_undefined_block_named_after_a_media_kind_is_malformed(matrix: Matrix) -> None:
    def audio(c: CellSpec) -> bool:
        return (
            c.api in ("openai-responses", "cohere")
            and c.content_type == "audio"
            and (c.source, c.style) == ("inline", "result")
        )

    runs = _runs(AudioAsUndefinedToolBlock(), matrix, audio)
    assert {r.cell.api for r in runs} == {"openai-responses", "cohere"}
    for run in runs:
        items = [i for i in run.observation.items if i.content_type == "audio"]
        # Before: `altered: bytes` ("bytes that do not decode").
        assert {i.outcome for i in items} == {"malformed"}, run.cell.id
        assert all("'input_audio' block" in i.detail for i in items)
        assert all(i.where.endswith(("output[0]", "content[0]")) for i in items)
        assert not evaluate(run, "api-accepts").passed
        assert not evaluate(run, "no-silent-loss").passed


# --- 10. the unity of a parallel turn --------------------------------------------------------


def _all(c: CellSpec) -> bool:
    return True


def test_results_out_of_call_order_are_caught(matrix: Matrix) -> None:
    runs = _runs(ReordersResults(), matrix, _all)
    assert _failing(runs, "parallel-turn") == _rendering(runs)
    detail = evaluate(next(r for r in runs if r.first.payload), "parallel-turn").detail
    assert "out of call order" in detail
    assert _failing(_runs(ReferenceTarget(), matrix, _all), "parallel-turn") == set()


def test_a_turn_split_into_sequential_turns_is_caught(matrix: Matrix) -> None:
    runs = _runs(SplitsParallelTurn(), matrix, _all)
    assert _failing(runs, "parallel-turn") == _rendering(runs)
    detail = evaluate(next(r for r in runs if r.first.payload), "parallel-turn").detail
    assert "sequential turns" in detail


def test_every_result_flagged_is_caught(matrix: Matrix) -> None:
    runs = _runs(FlagsEveryResult(), matrix, _all)
    flagged = {c.id for c in matrix.error_cells() if c.error == "flag"}
    # Before: the failed call was flagged, so error-flag passed.
    assert _failing(runs, "error-flag") == flagged
    run = next(r for r in runs if r.cell.id in flagged)
    assert "succeeded: its result is flagged an error" in evaluate(run, "error-flag").detail
    # rows whose api has an error flag and whose error cell uses it (Bedrock's open-weight
    # families take no `status`: the reference sends none there, so there is none to add)
    flag_rows = {matrix.cell(c).row_id for c in flagged}
    content = {r.cell.id for r in runs if r.cell.row_id in flag_rows and r.cell.error is None}
    assert _failing(runs, "parallel-turn") >= content & _rendering(runs)


def test_a_result_naming_another_tool_is_caught(matrix: Matrix) -> None:
    runs = _runs(GenericResultName(), matrix, _all)
    named = {r.cell.id for r in runs if r.cell.api in ("gemini", "mistral")} & _rendering(runs)
    assert named
    assert _failing(runs, "parallel-turn") == named
    run = next(r for r in runs if r.cell.id in named)
    assert "names the tool 'tool'" in evaluate(run, "parallel-turn").detail


def test_media_exactly_once_counts_a_url_and_its_bytes_alike() -> None:
    row = RowRef(
        id="anthropic/claude-sonnet-5",
        api="anthropic",
        family="claude-sonnet-5",
        model="claude-sonnet-5-5",
    )
    history = scenario("image", "url", "result")
    media_exactly_once(ReferenceTarget(), row, history)  # the legal variant
    with pytest.raises(PropertyFailed, match="appears 2 times"):
        media_exactly_once(SendsUrlAndBytes(), row, history)


def test_interleaved_media_on_responses_is_placed_after_its_own_output() -> None:
    from conformance.judging.observe import observe

    history = scenario("image", "inline", "result")
    row = RowRef(
        id="openai-responses/gpt-6", api="openai-responses", family="gpt-6", model="gpt-6-luna"
    )
    payload = ReferenceTarget().render(row, history)
    items: list[dict[str, Any]] = []
    for item in payload["input"]:
        items.append(item)
        if item.get("type") == "function_call_output":
            image = item["output"].pop()
            tag = marker.render("get_image", item["call_id"])
            items.append({"role": "user", "content": [{"type": "input_text", "text": tag}, image]})
    payload["input"] = items
    seen = observe("openai-responses", history, payload, None)
    media = [i for i in seen.items if i.content_type == "image"]
    assert [i.outcome for i in media] == ["fallback-marked", "fallback-marked"]


def test_a_dropped_parallel_call_is_paired_by_name_and_order() -> None:
    """One id-less function call for two responses (the second call dropped): the first
    response is the first call's, the second answers nothing; the provider refuses it."""
    from conformance.judging.observe import observe
    from conformance.judging.turns import turn_problems
    from conformance.wire import locate
    from conformance.wire.acceptance import breaches

    history = scenario("text", "inline", "result")
    row = RowRef(id="gemini/gemini-2.5", api="gemini", family="gemini-2.5", model="gemini-2.5-pro")
    payload = ReferenceTarget().render(row, history)
    calls = payload["contents"][1]["parts"]
    del calls[1]
    for part in [*calls, *payload["contents"][2]["parts"]]:
        (part.get("functionCall") or part["functionResponse"]).pop("id")
    seen = observe("gemini", history, payload, None)
    first = seen.items[0]
    assert (first.call_id, first.outcome, first.identical) == ("call_1", "native", True)
    assert "call_2: 0 tool results (expected one)" in turn_problems(
        history, locate("gemini", payload)
    )
    assert [b.rule for b in breaches("gemini", payload)] == ["GE-1"]


def test_a_broken_ordering_rule_fails_api_accepts(matrix: Matrix) -> None:
    """Every block kept, its content intact: only the provider's ordering rule is broken."""
    apis = {"anthropic": "AN-1", "gemini": "GE-1", "bedrock-converse": "BE-3"}

    def ruled(c: CellSpec) -> bool:
        return c.api in (*apis, "mistral", "openai-chat") and c.error is None

    runs = _runs(BreaksOrderingRule(), matrix, ruled)
    failing = _failing(runs, "api-accepts")
    for api, rule in apis.items():
        rendered = {r.cell.id for r in runs if r.cell.api == api} & _rendering(runs)
        assert rendered
        assert failing >= rendered, api
        run = next(r for r in runs if r.cell.id in rendered)
        assert rule in evaluate(run, "api-accepts").detail
    # Mistral: only where a user message follows the tool messages (fallback media).
    bridged = {
        r.cell.id
        for r in runs
        if r.cell.api == "mistral"
        and r.first.payload
        and r.first.payload["messages"][-1]["role"] == "user"
    }
    assert bridged
    assert {c for c in failing if c.startswith("mistral/")} == bridged
    chat = {r.cell.id for r in runs if r.cell.api == "openai-chat"} & _rendering(runs)
    assert chat <= failing
    # The content is intact: nothing required but api-accepts (and, on OpenAI Chat, where the
    # user message sits between two results, parallel-turn) sees it.
    assert _failing(runs, "no-silent-loss") == set()
    assert _failing(runs, "text-identical") == set()


def _same_bytes_at_two_urls() -> Any:
    """One call returning the same image at two URLs (a query string apart)."""
    from conformance.history import Image, Message, Part, ToolCall, ToolResult
    from conformance.scenarios.build import fixture_url

    url = fixture_url("chart.png")
    images: list[Part] = [
        Image(media_type="image/png", url=f"{url}?item=a", identifier="a.png"),
        Image(media_type="image/png", url=f"{url}?item=b", identifier="b.png"),
    ]
    return [
        Message(role="user", content="show me"),
        ToolCall(tool_call_id="call_1", name="get_image", arguments={}),
        ToolResult(tool_call_id="call_1", name="get_image", content=images),
    ]


class _DownloadsBoth(ReferenceTarget):
    name = "downloads-both"

    def render(self, row: RowRef, history: Any) -> Any:
        from mutants import _fetch_urls  # pyright: ignore[reportPrivateUsage]

        return super().render(row, _fetch_urls(history, keep=True))


class _DropsTheSecond(_DownloadsBoth):
    """Downloads both, sends the first only."""

    name = "drops-the-second"

    def render(self, row: RowRef, history: Any) -> Any:
        result = history[-1]
        kept = result.model_copy(update={"content": result.content[:1]})
        return super().render(row, [*history[:-1], kept])


@pytest.mark.parametrize("api", ["anthropic", "bedrock-converse"])
def test_two_urls_serving_the_same_bytes_count_as_two_items(api: str) -> None:
    """Downloading both (two inline copies of one image) or sending both URLs is exactly
    once each; dropping one is not, whichever copy is left."""
    rows = {
        "anthropic": RowRef(
            id="anthropic/claude-sonnet-5",
            api="anthropic",
            family="claude-sonnet-5",
            model="claude-sonnet-5-5",
        ),
        "bedrock-converse": RowRef(
            id="bedrock-converse/nova-2",
            api="bedrock-converse",
            family="nova-2",
            model="us.amazon.nova-2-lite-v1:0",
        ),
    }
    row, history = rows[api], _same_bytes_at_two_urls()
    media_exactly_once(_DownloadsBoth(), row, history)
    if api == "anthropic":  # Anthropic takes image URLs: both sent as they are
        media_exactly_once(ReferenceTarget(), row, history)
    with pytest.raises(PropertyFailed, match="appears 1 times"):
        media_exactly_once(_DropsTheSecond(), row, history)
