"""Claude and Gemini on Vertex AI: their own apis, whose bodies are the Messages and
generateContent bodies (Claude's without `model`, with `anthropic_version`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.history import History, Message, Text, ToolCall, ToolResult
from conformance.recording.double import running
from conformance.recording.sdk_schema import validate
from conformance.recording.send import CANONICAL, Senders
from conformance.targets.reference.mappers import MAPPERS, anthropic_vertex
from conformance.wire import locate

HISTORY: History = [
    Message(role="user", content="Call the tool."),
    ToolCall(tool_call_id="call_1", name="get_text"),
    ToolResult(tool_call_id="call_1", name="get_text", content=[Text(text="42 ")]),
]


def body(api: str, family: str, history: History = HISTORY) -> dict[str, Any]:
    profiles, render = MAPPERS[api]
    return render(profiles[family], history)


def test_claude_on_vertex_is_the_messages_body_without_model_with_its_version() -> None:
    vertex = body("anthropic-vertex", "claude-sonnet-5")
    messages = body("anthropic", "claude-sonnet-5")
    assert "model" not in vertex
    assert vertex["anthropic_version"] == anthropic_vertex.ANTHROPIC_VERSION == "vertex-2023-10-16"
    assert {k: v for k, v in vertex.items() if k != "anthropic_version"} == {
        k: v for k, v in messages.items() if k != "model"
    }


def test_gemini_on_vertex_is_the_developer_api_body() -> None:
    assert body("gemini-vertex", "gemini-3") == body("gemini", "gemini-3")


@pytest.mark.parametrize(
    ("api", "family", "base"),
    [("anthropic-vertex", "claude-sonnet-5", "anthropic"), ("gemini-vertex", "gemini-3", "gemini")],
)
def test_the_locators_read_as_their_base_api_does(api: str, family: str, base: str) -> None:
    payload = body(api, family)
    view = locate(api, payload)
    assert view.api == api
    assert replace(view, api=base) == locate(base, payload)
    assert [r.call_id for r in view.tool_results] == ["call_1"]


@pytest.mark.parametrize(
    ("api", "family"), [("anthropic-vertex", "claude-sonnet-5"), ("gemini-vertex", "gemini-3")]
)
def test_reference_bodies_validate(api: str, family: str) -> None:
    pytest.importorskip("anthropic" if api == "anthropic-vertex" else "google.genai")
    assert validate(api, body(api, family)) == []


def test_the_messages_body_is_no_vertex_body() -> None:
    pytest.importorskip("anthropic")
    problems = validate("anthropic-vertex", body("anthropic", "claude-sonnet-5"))
    assert any(p.startswith("model: not part of a Vertex body") for p in problems)
    assert any(p.startswith("anthropic_version: Field required") for p in problems)


@pytest.mark.parametrize(
    ("api", "model", "path"),
    [
        (
            "anthropic-vertex",
            "claude-sonnet-5-5",
            "/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
            "claude-sonnet-5-5:rawPredict",
        ),
        (
            "gemini-vertex",
            "gemini-3.8-flash",
            "/v1beta1/projects/conformance-project/locations/us-central1/publishers/google/models/"
            "gemini-3.8-flash:generateContent",
        ),
    ],
)
def test_the_official_clients_reach_the_double(
    api: str, model: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic" if api == "anthropic-vertex" else "google.genai")
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    family = "claude-sonnet-5" if api == "anthropic-vertex" else "gemini-3"
    payload = body(api, family)
    with running() as double:
        senders = Senders(
            base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
        )
        try:
            senders.send(api, model, payload)
        finally:
            senders.close()
        (received,) = double.received
    assert received.path == path
    if api == "anthropic-vertex":
        import json

        sent = json.loads(received.body)
        assert sent["anthropic_version"] == "vertex-2023-10-16", "the body's version is kept"
        assert "model" not in sent
