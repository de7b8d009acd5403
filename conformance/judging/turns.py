"""A parallel turn is one unit: the `parallel-turn` check and the error flags of a turn.

The calls an assistant made together are answered together. In the payload, for each turn of
the history (a run of consecutive tool calls):

- its calls are together: no tool result and no message content between them (not split into
  sequential turns);
- each call has exactly one tool result, and the results come in call order;
- no user content sits between two tool results of the turn (fallback media belongs after all
  of them);
- a result that states a tool name (Gemini `functionResponse.name`, Mistral's tool message
  `name`) states its own call's;
- no result of a call that succeeded carries the api's error flag.

Calls and results are paired through the ids the payload itself uses (`observe.wire_ids`), so a
target that rewrites ids is judged by what it sent. Several apis refuse a turn broken this way
(`conformance.wire.acceptance`); the others misread it (Gemini pairs id-less responses by
order and name), so the check is `required` everywhere.
"""

from __future__ import annotations

from conformance.history import History, ToolCall, ToolResult
from conformance.judging.observe import wire_ids
from conformance.wire import Position, WireToolResult, WireView

__all__ = ["error_flags", "history_turns", "turn_problems"]


def history_turns(history: History) -> list[list[ToolCall]]:
    """The history's turns of tool calls: each run of consecutive `ToolCall` items."""
    turns: list[list[ToolCall]] = []
    run: list[ToolCall] = []
    for item in history:
        if isinstance(item, ToolCall):
            run.append(item)
            continue
        if run:
            turns.append(run)
            run = []
    if run:
        turns.append(run)
    return turns


def _statuses(history: History) -> dict[str, str]:
    return {i.tool_call_id: i.status for i in history if isinstance(i, ToolResult)}


def turn_problems(history: History, view: WireView) -> list[str]:
    """What breaks the unity of each parallel turn of `history` in the located payload."""
    ids = wire_ids(history, view)
    calls = {c.call_id: c for c in view.tool_calls}
    statuses = _statuses(history)
    problems: list[str] = []
    for turn in history_turns(history):
        wire = [ids.get(c.tool_call_id, c.tool_call_id) for c in turn]
        if split := _split(view, [calls[w].position for w in wire if w in calls]):
            problems.append(f"the calls {', '.join(wire)} of one turn are split: {split}")
        results: list[WireToolResult] = []
        for call, wire_id in zip(turn, wire, strict=True):
            found = view.results_for(wire_id)
            if len(found) != 1:
                problems.append(f"{wire_id}: {len(found)} tool results (expected one)")
            if not found:
                continue
            result = found[0]
            results.append(result)
            named = calls[wire_id].name if wire_id in calls else call.name
            if result.name is not None and result.name != named:
                problems.append(
                    f"{wire_id}: its result names the tool {result.name!r}, its call {named!r}"
                )
            if statuses.get(call.tool_call_id) == "success" and result.is_error is True:
                problems.append(f"{wire_id}: the call succeeded, its result is flagged an error")
        order = [r.call_id for r in sorted(results, key=lambda r: r.position)]
        if order != [r.call_id for r in results]:
            problems.append(f"results out of call order: {', '.join(order)}")
        problems += _between(view, results)
    return problems


def _split(view: WireView, positions: list[Position]) -> str:
    """What sits between the first and the last call of one turn (a result or a message
    there makes them sequential turns); empty when nothing does."""
    if len(positions) < 2:
        return ""
    first, last = min(positions), max(positions)
    for result in view.tool_results:
        if first < result.position < last:
            return f"the tool result at {result.path} sits between them (sequential turns)"
    for message in view.messages:
        for index, part in enumerate(message.parts):
            if message.role != "system" and first < message.position_of(index) < last:
                return f"{message.role} content at {part.path} sits between them"
    return ""


def _between(view: WireView, results: list[WireToolResult]) -> list[str]:
    """User content placed between the first and the last tool result of one turn."""
    if len(results) < 2:
        return []
    first = min(r.position for r in results)
    last = max(r.position for r in results)
    found: list[str] = []
    for message in view.messages:
        if message.role == "system":
            continue
        for index, part in enumerate(message.parts):
            at: Position = message.position_of(index)
            if first < at < last:
                found.append(
                    f"{message.role} content at {part.path} between two tool results of one"
                    " turn (it belongs after all of them)"
                )
    return found


def error_flags(history: History, view: WireView) -> list[str]:
    """Where a turn's error flags are wrong: a failed call's result not flagged, or a
    successful call's result flagged."""
    ids = wire_ids(history, view)
    problems: list[str] = []
    for call_id, status in _statuses(history).items():
        wire_id = ids.get(call_id, call_id)
        found = view.results_for(wire_id)
        if not found:
            problems.append(f"{wire_id}: no tool result")
            continue
        flag = found[0].is_error
        if status == "error" and flag is not True:
            problems.append(f"{wire_id} failed: the api's error flag is {flag!r} (expected True)")
        elif status == "success" and flag is True:
            problems.append(f"{wire_id} succeeded: its result is flagged an error")
    return problems
