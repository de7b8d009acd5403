"""Results and reports of a run in an adopter's folder hold nothing of the machine: no absolute
path, no loopback port; the packaged matrix and snapshots are named `conformance:...`, test ids
name the target by its name, a clean run warns nothing; and a target's `layers` reach the
meta line, the Markdown report and `conformance compare`."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import cli
from conformance.running.layers import LayersError, layers_meta
from conformance.targets.base import RowRef
from conformance.targets.reference import ReferenceTarget

ROOT = Path(__file__).resolve().parent.parent
TEST_FILE = "from conformance.suite import test_conformance as test_conformance\n"
CELLS = "openai-chat/gpt-6/image/url/prompt or anthropic/claude-sonnet-5/document/url/result"

TARGET = '''\
from conformance.targets.reference import ReferenceTarget


class Layered(ReferenceTarget):
    """The reference, saying its Anthropic row goes through another layer; its refusals and
    details carry URLs on 127.0.0.1 as a framework's do."""

    name = "layered"
    version = "0.24.1"

    def layers(self, row):
        return [("litellm", "1.110.2")] if row.api == "anthropic" else []
'''
LOCAL = re.compile(r"127\.0\.0\.1:\d|localhost:\d|\[::1\]:\d")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]  # pyright: ignore[reportUnknownVariableType]
    return []


def _machine_paths(text: str, folder: Path) -> list[str]:
    """Absolute paths of this machine in `text`: the project folder, the Python environment,
    the suite's source, the temporary folder, the home folder."""
    roots = {str(folder), sys.prefix, sys.base_prefix, str(ROOT), str(Path.home()), "/tmp/"}
    return [root for root in roots if root and root in text]


@pytest.fixture
def adopter(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyprojecttoml(
        '[tool.conformance]\ntargets = ["reference", "layered_target:Layered"]\n'
    )
    pytester.makepyfile(test_conformance=TEST_FILE, layered_target=TARGET)
    return pytester


def test_a_clean_run_leaves_nothing_of_the_machine_in_results_and_reports(
    adopter: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = adopter.path
    snapshots = folder / "snapshots"
    # The layered target's snapshots, written once; the reference checks the packaged ones.
    adopter.runpytest("-q", "-k", f"layered and ({CELLS})", "--snapshot-update")
    assert (snapshots / "layered").is_dir()
    assert not (snapshots / "reference").exists()
    run = adopter.runpytest(
        "-q", "-W", "error", "-k", f"({CELLS}) or property",
        "--conformance-results", "report/results.jsonl",
        "--conformance-property-examples", "5",
    )  # fmt: skip
    run.assert_outcomes(passed=run.parseoutcomes()["passed"])  # nothing failed, nothing warned
    assert "warning" not in run.stdout.str().lower()
    ids = [line for line in run.stdout.lines if "test_conformance[" in line]
    assert not any("layered_target:" in line for line in ids)
    collected = adopter.runpytest("--collect-only", "-q", "-k", "layered and property")
    assert any("test_conformance[layered:property/" in line for line in collected.stdout.lines)

    results = folder / "report" / "results.jsonl"
    meta = json.loads(results.read_text(encoding="utf-8").splitlines()[0])
    assert meta["matrix"] == "conformance:matrix.yaml"
    assert meta["layers"] == {"layered": {"anthropic/claude-sonnet-5": [["litellm", "1.110.2"]]}}
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    shown = {line["detail"] for line in lines if line.get("check") == "snapshot"}
    assert any(d.startswith("conformance:snapshots/reference/") for d in shown), shown

    # The reports, rendered in the project folder as a person (or nox) runs them.
    monkeypatch.chdir(folder)
    given = "report/results.jsonl"
    outputs = {"md": "report/compatibility.md", "json": "report/report.json"}
    for fmt, out in outputs.items():
        assert cli.main(["report", given, "--format", fmt, "-o", out]) == 0
    html = folder / "report" / "index.html"
    assert cli.main(["report", given, "--format", "html", "-o", "report/index.html"]) == 0
    compare = folder / "report" / "compare.md"
    assert cli.main(["compare", given, "-o", "report/compare.md"]) == 0
    compare_html = folder / "report" / "compare.html"
    assert cli.main(["compare", given, "-o", "report/compare.html"]) == 0
    assert "layered 0.24.1 (via litellm 1.110.2 on 1 row)" in compare_html.read_text("utf-8")
    for path in (results, *(folder / o for o in outputs.values()), html, compare, compare_html):
        # pytester adds `--basetemp=<tmp>` to the command line the meta line records
        text = re.sub(r"--basetemp=[^\"']+", "", path.read_text(encoding="utf-8"))
        assert not LOCAL.findall(text), (path.name, LOCAL.findall(text)[:3])
        assert not _machine_paths(text, folder), (path.name, _machine_paths(text, folder))
        if path.suffix == ".jsonl":
            assert all(not LOCAL.search(s) for line in lines for s in _strings(line))

    markdown = (folder / outputs["md"]).read_text(encoding="utf-8")
    assert "- layered 0.24.1 via litellm 1.110.2: `anthropic/claude-sonnet-5`" in markdown
    assert "matrix `conformance:matrix.yaml`" in markdown
    assert "layered 0.24.1 (via litellm 1.110.2 on 1 row)" in compare.read_text(encoding="utf-8")


def test_a_counterexample_with_fixture_urls_is_scrubbed(pytester: pytest.Pytester) -> None:
    """A failing property's counterexample lists the history, with URLs on the fixture host:
    the results keep them as the stand-in origin, never a port."""
    pytester.makepyprojecttoml('[tool.conformance]\ntargets = ["mutants:DropsMedia"]\n')
    pytester.makepyfile(test_conformance=TEST_FILE)
    pytester.syspathinsert(ROOT / "tests")
    run = pytester.runpytest(
        "-q", "-k", "media-exactly-once", "--conformance-results", "r.jsonl",
        "--conformance-property-examples", "30",
    )  # fmt: skip
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    text = (pytester.path / "r.jsonl").read_text(encoding="utf-8")
    detail = next(
        json.loads(line)["detail"]
        for line in text.splitlines()
        if '"property"' in line and "media-exactly-once" in line
    )
    assert "counterexample" in detail
    # whichever history the search shrinks to, a URL it lists is on the stand-in origin
    urls = re.findall(r"https?://[^\s'\"]+", detail)
    assert all(u.startswith("http://fixtures.conformance.invalid/conformance/") for u in urls)
    assert not LOCAL.search(text)


ROW = RowRef(id="anthropic/claude-sonnet-5", api="anthropic", family="claude-sonnet-5",
             model="claude-sonnet-5-5")  # fmt: skip
OTHER = RowRef(id="openai-chat/gpt-6", api="openai-chat", family="gpt-6", model="gpt-6-luna")


class _Declares(ReferenceTarget):
    name = "declares"

    def __init__(self, layers: object) -> None:
        self.layers = layers


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        ({"anthropic": [("litellm", "1.110.2")]}, {ROW.id: [["litellm", "1.110.2"]]}),
        ({ROW.id: (("a", "1"), ("b", "2"))}, {ROW.id: [["a", "1"], ["b", "2"]]}),
        ({}, None),
    ],
    ids=["by-api", "by-row-two-layers", "none"],
)
def test_layers_as_a_mapping(declared: object, expected: dict[str, Any] | None) -> None:
    found = layers_meta([_Declares(declared)], [ROW, OTHER])
    assert found == ({"declares": expected} if expected else {})


def _gives(value: object) -> object:
    def layers(row: RowRef) -> object:
        return 1 / 0 if value is ZeroDivisionError else value

    return layers


BAD_LAYERS: list[tuple[object, str]] = [
    (_gives([("litellm",)]), "must be (name, version) pairs"),
    (_gives("litellm 1.110"), "must be (name, version) pairs"),
    (_gives([("litellm", "")]), "must be (name, version) pairs"),
    (_gives(ZeroDivisionError), "layers(anthropic/claude-sonnet-5) raised ZeroDivisionError"),
    (42, "must be a method layers(row) or a mapping"),
]


@pytest.mark.parametrize(
    ("declared", "words"),
    BAD_LAYERS,
    ids=["one-item", "a-string", "empty-version", "raises", "not-a-mapping"],
)
def test_bad_layers_say_what_is_wrong(declared: object, words: str) -> None:
    with pytest.raises(LayersError, match=re.escape(words)):
        layers_meta([_Declares(declared)], [ROW])


def test_an_unshrunk_counterexample_warns_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A declared property deviation is searched without shrinking; hypothesis then replays
    the first failing history, tens of kB with its media, and built its repr: "Generating
    overly large repr" on every such run. Drawn histories have a short repr instead."""
    import warnings

    sys.path.insert(0, str(ROOT / "tests"))
    import mutants
    from conformance.judging.checks import row_ref
    from conformance.matrix import load_matrix
    from conformance.running import property_gate
    from conformance.running.property_gate import search

    # a search of its own: not the examples an earlier test's search in this process tried
    # (the gate shares them by signature), so the failing history is replayed unshrunk here
    monkeypatch.setattr(property_gate, "_TRIED", {})
    matrix = load_matrix(ROOT / "matrix.yaml")
    rows = list({row_ref(c).id: row_ref(c) for c in matrix.all_cells()}.values())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # a mutant that fails on any history with media, whichever histories are drawn
        found = search("media-exactly-once", mutants.DropsMedia(), rows, 50, shrink=False)
    assert found.failed
    assert [str(w.message) for w in caught] == []
