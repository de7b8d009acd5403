"""The OpenAI Agents SDK target: tool outputs, input items, the run that reaches the tools,
storage, the reproducer, a missing install and the reasons file."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.history import Document, History, Image, Message, Text, ToolCall, ToolResult
from conformance.matrix import load_matrix
from conformance.scenarios.build import (
    CALL_IDS,
    ERROR_FIXTURE,
    PROMPT_STYLE_RESULT_TEXT,
    TEXT_FIXTURE,
    TEXT_FIXTURE_2,
    scenario,
)
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "agents",
    reason='the openai-agents dependency group is not installed: nox -s "target(openai-agents)"',
)

from agents import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from agents.exceptions import UserError

from conformance.targets import openai_agents as target_module
from conformance.targets.openai_agents import (
    INSTALL_HINT,
    OpenAIAgentsTarget,
    dump_items,
    load_items,
    to_input_items,
    tool_output,
)
from conformance.targets.openai_agents._items import plan

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}
CHAT = ROWS["openai-chat/gpt-6"]
RESPONSES = ROWS["openai-responses/gpt-6"]


@pytest.fixture(scope="module")
def target() -> OpenAIAgentsTarget:
    return OpenAIAgentsTarget()


def test_entry_point_names_the_target(target: OpenAIAgentsTarget) -> None:
    found = resolve_target("openai-agents")
    assert isinstance(found, OpenAIAgentsTarget)
    assert found.name == "openai-agents"
    assert found.version[0].isdigit()
    assert found.unavailable is None
    assert target.refusal_types == (UserError,)
    assert "openai" in target.sdk_versions


def test_a_missing_install_is_unavailable_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise ImportError("No module named 'agents'")

    monkeypatch.setattr(target_module, "_import_sdk", missing)
    absent = OpenAIAgentsTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable
    assert absent.supports(CHAT) == absent.unavailable
    assert absent.refusal_types == ()


def test_another_distributions_agents_module_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_installed(distribution: str) -> str | None:
        return None

    monkeypatch.setattr(target_module, "_version", not_installed)
    absent = OpenAIAgentsTarget()
    assert absent.unavailable is not None
    assert INSTALL_HINT in absent.unavailable


def test_rows_of_other_apis_name_the_litellm_path(target: OpenAIAgentsTarget) -> None:
    reason = target.supports(ROWS["anthropic/claude-sonnet-5"])
    assert reason is not None
    assert "LiteLLM" in reason
    assert target.supports(CHAT) is None
    assert target.supports(RESPONSES) is None


# --- translation -------------------------------------------------------------------------------


def test_a_lone_text_part_is_the_exact_string_and_nothing_is_empty() -> None:
    assert tool_output([Text(text=TEXT_FIXTURE)]) == TEXT_FIXTURE
    assert tool_output([]) == ""


def test_media_are_the_sdk_output_models() -> None:
    image = tool_output([Image(media_type="image/png", data=b"\x89PNG", identifier="a.png")])
    assert isinstance(image, ToolOutputImage)
    assert image.image_url == "data:image/png;base64,iVBORw=="
    pdf = Document(media_type="application/pdf", url="https://x/r.pdf", identifier="r")
    url = tool_output([pdf])
    assert isinstance(url, ToolOutputFileContent)
    assert (url.file_url, url.file_data) == ("https://x/r.pdf", None)
    mixed = tool_output(
        [Text(text="a"), Document(media_type="application/pdf", data=b"%PDF", identifier="r.pdf")]
    )
    assert isinstance(mixed, list)
    text, document = mixed  # pyright: ignore[reportUnknownVariableType]
    assert isinstance(text, ToolOutputText)
    assert text.text == "a"
    assert isinstance(document, ToolOutputFileContent)
    assert document.filename == "r.pdf"
    assert document.file_data == "data:application/pdf;base64,JVBERg=="


def test_input_items_are_what_runner_run_takes() -> None:
    items = to_input_items(scenario("image", "inline", "result"))
    assert items[0] == {"role": "user", "content": "Call the tool, then describe what it returned."}
    assert [i["type"] for i in items[1:]] == ["function_call"] * 2 + ["function_call_output"] * 2
    assert [i["call_id"] for i in items[1:]] == [*CALL_IDS, *CALL_IDS]
    (part,) = items[3]["output"]
    assert part["type"] == "input_image"
    assert part["image_url"].startswith("data:image/png;base64,iVBOR")


def test_tool_produced_content_waits_for_the_turn_and_has_no_marker() -> None:
    image = Image(media_type="image/png", data=b"x", identifier="x.png")
    history: History = [
        Message(role="user", content="go"),
        ToolCall(tool_call_id="a", name="one"),
        ToolCall(tool_call_id="b", name="two"),
        ToolResult(tool_call_id="a", name="one", content=[Text(text="1")]),
        Message(role="user", content=[image], source={"tool_name": "one", "tool_call_id": "a"}),  # type: ignore[arg-type]
        ToolResult(tool_call_id="b", name="two", content=[Text(text="2")]),
    ]
    items = to_input_items(history)
    kinds = [i.get("type", i.get("role")) for i in items]
    calls, outputs = ["function_call"] * 2, ["function_call_output"] * 2
    assert kinds == ["user", *calls, *outputs, "user"]
    assert items[-1]["content"] == [
        {"type": "input_image", "image_url": "data:image/png;base64,eA==", "detail": "auto"}
    ]
    assert plan(history) is None  # a tool cannot produce user content: sent as stored items


def test_the_plan_is_the_last_turn_in_call_order() -> None:
    found = plan(scenario("text", "inline", "error"))
    assert found is not None
    assert [c.tool_call_id for c in found.calls] == list(CALL_IDS)
    assert [c.status for c in found.calls] == ["error", "success"]
    swapped = scenario("text", "inline", "result")
    swapped[-2:] = swapped[-1:-3:-1]
    assert plan(swapped) is None  # the run would answer in call order


@pytest.mark.parametrize("style", ["result", "prompt", "error"])
def test_storage_is_the_input_list_as_json(style: str) -> None:
    items = to_input_items(scenario("text", "inline", style))  # type: ignore[arg-type]
    stored = dump_items(items)
    assert json.loads(stored) == items
    assert load_items(stored) == items


# --- the run -----------------------------------------------------------------------------------


def test_the_run_reaches_the_tools_and_sends_their_outputs(target: OpenAIAgentsTarget) -> None:
    payload = target.render(RESPONSES, scenario("image", "url", "result"))
    assert payload["model"] == RESPONSES.model
    calls = [i for i in payload["input"] if i.get("type") == "function_call"]
    outputs = [i for i in payload["input"] if i.get("type") == "function_call_output"]
    assert [c["call_id"] for c in calls] == [o["call_id"] for o in outputs] == list(CALL_IDS)
    assert outputs[0]["output"][0]["type"] == "input_image"
    assert outputs[0]["output"][0]["image_url"].endswith("/conformance/chart.png")
    assert outputs[1]["output"][0]["image_url"].endswith("/conformance/chart-2.png")
    assert [t["name"] for t in payload["tools"]] == ["get_image"]


def test_a_failed_call_sends_its_own_error_text(target: OpenAIAgentsTarget) -> None:
    payload = target.render(CHAT, scenario("text", "inline", "error"))
    tools = [m for m in payload["messages"] if m["role"] == "tool"]
    assert [t["content"] for t in tools] == [ERROR_FIXTURE, TEXT_FIXTURE_2]


def test_chat_completions_replaces_media_by_a_placeholder(target: OpenAIAgentsTarget) -> None:
    """What the deviations file says of the Chat Completions model, observed: the image never
    reaches the request; the tool message holds the SDK's placeholder (0.17.2 and later)."""
    payload = target.render(CHAT, scenario("image", "inline", "result"))
    tools = [m for m in payload["messages"] if m["role"] == "tool"]
    assert len(tools) == 2
    assert "iVBOR" not in json.dumps(payload)
    assert all(t["content"] in ("[tool output omitted]", []) for t in tools)


def test_a_file_url_is_refused_on_chat_completions(target: OpenAIAgentsTarget) -> None:
    with pytest.raises(UserError, match="file_data or file_id"):
        target.render(CHAT, scenario("document", "url", "result"))


def test_tool_produced_content_is_a_user_message_after_the_outputs(
    target: OpenAIAgentsTarget,
) -> None:
    payload = target.render(RESPONSES, scenario("image", "inline", "prompt"))
    *_, first, second = payload["input"]
    outputs = [i for i in payload["input"] if i.get("type") == "function_call_output"]
    assert [o["output"] for o in outputs] == [PROMPT_STYLE_RESULT_TEXT] * 2
    assert first["role"] == second["role"] == "user"
    assert first["content"][0]["type"] == "input_image"


@pytest.mark.parametrize("row", [CHAT, RESPONSES], ids=lambda r: r.api)
def test_the_stored_run_sends_the_same_request(target: OpenAIAgentsTarget, row: RowRef) -> None:
    history = scenario("text", "inline", "result")
    assert target.render_stored(row, history) == target.render(row, history)


# --- the reproducer ----------------------------------------------------------------------------


def test_repro_script_uses_only_the_sdk_and_the_stdlib(target: OpenAIAgentsTarget) -> None:
    script = target.repro(RESPONSES, scenario("audio", "inline", "result"))
    imported: set[str] = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            imported.add(node.module.split(".")[0])
    assert imported - set(sys.stdlib_module_names) == {"agents", "openai"}


def _run(script: str, tmp_path: Path) -> str:
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
    return run.stdout


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: OpenAIAgentsTarget, tmp_path: Path
) -> None:
    """openai-chat image inline result: the image is replaced by a placeholder (a declared
    deviation); the script shows it on its own, offline, in this venv."""
    history = scenario("image", "inline", "result")
    printed = json.loads(_run(target.repro(CHAT, history), tmp_path))
    assert printed == target.render(CHAT, history)
    assert "iVBOR" not in json.dumps(printed)


def test_repro_serves_url_media_itself(target: OpenAIAgentsTarget, tmp_path: Path) -> None:
    from conformance.scenarios.fixtures import ORIGIN_STAND_IN, stand_in

    history = scenario("document", "url", "result")
    script = target.repro(RESPONSES, history)
    assert f"{ORIGIN_STAND_IN}/conformance/report.pdf" in script
    printed = json.loads(_run(script, tmp_path))
    assert printed == stand_in(target.render(RESPONSES, history))
