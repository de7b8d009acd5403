"""Deviations files: loading with located errors, strict judging per check, and generation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import cli
from conformance.adoption.reasons import Rules, from_results, load_rules, render_deviations
from conformance.judging.deviations import (
    PLACEHOLDER,
    DeviationsError,
    deviations_schema,
    judge,
    load_deviations,
)
from conformance.matrix import load_matrix
from conformance.reports.results import load_results

ROOT = Path(__file__).resolve().parent.parent
CELLS = [cell.id for cell in load_matrix(ROOT / "matrix.yaml").all_cells()]
CELL = "openai-chat/gpt-6/image/inline/result"

GOOD = f"""\
target: toy
deviations:
  - cell: {CELL}
    checks: [outcome, provenance]
    outcome: fallback-unmarked
    level: recommended
    reason: the toy moves images without a marker
    link: https://github.com/example/toy/issues/1
    notes: docs/toy.md#images
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def errors(tmp_path: Path, text: str, **kwargs: object) -> list[str]:
    with pytest.raises(DeviationsError) as caught:
        load_deviations(write(tmp_path, text), cells=CELLS, **kwargs)  # type: ignore[arg-type]
    return [f"{e.line}:{e.col}: {e.message}" for e in caught.value.errors]


def test_a_good_file_loads_with_its_digest(tmp_path: Path) -> None:
    found = load_deviations(write(tmp_path, GOOD), target="toy", cells=CELLS)
    (deviation,) = found.deviations
    assert deviation.checks == ("outcome", "provenance")
    assert deviation.notes == "docs/toy.md#images"
    assert found.digest.startswith("sha256:")
    assert found.for_cell(CELL) is deviation
    assert found.for_cell("openai-chat/gpt-6/text/inline/result") is None


@pytest.mark.parametrize(
    ("old", "new", "where", "says"),
    [
        (CELL, CELL.replace("result", "reslt"), "3:11", "is not in the matrix"),
        ("[outcome, provenance]", "[outcome, snapshot]", "4:23", "it cannot deviate"),
        ("[outcome, provenance]", "[outcome, outcomes]", "4:23", "unknown check 'outcomes'"),
        ("level: recommended", "level: reference", "6:12", "not the strongest level"),
        (
            "https://github.com/example/toy/issues/1",
            "docs/toy.md#bug",
            "8:11",
            "put our own notes (docs/...) under `notes`",
        ),
        ("fallback-unmarked", "lost", "5:14", "outcome"),
        ("the toy moves images without a marker", f'"{PLACEHOLDER}"', "7:13", "a person must"),
        ("    notes:", "    note:", "9:5", "unknown key 'note'"),
        ("target: toy", "target: Toy Framework", "1:9", "a target name is lower case"),
    ],
)
def test_each_problem_is_located(tmp_path: Path, old: str, new: str, where: str, says: str) -> None:
    assert old in GOOD
    found = errors(tmp_path, GOOD.replace(old, new, 1))
    assert any(e.startswith(where) and says in e for e in found), found


def test_a_cell_given_twice_and_the_wrong_target(tmp_path: Path) -> None:
    twice = GOOD + GOOD.split("deviations:\n", 1)[1]
    found = errors(tmp_path, twice, target="other")
    assert any(e.startswith("1:9: this file is for target 'toy', not 'other'") for e in found)
    assert any(e.startswith("10:11:") and "already has a deviation" in e for e in found)


def test_yaml_syntax_and_an_empty_file(tmp_path: Path) -> None:
    assert errors(tmp_path, "target: [toy\n")[0].startswith("2:1:")
    assert "the file is empty" in errors(tmp_path, "")[0]


def test_judging_is_strict_per_check(tmp_path: Path) -> None:
    found = load_deviations(write(tmp_path, GOOD), cells=CELLS)
    kwargs = {"outcome": "fallback-unmarked", "detail": "d"}
    assert judge(found, CELL, "provenance", passed=False, **kwargs).verdict == "xfail"
    stale = judge(found, CELL, "provenance", passed=True, **kwargs)
    assert stale.verdict == "xpass"
    assert "remove 'provenance'" in stale.message
    assert judge(found, CELL, "no-silent-loss", passed=False, **kwargs).verdict == "fail"
    assert judge(found, CELL, "no-silent-loss", passed=True, **kwargs).verdict == "pass"
    other = judge(found, CELL, "outcome", passed=False, outcome="dropped", detail="d")
    assert other.verdict == "fail"
    assert "declared deviation fallback-unmarked, observed dropped" in other.message
    assert judge(None, CELL, "outcome", passed=False, **kwargs).verdict == "fail"


def _results(tmp_path: Path) -> Path:
    meta = {
        "kind": "meta",
        "suite_version": "0.1.0",
        "matrix": "matrix.yaml",
        "matrix_digest": "sha256:x",
        "targets": {"toy": "1"},
        "python": "3.11.7",
        "date": "2026-12-01T10:00:00+00:00",
    }
    base = {
        "kind": "result",
        "target": "toy",
        "target_version": "1",
        "row": "openai-chat/gpt-6",
        "api": "openai-chat",
        "model": "gpt-4o",
        "source": "inline",
        "known": "doc",
        "cite": "c",
        "reason": None,
        "link": None,
    }
    lines = [
        base | {"cell": CELL, "content_type": "image", "style": "result", "expect": "fallback",
                "check": "provenance", "verdict": "fail", "outcome": "fallback-unmarked",
                "detail": "no marker before it"},
        base | {"cell": CELL, "content_type": "image", "style": "result", "expect": "fallback",
                "check": "snapshot", "verdict": "fail", "outcome": "fallback-unmarked",
                "detail": "differs"},
        base | {"cell": CELL, "content_type": "image", "style": "result", "expect": "fallback",
                "check": "no-silent-loss", "verdict": "pass", "outcome": "fallback-unmarked",
                "detail": ""},
        base | {"cell": "openai-chat/gpt-6/audio/inline/result", "content_type": "audio",
                "style": "result", "expect": "unsupported", "check": "outcome",
                "verdict": "fail", "outcome": "noted", "detail": "a note"},
    ]  # fmt: skip
    path = tmp_path / "r.jsonl"
    text = [json.dumps(x) for x in [meta, *lines, {"kind": "end", "results": len(lines)}]]
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    return path


def test_generated_entries_take_reasons_from_rules_and_placeholders_are_refused(
    tmp_path: Path,
) -> None:
    rules_path = tmp_path / "toy.reasons.yaml"
    rules_path.write_text(
        "rules:\n  - when: {check: provenance, detail: 'no marker'}\n"
        "    reason: images move without a marker\n    notes: docs/toy.md#m\n",
        encoding="utf-8",
    )
    rules = load_rules(rules_path)
    entries = from_results(load_results([_results(tmp_path)]), "toy", rules)
    assert [e["checks"] for e in entries] == [["provenance"], ["outcome"]]  # never snapshot
    assert entries[0]["reason"] == "images move without a marker"
    assert entries[0]["level"] == "recommended"
    assert entries[1]["reason"] == PLACEHOLDER
    out = tmp_path / "deviations" / "toy.yaml"
    out.parent.mkdir()
    out.write_text(render_deviations("toy", entries), encoding="utf-8")
    with pytest.raises(DeviationsError, match=r"toy.yaml:15:13: a person must write"):
        load_deviations(out, target="toy", cells=CELLS)
    entries = from_results(load_results([_results(tmp_path)]), "toy", Rules())
    assert {e["reason"] for e in entries} == {PLACEHOLDER}


def test_the_command_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "toy.yaml"
    assert cli.main([
        "deviations", str(_results(tmp_path)), "--target", "toy", "-o", str(out)
    ]) == 0  # fmt: skip
    assert "2 have no reason yet" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").count(PLACEHOLDER) == 2
    assert cli.main(["deviations", str(_results(tmp_path)), "--target", "nope"]) == 2
    assert "no results of target 'nope'" in capsys.readouterr().err


def test_a_bad_rule_is_located(tmp_path: Path) -> None:
    from conformance.adoption.reasons import RulesError

    path = tmp_path / "r.yaml"
    path.write_text("rules:\n  - when: {outcome: lost}\n    reason: x\n", encoding="utf-8")
    with pytest.raises(RulesError, match=r"r.yaml:2:21: rules.0.when.outcome"):
        load_rules(path)


def test_pydantic_ai_deviations_are_valid_and_the_schema_is_committed() -> None:
    found = load_deviations(ROOT / "deviations/pydantic-ai.yaml", target="pydantic-ai", cells=CELLS)
    assert len(found.deviations) > 100
    assert all(d.link is None or d.link.startswith("https://") for d in found.deviations)
    committed = json.loads((ROOT / "deviations.schema.json").read_text(encoding="utf-8"))
    assert committed == deviations_schema()


def test_a_failing_property_is_declared_by_its_own_check_with_no_outcome(tmp_path: Path) -> None:
    """A property's results line becomes `property/<name>`, checks [<name>], its level, and no
    outcome; a rule matches it by name only; the loader accepts the entry."""
    path = _results(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    prop = {
        "kind": "result",
        "target": "toy",
        "target_version": "1",
        "cell": "property/media-exactly-once",
        "property": "media-exactly-once",
        "check": "media-exactly-once",
        "level": "required",
        "verdict": "fail",
        "examples": 3,
        "row": "openai-chat/gpt-6",
        "detail": "an image appears twice",
        "reason": None,
        "link": None,
    }
    end = json.loads(lines[-1])
    end["results"] += 1
    path.write_text("\n".join([*lines[:-1], json.dumps(prop), json.dumps(end)]) + "\n", "utf-8")
    rules_path = tmp_path / "toy.reasons.yaml"
    rules_path.write_text(
        "rules:\n  - when: {api: openai-chat, check: media-exactly-once}\n    reason: cells only\n"
        "  - when: {check: media-exactly-once}\n    reason: toy sends parallel images twice\n",
        encoding="utf-8",
    )
    entries = from_results(load_results([path]), "toy", load_rules(rules_path))
    (declared,) = [e for e in entries if e["cell"] == "property/media-exactly-once"]
    assert declared["checks"] == ["media-exactly-once"]
    assert declared["outcome"] is None
    assert declared["level"] == "required"
    assert declared["reason"] == "toy sends parallel images twice"  # not the api-bound rule
    out = tmp_path / "toy.yaml"
    out.write_text(render_deviations("toy", [declared]), encoding="utf-8")
    assert "outcome" not in out.read_text(encoding="utf-8")
    loaded = load_deviations(out, target="toy", cells=CELLS)
    assert loaded.for_cell("property/media-exactly-once") is not None
    wrong = out.read_text(encoding="utf-8").replace(
        "checks: [media-exactly-once]", "checks: [total]"
    )
    out.write_text(wrong, encoding="utf-8")
    with pytest.raises(DeviationsError, match="a property's deviation lists its own check"):
        load_deviations(out, target="toy", cells=CELLS)


def test_a_declared_deviation_is_an_xfail_with_its_reason_and_no_traceback(
    project: pytest.Pytester,
) -> None:
    # A cell's checks and a property, each declared: xfails with their reasons, and no
    # traceback formatted for them (pytest builds one, reading the source of every frame, for
    # each exception raised with `pytrace`; an xfail's is never shown).
    (project.path / "deviations").mkdir()
    (project.path / "deviations/mutant-drops-media.yaml").write_text(
        f"target: mutant-drops-media\ndeviations:\n  - cell: {CELL}\n"
        "    checks: [outcome, no-silent-loss]\n    outcome: dropped\n    level: required\n"
        "    reason: drops tool images\n"
        "  - cell: property/media-exactly-once\n    checks: [media-exactly-once]\n"
        "    level: required\n    reason: drops every media item\n",
        encoding="utf-8",
    )
    project.makeini(
        "[pytest]\nconformance_matrix = matrix.yaml\nconformance_deviations = deviations\n"
    )
    recorded = project.inline_run(  # pyright: ignore[reportUnknownMemberType] (pytest's `plugins`)
        "-k",
        f"{CELL} and (:outcome or :no-silent-loss) or property/media-exactly-once",
        "--conformance-target",
        "mutants:DropsMedia",
        "--conformance-property-examples",
        "20",
        "--conformance-results",
        "r.jsonl",
    )
    reports = [r for r in recorded.getreports("pytest_runtest_logreport") if r.when == "call"]
    checks = {r.nodeid.rsplit(":", 1)[-1].rstrip("]").split("/")[-1]: r for r in reports}
    xfailed = {check: r for check, r in checks.items() if hasattr(r, "wasxfail")}
    assert set(xfailed) == {"outcome", "no-silent-loss", "media-exactly-once"}
    assert xfailed["outcome"].wasxfail == "known deviation: drops tool images"
    assert xfailed["media-exactly-once"].wasxfail == "known deviation: drops every media item"
    for report in xfailed.values():
        assert report.longreprtext == report.wasxfail  # the reason alone: no frames, no source
    lines = [json.loads(line) for line in (project.path / "r.jsonl").read_text().splitlines()]
    body = {line["check"]: line for line in lines[1:-1]}
    assert {k: v["verdict"] for k, v in body.items()} == dict.fromkeys(
        ("outcome", "no-silent-loss", "media-exactly-once"), "xfail"
    )
    assert body["outcome"]["reason"] == "drops tool images"
    assert body["outcome"]["outcome"] == "dropped"
    assert "appears 0 times" in body["media-exactly-once"]["detail"]  # what was observed
