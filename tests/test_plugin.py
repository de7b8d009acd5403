"""The pytest plugin end to end, in a scratch project run by pytester."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.judging.checks import applicable_checks
from conformance.matrix import load_matrix

ROOT = Path(__file__).resolve().parent.parent
ONE_ROW = "openai-chat/gpt-6/"
IMAGE_CELL = "openai-chat/gpt-6/image/inline/result"


def results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_reference_passes_and_writes_a_complete_results_file(project: pytest.Pytester) -> None:
    cells = [c for c in load_matrix(ROOT / "matrix.yaml").all_cells() if c.id.startswith(ONE_ROW)]
    tests = sum(len(applicable_checks(c)) for c in cells)
    project.runpytest("-k", ONE_ROW, "--snapshot-update").assert_outcomes(passed=tests)
    written = list((project.path / "snapshots/reference/openai-chat").glob("*.json"))
    assert len(written) == len(cells)
    run = project.runpytest("-k", ONE_ROW, "--conformance-results", "out/r.jsonl")
    run.assert_outcomes(passed=tests)
    lines = results(project.path / "out/r.jsonl")
    meta, body, end = lines[0], lines[1:-1], lines[-1]
    assert meta["kind"] == "meta"
    assert meta["targets"] == {"reference": "0.1.0"}
    assert meta["matrix_digest"].startswith("sha256:")
    matrix = load_matrix(ROOT / "matrix.yaml")
    assert meta["as_of"] == matrix.as_of.isoformat()
    assert set(meta["lifecycle"]) == set(matrix.rows)
    row = matrix.row(ONE_ROW.rstrip("/"))
    assert meta["lifecycle"][ONE_ROW.rstrip("/")]["released"] == row.released.date.isoformat()
    assert end | {"end": "-"} == {
        "kind": "end",
        "results": tests,
        "status": "complete",
        "exit_status": 0,
        "run": meta["run"]["id"],
        "end": "-",
    }
    assert meta["run"]["command"][:2] == ["pytest", "-k"]
    assert {line["verdict"] for line in body} == {"pass"}
    assert {line["check"] for line in body} >= {"snapshot", "outcome", "provenance"}
    image = next(x for x in body if x["cell"] == IMAGE_CELL and x["check"] == "outcome")
    assert image["outcome"] == "fallback-marked"
    assert image["expect"] == "fallback"


def test_missing_snapshot_fails_and_says_how_to_create_it(project: pytest.Pytester) -> None:
    (project.path / "snapshots/reference").mkdir(parents=True)  # its own: the packaged unused
    run = project.runpytest("-k", f"{IMAGE_CELL}:snapshot", "--conformance-results", "r.jsonl")
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines(
        ["*no snapshot at snapshots/reference/openai-chat/*nox -s update_snapshots*"]
    )
    (line,) = results(project.path / "r.jsonl")[1:-1]
    assert line["verdict"] == "fail"
    assert "update_snapshots" in line["detail"]


def test_the_reference_is_scored_on_its_packaged_snapshots(project: pytest.Pytester) -> None:
    """A project with no snapshots of the reference checks it against those shipped with the
    package, so running the reference from another repository does not score 0."""
    run = project.runpytest("-k", f"{ONE_ROW} and :snapshot")
    assert run.ret == pytest.ExitCode.OK
    assert not (project.path / "snapshots").exists()
    run = project.runpytest(
        "-k", f"{IMAGE_CELL}:snapshot", "--conformance-target", "mutants:DropsMedia"
    )
    run.assert_outcomes(failed=1)  # other targets have no packaged snapshots


def test_a_changed_payload_fails_its_snapshot(project: pytest.Pytester) -> None:
    project.runpytest("-k", f"{IMAGE_CELL}:snapshot", "--snapshot-update")
    path = project.path / "snapshots/reference/openai-chat/gpt-6.image.inline.result.json"
    path.write_text(
        path.read_text(encoding="utf-8").replace("gpt-6-luna", "gpt-6-lunx", 1), encoding="utf-8"
    )
    run = project.runpytest("-k", f"{IMAGE_CELL}:snapshot")
    run.assert_outcomes(failed=1)
    run.stdout.fnmatch_lines(["*gpt-6-lunx*"])


def test_a_mutant_target_gets_failing_verdicts(project: pytest.Pytester) -> None:
    run = project.runpytest(
        "-k",
        IMAGE_CELL,
        "--conformance-target",
        "mutants:DropsMedia",
        "--conformance-results",
        "r.jsonl",
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    lines = results(project.path / "r.jsonl")
    assert lines[0]["targets"] == {"mutant-drops-media": "0.1.0"}
    verdicts = {x["check"]: (x["verdict"], x["outcome"]) for x in lines[1:-1]}
    assert verdicts["outcome"] == ("fail", "dropped")
    assert verdicts["no-silent-loss"] == ("fail", "dropped")


def test_declared_deviations_are_xfail_and_a_stale_one_fails(project: pytest.Pytester) -> None:
    (project.path / "deviations").mkdir()
    (project.path / "deviations" / "mutant-drops-media.yaml").write_text(
        "target: mutant-drops-media\ndeviations:\n"
        + f"  - cell: {IMAGE_CELL}\n    checks: [outcome]\n    outcome: dropped\n"
        + "    level: reference\n"
        + "    reason: drops tool images\n    link: https://example.com/issue/1\n"
        + "  - cell: openai-chat/gpt-6/text/inline/result\n    checks: [outcome]\n"
        + "    outcome: dropped\n    level: reference\n"
        + "    reason: was fixed upstream\n    notes: docs/x.md#fixed\n",
        encoding="utf-8",
    )
    run = project.runpytest(
        "-k",
        f"{IMAGE_CELL}:outcome or openai-chat/gpt-6/text/inline/result:outcome",
        "--conformance-target",
        "mutants:DropsMedia",
        "--conformance-results",
        "r.jsonl",
    )
    lines = {(x["cell"], x["check"]): x for x in results(project.path / "r.jsonl")[1:-1]}
    dropped = lines[(IMAGE_CELL, "outcome")]
    assert dropped["verdict"] == "xfail"
    assert dropped["reason"] == "drops tool images"
    assert dropped["link"] == "https://example.com/issue/1"
    stale = lines[("openai-chat/gpt-6/text/inline/result", "outcome")]
    assert stale["verdict"] == "xpass"
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    run.stdout.fnmatch_lines(["*the declared deviation no longer happens (this check passes)*"])
    assert stale["notes"] == "docs/x.md#fixed"
    meta = results(project.path / "r.jsonl")[0]
    assert meta["deviations"]["mutant-drops-media"]["path"] == "deviations/mutant-drops-media.yaml"


def test_a_bad_matrix_stops_the_run_with_its_location(project: pytest.Pytester) -> None:
    matrix = project.path / "matrix.yaml"
    lines = matrix.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.strip() == "image:")
    lines[index] = lines[index].replace("image:", "imgae:")
    matrix.write_text("".join(lines), encoding="utf-8")
    run = project.runpytest()
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines([f"*matrix.yaml:{index + 1}:*imgae*"])
    assert "Traceback" not in run.stderr.str()


@pytest.mark.parametrize(
    "bad",
    [
        "syntax",
        "duplicate_key",
        "unknown_content_type",
        "unknown_expectation",
        "missing_style",
        "unknown_key_row",
        "unknown_key_cell",
    ],
)
def test_each_kind_of_malformed_matrix_stops_the_run(project: pytest.Pytester, bad: str) -> None:
    source = ROOT / "tests" / "data" / "bad_matrix" / f"{bad}.yaml"
    (project.path / "matrix.yaml").write_bytes(source.read_bytes())
    run = project.runpytest()
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["matrix.yaml:*:*: *"])
    assert "Traceback" not in run.stderr.str()


def test_an_unknown_target_is_a_usage_error(project: pytest.Pytester) -> None:
    run = project.runpytest("--conformance-target", "no-such-target")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*unknown target 'no-such-target'; known targets: *reference*"])


def test_a_target_that_fails_to_import_is_a_usage_error(project: pytest.Pytester) -> None:
    run = project.runpytest("--conformance-target", "no_such_module:Target")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*cannot import 'no_such_module'*"])


def test_projects_without_the_matrix_option_are_untouched(pytester: pytest.Pytester) -> None:
    """The plugin is installed for every pytest run; it must stay inert where unused."""
    pytester.makepyfile("def test_ok():\n    assert 1 + 1 == 2\n")
    pytester.runpytest().assert_outcomes(passed=1)
