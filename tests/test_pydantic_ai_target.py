"""The pydantic-ai target: translation, storage round trip, capture, and a missing install."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.build import (
    CALL_ID,
    ERROR_FIXTURE,
    TEXT_FIXTURE,
    TEXT_FIXTURE_2,
    scenario,
)
from conformance.scenarios.fixtures import stand_in
from conformance.targets import resolve_target
from conformance.targets.base import RowRef
from conformance.targets.kit import fixture_host

pytest.importorskip("pydantic_ai", reason="the pydantic-ai dependency group is not installed")

from pydantic_ai import messages as m

from conformance.targets.pydantic_ai import (
    PydanticAITarget,
    dump_messages,
    load_messages,
    plan,
    to_messages,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


def test_entry_point_names_the_target() -> None:
    target = resolve_target("pydantic-ai")
    assert isinstance(target, PydanticAITarget)
    assert target.name == "pydantic-ai"
    assert target.version[0].isdigit()
    assert target.unavailable is None


def test_result_style_media_is_the_tool_return_value() -> None:
    messages = to_messages(scenario("image", "inline", "result", calls=1))
    assert [type(x) for x in messages] == [m.ModelRequest, m.ModelResponse, m.ModelRequest]
    (prompt,) = messages[0].parts
    assert isinstance(prompt, m.UserPromptPart)
    (call,) = messages[1].parts
    assert isinstance(call, m.ToolCallPart)
    assert (call.tool_name, call.tool_call_id, call.args) == ("get_image", CALL_ID, {})
    (ret,) = messages[2].parts
    assert isinstance(ret, m.ToolReturnPart)
    assert ret.tool_call_id == CALL_ID
    assert isinstance(ret.content, m.BinaryContent)
    assert ret.content.media_type == "image/png"
    assert ret.content.identifier == "chart.png"


def test_text_result_is_the_exact_string() -> None:
    (ret,) = to_messages(scenario("text", "inline", "result", calls=1))[2].parts
    assert isinstance(ret, m.ToolReturnPart)
    assert ret.content == TEXT_FIXTURE


def test_prompt_style_is_a_user_prompt_after_the_tool_return() -> None:
    request = to_messages(scenario("document", "url", "prompt", calls=1))[2]
    ret, user = request.parts
    assert isinstance(ret, m.ToolReturnPart)
    assert isinstance(user, m.UserPromptPart)
    (doc,) = user.content
    assert isinstance(doc, m.DocumentUrl)
    assert doc.url.endswith("report.pdf")


def test_error_result_is_a_failed_tool_return_or_a_retry_prompt() -> None:
    (part,) = to_messages(scenario("text", "inline", "error", calls=1))[2].parts
    if "outcome" in getattr(m.ToolReturnPart, "__dataclass_fields__", {}):
        assert isinstance(part, m.ToolReturnPart)
        assert part.outcome == "failed"  # pyright: ignore[reportUnknownMemberType]
    assert part.content == ERROR_FIXTURE  # pyright: ignore[reportUnknownMemberType]


def test_parallel_calls_share_one_response_and_one_request() -> None:
    history: History = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolCall(tool_call_id="b", name="two"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        ToolResult(
            tool_call_id="b",
            name="two",
            content=[Text(text="2"), Image(media_type="image/png", data=b"x", identifier="x")],
        ),
        Message(role="assistant", content="done"),
    ]
    first, calls, results, answer = to_messages(history)
    assert [type(p) for p in first.parts] == [m.SystemPromptPart, m.UserPromptPart]
    assert [p.tool_call_id for p in calls.parts] == ["a", "b"]
    assert [p.tool_call_id for p in results.parts] == ["a", "b"]
    assert results.parts[1].content[0] == "2"
    assert isinstance(answer.parts[0], m.TextPart)


@pytest.mark.parametrize("style", ["result", "prompt", "error"])
def test_storage_round_trip_keeps_every_message(style: str) -> None:
    messages = to_messages(scenario("audio", "inline", style))  # type: ignore[arg-type]
    again = load_messages(dump_messages(messages))
    assert dump_messages(again) == dump_messages(messages)
    assert [type(x) for x in again] == [type(x) for x in messages]


def test_payload_is_the_body_the_sdk_sent() -> None:
    target = PydanticAITarget()
    payload = target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    result = payload["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == CALL_ID
    assert result["content"][0]["type"] == "image"


def test_rewritten_call_ids_are_paired_by_order() -> None:
    """Mistral ids must be 9 characters: pydantic-ai rewrites `call_1`; the classifier still
    finds the result of the call through the assistant's tool call on the wire."""
    from conformance.judging.observe import observe

    history = scenario("text", "inline", "result")
    payload = PydanticAITarget().render(ROWS["mistral/mistral-medium"], history)
    wire_id = payload["messages"][1]["tool_calls"][0]["id"]
    if not PydanticAITarget().version.startswith("1."):  # 1.x sends `call_1` as it is
        assert wire_id != CALL_ID
    assert payload["messages"][2]["tool_call_id"] == wire_id
    assert observe("mistral", history, payload, None).outcome == "native"


def test_the_last_turn_is_produced_by_the_tools() -> None:
    steps = plan(scenario("image", "url", "prompt"))
    assert steps is not None
    assert [type(i) for i in steps.head] == [Message, ToolCall, ToolCall]
    assert list(steps.calls) == ["call_1", "call_2"]
    assert [c.produced[0].identifier for c in steps.calls.values()] == [  # type: ignore[union-attr]
        "chart.png",
        "chart-2.png",
    ]
    lone: History = [Message(role="user", content="hi")]
    assert plan(lone) is None, "no tool call: sent as stored messages"
    media_error: History = [
        ToolCall(tool_call_id="a", name="t"),
        ToolResult(tool_call_id="a", name="t", status="error", content=[IMAGE]),
    ]
    assert plan(media_error) is None, "no exception carries media"


IMAGE = Image(media_type="image/png", data=b"x", identifier="x")


def test_a_stored_failed_call_keeps_its_media_where_the_version_can_store_it() -> None:
    """2.x stores a failed call as a `ToolReturnPart(outcome='failed')` whose content may hold
    media (an MCP error result keeps its images): the image of a stored failed result reaches
    the api once, flagged as an error. On 1.x every failure pydantic-ai makes is text (a
    `ModelRetry` message, a UI adapter's error text, a failed MCP result's text parts), so the
    stored failure is the text and the image is not sent."""
    image = Image(media_type="image/png", data=b"\x89PNG-failed", identifier="failed.png")
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="get_image"),
        ToolResult(
            tool_call_id="a",
            name="get_image",
            status="error",
            content=[Text(text="render failed"), image],
        ),
    ]
    payload = PydanticAITarget().render(ROWS["anthropic/claude-sonnet-5"], history)
    (result,) = [
        block
        for message in payload["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    sent = json.dumps(payload)
    encoded = base64.b64encode(image.data or b"").decode()
    assert "render failed" in sent
    if PydanticAITarget().version.startswith("1."):
        assert encoded not in sent
    else:
        assert result["is_error"] is True
        assert sent.count(encoded) == 1, "the failed call's image is sent once"


def test_a_failing_tool_fails_the_way_the_version_fails() -> None:
    """2.x: the tool raises ToolFailed, a failed tool return (Anthropic `is_error`); 1.x: it
    raises ModelRetry, a retry prompt (pydantic-ai adds its own retry instruction)."""
    payload = PydanticAITarget().render(
        ROWS["anthropic/claude-sonnet-5"], scenario("text", "inline", "error")
    )
    first, second = payload["messages"][2]["content"]
    assert (first["tool_use_id"], second["tool_use_id"]) == ("call_1", "call_2")
    assert first["is_error"] is True
    assert second.get("is_error") in (False, None)
    texts = json.dumps(first["content"], ensure_ascii=False)
    assert "quota" in texts
    if PydanticAITarget().version.startswith("1."):
        assert "Fix the errors and try again" in texts
    assert second["content"][0]["text"] == TEXT_FIXTURE_2 or second["content"] == TEXT_FIXTURE_2


def test_url_media_is_downloaded_from_the_fixture_host_where_the_api_takes_no_url() -> None:
    host = fixture_host()
    with host.watch() as fetches:
        payload = PydanticAITarget().render(
            ROWS["gemini/gemini-2.5"], scenario("image", "url", "result")
        )
    assert sorted(f.path for f in fetches if f.method == "GET") == [
        "/conformance/chart-2.png",
        "/conformance/chart.png",
    ]
    assert {f.status for f in fetches} == {200}
    sent = json.dumps(payload)
    assert "iVBORw0KGgo" in sent, "the downloaded PNG is sent inline"


def test_a_url_the_api_takes_is_sent_as_a_url_without_fetching() -> None:
    host = fixture_host()
    with host.watch() as fetches:
        payload = PydanticAITarget().render(
            ROWS["openai-chat/gpt-6"], scenario("image", "url", "prompt")
        )
    assert fetches == []
    assert host.url("chart.png") in json.dumps(payload)


def test_refusal_types_and_sdk_versions_are_declared() -> None:
    from pydantic_ai.exceptions import UserError

    target = PydanticAITarget()
    assert UserError in target.refusal_types
    assert NotImplementedError in target.refusal_types
    assert target.sdk_versions["anthropic"][0].isdigit()
    assert set(target.sdk_versions) >= {"openai", "anthropic", "google-genai", "boto3"}


def test_bedrock_payload_carries_the_model_id() -> None:
    payload = PydanticAITarget().render(
        ROWS["bedrock-converse/nova"], scenario("text", "inline", "result")
    )
    assert next(iter(payload)) == "modelId"
    assert payload["modelId"] == ROWS["bedrock-converse/nova"].model


@pytest.mark.parametrize(
    ("row", "cell"),
    [
        ("gemini/gemini-2.5", ("image", "url", "result")),
        ("anthropic/claude-sonnet-5", ("text", "inline", "error")),
        ("bedrock-converse/nova", ("document", "url", "prompt")),
        ("openai-chat/gpt-6", ("image", "url", "prompt")),
        ("anthropic-vertex/claude-sonnet-5", ("image", "url", "result")),
        ("gemini-vertex/gemini-3", ("document", "inline", "prompt")),
        ("anthropic-bedrock/claude-opus-4-6", ("document", "inline", "result")),
    ],
)
def test_a_repro_script_prints_the_payload(
    row: str, cell: tuple[Any, Any, Any], tmp_path: Path
) -> None:
    target = PydanticAITarget()
    history = scenario(*cell)
    payload = target.render(ROWS[row], history)
    script = tmp_path / "repro.py"
    script.write_text(target.repro(ROWS[row], history), encoding="utf-8")
    assert fixture_host().origin not in script.read_text(encoding="utf-8"), "no live port"
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr[-3000:]
    printed = json.loads(run.stdout)
    # The script prints the HTTP body; the payload holds Converse's raw bytes where that body
    # has their base64 (toolkit.payload_of), so compare in the body's spelling.
    assert printed == _as_body(stand_in(payload)), "URLs as the snapshot stores them"


def _as_body(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _as_body(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return [_as_body(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _plugin_project(pytester: pytest.Pytester, conftest: str) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makeconftest(conftest)
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())


_CELL = "pydantic-ai:openai-chat/gpt-6/image/inline/result:outcome"


def test_a_results_line_names_the_pydantic_ai_version(pytester: pytest.Pytester) -> None:
    _plugin_project(pytester, "")
    (pytester.path / "snapshots").symlink_to(ROOT / "snapshots")
    run = pytester.runpytest(
        "-k", _CELL, "--conformance-target", "pydantic-ai", "--conformance-results", "r.jsonl"
    )
    version = PydanticAITarget().version
    # 2.x marks media it moves out of a tool result (the cell passes); 1.x does not (it fails,
    # reported and not gated: the deviations describe the latest release)
    marked = not version.startswith("1.")
    run.assert_outcomes(passed=1) if marked else run.assert_outcomes(failed=1)
    lines: list[dict[str, Any]] = [
        json.loads(x) for x in (pytester.path / "r.jsonl").read_text("utf-8").splitlines()
    ]
    assert lines[0]["targets"] == {"pydantic-ai": version}
    assert lines[1]["outcome"] == ("fallback-marked" if marked else "fallback-unmarked")


def test_a_url_off_the_fixture_host_is_never_fetched() -> None:
    """Hypothesis histories carry their own URLs: the download stops before any connection,
    with the suite's own exception (which never counts as pydantic-ai's refusal)."""
    from conformance.errors import SuiteError
    from conformance.targets.pydantic_ai import OffMachineUrl

    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="t"),
        ToolResult(
            tool_call_id="a",
            name="t",
            content=[
                Image(media_type="image/png", url="https://example.com/c.png", identifier="c")
            ],
        ),
    ]
    with pytest.raises(OffMachineUrl, match=r"example\.com/c\.png") as raised:
        PydanticAITarget().render(ROWS["gemini/gemini-2.5"], history)
    assert isinstance(raised.value, SuiteError)


@pytest.mark.parametrize(
    ("row", "path", "version"),
    [
        (
            "anthropic-vertex/claude-sonnet-5",
            "/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
            "{model}:(stream)?[rR]awPredict",
            True,
        ),
        (
            "gemini-vertex/gemini-3",
            "/v1beta1/projects/conformance-project/locations/us-central1/publishers/google/"
            "models/{model}:(streamGenerateContent|generateContent)",
            False,
        ),
    ],
)
def test_vertex_rows_go_through_the_vertex_clients(row: str, path: str, version: bool) -> None:
    """Claude and Gemini on Vertex AI through the clients pydantic-ai documents for them
    (`AnthropicProvider(anthropic_client=AsyncAnthropicVertex(...))`, `GoogleProvider` with a
    `vertexai=True` client): the request reaches the Vertex endpoint of the row's model, the
    Claude body without `model` and with an `anthropic_version`, as the locators read it."""
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import ModelHTTPError

    from conformance.targets.kit import recorder
    from conformance.targets.pydantic_ai._models import MODELS

    ref = ROWS[row]
    with recorder().channel() as (base, taken):
        agent: Any = Agent(MODELS[ref.api][1](ref, base))
        with pytest.raises(ModelHTTPError):  # the recorder answers 400
            agent.run_sync("Call the tool.")
    # (`:streamRawPredict` where max_tokens makes the anthropic SDK stream)
    assert re.fullmatch(path.format(model=re.escape(ref.model)), taken[0].path.split("?")[0])
    sent = json.loads(taken[0].body)
    assert "model" not in sent
    assert ("anthropic_version" in sent) is version
    payload = PydanticAITarget().render(ref, scenario("image", "inline", "result"))
    assert ("anthropic_version" in payload) is version


def test_the_bedrock_invoke_row_goes_through_anthropics_bedrock_client() -> None:
    """Claude through Bedrock InvokeModel the way pydantic-ai documents it,
    `AnthropicProvider(anthropic_client=AsyncAnthropicBedrock(...))`: the request reaches
    `/model/{modelId}/invoke` (or its streaming twin) SigV4-signed for Bedrock in us-east-1,
    with no Anthropic api key, and its body has no `model` and Bedrock's `anthropic_version`
    (pinned by `AnthropicModel` on that client: `_build_extra_body(bedrock=True)`; the SDK's
    own default, 2026-10-21, is what Bedrock's Claude models refuse)."""
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import ModelHTTPError

    from conformance.targets.kit import recorder
    from conformance.targets.pydantic_ai._models import MODELS

    ref = ROWS["anthropic-bedrock/claude-opus-4-6"]
    with recorder().channel() as (base, taken):
        agent: Any = Agent(MODELS[ref.api][1](ref, base))
        with pytest.raises(ModelHTTPError):  # the recorder answers 400
            agent.run_sync("Call the tool.")
    model = re.escape(ref.model)
    path = taken[0].path.split("?")[0]
    assert re.fullmatch(f"/model/{model}/invoke(-with-response-stream)?", path), path
    headers = {k.lower(): v for k, v in taken[0].headers.items()}
    assert "x-api-key" not in headers
    signed = r"AWS4-HMAC-SHA256 Credential=[^/]+/\d{8}/us-east-1/bedrock/"
    assert re.match(signed, headers["authorization"])
    sent = json.loads(taken[0].body)
    assert "model" not in sent
    assert sent["anthropic_version"] == "bedrock-2023-05-31"
    payload = PydanticAITarget().render(ref, scenario("image", "inline", "result"))
    assert "model" not in payload
    assert payload["anthropic_version"] == "bedrock-2023-05-31"


def test_a_cell_runs_the_agent_twice_and_the_stored_run_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cell renders direct, then after storage: the stored run reuses the messages of the
    run just made for the same row and history (two agent runs, not three), and sends what a
    stored run of its own sends; another history or row gets a run of its own."""
    import conformance.targets.pydantic_ai as module

    runs: list[int] = []
    real = module._run  # pyright: ignore[reportPrivateUsage]

    def counted(agent: Any, messages: list[Any]) -> None:
        runs.append(len(messages))
        real(agent, messages)

    monkeypatch.setattr(module, "_run", counted)
    target, row = PydanticAITarget(), ROWS["anthropic/claude-sonnet-5"]
    history = scenario("image", "inline", "prompt")
    target.render(row, history)
    stored = target.render_stored(row, history)
    assert len(runs) == 2
    alone = target.render_stored(row, history)  # nothing to reuse now: a run of its own first
    assert len(runs) == 4
    assert alone == stored
    target.render(row, history)
    other = target.render_stored(ROWS["openai-chat/gpt-6"], history)  # another row: its own
    assert len(runs) == 7
    assert other == target.render_stored(ROWS["openai-chat/gpt-6"], history)
