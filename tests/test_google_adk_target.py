"""The Google ADK target: translation into session events, the tools' return values, the run,
storage, the reproducer, a missing install, the reasons and deviations files."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "google.adk",
    reason='the google-adk dependency group is not installed: nox -s "target(google-adk)"',
)

from google.genai import types

from conformance.targets import google_adk as target_module
from conformance.targets.google_adk import (
    INSTALL_HINT,
    GoogleADKTarget,
    dump_session,
    load_session,
    plan,
)
from conformance.targets.google_adk._messages import error_value, tool_value
from conformance.targets.kit import fixture_host

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}
GEMINI = ROWS["gemini/gemini-3"]


@pytest.fixture(scope="module")
def target() -> GoogleADKTarget:
    return GoogleADKTarget()


def test_entry_point_names_the_target(target: GoogleADKTarget) -> None:
    found = resolve_target("google-adk")
    assert isinstance(found, GoogleADKTarget)
    assert found.version[0].isdigit()
    assert found.unavailable is None
    assert "google-genai" in target.sdk_versions
    assert target.refusal_types == (ValueError,)
    assert set(target.not_applicable) == {"style:prompt"}


def test_a_missing_install_is_unavailable_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> str:
        return f"google-adk is not installed: {INSTALL_HINT}"

    monkeypatch.setattr(target_module, "missing_adk", missing)
    absent = GoogleADKTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable
    assert absent.supports(GEMINI) == absent.unavailable


def test_other_apis_are_left_to_the_litellm_variant(target: GoogleADKTarget) -> None:
    """ADK's own models serve Gemini (both apis) and Claude on Vertex AI; every other row is
    the LiteLLM wrapper's."""
    reason = target.supports(ROWS["openai-chat/gpt-6"])
    assert reason is not None
    assert "google-adk-litellm" in reason
    assert "google-adk-litellm" in (target.supports(ROWS["anthropic/claude-sonnet-5"]) or "")
    served = {r.api for r in ROWS.values() if target.supports(r) is None}
    assert served == {"gemini", "gemini-vertex", "anthropic-vertex"}


def test_the_last_turn_is_pending_and_earlier_items_are_events() -> None:
    found = plan(scenario("image", "inline", "result"))
    user, calls = found.events
    assert user.author == "user"
    assert user.content.parts[0].text.startswith("Call the tool")
    assert calls.content.role == "model"
    assert [p.function_call.id for p in calls.content.parts] == [CALL_ID, "call_2"]
    assert list(found.pending) == [CALL_ID, "call_2"]


def test_tools_return_parts_for_media_text_as_is_and_failures_as_adk_advises() -> None:
    image = Image(media_type="image/png", data=b"\x89PNG", identifier="x.png")
    part = tool_value([image])
    assert isinstance(part, types.Part)
    assert part.inline_data is not None
    assert part.inline_data.data == b"\x89PNG"
    by_url = tool_value([Image(media_type="image/png", url="https://x.test/a.png", identifier="a")])
    assert by_url.file_data.file_uri == "https://x.test/a.png"
    assert tool_value([Text(text=TEXT_FIXTURE)]) == TEXT_FIXTURE
    both = tool_value([Text(text="t"), image])
    assert both[0] == "t"
    assert isinstance(both[1], types.Part)
    assert error_value([Text(text=ERROR_FIXTURE)]) == {
        "status": "error",
        "error_message": ERROR_FIXTURE,
    }


def test_a_history_with_no_producible_last_turn_is_stored_whole() -> None:
    history: History = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        Message(role="assistant", content="done"),
        Message(role="user", content="again"),
    ]
    found = plan(history)
    assert found.pending == {}
    assert found.instruction == "Be brief."
    roles = [e.content.role for e in found.events]
    assert roles == ["user", "model", "user", "model", "user"]
    response = found.events[2].content.parts[0].function_response
    assert (response.id, response.response) == ("a", {"result": "1"})


def test_payload_is_the_request_adk_sent_after_running_the_tools(
    target: GoogleADKTarget,
) -> None:
    payload = target.render(GEMINI, scenario("image", "inline", "result"))
    *_, calls, results = payload["contents"]
    assert [p["functionCall"]["id"] for p in calls["parts"]] == [CALL_ID, "call_2"]
    first = results["parts"][0]["functionResponse"]
    assert first["id"] == CALL_ID
    assert first["name"] == "get_image"
    assert first["parts"][0]["inline_data"]["mime_type"] == "image/png"
    assert payload["tools"][0]["functionDeclarations"][0]["name"] == "get_image"


def test_text_and_failure_are_in_the_function_response(target: GoogleADKTarget) -> None:
    text = target.render(GEMINI, scenario("text", "inline", "result"))
    response = text["contents"][-1]["parts"][0]["functionResponse"]["response"]
    assert response == {"result": TEXT_FIXTURE}
    failed = target.render(GEMINI, scenario("text", "inline", "error"))
    response = failed["contents"][-1]["parts"][0]["functionResponse"]["response"]
    assert response == {"status": "error", "error_message": ERROR_FIXTURE}


def test_storage_is_the_session_json_and_renders_the_same(target: GoogleADKTarget) -> None:
    history = scenario("document", "inline", "result")
    _, session = target._run.send(GEMINI, history)  # pyright: ignore[reportPrivateUsage]
    stored = dump_session(session)
    assert json.loads(stored)["events"]
    loaded = load_session(stored)
    assert loaded.model_dump() == session.model_dump()
    assert target.render_stored(GEMINI, history) == target.render(GEMINI, history)


def _imports(script: str) -> set[str]:
    imported: set[str] = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            imported.add(node.module.split(".")[0])
    return imported


def test_repro_of_a_cell_runs_and_prints_the_payload(
    target: GoogleADKTarget, tmp_path: Path
) -> None:
    history = scenario("audio", "inline", "result")
    script = target.repro(GEMINI, history)
    assert _imports(script) - set(sys.stdlib_module_names) == {"google"}
    path = tmp_path / "repro.py"
    path.write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == f"POST /v1beta/models/{GEMINI.model}:generateContent"
    assert json.loads(body)["contents"] == target.render(GEMINI, history)["contents"]


def test_repro_serves_url_media_itself(target: GoogleADKTarget) -> None:
    script = target.repro(GEMINI, scenario("image", "url", "result"))
    assert "http://conformance.recording.media/conformance/chart.png" in script
    assert fixture_host().origin not in script  # the script serves the media on its own port


# --- Vertex AI: ADK's `Gemini` with a Vertex client, ADK's `Claude` -----------------------------

_VERTEX_PATHS = {
    "anthropic-vertex/claude-sonnet-5": (
        r"/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
        r"claude-sonnet-5-5:(stream)?[rR]awPredict"
    ),
    "gemini-vertex/gemini-3": (
        r"/v1beta1/projects/conformance-project/locations/us-central1/publishers/google/models/"
        r"gemini-3\.8-flash:(streamGenerateContent|generateContent)"
    ),
}


@pytest.mark.parametrize("row_id", sorted(_VERTEX_PATHS))
def test_vertex_rows_reach_the_vertex_endpoint_of_their_model(
    target: GoogleADKTarget, row_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's request reaches the model's Vertex path (the double's routes, the
    locators' apis) with the stand-in token, and nothing else reaches the recorder (Claude's
    token exchange goes to the local token server); the Claude body has no `model` and an
    `anthropic_version`, as the Vertex page says; the environment is restored after."""
    import re

    from conformance.targets import kit
    from conformance.targets.gcp_credentials import TOKEN

    seen: list[kit.Exchange] = []
    payload_of = kit.payload_of

    def keep(api: str, exchange: kit.Exchange) -> object:
        seen.append(exchange)
        return payload_of(api, exchange)

    monkeypatch.setattr(kit, "payload_of", keep)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    row = ROWS[row_id]
    payload = target.render(row, scenario("image", "inline", "result"))
    assert len(seen) == 1
    assert re.fullmatch(_VERTEX_PATHS[row_id], seen[0].path.split("?")[0])
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"
    if row.api == "anthropic-vertex":
        assert "model" not in payload
        # the version the installed anthropic SDK's AsyncAnthropicVertex sets (docs/matrix.md)
        assert payload["anthropic_version"] in {"vertex-2023-10-16", "2026-10-21"}
        assert payload["messages"][-1]["content"][0]["type"] == "tool_result"
    else:
        assert payload["contents"][-1]["parts"][0]["functionResponse"]["name"] == "get_image"
    import os

    assert "GOOGLE_APPLICATION_CREDENTIALS" not in os.environ


@pytest.mark.parametrize("row_id", sorted(_VERTEX_PATHS))
def test_vertex_repro_runs_and_prints_the_payload(
    target: GoogleADKTarget, row_id: str, tmp_path: Path
) -> None:
    """The reproducer builds the Vertex model the target does (Claude with its own key and
    token server, never a key in the script) and prints what the agent sent."""
    import re

    from vertex_checks import run_vertex_repro

    row = ROWS[row_id]
    history = scenario("document", "inline", "result")
    first, _, body = run_vertex_repro(target, row, tmp_path).partition("\n")
    method, _, sent_path = first.partition(" ")
    assert method == "POST"
    assert re.fullmatch(_VERTEX_PATHS[row_id], sent_path.split("?")[0])
    printed = json.loads(body)
    rendered = target.render(row, history)
    key = "messages" if row.api == "anthropic-vertex" else "contents"
    assert printed[key] == rendered[key]
