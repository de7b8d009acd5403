"""Checks shared by the tests of the targets that reach the anthropic-bedrock row through
LiteLLM's `bedrock/invoke/<model id>` route (litellm and its variants, google-adk-litellm,
openai-agents-litellm, strands-litellm) or anthropic's `AnthropicBedrock` client (llamaindex,
given another model id: `invoke_path`): the one request goes to the model's InvokeModel path,
signed with the double's AWS fake key, with Claude's Messages body; the reproducer prints the
same body."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.recording.send import FAKE_KEYS
from conformance.scenarios.build import scenario
from conformance.targets import kit
from conformance.targets.base import RowRef

INVOKE_ROW = "anthropic-bedrock/claude-opus-4-6"
INVOKE_PATH = r"/model/global\.anthropic\.claude-opus-4-6-v1/invoke(-with-response-stream)?"
"""InvokeModel's path for the row's model (streaming or not, as the framework calls it)."""


def invoke_path(model: str) -> str:
    """InvokeModel's path (a pattern, as `INVOKE_PATH`) for another model id."""
    return rf"/model/{re.escape(model)}/invoke(-with-response-stream)?"


def invoke_exchange(
    target: Any, row: RowRef, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], kit.Exchange]:
    """Render an image cell of `row`: the payload and the one exchange that reached the
    recorder."""
    seen: list[kit.Exchange] = []
    payload_of = kit.payload_of

    def keep(api: str, exchange: kit.Exchange) -> Any:
        seen.append(exchange)
        return payload_of(api, exchange)

    monkeypatch.setattr(kit, "payload_of", keep)
    assert target.supports(row) is None
    payload: dict[str, Any] = target.render(row, scenario("image", "inline", "result"))
    assert len(seen) == 1
    return payload, seen[0]


def assert_invoke_model(
    payload: dict[str, Any], exchange: kit.Exchange, path: str = INVOKE_PATH
) -> None:
    """InvokeModel with Claude's Messages body: the model's `/invoke` path, a SigV4 signature
    with the double's AWS key for us-east-1, Bedrock's `anthropic_version` and no `model` in
    the body, a `tool_result` block (no Converse `modelId`, `toolConfig` or `toolResult`)."""
    assert re.fullmatch(path, exchange.path.split("?")[0]), exchange.path
    authorization = exchange.headers["authorization"]
    assert f"Credential={FAKE_KEYS['aws_access_key_id']}/" in authorization
    assert "/us-east-1/bedrock/aws4_request" in authorization
    assert payload["anthropic_version"] == "bedrock-2023-05-31"
    assert "model" not in payload
    assert "toolConfig" not in payload
    blocks = [
        block
        for message in payload["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
    ]
    assert any(block.get("type") == "tool_result" for block in blocks)


def reaches_invoke_model(
    target: Any, row: RowRef, monkeypatch: pytest.MonkeyPatch, path: str = INVOKE_PATH
) -> None:
    assert_invoke_model(*invoke_exchange(target, row, monkeypatch), path=path)


def repro_prints_the_invoke_payload(
    target: Any, row: RowRef, tmp_path: Path, path: str = INVOKE_PATH
) -> None:
    """The reproducer of a document cell, run on its own, prints the body the target sent (and,
    where the script prints it, the InvokeModel path)."""
    history = scenario("document", "inline", "result")
    script = tmp_path / "repro.py"
    script.write_text(target.repro(row, history), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-I", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    stdout = run.stdout
    paths = re.findall(r"^POST (\S+)$", stdout, flags=re.MULTILINE)
    if paths:
        assert re.search(path + "$", paths[0].split("?")[0])
    printed = json.loads(stdout[stdout.index("{") :])
    assert printed["anthropic_version"] == "bedrock-2023-05-31"
    assert printed["messages"] == target.render(row, history)["messages"]


def says_what_to_install_without_boto3(
    target: Any, row: RowRef, module: Any, lookup: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With boto3 not installed (`module.<lookup>`, the target's own distribution lookup, finds
    none), the invoke row is not supported and the reason says what to install."""
    real = getattr(module, lookup)

    def installed(name: str) -> str | None:
        return None if name == "boto3" else real(name)

    monkeypatch.setattr(module, lookup, installed)
    reason = target.supports(row)
    assert reason is not None
    assert "pip install boto3" in reason
