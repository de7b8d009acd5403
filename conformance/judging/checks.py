"""Render one cell with a target and judge it: the checks of the conformance rules.

This is the engine; the pytest plugin only turns its results into tests and verdicts. Every
check here can fail, and `tests/test_mutants.py` shows each one failing on a target that
breaks its rule.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from conformance.history import History, dump, texts
from conformance.judging import guard, turns
from conformance.judging.observe import (
    ItemObservation,
    Observation,
    first_line,
    is_refusal,
    observe,
    refusal_types_of,
)
from conformance.judging.payload import to_bytes
from conformance.matrix import CellSpec
from conformance.matrix.vocabulary import LOSSY, Expectation, Outcome
from conformance.recording import sdk_schema
from conformance.scenarios.build import scenario
from conformance.targets.base import Payload, RowRef, Target
from conformance.targets.kit import Fetch, exception_snapshot, fixture_host
from conformance.wire import WireView, locate
from conformance.wire.acceptance import breaches

__all__ = [
    "CHECKS",
    "EXPECTED_OUTCOME",
    "CellRun",
    "Check",
    "CheckResult",
    "Rendering",
    "accepted_outcomes",
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
    "api-accepts",
    "error-flag",
    "parallel-turn",
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
    "api-accepts",
    "error-flag",
    "parallel-turn",
    "sdk-schema",
    "cassette",
)
EXPECTED_OUTCOME: dict[Expectation, Outcome] = {
    "native": "native",
    "fallback": "fallback-marked",
    "unsupported": "raised",
    "refuse-or-download": "raised",
}
"""The outcome each expectation asks for; a `refuse-or-download` cell also accepts a download
carried as its inline cell expects (`accepted_outcomes`)."""


def accepted_outcomes(cell: CellSpec) -> tuple[Outcome, ...]:
    """The outcomes the cell's expectation accepts (without the download condition): a url
    cell also accepts its inline cell's outcome when the target downloaded the URL and sent
    the bytes (`_downloaded`), since those are then the inline cell's media."""
    want = EXPECTED_OUTCOME[cell.expect]
    if cell.source == "url" and cell.inline_expect is not None:
        inline = EXPECTED_OUTCOME[cell.inline_expect]
        return (want,) if inline == want else (want, inline)
    return (want,)


@dataclass(frozen=True)
class Rendering:
    payload: Payload | None
    error: BaseException | None
    fetches: tuple[Fetch, ...] = ()
    """What the target fetched from the fixture host while rendering."""
    changed: str | None = None
    """How the target changed the history it was given, in place; None if it did not."""

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {first_line(self.error)}"
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
    """The located payload of the direct rendering; None where the target raised or the
    payload is malformed."""
    refusal_types: tuple[type[BaseException], ...] = ()
    """The target's declared refusal types (`conformance.judging.observe.refusal_types_of`)."""


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    detail: str = ""


def row_ref(cell: CellSpec) -> RowRef:
    return RowRef(id=cell.row_id, api=cell.api, family=cell.family, model=cell.model)


def _attempt(
    render: Callable[[History], Payload], history: History, api: str, *, limited: bool = False
) -> Rendering:
    """One rendering of its own deep copy of `history`, watched by the fixture host; any
    exception class, a hang or a non-JSON body is an observation (`conformance.judging.guard`)."""
    given = copy.deepcopy(history)
    before = dump(history)
    with fixture_host().watch() as fetches:
        payload, error = guard.attempt(lambda: render(given), api, limited=limited)
    changed = None
    if dump(given) != before:
        changed = "the target changed the history it was given, in place"
        if len(given) != len(history):
            changed += f" ({len(history)} items became {len(given)})"
    return Rendering(payload, error, tuple(fetches), changed)


def run_cell(target: Target, cell: CellSpec) -> CellRun:
    """Render the cell's scenario, directly and after a storage round trip, and classify it.

    Each rendering gets its own deep copy of the history (a target that changes it in place is
    reported by no-silent-loss) and runs inside `fixture_host().watch()`, so that what it
    fetched is on the `Rendering`.
    """
    history = scenario(cell.content_type, cell.source, cell.style)
    row = row_ref(cell)
    refusals = refusal_types_of(target)
    limited = getattr(target, "isolated", False) is True  # a worker process keeps the limit
    first = _attempt(lambda given: target.render(row, given), history, cell.api, limited=limited)
    stored = _attempt(
        lambda given: target.render_stored(row, given), history, cell.api, limited=limited
    )
    observation = observe(
        cell.api,
        history,
        first.payload,
        first.error,
        refusal_types=refusals,
        fetched=[f.path.split("?", 1)[0] for f in first.fetches if f.status == 200],
    )
    view = None
    if first.payload is not None and observation.malformed is None:
        view = locate(cell.api, first.payload)
    return CellRun(target.name, cell, history, first, stored, observation, view, refusals)


def payload_bytes(payload: Payload) -> bytes:
    """The payload as compact JSON in its own key order: what byte-identical compares."""
    return to_bytes(payload)


def snapshot_data(run: CellRun) -> dict[str, Any]:
    """What the snapshot stores: the exact payload, or the error raised instead, as its type
    and first line with paths, versions, ports and addresses scrubbed
    (`toolkit.exception_snapshot`), so the file is the same in every venv and release."""
    if run.first.error is not None:
        return exception_snapshot(run.first.error)
    assert run.first.payload is not None
    return run.first.payload


def applicable_checks(
    cell: CellSpec, *, sdk_schema: bool = False, cassette: bool = False
) -> tuple[Check, ...]:
    """The checks that mean something for a cell (all but snapshot and cassette are judged
    here; the plugin judges those two, against files).

    `sdk-schema` needs the official SDKs installed, so it runs only when asked for (the
    `schemas` nox session), on every cell that renders a payload. `cassette` (the payload sent
    through the official client and replayed from `cassettes/`, `conformance.recording.cassettes`)
    runs when a cassette folder is configured, on the same cells.
    """
    if cell.expect == "unsupported":
        return ("snapshot", "outcome", "no-silent-loss", "api-accepts", "unsupported-raises")
    if cell.expect == "refuse-or-download":
        # A download is judged exactly as the inline cell of the same row, type and style:
        # its text, provenance and turn too. A typed refusal passes those (nothing was sent).
        return (
            "snapshot",
            "outcome",
            "no-silent-loss",
            "api-accepts",
            "unsupported-raises",
            "text-identical",
            "provenance",
            "parallel-turn",
        )
    sdk: tuple[Check, ...] = ("sdk-schema",) if sdk_schema else ()
    if cassette:
        sdk = (*sdk, "cassette")
    if cell.error is not None:
        # Where the api has no flag, a failed call's text travels as is: outcome and
        # text-identical judge that; there is no flag to check.
        flag: tuple[Check, ...] = ("error-flag",) if cell.error == "flag" else ()
        return ("snapshot", "outcome", "text-identical", "provenance", *flag, "parallel-turn", *sdk)
    return (
        "snapshot",
        "outcome",
        "no-silent-loss",
        "api-accepts",
        "text-identical",
        "provenance",
        "parallel-turn",
        *sdk,
    )


def _no_view(run: CellRun) -> str:
    """Why there is no located payload to judge."""
    if run.observation.malformed is not None:
        return f"the payload is malformed: {run.observation.malformed}"
    return f"no payload: {run.first.describe()}"


def _downloaded(run: CellRun) -> bool:
    """A url cell whose target fetched the URL and sent the bytes (no URL in the payload)."""
    return run.observation.url == "downloaded"


def _outcome(run: CellRun) -> CheckResult:
    got = run.observation.outcome
    want = accepted_outcomes(run.cell)
    passed = got == want[0]
    if not passed and got in want[1:]:
        passed = _downloaded(run)  # refuse-or-download: the inline cell's outcome, downloaded
    shown = " or ".join(
        w if i == 0 else f"{w} (downloaded, as the inline cell expects)" for i, w in enumerate(want)
    )
    detail = f"expected {shown}, observed {got}"
    if run.observation.url is not None:
        detail += f"; url: {run.observation.url}"
    notes = [
        f"{i.content_type} from {i.tool_name} ({i.call_id}) at {i.where}: {i.layout}"
        for i in run.observation.items
        if i.layout
    ]
    if notes:
        # Held where the api reads it, but not in the api's own slot: a layout difference.
        passed = False
        detail += "\nlayout: " + "\nlayout: ".join(notes)
    if not passed:
        detail += "\n" + run.observation.detail
    return CheckResult(passed, detail)


def _changed(run: CellRun) -> list[str]:
    return [
        f"{name}: {r.changed}"
        for name, r in (("direct", run.first), ("after storage", run.stored))
        if r.changed is not None
    ]


def _no_silent_loss(run: CellRun) -> CheckResult:
    observation = run.observation
    problems = _changed(run)
    if observation.outcome == "crashed" or observation.malformed is not None:
        problems.append(observation.detail.splitlines()[0])
    problems += [
        f"{i.content_type}: {i.outcome} {i.detail}".rstrip()
        for i in observation.items
        if i.outcome in LOSSY
    ]
    if not problems:
        return CheckResult(True, f"observed {observation.outcome}")
    return CheckResult(False, "\n".join(problems))


def _refused(run: CellRun) -> bool:
    """Both renderings are the target's typed refusal: nothing was sent."""
    return _refusal(run, run.first) is None and _refusal(run, run.stored) is None


def _text_identical(run: CellRun) -> CheckResult:
    """Every text of the history byte for byte where the api reads it: a tool's text as its
    tool's output, prompt-style text as the text of a user message after its tool result."""
    view = run.view
    if view is None:
        if run.cell.expect == "refuse-or-download" and _refused(run):
            return CheckResult(True, f"refused before sending: {run.first.describe()}")
        return CheckResult(False, f"no payload to carry the text: {_no_view(run)}")
    problems = _changed(run) if run.cell.error is not None else []
    problems += [
        f"tool text from {i.tool_name} ({i.call_id}): {i.outcome} {i.detail}".rstrip()
        for i in run.observation.items
        if i.content_type == "text" and not i.identical
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


def _parallel_turn(run: CellRun) -> CheckResult:
    """A parallel turn is one unit (`conformance.judging.turns`)."""
    view = run.view
    if view is None:
        if _refused(run):
            return CheckResult(True, f"refused before sending: {run.first.describe()}")
        return CheckResult(False, f"no turn to judge: {_no_view(run)}")
    problems = turns.turn_problems(run.history, view)
    return CheckResult(not problems, "\n".join(problems) or "each turn answered whole, in order")


def _provenance(run: CellRun) -> CheckResult:
    problems = [
        f"{i.content_type} from {i.tool_name} ({i.call_id}) at {i.where}: {i.detail}"
        for i in run.observation.items
        if i.outcome == "fallback-unmarked" or i.placed == "fallback-unmarked"
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


def _refusal(run: CellRun, rendering: Rendering) -> str | None:
    """Why a rendering is not a typed refusal, or None if it is one."""
    error = rendering.error
    if error is None:
        return "sent a request instead of refusing"
    if not is_refusal(error, run.refusal_types):
        declared = ", ".join(t.__name__ for t in run.refusal_types)
        return f"crashed: {first_line(error)} (declared refusal types: {declared})"
    return None


def _unsupported_raises(run: CellRun) -> CheckResult:
    """A typed refusal before sending, from both renderings and of the same type; for a
    `refuse-or-download` cell a download carried intact passes too."""
    first, stored = run.first, run.stored
    if run.cell.expect == "refuse-or-download" and _downloaded(run) and first.payload is not None:
        # Judged as the inline cell: intact bytes pass here wherever they sit (placement,
        # markers and the storage round trip are judged by api-accepts and provenance).
        observation = run.observation
        lost = [i for i in observation.items if i.content_type != "text" and i.outcome in LOSSY]
        if lost or observation.outcome in ("crashed", "malformed"):
            return CheckResult(
                False, f"downloaded the URL, then did not carry it intact\n{observation.detail}"
            )
        return CheckResult(True, f"downloaded the URL and sent the bytes: {observation.outcome}")
    problems = [
        f"{name}: {why}"
        for name, rendering in (("direct", first), ("after storage", stored))
        if (why := _refusal(run, rendering)) is not None
    ]
    if "sent a request" in " ".join(problems) and first.payload is not None:
        problems.append(run.observation.detail)
    if not problems and type(first.error) is not type(stored.error):
        problems.append(
            f"refused differently: {first.describe()}; after storage: {stored.describe()}"
        )
    if problems:
        return CheckResult(False, "\n".join(problems))
    return CheckResult(True, first.describe())


_PRESENT: frozenset[Outcome] = frozenset(
    {
        "malformed",
        "native",
        "fallback-marked",
        "fallback-unmarked",
        "duplicated",
        "altered: media type",
        "altered: bytes",
    }
)
"""Item outcomes in which the media (or something in its place) went on the wire."""


def _api_accepts(run: CellRun) -> CheckResult:
    """Media only where the row accepts it: nothing where the cell is unsupported, not in the
    tool result where it expects fallback, no URL where the api has no URL form, and no shape
    the api does not define."""
    observation = run.observation
    cell = run.cell
    if observation.malformed is not None:
        return CheckResult(False, f"the api does not define this payload: {observation.malformed}")
    if observation.outcome in ("raised", "crashed"):
        return CheckResult(True, f"nothing sent: {run.first.describe()}")
    media = [i for i in observation.items if i.content_type != "text"]
    problems: list[str] = []
    for item in media:
        where = item.placed or item.outcome
        at = f"{item.content_type} from {item.tool_name} ({item.call_id}) at {item.where}"
        if item.outcome == "malformed":
            problems.append(f"{at}: {item.detail}")
        elif cell.expect == "unsupported" and item.outcome in _PRESENT:
            problems.append(f"{at}: sent, where the api carries no {item.content_type}")
        elif cell.source == "url" and item.sent_as != "url" and cell.inline_expect is not None:
            # Downloaded: the bytes are judged where the inline cell would be.
            if cell.inline_expect == "unsupported" and item.outcome in _PRESENT:
                problems.append(f"{at}: downloaded and sent, where the api carries none")
            elif cell.inline_expect == "fallback" and where == "native":
                problems.append(f"{at}: downloaded into the tool result, which does not carry it")
        elif cell.expect == "fallback" and where == "native":
            problems.append(f"{at}: in the tool result, which does not carry it on this row")
        elif cell.expect == "refuse-or-download" and item.sent_as == "url":
            problems.append(f"{at}: sent as a URL, which this api takes no URL form for")
    problems += _undefined_blocks(run, media)
    if run.first.payload is not None:
        problems += [str(breach) for breach in breaches(cell.api, run.first.payload)]
    if problems:
        return CheckResult(False, "\n".join(problems))
    return CheckResult(True, "media only where the row accepts it; the api's ordering rules kept")


def _undefined_blocks(run: CellRun, media: list[ItemObservation]) -> list[str]:
    """Blocks of a type the api does not define where they sit, not already reported."""
    view = run.view
    if view is None:
        return []
    reported = {i.where for i in media if i.outcome == "malformed"}
    parts = [p for r in view.tool_results for p in r.parts]
    parts += [p for m in view.messages for p in m.parts]
    return [
        f"a {p.undocumented!r} block at {p.path}, which {view.api} does not define there"
        for p in parts
        if p.undocumented is not None and p.path not in reported
    ]


def _error_flag(run: CellRun) -> CheckResult:
    """The api's native error flag exactly where a call failed (rows whose api has one): on the
    failed call's result, and on no result of a call that succeeded."""
    view = run.view
    if view is None:
        return CheckResult(False, _no_view(run))
    problems = turns.error_flags(run.history, view)
    return CheckResult(not problems, "\n".join(problems) or "flagged exactly where a call failed")


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
    "api-accepts": _api_accepts,
    "error-flag": _error_flag,
    "parallel-turn": _parallel_turn,
    "sdk-schema": _sdk_schema,
}


def evaluate(run: CellRun, check: Check) -> CheckResult:
    """Judge one check of a rendered cell (the snapshot check is judged by syrupy, the
    cassette check by the plugin with `conformance.recording.cassettes`)."""
    return _JUDGES[check](run)
