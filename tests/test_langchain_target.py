"""The langchain target: translation into LangChain messages, storage round trip, capture
through the integration packages, typed refusals, and the standalone reproducer."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, cast

import pytest

import invoke_checks
from conformance.history import History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, ERROR_FIXTURE, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "langchain_core",
    reason="LangChain is not installed: pip install langchain-core langchain-openai ... "
    '(the `langchain` dependency group), or nox -s "target(langchain)"',
)

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from conformance.targets.langchain import (
    LangChainTarget,
    dump_messages,
    load_messages,
    to_messages,
)

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


def test_entry_point_names_the_target_its_versions_and_refusals() -> None:
    target = resolve_target("langchain")
    assert isinstance(target, LangChainTarget)
    assert target.unavailable is None
    assert target.version[0].isdigit()
    assert target.sdk_versions["langchain-core"] == target.version
    assert {
        "langchain-openai",
        "openai",
        "langchain-aws",
        "boto3",
        "langchain-google-vertexai",
        "google-cloud-aiplatform",
    } <= set(target.sdk_versions)
    assert target.refusal_types == (ValueError,)


def test_every_row_has_an_integration_package() -> None:
    """Every row of every api, the Vertex ones through langchain-google-vertexai."""
    target = LangChainTarget()
    unserved = {row.api for row in ROWS.values() if target.supports(row) is not None}
    assert unserved == set()
    other = RowRef(id="x/y", api="not-an-api", family="y", model="m")
    assert "no integration package" in (target.supports(other) or "")


def test_result_style_media_is_a_standard_block_in_a_tool_message() -> None:
    human, call, result, _second = to_messages(scenario("image", "inline", "result"))
    assert isinstance(human, HumanMessage)
    assert isinstance(call, AIMessage)
    assert [(c["name"], c["id"]) for c in call.tool_calls] == [
        ("get_image", CALL_ID),
        ("get_image", "call_2"),
    ]
    assert all(c["args"] == {} for c in call.tool_calls)
    assert isinstance(result, ToolMessage)
    assert (result.tool_call_id, result.name, result.status) == (CALL_ID, "get_image", "success")
    (block,) = result.content
    assert isinstance(block, dict)
    assert block["type"] == "image"
    assert block["mime_type"] == "image/png"
    assert block["base64"].startswith("iVBORw0KGgo")  # the PNG signature, base64


def test_documents_are_file_blocks_with_a_filename_and_urls_stay_urls() -> None:
    (block,) = to_messages(scenario("document", "url", "result"))[2].content
    assert isinstance(block, dict)
    block = cast("dict[str, Any]", block)
    assert sorted(block) == ["filename", "mime_type", "type", "url"]
    assert (block["type"], block["mime_type"], block["filename"]) == (
        "file",
        "application/pdf",
        "report.pdf",
    )
    assert str(block["url"]).endswith("/conformance/report.pdf")


def test_text_result_is_the_exact_string() -> None:
    result = to_messages(scenario("text", "inline", "result"))[2]
    assert result.content == TEXT_FIXTURE


def test_prompt_style_is_a_human_message_after_the_tool_message() -> None:
    *_, result, _second, user, _user2 = to_messages(scenario("audio", "inline", "prompt"))
    assert isinstance(result, ToolMessage)
    assert isinstance(user, HumanMessage)
    (block,) = user.content
    assert isinstance(block, dict)
    assert (block["type"], block["mime_type"]) == ("audio", "audio/wav")


def test_error_result_is_a_tool_message_with_status_error() -> None:
    result = to_messages(scenario("text", "inline", "error"))[2]
    assert isinstance(result, ToolMessage)
    assert (result.status, result.content) == ("error", ERROR_FIXTURE)


def test_parallel_calls_are_one_ai_message_and_a_tool_message_each() -> None:
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
    messages = to_messages(history)
    assert [m.type for m in messages] == ["system", "human", "ai", "tool", "tool", "ai"]
    assert [c["id"] for c in messages[2].tool_calls] == ["a", "b"]
    assert [m.tool_call_id for m in messages[3:5]] == ["a", "b"]
    assert messages[4].content[0] == {"type": "text", "text": "2"}


@pytest.mark.parametrize("style", ["result", "prompt", "error"])
def test_storage_round_trip_keeps_every_message(style: str) -> None:
    messages = to_messages(scenario("video", "inline", style))  # type: ignore[arg-type]
    again = load_messages(dump_messages(messages))
    assert again == messages
    assert dump_messages(again) == dump_messages(messages)


def test_payload_is_the_body_the_integration_sent() -> None:
    payload = LangChainTarget().render(
        ROWS["anthropic/claude-sonnet-5"], scenario("image", "inline", "result")
    )
    assert payload["model"] == "claude-sonnet-5-5"
    assert [t["name"] for t in payload["tools"]] == ["get_image"]
    result, _second = payload["messages"][2]["content"]  # two parallel calls
    assert (result["type"], result["tool_use_id"]) == ("tool_result", CALL_ID)
    assert result["content"][0]["type"] == "image"
    assert result["content"][0]["source"]["type"] == "base64"


def test_bedrock_payload_names_the_model_from_the_path() -> None:
    payload = LangChainTarget().render(
        ROWS["bedrock-converse/nova"], scenario("text", "inline", "error")
    )
    assert payload["modelId"] == "amazon.nova-pro-v1:0"
    tool_result = payload["messages"][2]["content"][0]["toolResult"]
    assert tool_result["status"] == "error"


def test_a_refusal_is_a_value_error_before_sending() -> None:
    with pytest.raises(ValueError, match="video"):
        LangChainTarget().render(ROWS["openai-chat/gpt-6"], scenario("video", "inline", "result"))


def test_stored_rendering_is_byte_identical() -> None:
    target = LangChainTarget()
    row, history = ROWS["gemini/gemini-3"], scenario("document", "inline", "prompt")
    assert json.dumps(target.render_stored(row, history)) == json.dumps(target.render(row, history))


def _repro(row: str, content_type: str, source: str, style: str) -> tuple[str, str]:
    history = scenario(content_type, source, style)  # type: ignore[arg-type]
    script = LangChainTarget().repro(ROWS[row], history)
    run = subprocess.run(
        [sys.executable, "-I", "-c", script],  # -I: no cwd on the path, so no suite import
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return script, run.stdout


def test_repro_of_a_failing_cell_runs_standalone_and_prints_the_payload() -> None:
    """Cohere drops tool-produced images (a `dropped` cell): the script shows the request."""
    script, out = _repro("cohere/command-a-vision", "image", "inline", "prompt")
    assert "conformance" not in script.replace("conformance/", "")
    path, _, body = out.partition("\n")
    assert path == "POST /api/v2/chat"
    payload: dict[str, Any] = json.loads(body)
    assert payload["model"] == "command-a-vision-07-2025"
    assert payload["messages"][-1] == {"role": "user", "content": ""}  # the image is gone


def test_repro_serves_url_media_itself_and_reports_a_refusal() -> None:
    _, out = _repro("gemini/gemini-2.5", "image", "url", "result")
    body = json.loads(out.partition("\n")[2])
    assert body["contents"][2]["parts"][0]["inlineData"]["mime_type"] == "image/png"
    _, out = _repro("openai-chat/gpt-6", "video", "inline", "result")
    assert out.startswith("nothing sent; raised ValueError: Block of type video")


def _image_at(url: str) -> History:
    return [
        Message(role="user", content="Describe it."),
        ToolCall(tool_call_id=CALL_ID, name="get_image"),
        ToolResult(
            tool_call_id=CALL_ID,
            name="get_image",
            content=[Image(media_type="image/png", url=url, identifier="chart.png")],
        ),
    ]


def test_a_url_off_the_loopback_is_never_resolved() -> None:
    """langchain-google-genai downloads URL media: off 127.0.0.1 the lookup is refused, and
    the cell ends in the integration's own error (a crash, never a pass)."""
    history = _image_at("https://example.com/conformance/chart.png")
    with pytest.raises(Exception, match="resolves loopback hosts only"):
        LangChainTarget().render(ROWS["gemini/gemini-2.5"], history)


def test_url_media_on_the_fixture_host_is_downloaded_and_observed() -> None:
    from conformance.targets.kit import fixture_host

    host = fixture_host()
    with host.watch() as fetches:
        payload = LangChainTarget().render(
            ROWS["gemini/gemini-2.5"], _image_at(host.url("chart.png"))
        )
    assert [(f.path, f.status) for f in fetches] == [("/conformance/chart.png", 200)]
    assert payload["contents"][2]["parts"][0]["inlineData"]["mime_type"] == "image/png"


def test_the_results_record_langchain_and_its_sdk_versions(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n"
    )
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    run = pytester.runpytest(
        "-k", "langchain:anthropic/claude-sonnet-5/image/inline/result:outcome",
        "--conformance-target", "langchain", "--conformance-results", "r.jsonl",
    )  # fmt: skip
    run.assert_outcomes(passed=1)
    lines = [json.loads(x) for x in (pytester.path / "r.jsonl").read_text("utf-8").splitlines()]
    target = LangChainTarget()
    assert lines[0]["targets"] == {"langchain": target.version}
    assert lines[0]["sdk_versions"] == {"langchain": target.sdk_versions}
    assert lines[1]["outcome"] == "native"


@pytest.mark.parametrize(
    ("row", "path", "authorization"),
    [
        (
            "anthropic-vertex/claude-sonnet-5",
            "/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
            "{model}:rawPredict",
            "Bearer conformance-not-a-key",
        ),
        (
            "gemini-vertex/gemini-3",
            "/v1beta1/projects/conformance-project/locations/us-central1/publishers/google/"
            "models/{model}:generateContent",
            None,
        ),
    ],
)
def test_vertex_rows_go_through_langchain_google_vertexai(
    row: str, path: str, authorization: str | None
) -> None:
    """`ChatAnthropicVertex` and `ChatVertexAI` (REST) reach the Vertex endpoint of the row's
    model, as the Vertex locators read it: Claude's body without `model` and with an
    `anthropic_version`, with the fake access token; Gemini's with no token at all (anonymous
    credentials). `ChatAnthropic` or `ChatGoogleGenerativeAI` would send elsewhere."""
    from conformance.targets.kit import recorder
    from conformance.targets.langchain._models import MODELS

    ref = ROWS[row]
    with recorder().channel() as (base, taken), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ChatVertexAI's, since 3.2.0
        model = MODELS[ref.api].build(ref, base)
        with pytest.raises(Exception, match="400"):  # the recorder answers 400
            model.invoke(to_messages(scenario("image", "inline", "result")))
    (sent,) = taken
    assert sent.path.split("?")[0] == path.format(model=ref.model)
    assert sent.headers.get("authorization") == authorization
    body = json.loads(sent.body)
    assert "model" not in body
    assert ("anthropic_version" in body) is (ref.api == "anthropic-vertex")


def test_vertex_payloads_are_what_the_integration_builds() -> None:
    """A sample of the Vertex outcomes (docs/langchain.md#vertex-ai): ChatAnthropicVertex
    converts an image in a tool result and passes an audio block through as LangChain's dict;
    ChatVertexAI sends a tool's media block as the functionResponse's response object and a
    failed call with no error key."""
    target = LangChainTarget()
    claude = ROWS["anthropic-vertex/claude-sonnet-5"]
    image = target.render(claude, scenario("image", "inline", "result"))
    result = image["messages"][2]["content"][0]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", CALL_ID)
    assert result["content"][0]["source"]["type"] == "base64"
    audio = target.render(claude, scenario("audio", "inline", "result"))
    (block,) = audio["messages"][2]["content"][0]["content"]
    assert (block["type"], block["mime_type"]) == ("audio", "audio/wav")
    assert "source" not in block

    gemini = ROWS["gemini-vertex/gemini-3"]
    image = target.render(gemini, scenario("image", "inline", "result"))
    response = image["contents"][2]["parts"][0]["functionResponse"]
    assert response["name"] == "get_image"
    assert sorted(response["response"]) == ["base64", "mime_type", "type"]
    assert all("inlineData" not in part for part in image["contents"][2]["parts"])
    error = target.render(gemini, scenario("text", "inline", "error"))
    assert error["contents"][2]["parts"][0]["functionResponse"]["response"] == {
        "content": ERROR_FIXTURE
    }


def test_repro_of_the_vertex_rows_reaches_their_endpoints() -> None:
    _, out = _repro("anthropic-vertex/claude-sonnet-5", "document", "url", "result")
    path, _, body = out.partition("\n")
    assert path == (
        "POST /api/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/"
        "models/claude-sonnet-5-5:rawPredict"
    )
    source = json.loads(body)["messages"][2]["content"][0]["content"][0]["source"]
    assert source["type"] == "url"
    _, out = _repro("gemini-vertex/gemini-3", "text", "inline", "error")
    path, _, body = out.partition("\n")
    assert path.startswith(
        "POST /api/v1beta1/projects/conformance-project/locations/us-central1/publishers/"
        "google/models/gemini-3.8-flash:generateContent"
    )
    part = json.loads(body)["contents"][2]["parts"][0]
    assert part["functionResponse"]["response"] == {"content": ERROR_FIXTURE}


def test_a_vertex_gemini_payload_is_the_same_under_any_hash_seed() -> None:
    """ChatVertexAI writes a Struct's keys in an order that follows the process's hash seed
    (seeds 1, 2 and 3 gave three orders of one tool result's keys): the target sorts them, so
    the snapshot of a cell is the same in every run."""
    code = (
        "import json, warnings; warnings.simplefilter('ignore')\n"
        "from conformance.scenarios.build import scenario\n"
        "from conformance.targets.base import RowRef\n"
        "from conformance.targets.langchain import LangChainTarget\n"
        "row = RowRef(id='gemini-vertex/gemini-3', api='gemini-vertex', family='gemini-3',\n"
        "             model='gemini-3.8-flash')\n"
        "payload = LangChainTarget().render(row, scenario('document', 'inline', 'result'))\n"
        "print(json.dumps(payload['contents'][2]))\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    (out,) = outs
    response = json.loads(out)["parts"][0]["functionResponse"]["response"]
    assert list(response) == ["base64", "filename", "mime_type", "type"]


# --- Claude on Bedrock InvokeModel: ChatBedrock ----------------------------------------------

_INVOKE_ENTRIES = ("langchain", "langchain.source-type-blocks", "langchain.native-blocks")


@pytest.mark.parametrize("name", _INVOKE_ENTRIES)
def test_the_invoke_row_reaches_invoke_model_through_chat_bedrock(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The anthropic-bedrock row goes through ChatBedrock: one request, to the model's
    `/model/{id}/invoke`, SigV4-signed with the double's fake AWS key, Claude's Messages body
    with Bedrock's anthropic_version (ChatBedrock writes it itself) and no `model`."""
    invoke_checks.reaches_invoke_model(
        resolve_target(name), ROWS[invoke_checks.INVOKE_ROW], monkeypatch
    )


@pytest.mark.parametrize(
    ("route", "seen"),
    [("bedrock-converse", "/converse"), ("anthropic", "/v1/messages")],
)
def test_the_invoke_row_on_another_route_fails_the_check(
    route: str, seen: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutants that build the row's model as another api's (ChatBedrockConverse, which the
    bedrock-converse rows use, or ChatAnthropic on the plain Messages api) are caught: their
    request reaches another path."""
    from conformance.targets.langchain import _models

    monkeypatch.setitem(_models.MODELS, "anthropic-bedrock", _models.MODELS[route])
    with pytest.raises(AssertionError, match=re.escape(seen)):
        invoke_checks.reaches_invoke_model(
            LangChainTarget(), ROWS[invoke_checks.INVOKE_ROW], monkeypatch
        )


def test_chat_bedrock_signs_with_the_doubles_fake_aws_keys() -> None:
    from conformance.recording.send import FAKE_KEYS
    from conformance.targets.langchain._models import AWS_EXAMPLE_KEYS

    assert (FAKE_KEYS["aws_access_key_id"], FAKE_KEYS["aws_secret_access_key"]) == AWS_EXAMPLE_KEYS


def test_chat_bedrock_keeps_a_tool_messages_standard_blocks_as_they_are() -> None:
    """What deviations/langchain.yaml says of the row, observed: `_format_anthropic_messages`
    leaves LangChain's image block inside the tool_result unconverted (no Anthropic `source`),
    `_merge_messages` writes no is_error for a failed call, and `_format_data_content_block`
    refuses a document in a HumanMessage."""
    row = ROWS[invoke_checks.INVOKE_ROW]
    payload = LangChainTarget().render(row, scenario("image", "inline", "result"))
    result, _second = payload["messages"][2]["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", CALL_ID)
    (block,) = result["content"]
    assert set(block) == {"type", "base64", "mime_type"}
    payload = LangChainTarget().render(row, scenario("text", "inline", "error"))
    assert "is_error" not in payload["messages"][2]["content"][0]
    with pytest.raises(ValueError, match="Blocks of type file not supported"):
        LangChainTarget().render(row, scenario("document", "inline", "prompt"))


def test_repro_of_the_invoke_row_prints_what_chat_bedrock_sent(tmp_path: Path) -> None:
    invoke_checks.repro_prints_the_invoke_payload(
        LangChainTarget(), ROWS[invoke_checks.INVOKE_ROW], tmp_path
    )
