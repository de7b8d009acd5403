"""Claude through Bedrock InvokeModel: its own api, whose body is the Messages body without
`model` and with `anthropic_version: "bedrock-2023-05-31"`, sent to `/model/{id}/invoke`."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.history import History, Message, Text, ToolCall, ToolResult
from conformance.recording.double import refusal, route_api, running
from conformance.recording.sdk_schema import validate
from conformance.recording.send import CANONICAL, FAKE_KEYS, Senders
from conformance.targets.kit import Exchange, payload_of
from conformance.targets.reference.mappers import MAPPERS, anthropic_bedrock
from conformance.wire import locate

HISTORY: History = [
    Message(role="user", content="Call the tool."),
    ToolCall(tool_call_id="call_1", name="get_text"),
    ToolResult(tool_call_id="call_1", name="get_text", content=[Text(text="42 ")]),
]
MODEL = "global.anthropic.claude-opus-4-6-v1"


def body(api: str, family: str, history: History = HISTORY) -> dict[str, Any]:
    profiles, render = MAPPERS[api]
    return render(profiles[family], history)


def test_the_body_is_the_messages_body_without_model_with_bedrocks_version() -> None:
    bedrock = body("anthropic-bedrock", "claude-opus-4-6")
    messages = body("anthropic", "claude-sonnet-5")
    assert "model" not in bedrock
    assert bedrock["anthropic_version"] == anthropic_bedrock.ANTHROPIC_VERSION
    assert anthropic_bedrock.ANTHROPIC_VERSION == "bedrock-2023-05-31"
    assert {k: v for k, v in bedrock.items() if k != "anthropic_version"} == {
        k: v for k, v in messages.items() if k != "model"
    }


def test_the_locator_reads_it_as_the_messages_locator_does() -> None:
    payload = body("anthropic-bedrock", "claude-opus-4-6")
    view = locate("anthropic-bedrock", payload)
    assert view.api == "anthropic-bedrock"
    assert replace(view, api="anthropic") == locate("anthropic", payload)
    assert [r.call_id for r in view.tool_results] == ["call_1"]


def test_the_reference_body_validates() -> None:
    pytest.importorskip("anthropic")
    assert validate("anthropic-bedrock", body("anthropic-bedrock", "claude-opus-4-6")) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"model": MODEL}, "model: not part of an InvokeModel body"),
        ({"anthropic_version": None}, "anthropic_version: Field required"),
        # The anthropic SDK's own default (its ANTHROPIC_API_VERSION), which Anthropic's legacy
        # Bedrock page says the InvokeModel models refuse, and Vertex's version.
        ({"anthropic_version": "2026-10-21"}, "anthropic_version: Input should be"),
        ({"anthropic_version": "vertex-2023-10-16"}, "anthropic_version: Input should be"),
    ],
)
def test_sdk_schema_checks_its_two_differences(change: dict[str, Any], expected: str) -> None:
    pytest.importorskip("anthropic")
    payload = {**body("anthropic-bedrock", "claude-opus-4-6"), **change}
    payload = {k: v for k, v in payload.items() if v is not None}
    problems = validate("anthropic-bedrock", payload)
    assert any(p.startswith(expected) for p in problems), problems


def test_the_messages_body_is_no_invoke_body() -> None:
    pytest.importorskip("anthropic")
    problems = validate("anthropic-bedrock", body("anthropic", "claude-sonnet-5"))
    assert any(p.startswith("model: not part of an InvokeModel body") for p in problems)
    assert any(p.startswith("anthropic_version: Field required") for p in problems)


def test_the_double_tells_invoke_from_converse() -> None:
    assert route_api(f"/model/{MODEL}/invoke", {}) == "anthropic-bedrock"
    assert route_api(f"/model/{MODEL}/invoke-with-response-stream", {}) == "anthropic-bedrock"
    assert route_api(f"/model/{MODEL}/converse", {}) == "bedrock-converse"
    assert route_api("/model/x/invoke/more", {}) == "bedrock-converse"  # no InvokeModel path


def test_the_double_refuses_claudes_ordering_on_invoke_in_bedrocks_words() -> None:
    """Claude's own rule (tool results first) holds on InvokeModel: the double answers a body
    breaking it as Bedrock does, a ValidationException passing Claude's words on; the same body
    keeping the rule, or with Bedrock's version, is answered."""
    payload = body("anthropic-bedrock", "claude-opus-4-6")
    assert refusal(f"/model/{MODEL}/invoke", {}, payload) is None
    results = payload["messages"][2]["content"]
    results.insert(0, {"type": "text", "text": "Here are the results."})
    refused = refusal(f"/model/{MODEL}/invoke", {}, payload)
    assert refused is not None
    answer, headers = refused
    assert headers == {"x-amzn-errortype": "ValidationException"}
    assert answer["message"].startswith("The model returned the following errors: messages.1:")
    with_default = {
        **body("anthropic-bedrock", "claude-opus-4-6"),
        "anthropic_version": "2026-10-21",
    }
    assert refusal(f"/model/{MODEL}/invoke", {}, with_default) == (
        {"message": "Invalid API version: 2026-10-21"},
        {"x-amzn-errortype": "ValidationException"},
    )


def test_the_payload_is_the_body_the_model_stays_in_the_url() -> None:
    sent = body("anthropic-bedrock", "claude-opus-4-6")
    exchange = Exchange(
        method="POST",
        path=f"/model/{MODEL}/invoke",
        headers={"content-type": "application/json"},
        body=json.dumps(sent).encode(),
    )
    assert payload_of("anthropic-bedrock", exchange) == sent


def test_anthropics_bedrock_client_reaches_the_double_and_keeps_the_bodys_version() -> None:
    pytest.importorskip("anthropic")
    pytest.importorskip("botocore")
    payload = body("anthropic-bedrock", "claude-opus-4-6")
    with running() as double:
        senders = Senders(
            base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
        )
        try:
            answer = senders.send("anthropic-bedrock", MODEL, payload)
        finally:
            senders.close()
        (received,) = double.received
    assert received.path == f"/model/{MODEL}/invoke"
    sent = json.loads(received.body)
    assert sent["anthropic_version"] == "bedrock-2023-05-31", "the body's version is kept"
    assert "model" not in sent
    assert received.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=")
    assert FAKE_KEYS["aws_access_key_id"] in received.headers["authorization"]
    assert answer.model == MODEL


def test_the_litellm_route_signs_with_the_recording_layers_fake_aws_keys() -> None:
    """The LiteLLM route cannot import the recording layer (layer contract), so it names the
    same pair; this keeps the two equal."""
    from conformance.targets.litellm._routes import AWS_EXAMPLE_KEYS

    assert (
        FAKE_KEYS["aws_access_key_id"],
        FAKE_KEYS["aws_secret_access_key"],
    ) == AWS_EXAMPLE_KEYS
