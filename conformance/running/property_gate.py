"""The hypothesis properties as gated results: one generated test per target and property.

`conformance.judging.properties` holds invariants every target must keep for any history. The plugin
generates one test per target and property beside the matrix's cells (`property_cases`), in the
same pytest run, so that a framework's own run with the plugin and `nox -s conformance` gate on
them and write each verdict as a results line (`conformance.reports.results.PropertyLine`): cell
`property/<name>`, check `<name>`, the property's level, and for a failure the shrunk
counterexample (its model row and a summary of its history) in `detail`.

Rows are drawn inside each test rather than generated one test per row: a search costs about
25 ms an example on the reference target, so one search over every row per property keeps a
target's properties to seconds, while the failing row is named in the result.

The search is derandomized (the same code gives the same verdicts, and the same results file),
keeps no example database, and tries `--conformance-property-examples` histories (default
`DEFAULT_EXAMPLES`; `0` leaves the properties out of the run) after the seed histories
(`seeds`), each on every row.

A known failure is declared like a cell's (`cell: property/<name>, checks: [<name>]` in the
target's deviations file): a failure it declares is an `xfail`; a declared property that holds
is reported as a `pass` that names the declaration, and does not fail the run, because a search
that finds no counterexample proves nothing.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any, Final, Protocol

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from conformance.history import History, Media, Text, ToolCall, ToolResult, load
from conformance.judging import properties
from conformance.judging.levels import PROPERTY_LEVELS
from conformance.judging.properties import PROPERTIES, Property, PropertyFailed, RenderHung, Renders
from conformance.scenarios.strategies import DrawnHistory, histories
from conformance.targets.base import RowRef, Target

__all__ = [
    "DEFAULT_EXAMPLES",
    "Declared",
    "PropertyCase",
    "Search",
    "plan",
    "property_cases",
    "property_lines",
    "run_property",
    "search",
    "seeds",
    "summarize",
]

DEFAULT_EXAMPLES: Final = 50
"""Histories tried per target and property in the gate. The seven single-row properties try
the same histories, drawn once and shared (`search`), and judge the same renders of them
(`properties.Renders`): on a framework target each of their histories drives the framework
three times (directly, once more for `deterministic`, through storage) where it drove it nine
times, and each of the replay's histories three times. `nox -s nightly` searches with 2,000."""

SHRINK_CALLS: Final = 50
"""At most this many histories are tried while shrinking a counterexample: hypothesis would try
hundreds (about 30 s of CPU for one property on a mutant), and a counterexample a little less
small is as useful in a report. The smallest failing history found so far is the one reported."""

_DETAIL_LIMIT: Final = 4000
"""Characters of a counterexample's history summary kept in a results line."""


class Declared(Protocol):
    """A declared deviation as the gate reads it (a deviations file entry)."""

    @property
    def checks(self) -> Sequence[str]: ...

    @property
    def reason(self) -> str: ...

    @property
    def link(self) -> str | None: ...


@dataclass(frozen=True)
class PropertyCase:
    """One generated test: a target and a property."""

    target: str
    """The target's spec, as `--conformance-target` gave it."""
    name: str

    @property
    def cell(self) -> str:
        """`property/<name>`: the results line's cell (a string, not a matrix cell)."""
        return f"property/{self.name}"

    @property
    def check(self) -> str:
        """The results line's check: the property's name."""
        return self.name

    @property
    def id(self) -> str:
        return f"{self.target}:{self.cell}"


def property_cases(specs: Sequence[str], examples: int) -> list[PropertyCase]:
    """Every property for every target, in `conformance.judging.levels.PROPERTY_LEVELS` order; none
    when `examples` is 0."""
    if examples <= 0:
        return []
    return [PropertyCase(spec, name) for spec in specs for name in PROPERTY_LEVELS]


@cache
def seeds() -> tuple[History, ...]:
    """Histories every search tries first, each on every row, before drawing any: the shapes a
    short search draws too rarely to judge every row on, and that real frameworks get wrong.

    A search draws a row and a history per example, and its first histories are the smallest;
    a gate of 10 examples (the framework sessions') tries a few of the matrix's rows, with one
    text part per result at most. So a framework that joins a tool result's texts without a
    separator (`["Result:", "42"]` sent as `"Result:42"`) passed `text-identical`. The seeds
    are kept as data in `conformance/scenarios/property-seed-histories.jsonl` (one
    `history.dump` per line): two parallel calls, one result of two text parts and one failed
    call of one text (a tool's error is one string in most frameworks, so a failure of several
    texts would judge a split no user wrote); and two parallel calls with text beside a fixture
    image in one result, two texts in the other, and a tool-produced user message with an
    image and its provenance. A row that cannot carry a seed's media refuses it, which the
    properties judge as for any history; the text-only seed is judged on every row.

    A seed is not shrunk (hypothesis runs explicit examples as they are): a failing seed is
    reported as it is, under its row."""
    data = files("conformance.scenarios").joinpath("property-seed-histories.jsonl").read_bytes()
    return tuple(DrawnHistory(load(line)) for line in data.splitlines() if line.strip())


def _seeded(run: Callable[[], None], rows: Sequence[RowRef], *, replay: bool) -> None:
    """Adds each seed on each row to `run`'s explicit examples, in row order (hypothesis runs
    the last added first). For the replay, each row is replayed on the next one."""
    examples: list[example] = []
    for history in seeds():
        for index, row in enumerate(rows):
            if replay:
                then = rows[(index + 1) % len(rows)]
                examples.append(example(first=row, then=then, history=history))
            else:
                examples.append(example(row=row, history=history))
    for seeded in reversed(examples):
        seeded(run)


def _fresh(check: _Check) -> _Check:
    """`check`, given a copy of a seed rather than the seed itself: a target may change the
    history it is given, and a seed is the same object in every search of the process."""

    def call(target: Target, *args: Any) -> None:
        *rows, history = args
        if any(history is seed for seed in seeds()):
            history = copy.deepcopy(history)
        check(target, *rows, history)

    return call


class _ShrinkBudget(BaseException):
    """Stops hypothesis's shrinking once `SHRINK_CALLS` histories were tried (a BaseException,
    which hypothesis lets through at once, as it does KeyboardInterrupt)."""


@dataclass
class Search:
    """What one property's search found."""

    examples: int = 0
    row: str | None = None
    """The counterexample's row (the replay's rows as `first -> then`)."""
    message: str = ""
    history: History | None = None
    seeded: bool = False
    """The counterexample is one of `seeds()`, as it is (not shrunk)."""
    also: list[str] = field(default_factory=list[str])
    """The other rows on which a seed failed, in the order tried (a seed's failure is reported
    on its first row; `seeds`)."""

    @property
    def failed(self) -> bool:
        return bool(self.message)

    def detail(self) -> str:
        if not self.failed:
            return f"held on {self.examples} histories"
        head = f"counterexample (shrunk), row {self.row}:"
        if self.seeded:
            head = f"counterexample (a seed history, as it is, not shrunk), row {self.row}:"
        lines = [self.message, head]
        if self.also:
            lines.insert(1, f"the seed histories fail on other rows too: {', '.join(self.also)}")
        if self.history is not None:
            lines += summarize(self.history)
        text = "\n".join(lines)
        return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT] + "\n[cut]"


_Check = Callable[..., None]
"""A property as `search` calls it: `(target, row, history)`, or `(target, first, then,
history)` for `cross-provider-replay`."""

_Tried = tuple[tuple[tuple[RowRef, ...], History], ...]
"""The examples a search tried, in order: the rows drawn and a pristine copy of the history."""

_TRIED: dict[tuple[object, ...], _Tried] = {}
"""Per search signature (`_signature`), the examples that a search which found nothing tried;
in memory, for this process only."""

_SHARED: list[Renders] = []
"""The renders of the targets searched last, the newest first (`_shared`)."""

_SHARED_TARGETS: Final = 4
"""How many targets keep their renders at most: the plugin searches one target's properties one
after another, so the renders of a target no longer searched are let go. Where the run's plan
is known (`plan`), a target's renders go as soon as its last single-row property ends."""

_PENDING: Counter[str] = Counter()
"""Per target spec, the single-row property tests of this run that have not ended yet
(`plan`, `_ended`)."""


def plan(cases: Iterable[object]) -> None:
    """The tests this run will run (the plugin's, at the end of collection; anything that is not
    a `PropertyCase` is ignored). A target's shared renders are let go when the last of its
    single-row properties among them ends, instead of being kept for the process: a search
    keeps about one payload per history and rendering mode, media included (4,000 payloads at
    the nightly's 2,000 examples). A target whose properties are not all run here (a selection
    made after collection, an xdist worker given part of the tests) keeps the bound of
    `_SHARED_TARGETS` targets."""
    _PENDING.clear()
    _PENDING.update(c.target for c in cases if isinstance(c, PropertyCase) and c.name in PROPERTIES)


def _ended(case: PropertyCase, target: Target) -> None:
    """`case` ended: its target's renders go once none of its planned single-row properties
    is left to run."""
    if case.name not in PROPERTIES or case.target not in _PENDING:
        return
    _PENDING[case.target] -= 1
    if _PENDING[case.target] <= 0:
        del _PENDING[case.target]
        _SHARED[:] = [r for r in _SHARED if r.target is not target]


def _shared(target: Target) -> Renders:
    """The renders `target`'s single-row properties share, in this process."""
    for renders in _SHARED:
        if renders.target is target:
            return renders
    _SHARED.insert(0, Renders(target))
    del _SHARED[_SHARED_TARGETS:]
    return _SHARED[0]


def _sharing(prop: Property, shared: Renders) -> _Check:
    """`prop`, judging the renders in `shared`: one per row, rendering mode and history,
    whichever property asked for it first."""

    def call(target: Target, row: RowRef, history: History) -> None:
        prop(target, row, history, shared)

    return call


def _signature(name: str, rows: Sequence[RowRef], config: settings) -> tuple[object, ...]:
    """What decides the examples a search draws as long as every example passes.

    The search is derandomized: hypothesis seeds it from the test function's source, which is
    the same for the seven single-row properties (`one` below) and another for the replay, and
    from then on each choice depends only on the choices before it and on each example having
    passed. So two searches with the same strategies, rows and settings try the same histories
    in the same order until one of them fails. The phases are left out: those after `generate`
    only run once an example failed. The modules loaded are not part of it: the searches draw
    without the literals of local modules (`_without_local_constants`)."""
    replay = name == "cross-provider-replay"
    return (replay, tuple(rows), repr(settings(config, phases=[Phase.generate])))


def _recorded(check: _Check, tried: list[tuple[tuple[RowRef, ...], History]]) -> _Check:
    """`check`, keeping a copy of each example it is called with, taken before the call (a
    target may change the history it is given)."""

    def call(target: Target, *args: Any) -> None:
        *rows, history = args
        tried.append((tuple(rows), copy.deepcopy(history)))
        check(target, *args)

    return call


def _rerun(check: _Check, target: Target, tried: _Tried) -> Search | None:
    """`check` on the examples another search tried, in its order: what a search for `check`
    finds when every example passes, or None as soon as one does not (the caller then runs
    the search itself, which draws the same examples up to there, then shrinks)."""
    found = Search()
    for rows, history in tried:
        found.examples += 1
        try:
            check(target, *rows, copy.deepcopy(history))
        except Exception:  # a failure (or a crash): hypothesis's own search reports it
            return None
    return found


def search(
    name: str, target: Target, rows: Sequence[RowRef], examples: int, *, shrink: bool = True
) -> Search:
    """Search `examples` histories over `rows` for a counterexample to property `name`.

    Every property of a target is searched over the same histories (`_signature`), so the
    histories are drawn once: a later search checks its property on the examples an earlier
    one tried, and runs hypothesis itself only if one of them fails its property. Drawing a
    history costs more than judging one on the reference target (docs/performance.md). The
    single-row properties also share their renders of those histories (`_shared`): on a
    framework target a render is the framework's own request."""
    config = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        # No `explain` phase: once an example fails, it traces every line each later example
        # runs, and after shrinking varies the counterexample to say which parts matter: text
        # hypothesis prints and the gate never shows. Without it the shrink budget goes to
        # shrinking (on the mutants, each counterexample reported was as small or smaller, and
        # found in fewer calls). `reuse` and `target` do nothing here (no database, no
        # `target()` calls).
        phases=[Phase.explicit, Phase.generate, Phase.shrink]
        if shrink
        else [Phase.explicit, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    single = PROPERTIES.get(name)
    check = (
        properties.cross_provider_replay if single is None else _sharing(single, _shared(target))
    )
    signature = _signature(name, rows, config)
    tried = _TRIED.get(signature)
    if tried is not None:
        try:
            rerun = _rerun(check, target, tried)
        except RenderHung as hung:  # a render that hangs fails the property once
            return Search(examples=len(tried), row=str(hung).split(":", 1)[0], message=_hung(hung))
        if rerun is not None:
            return rerun
    recording: list[tuple[tuple[RowRef, ...], History]] = []
    found = _search(name, _fresh(_recorded(check, recording)), target, rows, examples, config)
    if not found.failed:
        _TRIED.setdefault(signature, tuple(recording))
    return found


@contextmanager
def _without_local_constants() -> Generator[None]:
    """Hypothesis's draws without the constants of the project's own source.

    Hypothesis (6.170 here: `providers._get_local_constants`) mixes into what it draws the
    string and number literals it parses from the source of every loaded module outside
    site-packages: this package installed editable, a framework's own checkout in its
    repository, a conftest. So the same suite, framework and hypothesis drew other histories
    in a maintainer's repository than in the published run, a literal edited in their adapter
    changed the histories tried on their next pull request, and parsing that source cost a
    run in a folder without `.hypothesis/constants/` (0.5 s for this package's alone).

    Hypothesis has no setting for it; here its pool of local constants is empty while a
    search draws, and its cache of the constants a draw may take, built from that pool, is
    cleared on the way in and out. Its own constants (the edge cases it always tries) stay.
    With a hypothesis that has no such pool (6.100, the oldest allowed, has no `providers`
    module at all), nothing to do."""
    try:
        from hypothesis.internal.conjecture import providers as _providers
    except ImportError:
        yield
        return
    pool = getattr(_providers, "_get_local_constants", None)
    cache = getattr(_providers, "CONSTANTS_CACHE", None)
    empty = getattr(_providers, "Constants", None)
    if pool is None or cache is None or empty is None:
        yield
        return
    setattr(_providers, "_get_local_constants", empty)  # noqa: B010 (a private name)
    cache.cache.clear()
    try:
        yield
    finally:
        setattr(_providers, "_get_local_constants", pool)  # noqa: B010
        cache.cache.clear()


def _search(
    name: str,
    check: _Check,
    target: Target,
    rows: Sequence[RowRef],
    examples: int,
    config: settings,
) -> Search:
    """Hypothesis's search for a counterexample to `check`.

    The two test functions below must keep their source text: hypothesis derives the
    derandomized seed from it, so an edit changes every history the gate tries."""
    found = Search()

    seeded_examples = len(seeds()) * len(rows)

    def attempt(label: str, call: Callable[[], None], history: History) -> None:
        found.examples += 1
        if found.failed and found.examples > seeded_examples + examples + SHRINK_CALLS:
            raise _ShrinkBudget
        seeded = any(history is seed for seed in seeds())
        try:
            call()
        except (PropertyFailed, RenderHung) as error:
            # A hang stops the search: hypothesis runs the next seed after a failure only.
            message = _hung(error) if isinstance(error, RenderHung) else str(error)
            if not (seeded and found.failed):  # the last failure seen is the shrunk one
                found.row, found.message, found.history = label, message, history
                found.seeded = seeded
            elif label != found.row and label not in found.also:
                # Hypothesis runs every seed even after one failed: the first is reported,
                # and the rows of the others named.
                found.also.append(label)
            raise

    if name == "cross-provider-replay":
        cross_provider_replay = check

        @config
        @given(first=st.sampled_from(rows), then=st.sampled_from(rows), history=histories())
        def replay(first: RowRef, then: RowRef, history: History) -> None:
            attempt(
                f"{first.id} -> {then.id}",
                lambda: cross_provider_replay(target, first, then, history),
                history,
            )

        run = replay
    else:

        @config
        @given(row=st.sampled_from(rows), history=histories())
        def one(row: RowRef, history: History) -> None:
            attempt(row.id, lambda: check(target, row, history), history)

        run = one
    _seeded(run, rows, replay=name == "cross-provider-replay")
    try:
        with _without_local_constants():
            run()
    except (PropertyFailed, _ShrinkBudget, RenderHung):
        pass
    # Hypothesis's own (flaky, several failures: seeds that fail in different places, a hang
    # among them, are all run and raised as a group): the failure seen last, or say so.
    except (Exception, BaseExceptionGroup) as error:
        found.message = found.message or f"the search stopped: {type(error).__name__}: {error}"
    return found


def _hung(hung: RenderHung) -> str:
    return f"{hung}; the search stopped at this history"


def run_property(
    case: PropertyCase,
    target: Target,
    rows: Sequence[RowRef],
    examples: int,
    declared: Declared | None,
    record: dict[str, Any],
) -> None:
    """The body of a generated property test: search, then pass, fail or xfail, filling in
    `record` (the results line) as it goes. Once it ends, the renders its target's properties
    share are let go if it was the last of them (`plan`)."""
    try:
        _judge(case, target, rows, examples, declared, record)
    finally:
        _ended(case, target)


def _judge(
    case: PropertyCase,
    target: Target,
    rows: Sequence[RowRef],
    examples: int,
    declared: Declared | None,
    record: dict[str, Any],
) -> None:
    record.update(
        {
            "kind": "result",
            "target": target.name,
            "target_version": target.version,
            "cell": case.cell,
            "property": case.name,
            "check": case.name,
            "level": PROPERTY_LEVELS[case.name],
            "examples": 0,
            "detail": "",
            "reason": None,
            "link": None,
        }
    )
    reason = getattr(target, "unavailable", None)
    usable = [row for row in rows if target.supports(row) is None] if reason is None else []
    if reason is None and not usable:
        reason = f"{target.name} supports none of the matrix's rows"
    if reason is not None:
        record["detail"] = reason
        pytest.skip(reason)
    known = declared is not None and case.name in declared.checks
    # A declared failure needs no shrinking: the first counterexample makes the xfail.
    found = search(case.name, target, usable, examples, shrink=not known)
    record["examples"] = found.examples
    record["detail"] = found.detail()
    if found.row is not None:
        record["row"] = found.row
    if known:
        assert declared is not None
        record["reason"], record["link"] = declared.reason, declared.link
        if not found.failed:
            record["detail"] += (
                "; a deviation declares it fails: none was found in this search, which proves"
                " nothing; remove the declaration once the cause is fixed upstream"
            )
            return
        # As `pytest.xfail`, without the traceback pytest would format and never show.
        raise pytest.xfail.Exception(f"known deviation: {declared.reason}", pytrace=False)
    if found.failed:
        pytest.fail(f"{case.id}: {record['detail']}", pytrace=False)


_ORDER: Final = (
    "kind",
    "target",
    "target_version",
    "cell",
    "property",
    "check",
    "level",
    "verdict",
    "row",
    "examples",
    "detail",
    "reason",
    "link",
)


def property_lines(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The property records among a run's, as results lines (`row` only for a failure)."""
    return [{k: r[k] for k in _ORDER if k in r} for r in records if "property" in r]


def summarize(history: History) -> list[str]:
    """One line per item of a history: enough to rebuild it by hand, media by size."""
    out: list[str] = []
    for index, item in enumerate(history):
        if isinstance(item, ToolCall):
            out.append(f"{index}. call {item.name!r} id {item.tool_call_id!r} {item.arguments!r}")
        elif isinstance(item, ToolResult):
            head = f"{index}. result of {item.name!r} id {item.tool_call_id!r} ({item.status})"
            out.append(f"{head}: {_parts(item.content)}")
        else:
            source = ""
            if item.source is not None:
                source = f" from {item.source.tool_name!r} id {item.source.tool_call_id!r}"
            content = item.content if isinstance(item.content, str) else None
            shown = repr(content[:200]) if content is not None else _parts(item.content)
            out.append(f"{index}. {item.role}{source}: {shown}")
    return out


def _parts(parts: Sequence[Any]) -> str:
    shown: list[str] = []
    for part in parts:
        if isinstance(part, Text):
            shown.append(f"text {part.text[:200]!r}" + (" [cut]" if len(part.text) > 200 else ""))
        elif isinstance(part, Media):
            where = f"{len(part.data)} bytes" if part.data is not None else f"url {part.url!r}"
            shown.append(f"{part.type} {part.media_type} {part.identifier!r} {where}")
    return "[" + ", ".join(shown) + "]"
