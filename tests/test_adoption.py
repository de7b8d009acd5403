"""Using the suite from a framework's repository: configuration, inertness, selection, `init`,
`check`, and the level gate of `conformance diff`. (The whole path from a built wheel in a
fresh venv is `examples/test_adoption.py`, run by `nox -s example`.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conformance import cli
from conformance.running.config import ConfigError, load_config
from results_data import result, write

ROOT = Path(__file__).resolve().parent.parent
CELL = "openai-chat/gpt-6/image/inline/result"
"""A cell of the packaged matrix."""
TEST_FILE = "from conformance.suite import test_conformance as test_conformance\n"


@pytest.fixture
def configured(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project configured with `[tool.conformance]` alone, on the packaged matrix."""
    pytester.makepyprojecttoml(
        '[tool.conformance]\ntargets = ["mutants:DropsMedia"]\ngate = ["required"]\n'
    )
    pytester.makepyfile(test_conformance=TEST_FILE)
    pytester.syspathinsert(ROOT / "tests")
    return pytester


def test_the_plugin_is_inert_until_configured(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml("[tool.other]\nx = 1\n")
    pytester.makepyfile(
        test_plain="def test_ok(request):\n"
        "    assert request.config.pluginmanager.get_plugin('conformance-recorder') is None\n"
    )
    pytester.runpytest().assert_outcomes(passed=1)
    pytester.makepyfile(test_conformance=TEST_FILE)
    run = pytester.runpytest()
    assert run.ret == pytest.ExitCode.INTERRUPTED
    assert "the conformance suite is not configured; add [tool.conformance]" in run.stdout.str()


def test_tool_conformance_alone_runs_the_packaged_matrix(configured: pytest.Pytester) -> None:
    (configured.path / "deviations").mkdir()
    (configured.path / "deviations/mutant-drops-media.yaml").write_text(
        f"target: mutant-drops-media\ndeviations:\n  - cell: {CELL}\n"
        "    checks: [outcome, no-silent-loss]\n    outcome: dropped\n    level: required\n"
        "    reason: drops tool images\n",
        encoding="utf-8",
    )
    run = configured.runpytest(
        "-k", f"{CELL} and not :snapshot", "--conformance-results", "r.jsonl"
    )
    run.assert_outcomes(
        passed=4, xfailed=2
    )  # text-identical, provenance, api-accepts, parallel-turn
    meta = json.loads((configured.path / "r.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert meta["targets"] == {"mutant-drops-media": "0.1.0"}
    assert meta["deviations"]["mutant-drops-media"]["digest"].startswith("sha256:")


def test_a_bad_tool_conformance_table_is_located(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        '[tool.conformance]\ntargets = ["reference"]\ngate = ["requird"]\nsnapshot = "s"\n'
    )
    run = pytester.runpytest()
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(
        [
            "*pyproject.toml:3:8: tool.conformance.gate.0: 'requird' is not a level*",
            "*pyproject.toml:4:12: unknown key 'tool.conformance.snapshot'*",
        ]
    )
    with pytest.raises(ConfigError, match=r"pyproject.toml:3:8:"):
        load_config(pytester.path / "pyproject.toml")


def test_selection_options_deselect_at_collection(configured: pytest.Pytester) -> None:
    run = configured.runpytest(
        "--collect-only",
        "-q",
        "--conformance-api",
        "anthropic",
        "--conformance-check=!snapshot",
        "--conformance-level",
        "required,recommended",
    )
    ids = [line for line in run.stdout.lines if "test_conformance[" in line]
    assert ids
    assert all(":anthropic/" in i for i in ids)
    assert not any(i.endswith((":snapshot]", ":outcome]")) for i in ids)
    assert any(i.endswith(":provenance]") for i in ids)
    bad = configured.runpytest("--conformance-api", "openai")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*unknown api 'openai'; use one of: openai-chat*"])


def test_the_documented_k_expression_keeps_everything_but_snapshots(
    configured: pytest.Pytester,
) -> None:
    run = configured.runpytest("--collect-only", "-q", "-k", f"{CELL} and not :snapshot")
    ids = [line for line in run.stdout.lines if "test_conformance[" in line]
    assert (
        len(ids) == 6
    )  # outcome, no-silent-loss, text-identical, provenance, api-accepts, parallel-turn
    assert not any(":snapshot]" in i for i in ids)
    # Only the snapshot check asks for syrupy's fixture (which marks a test `syrupy_snapshot`),
    # so the bare word selects the same tests.
    naive = configured.runpytest("--collect-only", "-q", "-k", f"{CELL} and not snapshot")
    assert [line for line in naive.stdout.lines if "test_conformance[" in line] == ids


def test_init_scaffolds_and_refuses_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "fw"\n', encoding="utf-8")
    assert cli.main(["init", str(tmp_path), "--target-name", "my-fw"]) == 0
    for path in (
        "conformance_target.py",
        "tests/test_conformance.py",
        "deviations/my-fw.yaml",
        "deviations/my-fw.reasons.yaml",
        "noxfile.py",
        ".github/workflows/conformance.yml",
    ):
        assert (tmp_path / path).is_file(), path
    project = tomllib.loads((tmp_path / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "fw"
    assert project["tool"]["conformance"]["targets"] == ["conformance_target:Target"]
    assert 'name = "my-fw"' in (tmp_path / "conformance_target.py").read_text(encoding="utf-8")
    workflow = (tmp_path / ".github/workflows/conformance.yml").read_text(encoding="utf-8")
    assert "conformance diff .base/report/results.jsonl report/results.jsonl" in workflow
    assert "GITHUB_STEP_SUMMARY" in workflow
    capsys.readouterr()
    before = (tmp_path / "noxfile.py").read_text(encoding="utf-8")
    assert cli.main(["init", str(tmp_path), "--target-name", "my-fw"]) == 2
    err = capsys.readouterr().err
    assert "not overwriting conformance_target.py" in err
    assert "pyproject.toml ([tool.conformance])" in err
    assert (tmp_path / "noxfile.py").read_text(encoding="utf-8") == before
    assert cli.main(["init", str(tmp_path / "x"), "--target-name", "My FW"]) == 2


def test_the_scaffold_runs_green_before_it_is_filled(pytester: pytest.Pytester) -> None:
    """Right after `init`, every test skips saying the target is not filled in yet; the
    empty deviations file loads; `conformance check` passes."""
    assert cli.main(["init", str(pytester.path), "--target-name", "fresh"]) == 0
    run = pytester.runpytest("-q", "-k", "openai-chat/gpt-6/image")
    assert run.ret == pytest.ExitCode.OK
    outcomes = run.parseoutcomes()
    assert outcomes.get("skipped", 0) > 0
    assert set(outcomes) <= {"skipped", "deselected"}
    checked = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "check"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert checked.returncode == 0, checked.stderr
    assert "(the packaged matrix)" in checked.stdout
    assert "deviations/fresh.yaml: 0 deviations of fresh, valid" in checked.stdout


def test_diff_gates_per_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = write(tmp_path / "base.jsonl", [result(check="outcome"), result(check="provenance")])
    layout = write(
        tmp_path / "layout.jsonl",
        [result(check="outcome", verdict="fail"), result(check="provenance")],
    )
    lost = write(
        tmp_path / "lost.jsonl",
        [result(check="outcome"), result(check="provenance", verdict="fail")],
    )
    assert cli.main(["diff", str(base), str(layout), "--gate", "required,recommended"]) == 0
    assert cli.main(["diff", str(base), str(layout), "--gate", "reference"]) == 1
    assert cli.main(["diff", str(base), str(lost), "--gate", "recommended"]) == 1
    assert cli.main(["diff", str(base), str(lost), "--gate", "required"]) == 0
    assert cli.main(["diff", str(base), str(lost), "--gate", "strict"]) == 2
    # Without --gate: the project's [tool.conformance] gate, else every level.
    monkeypatch.chdir(tmp_path)
    assert cli.main(["diff", str(base), str(layout)]) == 1
    (tmp_path / "pyproject.toml").write_text(
        '[tool.conformance]\ngate = ["required"]\n', encoding="utf-8"
    )
    assert cli.main(["diff", str(base), str(lost)]) == 0


def test_a_bedrock_request_from_the_wire_is_judged_as_converse_parameters() -> None:
    """The payload contract: a target that records Bedrock's HTTP request gets the Converse
    parameters (`modelId` from the path, media as raw bytes), which `sdk-schema` accepts, as
    it accepts the reference's; the body alone is refused."""
    pytest.importorskip("botocore")
    import base64

    from conformance.recording.sdk_schema import validate
    from conformance.targets.kit import Exchange, payload_of

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()
    body = {
        "messages": [
            {
                "role": "user",
                "content": [{"image": {"format": "png", "source": {"bytes": png}}}],
            }
        ]
    }
    exchange = Exchange(
        "POST", "/model/amazon.nova-pro-v1%3A0/converse", {}, json.dumps(body).encode()
    )
    payload = payload_of("bedrock-converse", exchange)
    assert payload["modelId"] == "amazon.nova-pro-v1:0"
    assert payload["messages"][0]["content"][0]["image"]["source"]["bytes"] == b"\x89PNG\r\n\x1a\n"
    assert validate("bedrock-converse", payload) == []
    assert validate("bedrock-converse", body) != []


def test_check_reports_a_bad_deviations_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.conformance]\ndeviations = {fw = "known.yaml"}\n', encoding="utf-8"
    )
    (tmp_path / "known.yaml").write_text(
        "target: fw\ndeviations:\n  - cell: openai-chat/gpt-6/image/inline/result\n"
        "    checks: [provenance]\n    outcome: fallback-unmarked\n    level: recommended\n"
        '    reason: "TODO: a person writes why this happens"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check"]) == 2
    out = capsys.readouterr()
    assert "(the packaged matrix)" in out.out
    assert "known.yaml:7:13: a person must write this reason" in out.err
