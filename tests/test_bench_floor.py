"""`benchmarks/bench_reference.py`'s "imports only" command is a floor of the reference run: it
imports nothing the run does not, and it reaches every SDK the `sdk-schema` and `cassette`
checks use. Its figures (CPU, peak memory) stand in docs/cost.md for what no run judging both
checks on every api can go below, so an import it adds (a new SDK module, a client class the
checks stopped using) would overstate the floor and must fail here."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from conformance.recording.sdk_schema import SDK_REQUIREMENTS

ROOT = Path(__file__).resolve().parent.parent
_BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(_BENCHMARKS))  # the script imports its neighbour `_bench`
_SPEC = importlib.util.spec_from_file_location(
    "bench_reference", _BENCHMARKS / "bench_reference.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)
IMPORTS: str = _MODULE.IMPORTS

_DUMP = """
import json, os, sys
def dump():
    with open(os.environ["MODULES_OUT"], "w", encoding="utf-8") as out:
        json.dump(sorted(sys.modules), out)
"""

PLUGIN = _DUMP + "\ndef pytest_sessionfinish(session):\n    dump()\n"


def _modules(out: Path) -> set[str]:
    return set(json.loads(out.read_text(encoding="utf-8")))


def test_the_imports_floor_imports_only_what_a_run_of_both_checks_on_every_api_imports(
    tmp_path: Path,
) -> None:
    (tmp_path / "floor_dump.py").write_text(PLUGIN, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    }
    run_out, floor_out = tmp_path / "run.json", tmp_path / "floor.json"
    # One cell per row and api, both SDK checks: every api's validator and client is used.
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "floor_dump"),
            *("--conformance-sdk-schema", "-m", "conformance", "-o", "python_files=test_matrix.py"),
            *("--conformance-items=cell", "--conformance-check=sdk-schema,cassette"),
            *("-k", "image and inline and result"),
            f"--conformance-results={tmp_path / 'results.jsonl'}",
        ],
        cwd=ROOT,
        env={**env, "MODULES_OUT": str(run_out)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert " passed" in done.stdout
    floor = subprocess.run(
        [sys.executable, "-c", IMPORTS + _DUMP + "\ndump()\n"],
        cwd=tmp_path,
        env={**env, "MODULES_OUT": str(floor_out)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert floor.returncode == 0, floor.stderr[-3000:]
    ran, imported = _modules(run_out), _modules(floor_out)
    beyond = sorted(imported - ran)
    assert not beyond, f"the floor imports what the run does not: {beyond[:20]}"
    for top in SDK_REQUIREMENTS:  # each SDK the two checks use is in both
        assert top in ran
        assert top in imported
    assert {"boto3", "mistralai.client", "cohere"} <= imported
