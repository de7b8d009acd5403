"""The pytest plugin: one test per target, cell and check, snapshots, and a results file.

Options (all under `--conformance-*`, or the `conformance_*` ini keys):

- `--conformance-matrix PATH`: the matrix; a bad file stops the run with `file:line:col` errors.
- `--conformance-target NAME`: `reference`, an entry-point name or `module:attr` (repeatable).
- `--conformance-results PATH`: write one JSON line per cell and check.
- `--conformance-cassettes DIR` (ini `conformance_cassettes`): replay every rendered payload
  through its api's official client from `DIR/<target>/<api>/<cell>.yaml` (the `cassette`
  check); `--conformance-record double|live` records them instead (`nox -s record`).

A test module opts in by holding `test_conformance` from `conformance.suite`.
"""

from __future__ import annotations

import json
import os
import platform
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation

from conformance import __version__
from conformance.cassettes import Cassettes, MissingKeys, Origin, live_keys
from conformance.checks import (
    CellRun,
    Check,
    CheckResult,
    applicable_checks,
    evaluate,
    row_ref,
    run_cell,
    snapshot_data,
)
from conformance.matrix import CellSpec, Matrix, MatrixError, load_matrix
from conformance.payload import snapshot_text
from conformance.targets import Target, TargetError, resolve_target

if TYPE_CHECKING:
    from syrupy.assertion import SnapshotAssertion
    from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SerializedData

__all__ = ["Case", "PayloadSnapshot", "run_case"]

_STATE = pytest.StashKey["_State"]()
_RECORD = "conformance"


@dataclass(frozen=True)
class Case:
    """One generated test: a target, a cell and a check."""

    target: str
    cell: CellSpec
    check: Check

    @property
    def id(self) -> str:
        return f"{self.target}:{self.cell.id}:{self.check}"


@dataclass
class _State:
    matrix_path: Path
    snapshots: Path
    target_specs: list[str]
    results_path: Path | None
    sdk_schema: bool = False
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

    def load(self) -> Matrix:
        if self.matrix is None:
            try:
                self.matrix = load_matrix(self.matrix_path)
            except MatrixError as error:
                raise pytest.UsageError(f"invalid matrix:\n{error}") from None
            for spec in self.target_specs:
                try:
                    self.targets[spec] = resolve_target(spec)
                except TargetError as error:
                    raise pytest.UsageError(str(error)) from None
                missing = getattr(self.targets[spec], "unavailable", None)
                if missing and self.require_targets:
                    raise pytest.UsageError(
                        f"target {spec!r} is required (--conformance-require-targets) but "
                        f"unavailable: {missing}"
                    )
        return self.matrix

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
            self.runs[key] = run_cell(self.targets[spec], cell)
        return self.runs[key]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "tool-result conformance")
    group.addoption("--conformance-matrix", help="matrix.yaml to generate tests from")
    group.addoption(
        "--conformance-target",
        action="append",
        help="target under test: reference, an entry-point name, or module:attr (repeatable)",
    )
    group.addoption("--conformance-results", help="write one JSON line per cell and check here")
    group.addoption(
        "--conformance-cassettes",
        help="cassette folder: replay each payload through its official SDK (the cassette check)",
    )
    group.addoption(
        "--conformance-record",
        choices=("double", "live"),
        help="record the cassettes instead of replaying them: against the local provider double,"
        " or the live APIs with keys from the environment (runs the cassette check alone)",
    )
    group.addoption(
        "--conformance-require-targets",
        action="store_true",
        help="fail, instead of skipping, when a target is unavailable (an optional dependency is"
        " missing); also set by CONFORMANCE_REQUIRE_TARGETS=1",
    )
    group.addoption(
        "--conformance-sdk-schema",
        action="store_true",
        help="also validate every payload with the official SDKs' types (needs the SDKs)",
    )
    parser.addini("conformance_matrix", "matrix.yaml to generate tests from", default="")
    parser.addini("conformance_snapshots", "snapshot folder", default="snapshots")
    parser.addini("conformance_cassettes", "cassette folder (the cassette check)", default="")
    parser.addini("conformance_targets", "targets under test", type="linelist", default=[])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a generated conformance test")
    cli_matrix = cast("str | None", config.getoption("conformance_matrix"))
    ini_matrix = cast("str", config.getini("conformance_matrix"))
    explicit = bool(cli_matrix or ini_matrix)
    if cli_matrix:
        matrix_path = Path(cli_matrix)
    elif ini_matrix:
        matrix_path = config.rootpath / ini_matrix
    else:
        matrix_path = _packaged_matrix()
    if matrix_path.is_absolute() and matrix_path.is_relative_to(Path.cwd()):
        matrix_path = matrix_path.relative_to(Path.cwd())  # errors name the file as typed
    specs = cast("list[str] | None", config.getoption("conformance_target")) or cast(
        "list[str]", config.getini("conformance_targets")
    )
    results = cast("str | None", config.getoption("conformance_results"))
    state = _State(
        matrix_path=matrix_path,
        snapshots=config.rootpath / cast("str", config.getini("conformance_snapshots")),
        target_specs=specs or ["reference"],
        results_path=Path(results) if results else None,
        sdk_schema=bool(config.getoption("conformance_sdk_schema")),
        require_targets=bool(config.getoption("conformance_require_targets"))
        or os.environ.get("CONFORMANCE_REQUIRE_TARGETS") == "1",
    )
    cassettes = cast("str | None", config.getoption("conformance_cassettes"))
    ini_cassettes = cast("str", config.getini("conformance_cassettes"))
    state.record = cast("Origin | None", config.getoption("conformance_record"))
    if cassettes:
        state.cassettes = Path(cassettes)
    elif ini_cassettes or state.record:
        state.cassettes = config.rootpath / (ini_cassettes or "cassettes")
    if state.record == "live" and os.environ.get("CI"):
        raise pytest.UsageError("live recording never runs in CI (CI is set)")
    config.stash[_STATE] = state
    config.pluginmanager.register(_Recorder(state), "conformance-recorder")
    if explicit:
        state.load()


def _packaged_matrix() -> Path:
    """The matrix shipped in the wheel, or the repository's own in a source checkout."""
    shipped = Path(__file__).parent / "data" / "matrix.yaml"
    return shipped if shipped.exists() else Path(__file__).parent.parent / "matrix.yaml"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "conformance_case" not in metafunc.fixturenames:
        return
    state = metafunc.config.stash[_STATE]
    matrix = state.load()
    cases = [
        Case(spec, cell, check)
        for spec in state.target_specs
        for cell in matrix.all_cells()
        for check in applicable_checks(
            cell, sdk_schema=state.sdk_schema, cassette=state.wants_cassettes(spec)
        )
        if state.record is None or check == "cassette"  # recording runs the cassette check alone
    ]
    metafunc.parametrize(
        "conformance_case",
        [pytest.param(c, id=c.id, marks=pytest.mark.conformance) for c in cases],
    )


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
    def _case(test_location: PyTestLocation) -> Case | None:
        params = getattr(getattr(test_location.item, "callspec", None), "params", {})
        return cast("Case | None", params.get("conformance_case"))

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        state = test_location.item.config.stash[_STATE]
        case = cls._case(test_location)
        if case is None:
            # syrupy scans the site of every collected test file; other files own nothing here.
            return str(state.snapshots / ".not-a-conformance-test")
        return str(state.snapshots / state.targets[case.target].name / case.cell.api)

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


def run_case(case: Case, snapshot: SnapshotAssertion, item: pytest.Item) -> None:
    """The body of every generated test."""
    state = item.config.stash[_STATE]
    assert state.matrix is not None
    target = state.targets[case.target]
    cell = case.cell
    record: dict[str, Any] = {
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
        "check": case.check,
        "outcome": None,
        "detail": "",
        "reason": None,
        "link": None,
    }
    item.user_properties.append((_RECORD, record))
    reason = getattr(target, "unavailable", None) or target.supports(row_ref(cell))
    if reason is not None:
        record["detail"] = reason
        pytest.skip(reason)
    run = state.run(case.target, cell)
    record["outcome"] = run.observation.outcome
    if case.check == "snapshot":
        location = PyTestLocation(item)
        path = Path(PayloadSnapshot.get_location(test_location=location, index=0))
        record["detail"] = str(path.relative_to(state.snapshots.parent))
        if not path.exists() and not item.config.option.update_snapshots:
            pytest.fail(
                f"{cell.id}: no snapshot at {record['detail']}; create it with "
                "`nox -s update_snapshots` (pytest --snapshot-update) and review the new file",
                pytrace=False,
            )
        with warnings.catch_warnings():
            # Our file names are cell ids, not test names; syrupy warns that it cannot relate them.
            warnings.filterwarnings("ignore", r"\s*Can not relate snapshot name", UserWarning)
            assert snapshot_data(run) == snapshot
        return
    if case.check == "cassette":
        result = _cassette(state, target.name, run, record)
    else:
        result = evaluate(run, case.check)
    record["detail"] = result.detail
    deviation = state.matrix.deviation(target.name, cell.id)
    if deviation is None:
        if not result.passed:
            pytest.fail(f"{cell.id} [{case.check}]: {result.detail}", pytrace=False)
        return
    record["reason"], record["link"] = deviation.reason, deviation.link
    if result.passed:
        if case.check == "outcome":
            record["verdict"] = "xpass"
            pytest.fail(
                f"{cell.id}: the declared deviation ({deviation.outcome}) no longer happens; "
                "remove it from matrix.yaml",
                pytrace=False,
            )
        return
    if run.observation.outcome != deviation.outcome:
        pytest.fail(
            f"{cell.id} [{case.check}]: declared deviation {deviation.outcome}, observed "
            f"{run.observation.outcome}: {result.detail}",
            pytrace=False,
        )
    pytest.xfail(f"known deviation: {deviation.reason} ({deviation.link})")


def _cassette(state: _State, target: str, run: CellRun, record: dict[str, Any]) -> CheckResult:
    """The cassette check: the payload sent with the official client, replayed (or recorded)."""
    if run.first.payload is None:
        return CheckResult(False, f"no payload to send: {run.first.describe()}")
    result = state.cassette_check(target, run.cell, run.first.payload)
    if result.live is not None:
        record["live"] = {"accepted": result.live.accepted, "date": result.live.date.isoformat()}
    return CheckResult(result.passed, result.detail)


def pytest_collection_finish(session: pytest.Session) -> None:
    """A live recording needs every selected api's keys: say which are missing, up front."""
    state = session.config.stash.get(_STATE, None)
    if state is None or state.record != "live":
        return
    apis = {
        case.cell.api
        for item in session.items
        if isinstance(
            case := getattr(getattr(item, "callspec", None), "params", {}).get("conformance_case"),
            Case,
        )
    }
    try:
        state.live_keys = live_keys(apis, os.environ)
    except MissingKeys as error:
        raise pytest.UsageError(str(error)) from None


class _Recorder:
    """Collects one record per conformance test report and writes the results file."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        found = next((value for key, value in report.user_properties if key == _RECORD), None)
        if found is None:
            return
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        record = dict(cast("dict[str, Any]", found))
        if "verdict" in record:
            pass
        elif hasattr(report, "wasxfail"):
            record["verdict"] = "xfail"
        elif report.skipped:
            record["verdict"] = "skip"
        elif report.failed:
            record["verdict"] = "fail"
            if not record["detail"] or record["check"] == "snapshot":
                record["detail"] = _failure_text(report, record)
        else:
            record["verdict"] = "pass"
        self.state.records.append(record)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        state = self.state
        if state.cassette_runner is not None:
            state.cassette_runner.close()
        if state.results_path is None or hasattr(session.config, "workerinput"):
            return
        matrix = state.load()
        meta = {
            "kind": "meta",
            "suite_version": __version__,
            "matrix": str(state.matrix_path),
            "matrix_digest": matrix.digest,
            "targets": {t.name: t.version for t in state.targets.values()},
            "sdk_versions": {  # what each target drives, from its optional `sdk_versions`
                t.name: dict(getattr(t, "sdk_versions", None) or {}) for t in state.targets.values()
            },
            "python": platform.python_version(),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        order = (
            "kind",
            "target",
            "target_version",
            "cell",
            "row",
            "api",
            "model",
            "content_type",
            "source",
            "style",
            "expect",
            "known",
            "cite",
            "check",
            "verdict",
            "outcome",
            "detail",
            "reason",
            "link",
        )
        lines = [
            meta,
            *(
                {k: r[k] for k in order} | ({"live": r["live"]} if "live" in r else {})
                for r in state.records
            ),
        ]
        lines.append({"kind": "end", "results": len(state.records)})
        state.results_path.parent.mkdir(parents=True, exist_ok=True)
        with state.results_path.open("w", encoding="utf-8") as out:
            for line in lines:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")


def _failure_text(report: pytest.TestReport, record: dict[str, Any]) -> str:
    text = report.longreprtext
    if record["check"] == "snapshot" and "no snapshot at" not in text:
        return f"payload differs from {record['detail']}:\n{text[-2000:]}"
    return text[-2000:]
