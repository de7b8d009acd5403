"""Our pydantic-ai gate beside pydantic-ai's own multimodal tool-return matrix, in one run.

pydantic-ai tests multimodal tool returns in `tests/models/test_multimodal_tool_returns.py`: a
cartesian product of providers, file types, sources and return styles, each item replaying an
HTTP exchange from its cassettes (`tests/models/cassettes/test_multimodal_tool_returns/`) and
asserting one outcome. This script runs that module from a pydantic-ai checkout, offline, as
their repository runs it (their `pyproject.toml` settings and conftest, `pytest` in the
checkout), alternating with our gate on our pydantic-ai target (`bench_gate.py`'s command: the
repository's matrix, snapshots, deviations, properties at the gate's default), and prints the
figures the goal table of issue 27 asks for: the whole gate against their whole module, our
CPU per cell against theirs per item, and peak memory. CPU = user + system of each command;
medians of the rounds.

Their code is never copied here: the checkout is a folder outside this repository, given or
fetched when the script runs.

- `--checkout PATH`: a pydantic-ai checkout (a git clone or an unpacked archive);
- `--mirror GITDIR`: a git directory holding `--commit`, exported into a temporary folder
  with `git archive` (files whose objects the mirror lacks are left out and counted; none of
  the multimodal module's);
- neither: `git clone` of `--repository` at `--commit` (needs the network).

The venv (`--venv`, built when absent) gets their locked test dependencies from the package
index: `uv export --frozen` of their `dev` group and the provider extras the module imports
(their `uv.lock`), less the requirements that name a URL instead of a version (their
`strict-no-cover`, a coverage checker the module does not use), then their workspace packages
editable without dependencies (`UV_DYNAMIC_VERSIONING_BYPASS` gives them the version, since an
archive has no git history to read it from).

    python benchmarks/bench_pydantic_ai.py --mirror /path/to/pydantic-ai.git \\
        --python .nox/target-pydantic-ai/bin/python [--rounds 3] [--venv /tmp/pai-venv] [--share]

Our gate runs one pytest test per cell (`--items cell`), as `nox -s "target(pydantic-ai)"`
runs it. With `--share`, our gate runs once more after the rounds under py-spy, and its busy
samples are sorted as `bench_share.py` sorts them: the framework's part of our gate (its
renders and its imports) against their whole module is what the ratio would be if the suite
itself cost nothing, the floor of the first goal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from _bench import ROOT, Run, run, table
from bench_gate import _command, _env  # pyright: ignore[reportPrivateUsage]
from bench_share import sample

REPOSITORY = "https://github.com/pydantic/pydantic-ai"
COMMIT = "4fda38988f2939fa6ea9cdefcf120693e10ef491"
"""The commit measured (v2.33.0 and 11 commits, 2026-08-22): the module and cassettes as
they were then."""

MODULE = "tests/models/test_multimodal_tool_returns.py"
EXTRAS = ("bedrock", "mistral", "groq", "xai")
"""Provider extras the module imports beyond the default install's (openai, anthropic,
google): without them its items for those providers skip."""

MEMBERS = ("pydantic_graph", "pydantic_evals", "pydantic_ai_slim")


def _export(mirror: Path, commit: str, into: Path) -> int:
    """`commit` of `mirror` into `into`, leaving out files whose objects the mirror lacks
    (a mirror may hold no large files); how many were left out."""
    listing = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout
    entries: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            entries.append((meta.split()[2].decode(), path.decode()))
    checked = subprocess.run(
        ["git", "-C", str(mirror), "cat-file", "--batch-check=%(objectname) %(objecttype)"],
        input="".join(f"{obj}\n" for obj, _ in entries),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    present = [
        path for (_, path), line in zip(entries, checked, strict=True) if "missing" not in line
    ]
    into.mkdir(parents=True, exist_ok=True)
    with subprocess.Popen(
        ["git", "-C", str(mirror), "--literal-pathspecs", "archive", commit, "--", *present],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as archive:
        subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
        # git reads the whole tree, and names an absent object it walked past
        complaint = archive.stderr.read().decode() if archive.stderr else ""
    if archive.returncode != 0:
        raise SystemExit(f"git archive failed ({archive.returncode}): {complaint}")
    return len(entries) - len(present)


def _version(mirror: Path | None, commit: str) -> str:
    """The version their packages report: the nearest tag, as their build would derive it."""
    if mirror is not None:
        found = subprocess.run(
            ["git", "-C", str(mirror), "describe", "--tags", "--abbrev=0", commit],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if found:
            return found.removeprefix("v")
    return "0.0.0"


def _venv(checkout: Path, venv: Path, version: str, uv: str) -> Path:
    """A venv with their locked test dependencies; reused when it was built for this lock.
    Their own packages are installed from `checkout` in either case: an editable install of
    an earlier invocation points at that invocation's export, gone since."""
    python = venv / "bin" / "python"
    lock = (checkout / "uv.lock").read_bytes()
    stamp = venv / ".bench-lock"
    if not (python.exists() and stamp.exists() and stamp.read_bytes() == lock):
        _dependencies(checkout, venv, python, uv)
        stamp.write_bytes(lock)
    editable = [arg for member in MEMBERS for arg in ("-e", str(checkout / member))]
    subprocess.run(
        [uv, "pip", "install", "-q", "-p", str(python), "--no-deps", *editable],
        env={**os.environ, "UV_DYNAMIC_VERSIONING_BYPASS": version},
        check=True,
    )
    return python


def _dependencies(checkout: Path, venv: Path, python: Path, uv: str) -> None:
    """Their locked test dependencies, their own packages left out, in a new `venv`."""
    extras = [arg for extra in EXTRAS for arg in ("--extra", extra)]
    export = [uv, "export", "--frozen", "--no-hashes", "--no-emit-workspace"]
    exported = subprocess.run(
        [*export, "--group", "dev", "--no-group", "lint", *extras],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wanted = [
        line
        for line in exported.splitlines()
        if line.strip() and not line.startswith(("#", " ")) and " @ " not in line
    ]
    requirements = venv.parent / f"{venv.name}-requirements.txt"
    venv.parent.mkdir(parents=True, exist_ok=True)
    requirements.write_text("\n".join(wanted) + "\n", encoding="utf-8")
    subprocess.run([uv, "venv", str(venv), "-p", "3.11", "-q"], check=True)
    subprocess.run(
        [uv, "pip", "install", "-q", "-p", str(python), "-r", str(requirements)], check=True
    )


def _counts(output: str) -> dict[str, int]:
    """pytest's closing counts (`322 passed`, `66 skipped`, ...), from either summary style."""
    found: dict[str, int] = {}
    for number, word in re.findall(
        r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)", output
    ):
        found[word] = int(number)
    return found


def _cells(results: Path) -> int:
    """The matrix cells our gate judged (any check not skipped), properties left out."""
    lines = [json.loads(x) for x in results.read_text("utf-8").splitlines()]
    return len(
        {
            x["cell"]
            for x in lines
            if x.get("kind") == "result"
            and not x["cell"].startswith("property/")
            and x["verdict"] != "skip"
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--checkout", type=Path, help="a pydantic-ai checkout")
    source.add_argument("--mirror", type=Path, help="a git directory holding --commit")
    parser.add_argument("--repository", default=REPOSITORY)
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--venv", type=Path, help="their venv (built here when absent)")
    parser.add_argument("--python", required=True, help="the Python of our pydantic-ai target")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--uv", default=shutil.which("uv") or "uv", help="uv, to build their venv")
    parser.add_argument(
        "--try", dest="trial", help="`-k` for both sides: a quick try of the script"
    )
    parser.add_argument("--items", choices=("cell", "check"), default="cell")
    parser.add_argument("--share", action="store_true", help="sample our gate once (py-spy)")
    parser.add_argument("--py-spy", default=shutil.which("py-spy"), help="the py-spy command")
    options = parser.parse_args()
    if options.share and not options.py_spy:
        raise SystemExit("--share needs py-spy: pip install py-spy (or give --py-spy PATH)")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        checkout = options.checkout
        if checkout is None:
            checkout = tmp / "pydantic-ai"
            if options.mirror is not None:
                left_out = _export(options.mirror, options.commit, checkout)
                print(f"exported {options.commit[:12]} from the mirror ({left_out} files absent)")
            else:
                subprocess.run(
                    ["git", "clone", "-q", options.repository, str(checkout)], check=True
                )
                subprocess.run(
                    ["git", "-C", str(checkout), "checkout", "-q", options.commit], check=True
                )
        checkout = checkout.resolve()
        if not (checkout / MODULE).is_file():
            raise SystemExit(f"{checkout}: no {MODULE} here")
        venv = (options.venv or tmp / "venv").absolute()
        theirs_python = _venv(checkout, venv, _version(options.mirror, options.commit), options.uv)
        ours_python = str(Path(options.python).absolute())
        cache = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(tmp / "pycache-theirs")}
        theirs = [str(theirs_python), "-m", "pytest", MODULE, "-q", "-p", "no:cacheprovider"]
        trial = ["-k", options.trial] if options.trial else []
        theirs += trial
        commands: dict[str, tuple[list[str], Path, dict[str, str]]] = {
            "theirs": (theirs, checkout, cache),
            "theirs, start-up": ([*theirs, "--collect-only"], checkout, cache),
        }
        mode = [f"--conformance-items={options.items}"]
        for label, extra in (
            ("ours", trial),
            ("ours, no properties", [*trial, "--conformance-property-examples", "0"]),
            ("ours, start-up", ["-k", "no_such_test"]),
        ):
            results = tmp / f"results-{len(commands)}.jsonl"
            command = _command(ours_python, "pydantic-ai", results, [*mode, *extra])
            commands[label] = (command, ROOT, _env(ROOT, tmp, 1))
        for label, (args, cwd, env) in commands.items():  # bytecode written before any round
            if "start-up" in label:  # (what the full runs import beyond start-up: in round 1)
                run(args, cwd=cwd, env=env)
        runs: dict[str, list[Run]] = {label: [] for label in commands}
        for _ in range(options.rounds):
            for label, (args, cwd, env) in commands.items():
                done = run(args, cwd=cwd, env=env)
                if done.returncode != 0 and "start-up" not in label:
                    raise SystemExit(f"{label} failed ({done.returncode}):\n{done.output[-3000:]}")
                runs[label].append(done)
        cells = _cells(tmp / "results-2.jsonl")
        version = json.loads((tmp / "results-2.jsonl").read_text("utf-8").splitlines()[0])
        share = _share(options.py_spy, commands["ours"], tmp) if options.share else None
    ours_version = version.get("targets", {}).get("pydantic-ai", "?")
    counted = _counts(runs["theirs"][-1].output)
    items = counted.get("passed", 0) + counted.get("failed", 0)
    tests = _counts(runs["ours"][-1].output)
    cpu = {label: statistics.median(r.cpu for r in rs) for label, rs in runs.items()}
    wall = {label: statistics.median(r.seconds for r in rs) for label, rs in runs.items()}
    peak = {label: max(r.max_rss_mib for r in rs) for label, rs in runs.items()}
    print(
        f"ours: pydantic-ai {ours_version}, {cells} cells judged ({tests}); theirs: {MODULE} at"
        f" {options.commit[:12]}, {items} items run ({counted}); {options.rounds} rounds"
        " alternating, medians; CPU = user + sys"
    )
    print(
        table(
            ["run", "CPU", "wall", "peak RSS"],
            [
                [label, f"{cpu[label]:.1f} s", f"{wall[label]:.1f} s", f"{peak[label]:.0f} MiB"]
                for label in runs
            ],
        )
    )
    per_item = cpu["theirs"] / items * 1000
    per_item_run = (cpu["theirs"] - cpu["theirs, start-up"]) / items * 1000
    rows: list[list[str]] = [
        [
            "the whole gate (cells and properties) / their whole module",
            f"{cpu['ours'] / cpu['theirs']:.2f}",
            "at most 0.5",
        ],
    ]
    for label in ("ours", "ours, no properties"):
        per_cell = cpu[label] / cells * 1000
        per_cell_run = (cpu[label] - cpu["ours, start-up"]) / cells * 1000
        rows.append(
            [
                f"per cell ({label}) / per item, whole runs: {per_cell:.0f} / {per_item:.0f} ms",
                f"{per_cell / per_item:.2f}",
                "at most 0.33",
            ]
        )
        rows.append(
            [
                f"per cell ({label}) / per item, after start-up:"
                f" {per_cell_run:.0f} / {per_item_run:.0f} ms",
                f"{per_cell_run / per_item_run:.2f}",
                "at most 0.33",
            ]
        )
    rows.append(["peak RSS, ours / theirs", f"{peak['ours'] / peak['theirs']:.2f}", ""])
    if share is not None:
        framework, busy = share
        floor = framework / busy * cpu["ours"]
        rows.append(
            [
                f"the framework's part of our gate ({framework / busy:.1%} of {busy} busy"
                f" samples, {floor:.1f} s of its CPU) / their whole module",
                f"{floor / cpu['theirs']:.2f}",
                "the floor of the first",
            ]
        )
    print()
    print(table(["ratio", "measured", "goal"], rows))


def _share(py_spy: str, ours: tuple[list[str], Path, dict[str, str]], tmp: Path) -> tuple[int, int]:
    """Our gate once under py-spy: (the framework's busy samples, all busy samples)."""
    args, cwd, env = ours
    parts, _ = sample(py_spy, args, cwd=cwd, env={**os.environ, **env}, raw=tmp / "stacks.txt")
    framework = sum(n for part, n in parts.items() if part.startswith("the framework"))
    return framework, sum(parts.values())


if __name__ == "__main__":
    main()
