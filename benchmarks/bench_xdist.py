"""pytest-xdist: `-n 2` against a serial run of the reference matrix, the same results file?

Both runs write a results file; they are compared line by line, in order, after dropping what
names the run itself (its `run` block: id, start, command; the `date` and `end` stamps). The
controller writes the lines in collection order whatever order the workers finish in
(`runlog.in_collection_order`). Wall times are medians of alternated rounds; CPU seconds count
the workers too (each imports, loads the matrix and collects on its own), so they show what
`-n 2` adds, and the wall time what it saves when a second core is free. Needs
pytest-xdist in the running Python (`nox -s bench` installs it).

    python benchmarks/bench_xdist.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from _bench import ROOT, Run, passed, pytest_args, run, table, user_project

_RUN_FIELDS = {"run", "date", "end"}


def _comparable(path: Path) -> list[str]:
    lines: list[dict[str, Any]] = [json.loads(x) for x in path.read_text("utf-8").splitlines()]
    kept = [{k: v for k, v in line.items() if k not in _RUN_FIELDS} for line in lines]
    return [json.dumps(line, sort_keys=True) for line in kept]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        folder = user_project(Path(tmp) / "project", cassettes=ROOT / "cassettes")
        runs: dict[str, list[Run]] = {"serial": [], "-n 2": []}
        same = True
        for index in range(rounds):
            files = {name: folder / f"{index}-{name.replace(' ', '')}.jsonl" for name in runs}
            for name, extra in (("serial", []), ("-n 2", ["-n", "2"])):
                done = run(
                    pytest_args(
                        "-m", "conformance", "--conformance-results", str(files[name]), *extra
                    ),
                    cwd=folder,
                )
                if not passed(done):
                    raise SystemExit(f"{name}: pytest failed:\n{done.output[-3000:]}")
                runs[name].append(done)
            same = same and _comparable(files["serial"]) == _comparable(files["-n 2"])
    rows = [
        (
            name,
            f"{statistics.median(r.seconds for r in rs):.2f} s",
            f"{statistics.median(r.cpu for r in rs):.2f} s",
        )
        for name, rs in runs.items()
    ]
    print(table(("run", "wall (median)", "CPU, workers included (median)"), rows))
    print(f"same results file (run fields dropped, line order kept): {'yes' if same else 'NO'}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
