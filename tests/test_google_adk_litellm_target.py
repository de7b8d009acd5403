"""The Google ADK target through ADK's LiteLLM wrapper: the entry point, the rows it serves, a
request per provider family, storage, the reasons and deviations files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.adoption.reasons import When
from conformance.matrix import load_matrix
from conformance.scenarios.build import CALL_ID, TEXT_FIXTURE, scenario
from conformance.targets import resolve_target
from conformance.targets.base import RowRef

pytest.importorskip(
    "google.adk",
    reason='the google-adk-litellm group is not installed: nox -s "target(google-adk-litellm)"',
)
pytest.importorskip(
    "litellm",
    reason='the google-adk-litellm group is not installed: nox -s "target(google-adk-litellm)"',
)

import litellm

from conformance.targets.google_adk_litellm import GoogleADKLiteLLMTarget

ROOT = Path(__file__).resolve().parent.parent
ROWS = {
    c.row_id: RowRef(id=c.row_id, api=c.api, family=c.family, model=c.model)
    for c in load_matrix(ROOT / "matrix.yaml").cells()
}


@pytest.fixture(scope="module")
def target() -> GoogleADKLiteLLMTarget:
    return GoogleADKLiteLLMTarget()


def test_entry_point_names_the_target(target: GoogleADKLiteLLMTarget) -> None:
    found = resolve_target("google-adk-litellm")
    assert isinstance(found, GoogleADKLiteLLMTarget)
    assert found.unavailable is None
    assert found.version[0].isdigit()
    assert "litellm" in target.sdk_versions
    assert target.refusal_types == (ValueError, litellm.exceptions.BadRequestError)
    assert set(target.not_applicable) == {"style:prompt"}


def test_every_api_with_a_litellm_prefix_is_served(target: GoogleADKLiteLLMTarget) -> None:
    """Every row is served but the Vertex ones, which the target has no LiteLLM prefix for yet:
    a row of any other api left unserved fails here, and so does serving Vertex unannounced."""
    unserved = {row.api for row in ROWS.values() if target.supports(row) is not None}
    assert unserved == {"anthropic-vertex", "gemini-vertex"}


def test_anthropic_gets_the_response_dict_as_a_json_string(target: GoogleADKLiteLLMTarget) -> None:
    payload = target.render(ROWS["anthropic/claude-sonnet-5"], scenario("text", "inline", "result"))
    assert payload["model"] == "claude-sonnet-5-5"
    results = [
        block
        for message in payload["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results[0]["tool_use_id"] == CALL_ID
    content = results[0]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    # What the deviations file says: the response dict, JSON-serialized, is the tool's text.
    assert json.loads(text) == {"result": TEXT_FIXTURE}


def test_storage_renders_the_same(target: GoogleADKLiteLLMTarget) -> None:
    row = ROWS["mistral/mistral-medium"]
    history = scenario("image", "inline", "result")
    assert target.render_stored(row, history) == target.render(row, history)


def test_repro_of_a_failing_cell_runs_and_prints_the_payload(
    target: GoogleADKLiteLLMTarget, tmp_path: Path
) -> None:
    """anthropic image inline result: ADK moves the image out of the tool result, unmarked (a
    declared deviation); the script shows it on its own, offline, in this venv."""
    row = ROWS["anthropic/claude-sonnet-5"]
    history = scenario("image", "inline", "result")
    path = tmp_path / "repro.py"
    path.write_text(target.repro(row, history), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    first, _, body = run.stdout.partition("\n")
    assert first == "POST /v1/messages"
    assert json.loads(body) == target.render(row, history)


def _yaml(path: Path) -> Any:
    from ruamel.yaml import YAML

    loader: Any = YAML(typ="safe")
    return loader.load(path.read_text(encoding="utf-8"))


def test_reasons_link_upstream_and_notes_exist() -> None:
    anchors = set(
        re.findall(r'<a id="([^"]+)"', (ROOT / "docs" / "google-adk.md").read_text("utf-8"))
    )
    rules = _yaml(ROOT / "deviations" / "google-adk-litellm.reasons.yaml")["rules"]
    assert rules
    for rule in rules:
        assert set(rule["when"]) <= set(When.model_fields), rule  # the keys it reads
        assert len(rule["reason"].split()) >= 8, rule
        re.compile(rule["when"].get("detail", ""))
        if "link" in rule:
            assert rule["link"].startswith("https://github.com/"), rule
        path, _, anchor = rule["notes"].partition("#")
        assert path == "docs/google-adk.md"
        assert anchor in anchors, rule


def test_deviations_name_real_cells_with_reasons() -> None:
    from conformance.judging.deviations import PROPERTY_CELLS

    matrix = load_matrix(ROOT / "matrix.yaml")
    cells = {c.id for c in [*matrix.cells(), *matrix.error_cells()]} | set(PROPERTY_CELLS)
    data = _yaml(ROOT / "deviations" / "google-adk-litellm.yaml")
    assert data["target"] == "google-adk-litellm"
    for entry in data["deviations"]:
        assert entry["cell"] in cells
        assert entry["checks"]
        assert entry["reason"]
