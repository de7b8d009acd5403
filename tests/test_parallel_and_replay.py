"""Two scenarios beyond the matrix's single call, for every model row of the reference target:

- parallel calls: two tool calls in one turn, each returning media; results keep their order,
  each moved item sits behind a marker naming its own call, in a user message after both
  tool results;
- cross-provider replay: a history rendered for one row, stored, loaded and rendered for
  another, renders as if fresh and keeps its provenance (every ordered pair of rows).

Expectations come from the matrix (the image cell of each row), never from the mappers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import marker
from conformance.errors import UnsupportedContent
from conformance.history import History, Image, Message, ToolCall, ToolResult
from conformance.judging.checks import EXPECTED_OUTCOME, payload_bytes, row_ref
from conformance.judging.observe import classify
from conformance.judging.properties import cross_provider_replay
from conformance.matrix import CellSpec, load_matrix
from conformance.scenarios.build import fixture_part, scenario
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget
from conformance.wire import locate

MATRIX = load_matrix(Path(__file__).resolve().parent.parent / "matrix.yaml")
IMAGE_CELLS = [
    c
    for c in MATRIX.cells()
    if (c.content_type, c.source, c.style) == ("image", "inline", "result")
]
ROWS = [row_ref(c) for c in IMAGE_CELLS]
TARGET = ReferenceTarget()


def _parallel() -> History:
    first = fixture_part("image")
    assert isinstance(first, Image)
    second = first.model_copy(
        update={"data": (first.data or b"") + b"\x00second", "identifier": "b.png"}
    )
    return [
        Message(role="user", content="Fetch both charts."),
        ToolCall(tool_call_id="call_a", name="get_chart", arguments={"n": 1}),
        ToolCall(tool_call_id="call_b", name="get_chart", arguments={"n": 2}),
        ToolResult(tool_call_id="call_a", name="get_chart", content=[first]),
        ToolResult(tool_call_id="call_b", name="get_chart", content=[second]),
    ]


@pytest.mark.parametrize("cell", IMAGE_CELLS, ids=lambda c: c.row_id)
def test_parallel_calls_keep_order_and_provenance(cell: CellSpec) -> None:
    history = _parallel()
    want = EXPECTED_OUTCOME[cell.expect]
    if want == "raised":
        with pytest.raises(UnsupportedContent):
            TARGET.render(row_ref(cell), history)
        return
    view = locate(cell.api, TARGET.render(row_ref(cell), history))
    observation = classify(history, view)
    assert [i.outcome for i in observation.items] == [want, want]
    assert [c.call_id for c in view.tool_calls][:2] == [r.call_id for r in view.tool_results][:2]
    if want == "fallback-marked":
        (message,) = [m for m in view.messages if m.role == "user" and len(m.parts) > 1]
        assert all(message.position > r.position for r in view.tool_results)
        markers = [marker.parse(p.text or "") for p in message.parts if p.kind == "text"]
        assert [m.tool_call_id for m in markers if m] == [c.call_id for c in view.tool_calls]
        kinds = [p.kind for p in message.parts]
        assert kinds == ["text", "image", "text", "image"]


PROMPT_STYLE = [
    scenario(content_type, "inline", "prompt") for content_type in ("text", "image", "document")
]


@pytest.mark.parametrize("then", ROWS, ids=lambda r: r.id)
@pytest.mark.parametrize("first", ROWS, ids=lambda r: r.id)
def test_cross_provider_replay_keeps_provenance(first: RowRef, then: RowRef) -> None:
    for history in PROMPT_STYLE:
        cross_provider_replay(TARGET, first, then, history)


def test_replay_renders_the_stored_history_byte_identical() -> None:
    """The property above compares bytes; make sure that comparison can see a difference."""
    row = next(r for r in ROWS if r.api == "anthropic")
    history = PROMPT_STYLE[1]
    assert payload_bytes(TARGET.render_stored(row, history)) == payload_bytes(
        TARGET.render(row, history)
    )
    other = next(r for r in ROWS if r.api == "openai-chat")
    assert payload_bytes(TARGET.render(other, history)) != payload_bytes(
        TARGET.render(row, history)
    )
