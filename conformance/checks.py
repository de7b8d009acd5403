"""Render one cell with a target and judge it: the checks of the conformance rules.

This is the engine; the pytest plugin only turns its results into tests and verdicts. Every
check here can fail, and `tests/test_mutants.py` shows each one failing on a target that
breaks its rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from conformance import guard, sdk_schema
from conformance.history import History, texts
from conformance.matrix import CellSpec
from conformance.observe import LOSSY, Observation, Outcome, classify, observe
from conformance.payload import to_bytes
from conformance.scenarios import scenario
from conformance.targets.base import Payload, RowRef, Target
from conformance.wire import WireView, locate

__all__ = [
    "CHECKS",
    "EXPECTED_OUTCOME",
    "CellRun",
    "Check",
    "CheckResult",
    "Rendering",
    "applicable_checks",
    "evaluate",
    "payload_bytes",
    "row_ref",
    "run_cell",
    "snapshot_data",
]

Check = Literal[
    "snapshot",
    "outcome",
    "no-silent-loss",
    "text-identical",
    "provenance",
    "unsupported-raises",
    "error-flag",
    "sdk-schema",
    "cassette",
]
CHECKS: tuple[Check, ...] = (
    "snapshot",
    "outcome",
    "no-silent-loss",
    "text-identical",
    "provenance",
    "unsupported-raises",
    "error-flag",
    "sdk-schema",
    "cassette",
)
EXPECTED_OUTCOME: dict[str, Outcome] = {
    "native": "native",
    "fallback": "fallback-marked",
    "unsupported": "raised",
}


@dataclass(frozen=True)
class Rendering:
    payload: Payload | None
    error: BaseException | None

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        return "rendered a payload"


@dataclass(frozen=True)
class CellRun:
    target: str
    cell: CellSpec
    history: History
    first: Rendering
    stored: Rendering
    observation: Observation
    view: WireView | None
    """The located payload of the direct rendering; None where the target raised."""


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    detail: str = ""


def row_ref(cell: CellSpec) -> RowRef:
    return RowRef(id=cell.row_id, api=cell.api, family=cell.family, model=cell.model)


def _attempt(render: Callable[[], Payload], api: str) -> Rendering:
    # Any exception class, a hang or a non-JSON body is an observation (`conformance.guard`).
    return Rendering(*guard.attempt(render, api))


def run_cell(target: Target, cell: CellSpec) -> CellRun:
    """Render the cell's scenario, directly and after a storage round trip, and classify it."""
    history = scenario(cell.content_type, cell.source, cell.style)
    row = row_ref(cell)
    first = _attempt(lambda: target.render(row, history), cell.api)
    stored = _attempt(lambda: target.render_stored(row, history), cell.api)
    if first.payload is None:
        view, observation = None, observe(cell.api, history, None, first.error)
    else:
        view = locate(cell.api, first.payload)
        observation = classify(history, view)
    return CellRun(target.name, cell, history, first, stored, observation, view)


def payload_bytes(payload: Payload) -> bytes:
    """The payload as compact JSON in its own key order: what byte-identical compares."""
    return to_bytes(payload)


def snapshot_data(run: CellRun) -> dict[str, Any]:
    """What the snapshot stores: the exact payload, or the error raised instead."""
    if run.first.error is not None:
        return {"raised": type(run.first.error).__name__, "message": str(run.first.error)}
    assert run.first.payload is not None
    return run.first.payload


def applicable_checks(
    cell: CellSpec, *, sdk_schema: bool = False, cassette: bool = False
) -> tuple[Check, ...]:
    """The checks that mean something for a cell (all but snapshot and cassette are judged
    here; the plugin judges those two, against files).

    `sdk-schema` needs the official SDKs installed, so it runs only when asked for (the
    `schemas` nox session), on every cell that renders a payload. `cassette` (the payload sent
    through the official client and replayed from `cassettes/`, `conformance.cassettes`) runs
    when a cassette folder is configured, on the same cells.
    """
    if cell.expect == "unsupported":
        return ("snapshot", "outcome", "no-silent-loss", "unsupported-raises")
    sdk: tuple[Check, ...] = ("sdk-schema",) if sdk_schema else ()
    if cassette:
        sdk = (*sdk, "cassette")
    if cell.error is not None:
        # Where the api has no flag, a failed call's text travels as is: outcome and
        # text-identical judge that; there is no flag to check.
        flag: tuple[Check, ...] = ("error-flag",) if cell.error == "flag" else ()
        return ("snapshot", "outcome", "text-identical", "provenance", *flag, *sdk)
    return ("snapshot", "outcome", "no-silent-loss", "text-identical", "provenance", *sdk)


def _outcome(run: CellRun) -> CheckResult:
    want = EXPECTED_OUTCOME[run.cell.expect]
    got = run.observation.outcome
    detail = f"expected {want}, observed {got}"
    if got != want:
        detail += "\n" + run.observation.detail
    return CheckResult(got == want, detail)


def _no_silent_loss(run: CellRun) -> CheckResult:
    lossy = [i for i in run.observation.items if i.outcome in LOSSY]
    if not lossy:
        return CheckResult(True, f"observed {run.observation.outcome}")
    return CheckResult(False, "\n".join(f"{i.content_type}: {i.outcome} {i.detail}" for i in lossy))


def _text_identical(run: CellRun) -> CheckResult:
    view = run.view
    if view is None:
        return CheckResult(False, f"no payload to carry the text: {run.first.describe()}")
    problems = [
        f"tool text from {i.tool_name} ({i.call_id}): {i.outcome} {i.detail}".rstrip()
        for i in run.observation.items
        if i.content_type == "text" and i.outcome != "native"
    ]
    wire_texts = {p.text for r in view.tool_results for p in r.parts} | {
        p.text for m in view.messages for p in m.parts
    }
    problems += [
        f"history text not found byte for byte: {text[:60]!r}"
        for text in texts(run.history)
        if text not in wire_texts
    ]
    return CheckResult(not problems, "\n".join(problems) or "every text byte-identical")


def _provenance(run: CellRun) -> CheckResult:
    problems = [
        f"{i.content_type} from {i.tool_name} ({i.call_id}) at {i.where}: {i.detail}"
        for i in run.observation.items
        if i.outcome == "fallback-unmarked"
    ]
    first, stored = run.first, run.stored
    if first.payload is not None and stored.payload is not None:
        if payload_bytes(first.payload) != payload_bytes(stored.payload):
            problems.append("the storage round trip renders a different payload")
    elif first.describe() != stored.describe():
        problems.append(f"direct: {first.describe()}; after storage: {stored.describe()}")
    return CheckResult(
        not problems, "\n".join(problems) or "markers name their calls; round trip identical"
    )


def _unsupported_raises(run: CellRun) -> CheckResult:
    if run.first.error is None:
        return CheckResult(False, f"expected an error before sending; {run.observation.detail}")
    return CheckResult(True, run.first.describe())


def _error_flag(run: CellRun) -> CheckResult:
    """A failed call carries the api's native error flag (rows whose api has one)."""
    view = run.view
    if view is None:
        return CheckResult(False, f"no payload: {run.first.describe()}")
    results = view.results_for(view.tool_calls[0].call_id) if view.tool_calls else []
    if not results:
        return CheckResult(False, "no tool result for the failed call")
    flag = results[0].is_error
    return CheckResult(flag is True, f"the api's error flag is {flag!r} (expected True)")


def _sdk_schema(run: CellRun) -> CheckResult:
    """The payload validates against the official SDK's request types (`sdk_schema`)."""
    if run.first.payload is None:
        return CheckResult(False, f"no payload to validate: {run.first.describe()}")
    try:
        errors = sdk_schema.validate(run.cell.api, run.first.payload)
    except sdk_schema.SdkMissing as error:
        return CheckResult(False, str(error))
    return CheckResult(not errors, "\n".join(errors) or "the SDK's request types accept it")


_JUDGES: dict[Check, Callable[[CellRun], CheckResult]] = {
    "outcome": _outcome,
    "no-silent-loss": _no_silent_loss,
    "text-identical": _text_identical,
    "provenance": _provenance,
    "unsupported-raises": _unsupported_raises,
    "error-flag": _error_flag,
    "sdk-schema": _sdk_schema,
}


def evaluate(run: CellRun, check: Check) -> CheckResult:
    """Judge one check of a rendered cell (the snapshot check is judged by syrupy, the
    cassette check by the plugin with `conformance.cassettes`)."""
    return _JUDGES[check](run)
