"""The Vercel AI SDK target: the bridge's protocol, the SDK's tool loop, storage, capture, URL
downloads, bytes, the reproducer, a missing install. Runs where `npm ci` installed the release
(`nox -s "target(ai-sdk)"`), else skips."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

import pytest

from conformance.adoption.repro import repro_script
from conformance.adoption.verify_bridge import verify_bridge
from conformance.history import Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.recording.send import FAKE_KEYS
from conformance.scenarios.build import scenario
from conformance.scenarios.fixtures import fixture_bytes
from conformance.targets import resolve_target
from conformance.targets.ai_sdk import AISDKTarget, bridge_folder
from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import PROJECT, TOKEN
from conformance.targets.kit import fixture_host

ROOT = Path(__file__).resolve().parent.parent
MATRIX = load_matrix(ROOT / "matrix.yaml")
ROWS = {c.row_id: RowRef(c.row_id, c.api, c.family, c.model) for c in MATRIX.cells()}

_probe = AISDKTarget()
if _probe.unavailable is not None:
    pytest.skip(_probe.unavailable, allow_module_level=True)
_probe.close()


@pytest.fixture(scope="module")
def target() -> AISDKTarget:
    return AISDKTarget()


def test_the_entry_point_names_the_release_the_handshake_reports(target: AISDKTarget) -> None:
    found = resolve_target("ai-sdk")
    assert isinstance(found, AISDKTarget)
    assert (found.name, found.version) == ("ai-sdk", target.sdk_versions["ai"])
    for package in ("ai", "@ai-sdk/provider", "@ai-sdk/openai", "@ai-sdk/anthropic", "node"):
        assert target.sdk_versions[package][0].isdigit()
    assert [t.__name__ for t in target.refusal_types] == ["UnsupportedFunctionalityError"]
    found.close()


def test_the_bridge_speaks_the_protocol_on_every_row_it_serves(target: AISDKTarget) -> None:
    folder = bridge_folder() / f"ai{os.environ.get('CONFORMANCE_AI_SDK') or '7'}"
    assert verify_bridge(target.command, cwd=str(folder), time_limit=30.0) == []


def test_the_sdk_runs_the_tool_and_writes_the_tool_results(target: AISDKTarget) -> None:
    """Both calls' results come back from the tools, in call order, as toModelOutput made them."""
    payload = target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    blocks = payload["messages"][2]["content"]
    assert [b["tool_use_id"] for b in blocks] == ["call_1", "call_2"]
    assert [c["type"] for b in blocks for c in b["content"]] == ["image", "image"]
    sent = blocks[0]["content"][0]["source"]["data"]
    assert sent == base64.b64encode(fixture_bytes("chart.png")).decode()


def test_a_failed_call_throws_in_execute_and_the_sdk_reports_it(target: AISDKTarget) -> None:
    payload = target.render(ROWS["anthropic/claude-sonnet-5"], scenario("text", "inline", "error"))
    failed, succeeded = payload["messages"][2]["content"]
    assert failed.get("is_error") is True
    assert "is_error" not in succeeded


def test_storage_is_the_messages_through_json(target: AISDKTarget) -> None:
    row = ROWS["openai-responses/gpt-6"]
    for history in (scenario("image", "url", "result"), scenario("document", "inline", "prompt")):
        assert target.render_stored(row, history) == target.render(row, history)


def test_an_unsupported_part_is_the_declared_refusal(target: AISDKTarget) -> None:
    with pytest.raises(target.refusal_types, match=r"(?i)video|file part"):
        target.render(ROWS["openai-chat/gpt-6"], scenario("video", "inline", "prompt"))


def test_bedrock_media_arrives_as_raw_bytes(target: AISDKTarget) -> None:
    payload = target.render(ROWS["bedrock-converse/claude"], scenario("image", "inline", "result"))
    assert payload["modelId"] == ROWS["bedrock-converse/claude"].model
    result = payload["messages"][2]["content"][0]["toolResult"]
    assert result["content"][0]["image"]["source"]["bytes"] == fixture_bytes("chart.png")


def test_claude_on_bedrock_invoke_is_the_messages_body_of_the_anthropic_sub_provider(
    target: AISDKTarget, tmp_path: Path
) -> None:
    """`anthropic-bedrock` goes through `@ai-sdk/amazon-bedrock/anthropic`: a Messages body with
    Bedrock's `anthropic_version` and no model, posted to `/model/{id}/invoke`; through the
    Converse provider it would be a Converse body (`modelId`, `toolResult`, `toolConfig`) posted
    to `/model/{id}/converse`."""
    row = ROWS["anthropic-bedrock/claude-opus-4-6"]
    assert target.supports(row) is None
    payload = target.render(row, scenario("image", "inline", "result"))
    assert payload["anthropic_version"] == "bedrock-2023-05-31"
    assert not {"model", "modelId", "toolConfig", "inferenceConfig"} & set(payload)
    results = payload["messages"][2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [
        ("tool_result", "call_1"),
        ("tool_result", "call_2"),
    ]
    assert results[0]["content"][0]["source"]["type"] == "base64"
    assert target.sdk_versions["@ai-sdk/amazon-bedrock>@ai-sdk/anthropic"][0].isdigit()
    # The request line, which the payload does not hold: the reproducer prints it.
    cell = "anthropic-bedrock/claude-opus-4-6/image/inline/result"
    script = repro_script(MATRIX, cell, "ai-sdk")
    assert "import * as provider from '@ai-sdk/amazon-bedrock/anthropic';" in script
    (tmp_path / "repro.mjs").write_text(script, encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(Path(target.cwd or ".") / "node_modules")
    run = subprocess.run(
        [target.command[0], "repro.mjs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == f"POST /model/{row.model}/invoke"
    assert json.loads(body) == payload


def test_the_aws_stand_ins_are_the_suites_fake_keys() -> None:
    """Both Bedrock providers get FAKE_KEYS' AWS pair and the region explicitly."""
    source = (bridge_folder() / "bridge.mjs").read_text(encoding="utf-8")
    assert f"accessKeyId: '{FAKE_KEYS['aws_access_key_id']}'" in source
    assert f"secretAccessKey: '{FAKE_KEYS['aws_secret_access_key']}'" in source
    assert source.count("...AWS })") == 2


def _repro_request(target: AISDKTarget, tmp_path: Path, cell: str) -> tuple[str, object]:
    """The reproducer of `cell` run with the release's node_modules: its request line and body."""
    script = repro_script(MATRIX, cell, "ai-sdk")
    (tmp_path / "repro.mjs").write_text(script, encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(Path(target.cwd or ".") / "node_modules")
    run = subprocess.run(
        [target.command[0], "repro.mjs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    return first, json.loads(body)


def test_claude_on_vertex_is_the_messages_body_of_the_vertex_anthropic_provider(
    target: AISDKTarget, tmp_path: Path
) -> None:
    """`anthropic-vertex` goes through `@ai-sdk/google-vertex/anthropic`: the Messages body with
    Vertex's `anthropic_version` and no model, posted to the project's
    `.../publishers/anthropic/models/{model}:rawPredict`; through `@ai-sdk/anthropic` it would be
    the body with `model` and no version, posted to `/v1/messages`."""
    row = ROWS["anthropic-vertex/claude-sonnet-5"]
    assert target.supports(row) is None
    payload = target.render(row, scenario("document", "inline", "result"))
    assert payload["anthropic_version"] == "vertex-2023-10-16"
    assert "model" not in payload
    results = payload["messages"][2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [
        ("tool_result", "call_1"),
        ("tool_result", "call_2"),
    ]
    assert results[0]["content"][0]["source"]["media_type"] == "application/pdf"
    assert target.sdk_versions["@ai-sdk/google-vertex>@ai-sdk/anthropic"][0].isdigit()
    cell = "anthropic-vertex/claude-sonnet-5/document/inline/result"
    first, body = _repro_request(target, tmp_path, cell)
    assert first == (
        f"POST /v1/projects/{PROJECT}/locations/us-east5/publishers/anthropic/models/"
        f"{row.model}:rawPredict"
    )
    assert body == payload


def test_gemini_on_vertex_is_generate_content_on_the_vertex_path(
    target: AISDKTarget, tmp_path: Path
) -> None:
    """`gemini-vertex` goes through `@ai-sdk/google-vertex`'s `createGoogleVertex` (`createVertex`
    in 6): generateContent posted to `/v1beta1/projects/{p}/locations/{l}/publishers/google/
    models/{model}:generateContent`, its functionResponse without the call id the Developer API's
    provider adds; through `@ai-sdk/google` it would go to `/v1beta/models/{model}`."""
    row = ROWS["gemini-vertex/gemini-3"]
    assert target.supports(row) is None
    payload = target.render(row, scenario("image", "inline", "result"))
    responses = [p["functionResponse"] for p in payload["contents"][2]["parts"]]
    assert [r["name"] for r in responses] == ["get_image", "get_image"]
    assert all("id" not in r for r in responses)
    assert (
        responses[0]["parts"][0]["inlineData"]["data"]
        == base64.b64encode(fixture_bytes("chart.png")).decode()
    )
    assert target.sdk_versions["@ai-sdk/google-vertex>@ai-sdk/google"][0].isdigit()
    first, body = _repro_request(target, tmp_path, "gemini-vertex/gemini-3/image/inline/result")
    assert first == (
        f"POST /v1beta1/projects/{PROJECT}/locations/us-central1/publishers/google/models/"
        f"{row.model}:generateContent"
    )
    assert body == payload


def test_the_vertex_gemini_provider_downloads_tool_result_urls_itself(
    target: AISDKTarget,
) -> None:
    """`@ai-sdk/google-vertex`'s Gemini model downloads a tool result's http(s) files itself
    (`downloadToolResultFiles`), past `experimental_download` and behind a guard that refuses
    127.0.0.1: the bridge names the fixture host with a reserved name its fetch resolves, so the
    fixture host sees the fetches, the bytes are sent, and no name of the bridge's is."""
    history = scenario("document", "url", "result")
    with fixture_host().watch() as fetches:
        payload = target.render(ROWS["gemini-vertex/gemini-3"], history)
    assert {f.path.split("?")[0] for f in fetches if f.status == 200} == {
        "/conformance/report.pdf",
        "/conformance/report-2.pdf",
    }
    parts = payload["contents"][2]["parts"][0]["functionResponse"]["parts"]
    assert base64.b64decode(parts[0]["inlineData"]["data"]) == fixture_bytes("report.pdf")
    assert "conformance.test" not in json.dumps(payload)


def test_the_google_cloud_stand_ins_are_the_suites() -> None:
    """Both Vertex providers authenticate with google-auth-library's `authClient` holding the
    suite's stand-in token for its project (`gcp_credentials`), never a key or a real token."""
    source = (bridge_folder() / "bridge.mjs").read_text(encoding="utf-8")
    assert f"project: '{PROJECT}'" in source
    assert f"token: '{TOKEN}'" in source
    assert "authClient.setCredentials({ access_token: GCP.token })" in source
    assert source.count("googleAuthOptions: vertexAuth(auth)") == 2
    for snapshot in (ROOT / "snapshots" / "ai-sdk").glob("*-vertex/*.json"):
        assert TOKEN not in snapshot.read_text(encoding="utf-8")


def test_url_media_the_sdk_downloads_is_fetched_from_the_fixture_host(
    target: AISDKTarget,
) -> None:
    """The OpenAI chat provider takes no PDF URL, so the SDK downloads it (through the
    `experimental_download` hook, which the SDK's guard against private addresses would refuse
    for 127.0.0.1): the fetch is seen by the fixture host and the bytes are sent."""
    history = scenario("document", "url", "prompt")
    with fixture_host().watch() as fetches:
        payload = target.render(ROWS["openai-chat/gpt-6"], history)
    assert {f.path.split("?")[0] for f in fetches if f.status == 200} == {  # concurrent
        "/conformance/report.pdf",
        "/conformance/report-2.pdf",
    }
    assert "data:application/pdf;base64," in json.dumps(payload)


def test_a_leading_system_message_is_the_calls_instructions(target: AISDKTarget) -> None:
    history = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Go."),
        ToolCall(tool_call_id="c1", name="get_image"),
        ToolResult(
            tool_call_id="c1",
            name="get_image",
            content=[
                Text(text="see"),
                Image(media_type="image/png", data=b"\x89PNG", identifier="x"),
            ],
        ),
    ]
    payload = target.render(ROWS["anthropic/claude-sonnet-5"], history)
    assert payload["system"] == [{"type": "text", "text": "Be brief."}]


def test_the_reproducer_runs_with_node_and_prints_the_payload(
    target: AISDKTarget, tmp_path: Path
) -> None:
    cell = "anthropic/claude-sonnet-5/document/inline/result"
    script = repro_script(MATRIX, cell, "ai-sdk")
    assert script.startswith(f"// Reproducer for {cell} on ai-sdk {target.version}")
    assert "// Run it: node this_file.mjs" in script
    (tmp_path / "repro.mjs").write_text(script, encoding="utf-8")
    release = Path(target.cwd or ".")
    (tmp_path / "node_modules").symlink_to(release / "node_modules")
    run = subprocess.run(
        [target.command[0], "repro.mjs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == "POST /v1/messages"
    assert json.loads(body) == target.render(
        ROWS["anthropic/claude-sonnet-5"], scenario("document", "inline", "result")
    )


def test_a_missing_install_is_unavailable_with_the_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "ai7").mkdir()
    (tmp_path / "ai7" / "main.mjs").write_text("", encoding="utf-8")
    monkeypatch.setenv("CONFORMANCE_AI_SDK_DIR", str(tmp_path))
    monkeypatch.setenv("CONFORMANCE_AI_SDK", "7")
    absent = AISDKTarget()
    assert absent.unavailable is not None
    assert "npm ci" in absent.unavailable
    assert absent.supports(ROWS["openai-chat/gpt-6"]) == absent.unavailable
    assert (absent.name, absent.version, absent.refusal_types) == ("ai-sdk", "not installed", ())
