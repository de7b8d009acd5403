"""Provider acceptance rules (`conformance.wire.acceptance`): each rule fails the request that
breaks it and passes its legal variant (the reference's own layout), and the local provider
double answers a breaking request as the provider does (status and error body)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.judging.checks import evaluate, run_cell
from conformance.matrix import load_matrix
from conformance.recording.double import running
from conformance.recording.send import CANONICAL, Senders
from conformance.scenarios.build import fixture_part
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget
from conformance.wire.acceptance import RULES, breaches

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load_matrix(ROOT / "matrix.yaml")
APIS = sorted(RULES)


def _text_payload(api: str) -> tuple[str, Payload]:
    """The reference payload of the api's first text result cell (two calls, two results)."""
    cell = next(c for c in MATRIX.cells() if c.api == api and c.id.endswith("/text/inline/result"))
    run = run_cell(ReferenceTarget(), cell)
    assert run.first.payload is not None
    return cell.model, copy.deepcopy(run.first.payload)


def _rules(api: str, payload: Payload) -> list[str]:
    return [b.rule for b in breaches(api, payload)]


def _drop_second_result(api: str, payload: Payload) -> Payload:
    match api:
        case "openai-chat" | "mistral":
            payload["messages"].pop(3)
        case "openai-responses":
            payload["input"] = [
                i
                for i in payload["input"]
                if not (i.get("type") == "function_call_output" and i["call_id"] != "call_1")
            ]
        case "anthropic" | "anthropic-bedrock" | "anthropic-vertex" | "bedrock-converse":
            payload["messages"][2]["content"].pop()
        case "gemini" | "gemini-vertex":
            payload["contents"][2]["parts"].pop()
        case _:
            raise AssertionError(api)
    return payload


FIRST_RULE = {
    "openai-chat": "OC-1",
    "openai-responses": "OR-1",
    "anthropic": "AN-1",
    "anthropic-bedrock": "AN-1",
    "anthropic-vertex": "AN-1",
    "gemini": "GE-1",
    "gemini-vertex": "GE-1",
    "bedrock-converse": "BE-1",
    "mistral": "MI-1",
}


@pytest.mark.parametrize("api", APIS)
def test_every_reference_payload_keeps_the_rules(api: str) -> None:
    """The legal variant: every payload the reference renders."""
    for cell in MATRIX.all_cells():
        if cell.api != api:
            continue
        run = run_cell(ReferenceTarget(), cell)
        if run.first.payload is not None:
            assert breaches(api, run.first.payload) == [], cell.id


@pytest.mark.parametrize("api", APIS)
def test_a_missing_result_breaks_the_apis_rule(api: str) -> None:
    _, payload = _text_payload(api)
    assert FIRST_RULE[api] in _rules(api, _drop_second_result(api, payload))
    breach = breaches(api, payload)[0]
    assert breach.source, "every rule cites where its refusal is quoted"


def test_openai_chat_a_user_message_between_tool_messages() -> None:
    _, payload = _text_payload("openai-chat")
    payload["messages"].insert(3, {"role": "user", "content": "look"})
    assert _rules("openai-chat", payload) == ["OC-1", "OC-2"]
    assert "call_2" in breaches("openai-chat", payload)[0].message


def test_openai_chat_results_out_of_order_are_accepted() -> None:
    """Results are paired by id: the provider takes them in any order (the suite's
    parallel-turn check still says they are out of order)."""
    _, payload = _text_payload("openai-chat")
    messages = payload["messages"]
    messages[2], messages[3] = messages[3], messages[2]
    assert _rules("openai-chat", payload) == []


def test_openai_chat_an_image_in_a_tool_message_is_not_enforced() -> None:
    """Model-dependent (400 on older models, accepted and ignored on newer ones)."""
    _, payload = _text_payload("openai-chat")
    image = {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}}
    payload["messages"][2]["content"] = [image]
    assert _rules("openai-chat", payload) == []


def test_openai_responses_orphan_output_and_non_adjacent_output() -> None:
    _, payload = _text_payload("openai-responses")
    items = payload["input"]
    # a message between a call and its output is accepted (pairing is by call_id)
    items.insert(len(items) - 1, {"role": "user", "content": "look"})
    assert _rules("openai-responses", payload) == []
    items.append({"type": "function_call_output", "call_id": "call_9", "output": "x"})
    assert _rules("openai-responses", payload) == ["OR-2"]


def test_anthropic_tool_results_come_first_and_together() -> None:
    _, payload = _text_payload("anthropic")
    blocks = payload["messages"][2]["content"]
    blocks.insert(1, {"type": "text", "text": "between"})  # [result, text, result]
    found = breaches("anthropic", payload)
    assert [b.rule for b in found] == ["AN-1"]
    assert "immediately after: call_2" in found[0].message
    blocks.pop(1)
    blocks.insert(0, {"type": "text", "text": "first"})  # text before every result
    assert _rules("anthropic", payload) == ["AN-1"]
    blocks.pop(0)
    blocks.append({"type": "text", "text": "after all of them"})  # the legal variant
    assert _rules("anthropic", payload) == []
    blocks.append({"type": "tool_result", "tool_use_id": "toolu_x", "content": "?"})
    assert _rules("anthropic", payload) == ["AN-3"]


def test_claude_through_bedrock_invoke_keeps_claudes_rules_behind_bedrocks_words() -> None:
    _, payload = _text_payload("anthropic-bedrock")
    payload["messages"][2]["content"].insert(0, {"type": "text", "text": "first"})
    (found,) = breaches("anthropic-bedrock", payload)
    assert found.rule == "AN-1"
    assert found.message.startswith("The model returned the following errors: messages.1:")
    assert "n8n-io/n8n#16987" in found.source


@pytest.mark.parametrize(
    ("change", "rule", "message"),
    [
        ({"anthropic_version": "2026-10-21"}, "AB-1", "Invalid API version: 2026-10-21"),
        ({"anthropic_version": None}, "AB-1", "required key [anthropic_version] not found"),
        ({"model": "claude-opus-4-6"}, "AB-2", "extraneous key [model] is not permitted"),
        ({"stream": False}, "AB-2", "extraneous key [stream] is not permitted"),
    ],
)
def test_bedrock_invoke_envelope(change: dict[str, Any], rule: str, message: str) -> None:
    """Bedrock's own rules for the body: its `anthropic_version` (the anthropic SDK's own
    default, 2026-10-21, is refused) and no key of the Messages API it moves out of the body."""
    _, payload = _text_payload("anthropic-bedrock")
    assert _rules("anthropic-bedrock", payload) == []
    payload.update(change)
    payload = {k: v for k, v in payload.items() if v is not None}
    (found,) = breaches("anthropic-bedrock", payload)
    assert (found.rule, found.path) == (rule, next(iter(change)))
    assert message in found.message


def test_claude_and_gemini_through_vertex_keep_their_models_rules() -> None:
    _, claude = _text_payload("anthropic-vertex")
    claude["messages"][2]["content"].insert(0, {"type": "text", "text": "first"})
    (found,) = breaches("anthropic-vertex", claude)
    assert found.rule == "AN-1"
    assert "Kilo-Org/kilocode#5163" in found.source
    assert found.message == breaches("anthropic", claude)[0].message  # Anthropic's own words
    _, gemini = _text_payload("gemini-vertex")
    gemini["contents"].insert(2, {"role": "user", "parts": [{"text": "between"}]})
    assert _rules("gemini-vertex", gemini) == _rules("gemini", gemini) == ["GE-1", "GE-2"]


def test_gemini_counts_and_turn_order() -> None:
    _, payload = _text_payload("gemini")
    contents = payload["contents"]
    second = contents[2]["parts"].pop()
    contents.append({"role": "user", "parts": [second]})  # parallel responses split
    assert _rules("gemini", payload) == ["GE-1", "GE-2"]
    _, payload = _text_payload("gemini")
    payload["contents"].insert(2, {"role": "user", "parts": [{"text": "between"}]})
    assert _rules("gemini", payload) == ["GE-1", "GE-2"]
    _, payload = _text_payload("gemini")
    payload["contents"].pop(0)  # the call turn first
    assert _rules("gemini", payload) == ["GE-3"]


def test_gemini_parts_beside_the_responses_are_not_enforced() -> None:
    """Contradictory sources (rejected in some parallel turns, sent by gemini-cli itself)."""
    _, payload = _text_payload("gemini")
    payload["contents"][2]["parts"].append({"text": "beside"})
    assert _rules("gemini", payload) == []


def test_bedrock_next_message_counts_alternation_and_claudes_order() -> None:
    model, payload = _text_payload("bedrock-converse")
    assert "anthropic." in payload["modelId"], model
    blocks = payload["messages"][2]["content"]
    blocks.insert(1, {"text": "between"})  # [result, text, result] on Claude
    assert _rules("bedrock-converse", payload) == ["BE-5"]
    nova = copy.deepcopy(payload)
    nova["modelId"] = "amazon.nova-pro-v1:0"
    assert _rules("bedrock-converse", nova) == [], "BE-5 is Claude's rule; others not enforced"
    blocks.pop(1)
    blocks.append({"toolResult": {"toolUseId": "call_1", "content": [{"text": "again"}]}})
    assert _rules("bedrock-converse", payload) == ["BE-2"]
    blocks.pop()
    payload["messages"].append({"role": "user", "content": [{"text": "more"}]})
    assert _rules("bedrock-converse", payload) == ["BE-3"]


def test_mistral_counts_and_role_order() -> None:
    _, payload = _text_payload("mistral")
    messages = payload["messages"]
    messages.append({"role": "user", "content": "look"})  # right after a tool message
    assert _rules("mistral", payload) == ["MI-2"]
    messages.pop()
    messages.insert(2, {"role": "user", "content": "first"})  # a tool message after a user's
    assert _rules("mistral", payload) == ["MI-1", "MI-3"]


def test_api_accepts_fails_on_a_breach() -> None:
    class DropsSecondResult(ReferenceTarget):
        name = "drops-second-result"

        def render(self, row: RowRef, history: list[Any]) -> Payload:
            return _drop_second_result(row.api, super().render(row, history))

    cell = MATRIX.cell("anthropic/claude-sonnet-5/image/inline/result")
    run = run_cell(DropsSecondResult(), cell)
    result = evaluate(run, "api-accepts")
    assert not result.passed
    assert "AN-1" in result.detail
    assert "parallel-tool-use" in result.detail, "the citation is in the detail"
    assert evaluate(run_cell(ReferenceTarget(), cell), "api-accepts").passed


# --- the double answers as the provider does --------------------------------------------------


def _send(api: str, model: str, payload: Payload) -> tuple[Exception, Any]:
    """Send with the api's official client to the double; the error the client raised."""
    caught: Exception | None = None
    with running() as double:
        senders = Senders(
            base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
        )
        try:
            senders.send(api, model, payload)
        except Exception as error:  # each SDK raises its own error type for a 400
            caught = error
        finally:
            senders.close()
        assert len(double.received) == 1
    if caught is None:
        pytest.fail(f"the double accepted a request that breaks a {api} rule")
    return caught, double.received[-1]


@pytest.mark.parametrize("api", APIS)
def test_the_double_refuses_a_breaking_request_as_the_provider(api: str) -> None:
    model, payload = _text_payload(api)
    broken = _drop_second_result(api, payload)
    expected = breaches(api, broken)[0].message
    error, received = _send(api, model, broken)
    shown = f"{type(error).__name__}: {error} {getattr(error, 'body', '')}"
    assert "400" in shown or "ValidationException" in shown, shown
    assert expected[:60] in shown or expected[:60] in json.dumps(getattr(error, "body", "")), shown
    assert received.method == "POST"


def test_the_double_still_answers_a_request_that_keeps_the_rules() -> None:
    model, payload = _text_payload("mistral")
    with running() as double:
        senders = Senders(
            base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
        )
        try:
            answer = senders.send("mistral", model, payload)
        finally:
            senders.close()
    assert "ok" in repr(answer)


def test_interleaved_media_on_anthropic_is_placed_after_its_own_result() -> None:
    """Positions per block: media right after its own result is not "before" it (and the
    provider refuses the layout: AN-1)."""
    from conformance.history import Message, ToolCall, ToolResult
    from conformance.judging.observe import observe

    image = fixture_part("image")
    other = fixture_part("image", which=2)
    history = [
        Message(role="user", content="Fetch both."),
        ToolCall(tool_call_id="call_1", name="get_image"),
        ToolCall(tool_call_id="call_2", name="get_image"),
        ToolResult(tool_call_id="call_1", name="get_image", content=[image]),
        ToolResult(tool_call_id="call_2", name="get_image", content=[other]),
    ]
    row = RowRef(
        id="anthropic/claude-sonnet-5",
        api="anthropic",
        family="claude-sonnet-5",
        model="claude-sonnet-5-5",
    )
    payload = ReferenceTarget().render(row, history)
    blocks = payload["messages"][2]["content"]
    media = [b["content"].pop() for b in blocks]  # out of the results, into the message
    marker = '<conformance:tool_return tool_name="get_image" tool_call_id="{}" />'
    payload["messages"][2]["content"] = [
        blocks[0],
        {"type": "text", "text": marker.format("call_1")},
        media[0],
        blocks[1],
        {"type": "text", "text": marker.format("call_2")},
        media[1],
    ]
    seen = observe("anthropic", history, payload, None)
    assert [i.outcome for i in seen.items] == ["fallback-marked", "fallback-marked"]
    assert _rules("anthropic", payload) == ["AN-1"]
