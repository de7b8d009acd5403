"""`benchmarks/_count_renders.py` counts, per cell, the renders the suite asks of a target and
the requests the framework sends: the figure of issue 27's "renders per cell" goal. A target
that sends one request per render counts two; one that sends a third request (as a framework
target that ran its agent again to get the messages it stores did) counts three."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

TARGETS = '''
import json
import urllib.error
import urllib.request

from conformance.targets.kit import body_or_raise
from conformance.targets.reference import ReferenceTarget


def _post(base, payload):
    request = urllib.request.Request(
        f"{base}/chat/completions", data=json.dumps(payload).encode(), method="POST"
    )
    try:
        urllib.request.urlopen(request, timeout=5).read()
    except urllib.error.HTTPError:
        pass  # the recorder answers every request with an error


_REFERENCE = ReferenceTarget()  # its render_stored calls its own render


class SendsEachRender(ReferenceTarget):
    """The reference's payload, sent to the recorder once per render, as a framework sends it."""

    name = "sends-each-render"

    def render(self, row, history):
        payload = _REFERENCE.render(row, history)
        return body_or_raise(row.api, lambda base: _post(base, payload))

    def render_stored(self, row, history):
        payload = _REFERENCE.render_stored(row, history)
        return body_or_raise(row.api, lambda base: _post(base, payload))


class SendsAThirdRequest(SendsEachRender):
    """Runs the framework again inside `render_stored` to get the messages it stores."""

    name = "sends-a-third-request"

    def render_stored(self, row, history):
        self.render(row, history)
        return super().render_stored(row, history)
'''


@pytest.mark.parametrize(
    ("target", "requests"), [("SendsEachRender", 2), ("SendsAThirdRequest", 3)]
)
def test_each_cell_counts_its_run_renders_and_requests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, target: str, requests: int
) -> None:
    project.makepyfile(counted_targets=TARGETS)
    out = project.path / "counts.json"
    # A subprocess (the plugin replaces the engine's run_cell for the whole process): the
    # benchmarks folder and this project on its path.
    monkeypatch.setenv("PYTHONPATH", f"{BENCHMARKS}{os.pathsep}{project.path}")
    monkeypatch.setenv("CONFORMANCE_BENCH_COUNTS", str(out))
    run = project.runpytest_subprocess(
        "-p",
        "_count_renders",
        "-p",
        "no:recording",
        "-m",
        "conformance",
        f"--conformance-target=counted_targets:{target}",
        "--conformance-property-examples=0",
        "--conformance-check=outcome,no-silent-loss",
        "-k",
        "openai-chat/gpt-6 and inline",
    )
    assert run.ret in (0, 1), run.stdout.str()[-2000:]
    counted = json.loads(out.read_text(encoding="utf-8"))
    assert len(counted) >= 4  # every inline cell of the row, each once
    # keyed "<target> <cell>": the selected cells alone
    assert all(key.split(" ", 1)[1].startswith("openai-chat/gpt-6/") for key in counted), counted
    for key, counts in counted.items():
        # two checks of the cell ran; it was run once, rendered once each way
        assert {k: counts[k] for k in ("runs", "direct", "stored")} == dict.fromkeys(
            ("runs", "direct", "stored"), 1
        ), key
    # a cell the reference refuses (audio on gpt-6) sends nothing; every other sends `requests`
    assert {counts.get("requests", 0) for counts in counted.values()} == {0, requests}
