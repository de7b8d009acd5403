"""One target's gate run with one checkout of the suite beside another, alternating in one
invocation: their CPU, wall time and peak memory, and whether their results files are the same
line for line once the run fields are dropped.

A suite is a folder holding a `conformance` package: this checkout (`.`, the default), or
another one taken out of git (`git archive <rev> conformance | tar -x -C <folder>`). Each runs
as the repository's main job runs the gate (only the module holding the generated test,
`-m conformance`, bytecode written into a folder of its own per suite), in this repository (its
matrix, snapshots, cassettes and deviations), with `python -P` and the suite first on
`PYTHONPATH`, so the suite given is the one imported whatever the interpreter has installed;
tests/ follows it, so a mutant (`mutants:DropsMedia`) is a target too.

`--declare-failures` first runs the target once with no deviations, then declares every
failing check and property it showed (`conformance deviations`, one reason for all), so that
the rounds judge a target with many declared deviations: what an `xfail` costs.

    python benchmarks/bench_gate.py --suite /tmp/old --suite . [--rounds 3]
    python benchmarks/bench_gate.py --target mutants:DropsMedia --declare-failures \\
        --suite /tmp/old --suite . -- --conformance-check='!snapshot'
    python benchmarks/bench_gate.py --target pydantic-ai --python .nox/target-pydantic-ai/bin/python
    python benchmarks/bench_gate.py --suite . --suite . --items check --items cell

`--items`, once per suite, runs that suite with `--conformance-items` (one test per cell and
check, or per cell); without it each suite runs with its own default. Arguments after `--` go
to pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from _bench import ROOT, Run, run, table

_RUN_FIELDS = {"meta": ("suite_commit", "date", "run"), "end": ("run", "end")}
"""What differs between two runs of the same code: the commit, the dates, the run's id and
command."""


def _lines(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for text in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        for key in _RUN_FIELDS.get(line.get("kind"), ()):
            line.pop(key, None)
        out.append(line)
    return out


def _differing(first: Path, other: Path) -> list[str]:
    """The lines of `other` that differ from `first`'s, run fields dropped (each shortened)."""
    a, b = _lines(first), _lines(other)
    pairs = enumerate(zip(a, b, strict=False))
    found = [f"line {i + 1}: {json.dumps(y)[:300]}" for i, (x, y) in pairs if x != y]
    if len(a) != len(b):
        found.append(f"{len(a)} lines against {len(b)}")
    return found


def _command(python: str, target: str, results: Path, extra: list[str]) -> list[str]:
    return [
        *(python, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT)),
        *("-o", "python_files=test_matrix.py", "-m", "conformance"),
        *("--conformance-target", target, f"--conformance-results={results}", *extra),
    ]


def _env(suite: Path, tmp: Path, index: int) -> dict[str, str]:
    return {
        "PYTHONPATH": os.pathsep.join([str(suite), str(ROOT / "tests")]),
        "PYTHONDONTWRITEBYTECODE": "",
        "PYTHONPYCACHEPREFIX": str(tmp / f"pycache-{index}"),
        "CONFORMANCE_REQUIRE_TARGETS": "1",
    }


def _checked(done: Run, what: str) -> Run:
    if done.returncode not in (0, 1):  # 1: failures, which a run without deviations has
        raise SystemExit(f"{what} stopped ({done.returncode}):\n{done.output[-3000:]}")
    return done


def _declare(python: str, target: str, suite: Path, tmp: Path, extra: list[str]) -> list[str]:
    """Run `target` with no deviations; declare every failure it showed. The pytest options
    that judge with those declarations."""
    none, declared = tmp / "no-deviations", tmp / "deviations"
    none.mkdir()
    declared.mkdir()
    results = tmp / "undeclared.jsonl"
    command = _command(python, target, results, [*extra, "-o", f"conformance_deviations={none}"])
    _checked(run(command, cwd=ROOT, env=_env(suite, tmp, 0)), "the run without deviations")
    name = next(iter(json.loads(results.read_text(encoding="utf-8").splitlines()[0])["targets"]))
    rules = tmp / "reasons.yaml"
    rules.write_text("rules:\n  - reason: declared by bench_gate.py\n", encoding="utf-8")
    write = ["deviations", str(results), "--target", name, "--reasons", str(rules)]
    subprocess.run(
        [python, "-P", "-m", "conformance.cli", *write, "-o", str(declared / f"{name}.yaml")],
        env={**os.environ, **_env(suite, tmp, 0)},
        check=True,
    )
    return ["-o", f"conformance_deviations={declared}"]


def main() -> None:
    parser = argparse.ArgumentParser(description="One target's gate, one suite beside another.")
    parser.add_argument("--suite", action="append", type=Path, help="a folder with `conformance/`")
    parser.add_argument("--target", default="reference")
    parser.add_argument("--python", default="python", help="the interpreter (the target's venv)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--declare-failures", action="store_true")
    parser.add_argument(
        "--items", action="append", choices=("check", "cell"), help="per suite, in its order"
    )
    parser.add_argument("pytest", nargs="*", help="after `--`: more pytest arguments")
    options = parser.parse_args()
    suites = [s.resolve() for s in options.suite or [Path()]]
    for suite in suites:
        if not (suite / "conformance" / "__init__.py").is_file():
            raise SystemExit(f"{suite}: no conformance package here")
    extra = list(options.pytest)
    items: list[str] = options.items or []
    if items and len(items) != len(suites):
        raise SystemExit(f"--items given {len(items)} times for {len(suites)} suites")
    modes = [[f"--conformance-items={mode}"] for mode in items] or [[] for _ in suites]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if options.declare_failures:
            extra += _declare(options.python, options.target, suites[0], tmp, extra)
        runs: dict[int, list[Run]] = {i: [] for i in range(len(suites))}
        for round_ in range(options.rounds):
            for i, suite in enumerate(suites):
                results = tmp / f"results-{i}-{round_}.jsonl"
                command = _command(options.python, options.target, results, extra + modes[i])
                done = _checked(run(command, cwd=ROOT, env=_env(suite, tmp, i + 1)), str(suite))
                runs[i].append(done)
        tail = {i: r[-1].output.strip().splitlines()[-1] for i, r in runs.items()}
        first = tmp / "results-0-0.jsonl"
        differ = {
            i: [
                f"round {r + 1}, {line}"
                for r in range(options.rounds)
                for line in _differing(first, tmp / f"results-{i}-{r}.jsonl")
            ]
            for i in runs
        }
    cpu = {i: statistics.median(r.cpu for r in v) for i, v in runs.items()}
    rows = [
        [
            str(suite) + (f" ({items[i]})" if items else ""),
            tail[i],
            f"{cpu[i]:.1f} s",
            f"{cpu[i] / cpu[0]:.2f}",
            f"{statistics.median(r.seconds for r in runs[i]):.1f} s",
            f"{statistics.median(r.max_rss_mib for r in runs[i]):.0f} MiB",
            "yes" if not differ[i] else f"no ({len(differ[i])} lines)",
        ]
        for i, suite in enumerate(suites)
    ]
    print(
        f"target {options.target}, {options.rounds} rounds alternating, medians; CPU = user + sys"
    )
    print(
        table(
            ["suite", "pytest says", "CPU", "CPU ratio", "wall", "peak RSS", "same results"],
            rows,
        )
    )
    for i, lines in differ.items():
        for line in lines[:5]:
            print(f"{suites[i]}: {line}")


if __name__ == "__main__":
    main()
