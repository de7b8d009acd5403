"""Checks shared by the tests of the targets that reach the Vertex AI rows through LiteLLM's
`vertex_ai/` routes (google-adk-litellm, openai-agents-litellm, strands-litellm) or through
their framework's own Vertex clients (llamaindex): the request
reaches the model's Vertex path with the stand-in token and nothing else reaches the recorder,
and the reproducer prints the same body."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.scenarios.build import scenario
from conformance.targets import kit
from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import TOKEN

VERTEX_PATHS = {
    "anthropic-vertex/claude-sonnet-5": (
        r"/v1/projects/conformance-project/locations/us-east5/publishers/anthropic/models/"
        r"claude-sonnet-5-5:(stream)?[rR]awPredict"
    ),
    "gemini-vertex/gemini-3": (
        r"/v1(beta1)?/projects/conformance-project/locations/us-central1/publishers/google/"
        r"models/gemini-3\.8-flash:(streamGenerateContent|generateContent)"
    ),
}
"""The path of each Vertex row's model request (the double's routes; LiteLLM's `/v1` for both,
google-genai's `/v1beta1` for Gemini)."""


def reaches_vertex(target: Any, row: RowRef, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Render an image cell of `row`; assert its one request went to the model's Vertex path
    with `Bearer TOKEN` (the token exchange went to the local token server, not the
    recorder); return the payload."""
    seen: list[kit.Exchange] = []
    payload_of = kit.payload_of

    def keep(api: str, exchange: kit.Exchange) -> Any:
        seen.append(exchange)
        return payload_of(api, exchange)

    monkeypatch.setattr(kit, "payload_of", keep)
    assert target.supports(row) is None
    payload: dict[str, Any] = target.render(row, scenario("image", "inline", "result"))
    assert len(seen) == 1
    assert re.fullmatch(VERTEX_PATHS[row.id], seen[0].path.split("?")[0])
    assert seen[0].headers["authorization"] == f"Bearer {TOKEN}"
    if row.api == "anthropic-vertex":
        assert "model" not in payload
        assert payload["anthropic_version"] == "vertex-2023-10-16"
    else:
        assert "contents" in payload
    return payload


def run_vertex_repro(target: Any, row: RowRef, tmp_path: Path) -> str:
    """What the reproducer of `row`'s document cell prints when run on its own. The script
    makes its own key and token server, so no key is in it."""
    script = target.repro(row, scenario("document", "inline", "result"))
    assert "PRIVATE KEY" not in script
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


def repro_prints_the_payload(target: Any, row: RowRef, tmp_path: Path) -> None:
    """The reproducer of a document cell prints a request to the model's Vertex path and the
    body the target sent."""
    history = scenario("document", "inline", "result")
    stdout = run_vertex_repro(target, row, tmp_path)
    printed = json.loads(stdout[stdout.index("{") :])
    paths = re.findall(r"^POST (\S+)$", stdout, flags=re.MULTILINE)
    if paths:  # the scripts that print the path (under the base's own prefix, if any)
        assert re.search(VERTEX_PATHS[row.id] + "$", paths[0].split("?")[0])
    key = "messages" if row.api == "anthropic-vertex" else "contents"
    assert printed[key] == target.render(row, history)[key]
