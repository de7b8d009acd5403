"""The custom target in docs/writing-a-target.md runs, as written, through the plugin."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance.judging.levels import PROPERTY_LEVELS

ROOT = Path(__file__).resolve().parent.parent
FIRST_LINE = "# my_framework_conformance.py\n"


def readme_target() -> str:
    """The Python block of docs/writing-a-target.md that starts with the module's file name."""
    readme = (ROOT / "docs" / "writing-a-target.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.DOTALL)
    (code,) = [b for b in blocks if b.startswith(FIRST_LINE)]
    return code


def test_the_readme_target_passes_its_row(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nconformance_matrix = matrix.yaml\n")
    pytester.makepyfile(
        test_conformance="from conformance.suite import test_conformance as test_conformance\n",
        my_framework_conformance=readme_target(),
    )
    pytester.syspathinsert()
    (pytester.path / "matrix.yaml").write_bytes((ROOT / "matrix.yaml").read_bytes())
    args = ["--conformance-target", "my_framework_conformance:TinyTarget"]
    pytester.runpytest(*args, "--snapshot-update")
    run = pytester.runpytest(*args, "--conformance-results", "r.jsonl")
    lines = [json.loads(x) for x in (pytester.path / "r.jsonl").read_text("utf-8").splitlines()]
    body = [x for x in lines[1:-1] if "property" not in x]
    properties = {x["property"]: x["verdict"] for x in lines[1:-1] if "property" in x}
    assert properties == dict.fromkeys(PROPERTY_LEVELS, "pass")  # gated like the cells
    assert lines[0]["targets"] == {"tiny-framework": "0.1.0"}
    own = [x for x in body if x["row"] == "openai-chat/gpt-6"]
    assert own
    failed = [(x["cell"], x["check"], x["detail"]) for x in own if x["verdict"] != "pass"]
    assert not failed
    assert {x["verdict"] for x in body if x["row"] != "openai-chat/gpt-6"} == {"skip"}
    outcomes = {x["outcome"] for x in own if x["check"] == "outcome"}
    assert outcomes == {"native", "fallback-marked", "raised"}
    assert run.ret == pytest.ExitCode.OK
    assert list((pytester.path / "snapshots/tiny-framework/openai-chat").glob("*.json"))
