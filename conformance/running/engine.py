"""What the pytest plugin runs once a project has configured the suite: the generated tests,
their snapshots and the results file.

`conformance.plugin` registers the options at every pytest start and imports this module only
when `conformance.running.config` finds the project configured; `configure` then registers this
module's hooks and fixture with pytest. So a project that has the package installed without using it
pays for none of the imports below (pydantic, ruamel.yaml, syrupy's extension, the targets).
"""

from __future__ import annotations

import gc
import os
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from conformance import __version__
from conformance.judging import guard, isolation
from conformance.judging.checks import (
    CellRun,
    Check,
    CheckResult,
    applicable_checks,
    evaluate,
    row_ref,
    run_cell,
    snapshot_data,
)
from conformance.judging.deviations import DeviationsError, DeviationsFile, judge, load_deviations
from conformance.judging.levels import level_of
from conformance.judging.payload import BLOB_THRESHOLD, snapshot_text
from conformance.judging.refusal import refusal_kept
from conformance.matrix import CellSpec, Matrix, MatrixError, load_matrix
from conformance.matrix.lifecycle import lifecycle_meta
from conformance.paths import PathProblem
from conformance.recording.cassettes import Cassettes, MissingKeys, Origin, live_keys
from conformance.recording.media import collect, store_of, write_blobs
from conformance.recording.media_audit import MediaAudit, snapshot_problems
from conformance.running import preflight, property_gate, runlog, selection
from conformance.running.applicable import declared_not_applicable, not_applicable_reason
from conformance.running.config import (
    ConfigError,
    RunSettings,
    ini_problem,
    packaged,
    run_settings,
    scrub_local,
    shown_path,
)
from conformance.running.layers import LayersError, layers_meta
from conformance.running.options import ENGINE, ITEMS
from conformance.running.property_gate import (
    DEFAULT_EXAMPLES,
    Declared,
    PropertyCase,
    property_cases,
    run_property,
)
from conformance.targets import Target, TargetError, resolve_target

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

__all__ = ["Case", "CellCase", "PayloadSnapshot", "configure", "run_case"]

_STATE = pytest.StashKey["_State"]()
_RECORD = "conformance"

Items = Literal["check", "cell"]  # `conformance.running.options.ITEMS`


@dataclass(frozen=True)
class Case:
    """One generated test: a target, a cell and a check."""

    target: str
    cell: CellSpec
    check: Check

    @property
    def id(self) -> str:
        return f"{self.target}:{self.cell.id}:{self.check}"

    @property
    def checks(self) -> tuple[Check, ...]:
        return (self.check,)


@dataclass(frozen=True)
class CellCase:
    """One generated test with `--conformance-items cell`: every check of a cell on a target,
    each still writing its own results line."""

    target: str
    cell: CellSpec
    checks: tuple[Check, ...]

    @property
    def id(self) -> str:
        return f"{self.target}:{self.cell.id}"


@dataclass
class _State:
    matrix_path: Path
    snapshots: Path
    target_specs: list[str]
    results_path: Path | None
    sdk_schema: bool = False
    property_examples: int = DEFAULT_EXAMPLES
    """Histories per target and property (`conformance.running.property_gate`); 0 runs none."""
    require_targets: bool = False
    """A target that reports itself `unavailable` (a missing optional dependency) stops the run
    instead of skipping its tests."""
    cassettes: Path | None = None
    """The cassette folder; None leaves the cassette check out."""
    record: Origin | None = None
    """Record cassettes (against the double, or live) instead of replaying them."""
    live_keys: dict[str, str] | None = None
    cassette_runner: Cassettes | None = None
    matrix: Matrix | None = None
    targets: dict[str, Target] = field(default_factory=dict[str, Target])
    runs: dict[tuple[str, str], CellRun] = field(default_factory=dict[tuple[str, str], CellRun])
    records: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    run_log: runlog.RunLog | None = None
    selected: int | None = None
    """How many conformance tests the session selected (None: unknown, e.g. under xdist)."""
    settings: RunSettings | None = None
    updating: bool = False
    """`--snapshot-update`: the reference writes its own snapshots, never the packaged ones."""
    deviations: dict[str, DeviationsFile | None] = field(
        default_factory=dict[str, "DeviationsFile | None"]
    )
    not_applicable: dict[str, dict[str, str]] = field(default_factory=dict[str, dict[str, str]])
    """Per target spec, the features it declares it does not have (`running.applicable`)."""
    blobs: dict[Path, str | None] = field(default_factory=dict[Path, "str | None"])
    """Each media blob checked so far, and what is wrong with it (None: intact)."""
    media: MediaAudit | None = None
    isolate: bool = False
    """`--conformance-isolate`: every target renders in a worker process."""
    layers: dict[str, Any] = field(default_factory=dict[str, Any])
    """Per target and row, the layers it goes through (`conformance.running.layers`)."""
    items: Items = "check"
    """`--conformance-items`: one test per cell and check (the default), or one per cell."""

    def load(self) -> Matrix:
        if self.matrix is None:
            try:
                self.matrix = load_matrix(self.matrix_path)
            except MatrixError as error:
                raise pytest.UsageError(f"invalid matrix:\n{error}") from None
            if self.settings is not None:
                self.settings.project.importable()
            for spec in self.target_specs:
                try:
                    self.targets[spec] = resolve_target(spec)
                    self.not_applicable[spec] = declared_not_applicable(self.targets[spec])
                except TargetError as error:
                    raise pytest.UsageError(str(error)) from None
                missing = getattr(self.targets[spec], "unavailable", None)
                if missing and self.require_targets:
                    raise pytest.UsageError(
                        f"target {spec!r} is required (--conformance-require-targets) but "
                        f"unavailable: {missing}"
                    )
                self.deviations[spec] = self._deviations(self.targets[spec].name, self.matrix)
            named: dict[str, str] = {}
            for spec, target in self.targets.items():
                if named.setdefault(target.name, spec) != spec:
                    raise pytest.UsageError(
                        f"targets {named[target.name]!r} and {spec!r} are both named"
                        f" {target.name!r}: the name is a target's folder and its test ids;"
                        " run one of them"
                    )
            rows = {row_ref(cell).id: row_ref(cell) for cell in self.matrix.all_cells()}
            try:
                self.layers = layers_meta(self.targets.values(), list(rows.values()))
            except LayersError as error:
                raise pytest.UsageError(str(error)) from None
            # Last: a target that asks for isolation (or every one, --conformance-isolate)
            # renders in a worker process; what was read of it above is the target's own.
            for spec, target in self.targets.items():
                if self.isolate or isolation.wants_isolation(target):
                    self.targets[spec] = isolation.isolate(spec, target)
        return self.matrix

    def after(self, spec: str, timeouts: int) -> None:
        """A render of `spec` timed out on a thread (it may still run there, holding what it
        holds): its renders from now on run in a worker process, killed at the limit."""
        if guard.timeouts() > timeouts:
            self.targets[spec] = isolation.isolate(spec, self.targets[spec])

    def _deviations(self, name: str, matrix: Matrix) -> DeviationsFile | None:
        assert self.settings is not None
        found = self.settings.project.deviations_file(name, self.settings.deviations_folder)
        if found is None:
            return None
        if found.is_absolute() and found.is_relative_to(Path.cwd()):
            found = found.relative_to(Path.cwd())  # as the results name the matrix
        cells = [cell.id for cell in matrix.all_cells()]
        try:
            return load_deviations(found, target=name, cells=cells)
        except DeviationsError as error:
            raise pytest.UsageError(f"invalid deviations file:\n{error}") from None

    def snapshot_root(self, name: str) -> Path:
        """The reference's snapshots ship with the package: a project that has none of its
        own (and is not writing them) checks the reference against those."""
        own = self.snapshots / name
        if name != "reference" or own.is_dir() or self.updating:
            return own
        return packaged("snapshots") / name

    def wants_cassettes(self, spec: str) -> bool:
        """The reference target always has cassettes; another target once its folder exists
        (`nox -s record -- --conformance-target NAME` makes it), so that a target nobody has
        recorded yet is not reported as skipping a check on every cell."""
        if self.cassettes is None:
            return False
        name = self.targets[spec].name
        return self.record is not None or name == "reference" or (self.cassettes / name).is_dir()

    def cassette_check(self, target: str, cell: CellSpec, payload: Any) -> Any:
        if self.cassette_runner is None:
            assert self.cassettes is not None
            self.cassette_runner = Cassettes(self.cassettes, self.record, self.live_keys)
        return self.cassette_runner.check(target, cell, payload)

    def run(self, spec: str, cell: CellSpec) -> CellRun:
        key = (spec, cell.id)
        if key not in self.runs:
            before = guard.timeouts()
            self.runs[key] = run_cell(self.targets[spec], cell)
            self.after(spec, before)
        return self.runs[key]


def configure(config: pytest.Config) -> None:
    """Set the run up and register this module's hooks; a bad setting stops the run here."""
    try:
        settings = run_settings(config)
    except ConfigError as error:
        raise pytest.UsageError(f"invalid [tool.conformance]:\n{error}") from None
    if settings is None:
        return  # not configured after all: inert
    matrix_path = settings.matrix
    if matrix_path.is_absolute() and matrix_path.is_relative_to(Path.cwd()):
        matrix_path = matrix_path.relative_to(Path.cwd())  # errors name the file as typed
    results = cast("str | None", config.getoption("conformance_results"))
    state = _State(
        matrix_path=matrix_path,
        snapshots=settings.snapshots,
        target_specs=settings.targets,
        results_path=Path(results) if results else None,
        sdk_schema=bool(config.getoption("conformance_sdk_schema")),
        require_targets=bool(config.getoption("conformance_require_targets"))
        or os.environ.get("CONFORMANCE_REQUIRE_TARGETS") == "1",
        settings=settings,
    )
    state.updating = bool(getattr(config.option, "update_snapshots", False))
    state.isolate = bool(config.getoption("conformance_isolate", False))
    state.items = _items(config)
    state.record = cast("Origin | None", config.getoption("conformance_record"))
    state.cassettes = settings.cassettes
    if state.record == "live" and os.environ.get("CI"):
        raise pytest.UsageError("live recording never runs in CI (CI is set)")
    try:
        runlog.configure(
            config,
            state.results_path,
            state.matrix_path,
            state.snapshots,
            state.cassettes,
            recording=state.record is not None,
            inputs=preflight.run_inputs(config, settings),
        )
    except (PathProblem, ValueError) as error:
        raise pytest.UsageError(str(error)) from None
    root_problem = preflight.misplaced_root(config)
    if root_problem is not None:
        raise pytest.UsageError(root_problem)
    examples = cast("int | None", config.getoption("conformance_property_examples"))
    state.property_examples = DEFAULT_EXAMPLES if examples is None else examples
    config.stash[_STATE] = state
    config.pluginmanager.register(sys.modules[__name__], ENGINE)
    config.pluginmanager.register(_Recorder(state), "conformance-recorder")
    roots = lambda: [state.snapshot_root(t.name) for t in state.targets.values()]  # noqa: E731
    state.media = MediaAudit(roots, updating=state.updating)
    config.pluginmanager.register(state.media, "conformance-media")
    state.load()  # configured: a bad matrix, target or deviations file stops the run here


def _items(config: pytest.Config) -> Items:
    """`--conformance-items`, else the `conformance_items` ini key, else `check`."""
    given = cast("str | None", config.getoption("conformance_items", None))
    if given:
        return cast("Items", given)
    ini = str(config.getini("conformance_items")).strip()
    if ini and ini not in ITEMS:
        problem = "give `check` (one test per cell and check) or `cell` (one test per cell)"
        raise pytest.UsageError(ini_problem(config.inipath, "conformance_items", ini, problem))
    return "cell" if ini == "cell" else "check"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    state = metafunc.config.stash.get(_STATE, None)
    if state is None:
        return  # not this run's engine (a nested pytest run); `conformance.plugin` says why
    matrix = state.load()
    cases: list[Case | CellCase | PropertyCase] = []
    for spec in state.target_specs:
        for cell in matrix.all_cells():
            checks: tuple[Check, ...] = applicable_checks(
                cell, sdk_schema=state.sdk_schema, cassette=state.wants_cassettes(spec)
            )
            if state.record is not None:  # recording runs the cassette check alone
                checks = ("cassette",) if "cassette" in checks else ()
            if state.items == "cell":
                cases += [CellCase(spec, cell, checks)] if checks else []
            else:
                cases += [Case(spec, cell, check) for check in checks]
    if state.record is None:
        cases += property_cases(state.target_specs, state.property_examples)
    metafunc.parametrize(
        "conformance_case",
        [pytest.param(c, id=_test_id(state, c), marks=pytest.mark.conformance) for c in cases],
    )


def _test_id(state: _State, case: Case | CellCase | PropertyCase) -> str:
    """`<target name>:<cell>:<check>` (`<target name>:<cell>` for a cell test): the target as
    the results and reports name it, not the `module:attr` that found it (the name is unique
    per run: `_State.load`)."""
    return state.targets[case.target].name + case.id[len(case.target) :]


class PayloadSnapshot(SingleFileSnapshotExtension):
    """One JSON file per cell: `snapshots/<target>/<api>/<family>.<type>.<source>.<style>.json`.

    The payload is written in its own key order, indented, with no other normalization.
    """

    file_extension = "json"
    _write_mode = WriteMode.TEXT

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        return snapshot_text(data)

    @staticmethod
    def _case(test_location: PyTestLocation) -> Case | CellCase | None:
        params = getattr(getattr(test_location.item, "callspec", None), "params", {})
        case = params.get("conformance_case")
        return case if isinstance(case, Case | CellCase) else None

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        state = test_location.item.config.stash[_STATE]
        case = cls._case(test_location)
        if case is None:
            # syrupy scans the site of every collected test file; other files own nothing here.
            return str(state.snapshots / ".not-a-conformance-test")
        return str(state.snapshot_root(state.targets[case.target].name) / case.cell.api)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: Any = 0) -> str:
        case = cls._case(test_location)
        if case is None:
            return super().get_snapshot_name(test_location=test_location, index=index)
        cell = case.cell
        return f"{cell.family}.{cell.content_type}.{cell.source}.{cell.style}"

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        if cls._case(test_location) is None:
            return False
        return Path(snapshot_location) == Path(
            cls.get_location(test_location=test_location, index=0)
        )


@pytest.fixture
def conformance_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """syrupy's `snapshot`, writing one JSON file per cell."""
    return snapshot.use_extension(PayloadSnapshot)


def _record(target: Target, cell: CellSpec, check: Check) -> dict[str, Any]:
    """A cell check's results line before it runs: what the cell and check are."""
    return {
        "kind": "result",
        "target": target.name,
        "target_version": target.version,
        "cell": cell.id,
        "row": cell.row_id,
        "api": cell.api,
        "model": cell.model,
        "content_type": cell.content_type,
        "source": cell.source,
        "style": cell.style,
        "expect": cell.expect,
        "known": cell.known,
        "cite": cell.cite_id,
        "check": check,
        "level": level_of(check),
        "outcome": None,
        "detail": "",
        "reason": None,
        "link": None,
    }


def _checks(item: pytest.Item, case: Case | CellCase) -> tuple[Check, ...]:
    """The checks a test judges: its own, or what the selection left of its cell's."""
    return cast("tuple[Check, ...]", item.stash.get(selection.CHECKS, case.checks))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A cell check that does not run is skipped here, before its fixtures are set up and with
    no call phase: its target cannot run on this machine (a skip that counts against
    compliance), or the cell is declared `n/a` for it, or the target does not serve its row
    (both counted apart). A framework serving few rows skips most of its tests (LlamaIndex
    1,943 of 2,847); pytest's setup and call of each cost about as much again as a skip here
    (docs/performance.md). The results lines are those the test itself writes."""
    state = item.config.stash.get(_STATE, None)
    case = getattr(getattr(item, "callspec", None), "params", {}).get("conformance_case")
    if state is None or not isinstance(case, Case | CellCase):
        return
    target = state.targets[case.target]
    entries = [(_RECORD, _record(target, case.cell, check)) for check in _checks(item, case)]
    item.user_properties.extend(entries)  # a target whose `supports` raises still gets its lines
    unavailable = getattr(target, "unavailable", None)
    declared = None
    reason = unavailable
    if not unavailable:
        declared = not_applicable_reason(state.not_applicable.get(case.target, {}), case.cell)
        try:
            reason = declared or target.supports(row_ref(case.cell))
        except Exception as error:
            # A setup error for pytest, and a failed line per check with the error as Python
            # shows it (pytest's own text would name the test, which differs per item mode).
            shown = "".join(traceback.format_exception(error))[-2000:]
            for _, record in entries:
                record["verdict"], record["detail"] = "fail", shown
            raise
    if not reason:
        for entry in entries:
            item.user_properties.remove(entry)  # the test writes its own
        return
    for _, record in entries:
        record["detail"] = reason
        if not unavailable:
            record["na"] = "declared" if declared else "unserved"
    pytest.skip(reason)


@dataclass(frozen=True)
class _Judged:
    """What one check of a cell came to: `pass`, `xfail` (a declared deviation observed),
    `xpass` (declared, but it passed) or `fail`, and the message pytest shows."""

    verdict: str
    message: str = ""


def run_case(case: Case | CellCase | PropertyCase, request: pytest.FixtureRequest) -> None:
    """The body of every generated test. Only the snapshot check asks for syrupy's fixture.

    A check test ends as its check's verdict. A cell test (`--conformance-items cell`) judges
    each of its checks in turn, writing the same results line for each as a check test would,
    and ends failed if any check failed or passed against its declared deviation, else `xfail`
    if any declared deviation was observed."""
    item = request.node
    state = item.config.stash[_STATE]
    assert state.matrix is not None
    if isinstance(case, PropertyCase):
        found: dict[str, Any] = {}
        item.user_properties.append((_RECORD, found))
        rows = list({row_ref(cell).id: row_ref(cell) for cell in state.matrix.all_cells()}.values())
        declared = _declared(state, case.target, case.cell)
        target = state.targets[case.target]
        before = guard.timeouts()
        try:
            run_property(case, target, rows, state.property_examples, declared, found)
        finally:
            state.after(case.target, before)
        return
    target = state.targets[case.target]
    checks = _checks(item, case)
    records = [_record(target, case.cell, check) for check in checks]
    item.user_properties.extend((_RECORD, record) for record in records)
    if isinstance(case, CellCase):
        try:
            run = state.run(case.target, case.cell)
        finally:
            state.runs.pop((case.target, case.cell.id), None)  # no other test judges this cell
        judged = [
            _judge_apart(state, request, case.target, run, record, alone=False)
            for record in records
        ]
    else:
        run = state.run(case.target, case.cell)
        judged = [_judge_apart(state, request, case.target, run, records[0], alone=True)]
    failed = [j.message for j in judged if j.verdict in _FAILS]  # each names its cell and check
    if failed:
        pytest.fail("\n".join(failed), pytrace=False)
    named = isinstance(case, CellCase)  # a declared reason does not name its check
    xfailed = [
        f"{r['check']}: {j.message}" if named else j.message
        for r, j in zip(records, judged, strict=True)
        if j.verdict == "xfail"
    ]
    if xfailed:
        # `pytest.xfail`, without a traceback: pytest formats one (reading the source of every
        # frame) for each exception raised with `pytrace`, and never shows an xfail's. Its
        # reason, the message, is what `-rx` shows; the results line holds what was observed.
        raise pytest.xfail.Exception("\n".join(xfailed), pytrace=False)


_FAILS = ("fail", "xpass")


def _judge_apart(
    state: _State,
    request: pytest.FixtureRequest,
    spec: str,
    run: CellRun,
    record: dict[str, Any],
    *,
    alone: bool,
) -> _Judged:
    """`_judge`, where a check that raises fails with the error on its line, as Python shows
    it (pytest's text would name the test, which differs per item mode). A check test (`alone`)
    then raises it for pytest to show; a cell test goes on to judge its other checks, as each
    would be in a test of its own. pytest's outcomes (a skip) are not caught."""
    try:
        return _judge(state, request, spec, run, record)
    except Exception as error:
        shown = "".join(traceback.format_exception(error))[-2000:]
        judged = _failed(record, shown, shown)
        if alone:
            raise
        return judged


def _judge(
    state: _State, request: pytest.FixtureRequest, spec: str, run: CellRun, record: dict[str, Any]
) -> _Judged:
    """Judge one check of a run cell, completing its results line (verdict and detail)."""
    cell = run.cell
    check = cast("Check", record["check"])
    record["outcome"] = run.observation.outcome
    if run.observation.url is not None:
        record["url"] = run.observation.url
    if check == "snapshot":
        return _snapshot(state, request, run, record)
    if check == "cassette":
        result = _cassette(state, record["target"], run, record)
    else:
        result = refusal_kept(run, check, evaluate(run, check))
    record["detail"] = result.detail
    judgement = judge(
        state.deviations.get(spec),
        cell.id,
        check,
        passed=result.passed,
        outcome=run.observation.outcome,
        detail=result.detail,
    )
    if judgement.deviation is not None:
        record["reason"], record["link"] = judgement.deviation.reason, judgement.deviation.link
        record["notes"] = judgement.deviation.notes
    record["verdict"] = judgement.verdict
    if judgement.verdict == "fail" and not record["detail"]:
        record["detail"] = judgement.message[-2000:]
    return _Judged(judgement.verdict, judgement.message)


def _snapshot(
    state: _State, request: pytest.FixtureRequest, run: CellRun, record: dict[str, Any]
) -> _Judged:
    """The snapshot check: the payload against the cell's golden file, with syrupy."""
    item = request.node
    cell = run.cell
    location = PyTestLocation(item)
    path = Path(PayloadSnapshot.get_location(test_location=location, index=0))
    shown = shown_path(path, state.snapshots.parent)
    updating = bool(item.config.option.update_snapshots)
    if not path.exists() and not updating:
        message = (
            f"{cell.id} [snapshot]: no snapshot at {shown}; create it with"
            " `nox -s update_snapshots` (pytest --snapshot-update) and review the new file"
        )
        return _failed(record, message, message)
    if updating:  # blobs first: no snapshot names a lost one
        write_blobs(store_of(path), collect(snapshot_data(run), BLOB_THRESHOLD))
    else:  # golden data that does not parse, or names a lost or changed blob, fails here
        damaged = snapshot_problems(path, state.blobs)
        if damaged:
            detail = _GOLDEN + "\n".join(damaged)
            return _failed(record, detail, f"{cell.id} [snapshot]: {detail}")
    with warnings.catch_warnings():
        # Our file names are cell ids, not test names; syrupy warns that it cannot relate them.
        warnings.filterwarnings("ignore", r"\s*Can not relate snapshot name", UserWarning)
        snapshot = cast("SnapshotAssertion", request.getfixturevalue("conformance_snapshot"))
        matches = snapshot_data(run) == snapshot
    if not matches:
        # syrupy's diff, as its assertion message would show it, without terminal colours
        diff = _ANSI.sub("", "\n".join(snapshot.get_assert_diff()))
        detail = f"payload differs from {shown}:\n{diff[-2000:]}"
        return _failed(record, detail, f"{cell.id} [snapshot]: {detail}")
    record["detail"] = shown
    record["verdict"] = "pass"
    return _Judged("pass")


def _failed(record: dict[str, Any], detail: str, message: str) -> _Judged:
    record["detail"], record["verdict"] = detail, "fail"
    return _Judged("fail", message)


_GOLDEN = "golden data damaged: "
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _declared(state: _State, spec: str, cell: str) -> Declared | None:
    """The deviation a target's deviations file declares for a property cell, if any."""
    files = cast("dict[str, Any]", getattr(state, "deviations", {}))
    found = files.get(spec)
    return None if found is None else cast("Declared | None", found.for_cell(cell))


def _cassette(state: _State, target: str, run: CellRun, record: dict[str, Any]) -> CheckResult:
    """The cassette check: the payload sent with the official client, replayed (or recorded)."""
    if run.first.payload is None:
        return CheckResult(False, f"no payload to send: {run.first.describe()}")
    result = state.cassette_check(target, run.cell, run.first.payload)
    if result.live is not None:
        record["live"] = {"accepted": result.live.accepted, "date": result.live.date.isoformat()}
    return CheckResult(result.passed, result.detail)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _STATE in config.stash:
        selection.deselect(config, items)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The property tests selected, so that a target's shared renders go once its last one ends
    (`property_gate.plan`). A live recording needs every selected api's keys: say which are
    missing, up front."""
    state = session.config.stash.get(_STATE, None)
    if state is None:
        return
    property_gate.plan(
        getattr(getattr(item, "callspec", None), "params", {}).get("conformance_case")
        for item in session.items
    )
    _Frozen.now()
    if state.record != "live":
        return
    apis = {
        case.cell.api
        for item in session.items
        if isinstance(
            case := getattr(getattr(item, "callspec", None), "params", {}).get("conformance_case"),
            Case | CellCase,
        )
    }
    try:
        state.live_keys = live_keys(apis, os.environ)
    except MissingKeys as error:
        raise pytest.UsageError(str(error)) from None


class _Frozen:
    """What was loaded before, kept out of the cycle collector's full collections.

    A run holds hundreds of thousands of long-lived objects that are never garbage: the
    modules, classes and pydantic schemas of the plugin, the targets and the provider SDKs
    (imported on first use by `sdk-schema` and `cassette`). Each of Python's full collections
    walks all of them; on the reference run the dozen it made took about 1.9 s of 13 s CPU
    (docs/performance.md). So at the end of collection, and after a conformance test during
    which a module was loaded, what is alive is moved to the permanent generation
    (`gc.freeze`): those objects are freed by reference counting as before, and only a cycle
    among them that became garbage later is left to the end of the process. Nothing judged
    depends on when the collector runs."""

    modules = 0

    @classmethod
    def now(cls) -> None:
        gc.freeze()
        cls.modules = len(sys.modules)

    @classmethod
    def if_loaded(cls) -> None:
        if len(sys.modules) != cls.modules:
            cls.now()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    if _STATE in item.config.stash and item.get_closest_marker("conformance") is not None:
        _Frozen.if_loaded()


class _Recorder:
    """Collects the records of each conformance test report (one per check) and writes the
    results file."""

    def __init__(self, state: _State) -> None:
        self.state = state
        self.nodeids: list[str] = []  # the test of each record, to write them in collection order
        self.collected: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A test's results lines (a cell test has one per check), from its setup if that did
        not pass, else from its call. A line the test judged keeps its verdict; one it did not
        reach (the target crashed, a skip) takes the test's outcome."""
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        for key, found in report.user_properties:
            if key != _RECORD:
                continue
            record = dict(cast("dict[str, Any]", found))
            if record.get("verdict"):
                pass
            elif hasattr(report, "wasxfail"):
                record["verdict"] = "xfail"
            elif report.skipped:
                record["verdict"] = "skip"
            elif report.failed:
                record["verdict"] = "fail"  # the test crashed before judging it
                record["detail"] = record["detail"] or report.longreprtext[-2000:]
            else:
                record["verdict"] = "pass"
            if record.get("detail"):  # nothing of this machine or run: ports, absolute paths
                record["detail"] = scrub_local(str(record["detail"]))
            self.state.records.append(record)
            self.nodeids.append(report.nodeid)

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        state = self.state
        if state.results_path is not None and not hasattr(session.config, "workerinput"):
            state.load()
            try:
                state.run_log = runlog.begin(session.config, state.results_path, self._meta())
            except runlog.RunBusy as error:
                raise pytest.UsageError(str(error)) from None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.state.selected = (
            sum(item.get_closest_marker("conformance") is not None for item in session.items)
            or None
        )
        self.collected = [item.nodeid for item in session.items]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        """Under xdist the controller collects nothing: every worker sends the same ids."""
        self.collected = self.collected or list(ids)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        state = self.state
        if state.cassette_runner is not None:
            state.cassette_runner.close()
        for target in state.targets.values():
            if isinstance(target, isolation.Isolated):
                target.close()
        if state.run_log is not None:
            records = runlog.in_collection_order(state.records, self.nodeids, self.collected)
            golden = self._golden(session, records)
            exitstatus = max(int(exitstatus), int(session.exitstatus))  # the audit's, syrupy's
            runlog.end(
                session,
                state.run_log,
                self._meta(),
                records,
                state.selected,
                exitstatus,
                golden=golden,
                ran=len(set(self.nodeids)),
            )

    def _golden(self, session: pytest.Session, records: list[dict[str, Any]]) -> list[str]:
        """The media audit's findings that no failing line of the file names already (an
        unused blob, a damaged blob of cells the run did not judge): the end line lists them."""
        if self.state.media is None:
            return []
        named = [str(r["detail"]) for r in records if str(r.get("detail", "")).startswith(_GOLDEN)]
        return [
            problem
            for problem in self.state.media.run(session)
            if not any(Path(problem.rsplit(" ", 1)[-1]).name in text for text in named)
        ]

    def pytest_unconfigure(self) -> None:
        if self.state.run_log is not None:
            self.state.run_log.release()
        guard.set_time_limit(guard.DEFAULT_TIME_LIMIT)

    def _meta(self) -> dict[str, Any]:
        state = self.state
        assert state.matrix is not None
        variants = variant_of(state.targets.values())
        return runlog.meta_line(
            __version__,
            shown_path(state.matrix_path),
            state.matrix.digest,
            {t.name: t.version for t in state.targets.values()},
            as_of=state.matrix.as_of.isoformat(),
            lifecycle=lifecycle_meta(state.matrix),
            sdk_versions={  # what each target drives, from its optional `sdk_versions`
                t.name: dict(getattr(t, "sdk_versions", None) or {}) for t in state.targets.values()
            },
            **({"layers": state.layers} if state.layers else {}),
            **({"variant_of": variants} if variants else {}),
            deviations={
                state.targets[spec].name: {
                    "path": shown_path(Path(found.path)),
                    "digest": found.digest,
                }
                for spec, found in state.deviations.items()
                if found is not None
            },
        )


def variant_of(targets: Any) -> dict[str, str]:
    """Per variant target among `targets`, the framework target it is a variant of (its
    optional `variant_of` class attribute: another entry point of the same framework, e.g.
    `litellm.anthropic-messages` of `litellm`)."""
    return {
        t.name: str(framework)
        for t in targets
        if isinstance(framework := getattr(t, "variant_of", None), str) and framework
    }
