"""The properties in the gate: generated per target and property, written as results lines."""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
import types
import weakref
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conformance.history import History, dump, load
from conformance.judging.checks import row_ref
from conformance.judging.levels import PROPERTY_LEVELS
from conformance.judging.properties import PROPERTIES
from conformance.matrix import load_matrix
from conformance.reports.results import load_results
from conformance.running import property_gate
from conformance.running.property_gate import (
    _SHARED,  # pyright: ignore[reportPrivateUsage]
    _TRIED,  # pyright: ignore[reportPrivateUsage]
    PropertyCase,
    Search,
    plan,
    run_property,
    search,
    seeds,
    summarize,
)
from conformance.scenarios.build import scenario
from conformance.targets.base import Payload, RowRef
from conformance.targets.reference import ReferenceTarget
from mutants import (
    ChangesHistoryInPlace,
    ChangesWhitespace,
    DropsMedia,
    JoinsToolTexts,
    RendersRandomly,
    SwapsParallelResults,
)

ROOT = Path(__file__).resolve().parent.parent
_MATRIX = load_matrix(ROOT / "matrix.yaml")
ROWS = list({row_ref(c).id: row_ref(c) for c in _MATRIX.cells()}.values())


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_module_attr_target_gets_a_failing_property_line_with_its_counterexample(
    project: pytest.Pytester,
) -> None:
    run = project.runpytest(
        "-k",
        "property/media-exactly-once or property/deterministic",
        "--conformance-target",
        "mutants:DropsMedia",
        "--conformance-property-examples",
        "30",
        "--conformance-results",
        "r.jsonl",
    )
    run.assert_outcomes(passed=1, failed=1)
    run.stdout.fnmatch_lines(["*property/media-exactly-once*appears 0 times*"])
    body = lines_of(project.path / "r.jsonl")[1:-1]
    by_name = {line["property"]: line for line in body}
    assert set(by_name) == {"media-exactly-once", "deterministic"}
    failed = by_name["media-exactly-once"]
    assert failed["kind"] == "result"
    assert failed["cell"] == "property/media-exactly-once"
    assert failed["check"] == "media-exactly-once"
    assert failed["level"] == "required"
    assert failed["verdict"] == "fail"
    assert failed["target"] == "mutant-drops-media"
    assert failed["row"] in {row.id for row in ROWS}
    # the first seed history with an image, on the first row, as it is (a seed is not shrunk)
    assert failed["row"] == ROWS[0].id
    assert "counterexample (a seed history, as it is, not shrunk)" in failed["detail"]
    assert "image 'chart.png' appears 0 times" in failed["detail"]
    held = by_name["deterministic"]
    assert held["verdict"] == "pass"
    assert "row" not in held
    assert held["examples"] >= 1
    loaded = load_results([project.path / "r.jsonl"]).files[0]  # loads strictly
    assert [p.property for p in loaded.properties] == ["deterministic", "media-exactly-once"]


def test_every_property_is_generated_per_target_and_zero_examples_turns_them_off(
    project: pytest.Pytester,
) -> None:
    run = project.runpytest("--collect-only", "-q", "-k", "property/")
    collected = [line for line in run.outlines if "property/" in line]
    assert len(collected) == len(PROPERTY_LEVELS)
    assert all("reference:property/" in line for line in collected)
    run = project.runpytest(
        "--collect-only", "-q", "-k", "property/", "--conformance-property-examples", "0"
    )
    assert not [line for line in run.outlines if "property/" in line]


@dataclass(frozen=True)
class _Declaration:
    checks: tuple[str, ...]
    reason: str
    link: str | None = None


def test_a_declared_failure_is_an_xfail_with_its_reason() -> None:
    record: dict[str, Any] = {}
    case = PropertyCase("mutants:DropsMedia", "media-exactly-once")
    declared = _Declaration(("media-exactly-once",), "drops media on purpose")
    with pytest.raises(pytest.xfail.Exception, match="drops media on purpose"):
        run_property(case, DropsMedia(), ROWS, 30, declared, record)
    assert record["reason"] == "drops media on purpose"
    assert "appears 0 times" in record["detail"]


def test_a_declaration_of_another_property_does_not_excuse_a_failure() -> None:
    record: dict[str, Any] = {}
    case = PropertyCase("mutants:DropsMedia", "media-exactly-once")
    declared = _Declaration(("total",), "something else")
    with pytest.raises(pytest.fail.Exception, match="appears 0 times"):
        run_property(case, DropsMedia(), ROWS, 30, declared, record)


def test_a_declared_property_that_holds_passes_and_names_the_declaration() -> None:
    record: dict[str, Any] = {}
    case = PropertyCase("reference", "deterministic")
    declared = _Declaration(("deterministic",), "thought to be random")
    run_property(case, ReferenceTarget(), ROWS, 5, declared, record)
    assert record["reason"] == "thought to be random"
    assert "proves nothing" in record["detail"]


def test_a_target_supporting_no_row_skips_with_why() -> None:
    class NoRows(ReferenceTarget):
        def supports(self, row: Any) -> str | None:
            return "none"

    record: dict[str, Any] = {}
    with pytest.raises(pytest.skip.Exception, match="supports none"):
        run_property(PropertyCase("x", "total"), NoRows(), ROWS, 5, None, record)
    assert record["detail"]


def test_the_cross_provider_replay_names_both_rows_and_parallel_order_is_searched() -> None:
    found = search("parallel-calls-in-order", SwapsParallelResults(), ROWS, 200)
    assert found.failed
    assert "not in call order" in found.message or "output of" in found.message
    held = search("cross-provider-replay", ReferenceTarget(), ROWS[:2], 3)
    assert not held.failed
    assert held.detail() == f"held on {held.examples} histories"


def test_a_summary_names_every_item_and_media_by_size() -> None:
    cell = next(c for c in _MATRIX.cells() if c.content_type == "image" and c.style == "result")
    lines = summarize(scenario(cell.content_type, cell.source, cell.style))
    assert any("call" in line for line in lines)
    assert any("image image/png" in line and "bytes" in line for line in lines)


class _Seen(ReferenceTarget):
    """The reference, noting every (row, history) it is asked to render, as bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, bytes]] = []

    def render(self, row: RowRef, history: History) -> Payload:
        self.seen.append((row.id, dump(history)))
        return super().render(row, history)


def _fresh(name: str, target: ReferenceTarget, examples: int) -> Search:
    """A search that cannot reuse another's histories."""
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    return search(name, target, ROWS, examples)


def test_a_later_property_is_judged_on_the_histories_its_own_search_would_draw() -> None:
    drawn = _Seen()
    assert not _fresh("total", drawn, 12).failed
    reused = _Seen()
    found = search("media-exactly-once", reused, ROWS, 12)
    assert reused.seen == drawn.seen  # the same rows and histories, in the same order
    own = _Seen()
    alone = _fresh("media-exactly-once", own, 12)
    assert own.seen == reused.seen
    assert (found.examples, found.detail()) == (alone.examples, alone.detail())


def test_a_property_failing_on_shared_histories_is_searched_and_shrunk_as_alone() -> None:
    assert not _fresh("media-exactly-once", ReferenceTarget(), 30).failed
    after = search("media-exactly-once", DropsMedia(), ROWS, 30)
    alone = _fresh("media-exactly-once", DropsMedia(), 30)
    assert after.failed
    assert (after.examples, after.row, after.message) == (alone.examples, alone.row, alone.message)
    assert after.history == alone.history


def test_histories_are_shared_as_drawn_even_after_a_target_changed_them_in_place() -> None:
    changed = ChangesHistoryInPlace()
    assert not _fresh("total", changed, 12).failed
    reused = _Seen()
    search("text-identical", reused, ROWS, 12)
    own = _Seen()
    _fresh("text-identical", own, 12)
    assert reused.seen == own.seen
    assert any(b'"type":"image"' in h or b'"type":"audio"' in h for _, h in own.seen)


def test_a_search_draws_the_same_histories_whatever_the_local_modules_say(
    tmp_path: Path,
) -> None:
    # Hypothesis draws from the literals of loaded modules outside site-packages (a framework's
    # own checkout, this package installed editable); the gate's searches must not: the same
    # suite and target try the same histories in a maintainer's repository as in ours.
    before = _Seen()
    assert not _fresh("total", before, 20).failed
    source = tmp_path / "adapter_literals.py"
    words = [f"w{n}" for n in range(300)] + ["", " ", "\\n", "call_1", "get_chart", "42"]
    source.write_text(f"WORDS = {words!r}\nNUMBERS = {list(range(-50, 300))!r}\n", "utf-8")
    spec = importlib.util.spec_from_file_location("adapter_literals", source)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["adapter_literals"] = module
    try:
        spec.loader.exec_module(module)
        after = _Seen()
        assert not _fresh("total", after, 20).failed
    finally:
        sys.modules.pop("adapter_literals", None)
    assert after.seen == before.seen
    assert len(before.seen) > len(seeds()) * len(ROWS)  # drawn histories, not the seeds alone


def test_a_search_that_loaded_a_module_is_still_shared() -> None:
    # What a search draws does not depend on the modules loaded, so one that loaded a module
    # (a framework importing a provider's SDK at its first request) gives its histories on.
    class Loads(_Seen):
        def render(self, row: RowRef, history: History) -> Payload:
            sys.modules.setdefault("_conformance_loaded_by_a_search", types.ModuleType("x"))
            return super().render(row, history)

    try:
        loads = Loads()
        assert not _fresh("total", loads, 5).failed
        assert _TRIED  # pyright: ignore[reportPrivateUsage]
        reused = _Seen()
        assert not search("media-exactly-once", reused, ROWS, 5).failed
        assert reused.seen == loads.seen
    finally:
        sys.modules.pop("_conformance_loaded_by_a_search", None)


class _Counted(ReferenceTarget):
    """The reference, counting its renders per rendering mode, row and history (as bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.direct: Counter[tuple[str, bytes]] = Counter()
        self.stored: Counter[tuple[str, bytes]] = Counter()

    def render(self, row: RowRef, history: History) -> Payload:
        self.direct[row.id, dump(history)] += 1
        return super().render(row, history)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        self.stored[row.id, dump(history)] += 1
        return ReferenceTarget.render(self, row, load(dump(history)))  # not counted as direct


def test_the_single_row_properties_render_each_drawn_history_once_per_mode() -> None:
    # The seven searches as the gate runs them, one after another on one target: each history
    # drawn is rendered once directly and once through storage for all of them, and once more
    # by `deterministic`, which compares that rendering with one of its own.
    counted = _Counted()
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    for name in PROPERTIES:
        assert not search(name, counted, ROWS, 20).failed
    (tried,) = _TRIED.values()  # pyright: ignore[reportPrivateUsage]
    drawn = [(rows[0].id, dump(history)) for rows, history in tried]
    assert len(drawn) == len(seeds()) * len(ROWS) + 20  # each seed on each row, then 20 drawn
    distinct = Counter(set(drawn))
    assert counted.direct == distinct + Counter(drawn)
    assert counted.stored == distinct


def test_a_target_that_renders_randomly_fails_deterministic_when_renders_are_shared() -> None:
    # The other six first, so that the rendering `deterministic` starts from is a shared one:
    # its own second rendering differs from it.
    target = RendersRandomly()
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    order = [name for name in PROPERTIES if name != "deterministic"] + ["deterministic"]
    found = {name: search(name, target, ROWS, 20) for name in order}
    assert found["deterministic"].failed
    assert "two renderings of one history differ" in found["deterministic"].message
    # and through storage (its id is new there too); every other property holds
    assert "the storage round trip renders differently" in found["storage-round-trip"].message
    held = {name for name, search in found.items() if not search.failed}
    assert held == set(PROPERTIES) - {"deterministic", "storage-round-trip"}
    alone = _fresh("deterministic", RendersRandomly(), 20)  # as without sharing
    assert alone.failed
    assert alone.message == found["deterministic"].message


def test_a_render_that_changed_its_history_is_not_shared_and_verdicts_are_as_alone() -> None:
    # The property that asked goes on with the changed history, as it would alone; the next
    # property renders for itself.
    changed = ChangesHistoryInPlace()
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    together = {name: search(name, changed, ROWS, 12) for name in PROPERTIES}
    (renders,) = [r for r in _SHARED if r.target is changed]  # pyright: ignore[reportPrivateUsage]
    media = [b'"type":"%s"' % kind for kind in (b"image", b"document", b"audio", b"video")]
    assert renders.kept  # histories without media, which it leaves as they are
    assert not [key for key in renders.kept if any(m in key[2] for m in media)]
    (tried,) = _TRIED.values()  # pyright: ignore[reportPrivateUsage]
    assert any(m in dump(history) for _, history in tried for m in media)
    alone = {name: _fresh(name, ChangesHistoryInPlace(), 12) for name in PROPERTIES}
    assert {n: (s.examples, s.row, s.message) for n, s in together.items()} == {
        n: (s.examples, s.row, s.message) for n, s in alone.items()
    }
    kept = _Counted()
    assert not search("total", kept, ROWS, 12).failed
    (renders,) = [r for r in _SHARED if r.target is kept]  # pyright: ignore[reportPrivateUsage]
    assert len(renders.kept) == len(set(kept.direct))  # an unchanged history's render is kept


def _mine(target: object) -> list[Any]:
    return [r for r in _SHARED if r.target is target]  # pyright: ignore[reportPrivateUsage]


def test_a_targets_shared_renders_go_when_its_last_planned_property_ends() -> None:
    # As the plugin plans a run at the end of collection: the seven single-row properties and
    # the replay, `deterministic` last so that the rendering it starts from is a shared one.
    target = RendersRandomly()
    names = [name for name in PROPERTY_LEVELS if name != "deterministic"] + ["deterministic"]
    cases = [PropertyCase("mutants:RendersRandomly", name) for name in names]
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    plan([*cases, "not a property case"])
    kept: list[int] = []
    failed: set[str] = set()
    held: weakref.ref[Any] | None = None
    for case in cases:
        try:
            run_property(case, target, ROWS, 20, None, {})
        except pytest.fail.Exception:
            failed.add(case.name)
        mine = _mine(target)
        held = weakref.ref(mine[0]) if mine else held
        kept.append(sum(len(r.kept) for r in mine))
    # kept while a single-row property is left to run, and let go after the last one
    single = [i for i, name in enumerate(names) if name in PROPERTIES]
    assert all(kept[i] > 0 for i in single[:-1])
    assert kept[single[-1]] == 0
    assert kept[-1] == 0
    assert not _mine(target)
    gc.collect()
    assert held is not None
    assert held() is None  # nothing else holds the payloads
    # and the verdicts are those of the searches with every render kept
    assert {"deterministic", "storage-round-trip"} <= failed
    kept_all = RendersRandomly()
    _TRIED.clear()  # pyright: ignore[reportPrivateUsage]
    alone = {name: search(name, kept_all, ROWS, 20) for name in names}
    assert {n for n, found in alone.items() if found.failed} == failed
    assert _mine(kept_all)  # without a plan the renders stay (the bound of four targets)


def test_a_gate_run_keeps_no_shared_renders_once_its_properties_ended(
    project: pytest.Pytester,
) -> None:
    _SHARED.clear()  # pyright: ignore[reportPrivateUsage]
    run = project.runpytest("-k", "property/", "--conformance-property-examples", "10")
    run.assert_outcomes(passed=len(PROPERTY_LEVELS))
    assert not _SHARED  # pyright: ignore[reportPrivateUsage]
    # a selection is planned as selected: its own last single-row property lets them go
    run = project.runpytest("-k", "property/ and not storage-round-trip and not cross")
    run.assert_outcomes(passed=len(PROPERTY_LEVELS) - 2)
    assert not _SHARED  # pyright: ignore[reportPrivateUsage]


def test_a_short_search_tries_each_seed_on_every_row_before_drawing() -> None:
    # A gate of 10 examples draws a few rows and small histories: a target that joins a tool
    # result's texts without a separator passed `text-identical` so. The seeds come first.
    seen = _Seen()
    assert not _fresh("text-identical", seen, 10).failed
    seeded = [(row.id, history) for history in map(dump, seeds()) for row in ROWS]
    assert list(dict.fromkeys(seen.seen))[: len(seeded)] == seeded  # in this order, first
    joined = _fresh("text-identical", JoinsToolTexts(), 10)
    assert joined.row == ROWS[0].id
    assert joined.also == [row.id for row in ROWS[1:]]  # the other rows it fails on, named
    assert "the seed histories fail on other rows too: " + ROWS[1].id in joined.detail()
    assert joined.failed
    assert joined.seeded
    assert "counterexample (a seed history, as it is, not shrunk)" in joined.detail()
    assert joined.examples == len(seeds()) * len(ROWS)  # every seed runs, then the search stops


def test_a_seed_is_each_target_s_own_copy() -> None:
    # a target that changes the history it is given in place changes a copy: the next search,
    # in the same process, renders the seeds as they are kept
    before = [dump(history) for history in seeds()]
    assert not _fresh("total", ChangesHistoryInPlace(), 10).failed
    assert [dump(history) for history in seeds()] == before
    seen = _Seen()
    _fresh("total", seen, 10)
    assert {history for _, history in seen.seen[: len(ROWS) * len(before)]} == set(before)


def test_a_failure_the_seeds_do_not_show_is_still_found_and_shrunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the seeds hold no white space to change: the search draws and shrinks it as without
    # them, with the same budget of shrinking calls after the seeds
    found = _fresh("text-identical", ChangesWhitespace(), 50)
    with monkeypatch.context() as unseeded:
        unseeded.setattr(property_gate, "seeds", tuple)
        alone = _fresh("text-identical", ChangesWhitespace(), 50)
    assert (found.row, found.message, found.history) == (alone.row, alone.message, alone.history)
    assert found.examples == alone.examples + len(seeds()) * len(ROWS)
    assert found.failed
    assert not found.seeded
    assert "counterexample (shrunk)" in found.detail()
    assert found.examples > len(seeds()) * len(ROWS)


def test_the_seeds_are_the_fixtures_and_the_shapes_they_are_kept_for() -> None:
    from conformance.history import Image, Message, Text, ToolCall, ToolResult
    from conformance.scenarios.fixtures import fixture_bytes

    text_only, with_image = seeds()
    for history in (text_only, with_image):
        calls = [item for item in history if isinstance(item, ToolCall)]
        results = [item for item in history if isinstance(item, ToolResult)]
        assert len(calls) == 2
        assert [r.tool_call_id for r in results] == [c.tool_call_id for c in calls]
        # several texts in a successful result; a failed one has one text, as a tool's error
        # message is one string in most frameworks (a split no user wrote is not judged here)
        for result in results:
            texts = sum(isinstance(p, Text) for p in result.content)
            assert texts == 1 if result.status == "error" else texts >= 2
    assert not any(
        isinstance(p, Image)
        for item in text_only
        if not isinstance(item, ToolCall)
        for p in ([] if isinstance(item.content, str) else item.content)
    )
    assert any(r.status == "error" for r in text_only if isinstance(r, ToolResult))
    images = [
        p
        for item in with_image
        if not isinstance(item, ToolCall) and not isinstance(item.content, str)
        for p in item.content
        if isinstance(p, Image)
    ]
    assert [(i.identifier, i.data) for i in images] == [
        (name, fixture_bytes(name)) for name in ("chart.png", "chart-2.png")
    ]
    produced = [i for i in with_image if isinstance(i, Message) and i.source is not None]
    assert [(m.source.tool_call_id if m.source else None) for m in produced] == ["call_1"]


def test_a_hypothesis_without_a_local_constant_pool_is_left_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 6.100, the oldest hypothesis the package allows, has no `providers` module at all (a
    # search there was checked by hand: the reference's eight properties pass).
    from hypothesis.internal import conjecture
    from hypothesis.internal.conjecture import providers

    pool = providers._get_local_constants  # pyright: ignore[reportPrivateUsage]
    with monkeypatch.context() as patched:
        patched.delattr(conjecture, "providers")
        patched.setitem(sys.modules, "hypothesis.internal.conjecture.providers", None)
        with property_gate._without_local_constants():  # pyright: ignore[reportPrivateUsage]
            assert providers._get_local_constants is pool  # pyright: ignore[reportPrivateUsage]
    with property_gate._without_local_constants():  # pyright: ignore[reportPrivateUsage]
        assert providers._get_local_constants is not pool  # pyright: ignore[reportPrivateUsage]
    assert providers._get_local_constants is pool  # pyright: ignore[reportPrivateUsage]
