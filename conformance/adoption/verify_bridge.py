"""Checks a bridge implementation against the protocol, line by line, before the suite runs it.

    python -m conformance.adoption.verify_bridge [--matrix matrix.yaml] -- COMMAND [ARG...]

starts the bridge, validates its handshake, sends `render` and `render_stored` for every cell of
every row it serves (the matrix's scenarios, the histories the suite gives) and `repro` for one
where its handshake declares reproducers, and validates each raw line it writes: one JSON
object, an answer of the schema (`bridge.schema.json`), the id of the request, a declared
refusal kind, `$bytes` objects that decode, an answer within the time limit. It prints each
problem and exits 1 if there is any. `verify_bridge` does the same for a test.

This judges the protocol only; whether the payloads are right is the suite's business.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from conformance.history import dump
from conformance.matrix import load_matrix
from conformance.running.config import packaged
from conformance.scenarios.build import scenario
from conformance.targets.bridge._process import (
    Process,
    ProcessDied,
    ProcessGarbage,
    ProcessTimeout,
)
from conformance.targets.bridge.protocol import (
    Handshake,
    PayloadAnswer,
    RefusalAnswer,
    ReproAnswer,
    decode_payload,
    parse_answer,
)

__all__ = ["verify_bridge"]


def _requests(handshake: Handshake, matrix_path: Path) -> list[dict[str, Any]]:
    matrix = load_matrix(matrix_path)
    out: list[dict[str, Any]] = []
    for cell in matrix.all_cells():
        if cell.api not in handshake.rows and cell.row_id not in handshake.rows:
            continue
        if cell.row_id in handshake.unsupported or cell.api in handshake.unsupported:
            continue
        row = {"id": cell.row_id, "api": cell.api, "family": cell.family, "model": cell.model}
        history = json.loads(dump(scenario(cell.content_type, cell.source, cell.style)))
        out += [{"op": op, "row": row, "history": history} for op in ("render", "render_stored")]
    return out


def verify_bridge(
    command: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    matrix: Path | None = None,
    time_limit: float = 60.0,
) -> list[str]:
    """Every protocol problem of the bridge `command` starts; an empty list when it has none."""
    process = Process(command, cwd=cwd, env=env)
    problems: list[str] = []
    try:
        try:
            first = process.receive(time.monotonic() + time_limit)
            handshake = Handshake.model_validate(first)
        except (ProcessDied, ProcessTimeout, ProcessGarbage, ValidationError) as error:
            what = type(error).__name__.removeprefix("Process")
            return [f"handshake: {what}: {' '.join(str(error).split())[:800]}"]
        requests = _requests(handshake, matrix or packaged("matrix.yaml"))
        if not requests:
            problems.append(f"handshake: its rows {handshake.rows} match no row of the matrix")
        if handshake.repro is not None and requests:
            requests.append({**requests[0], "op": "repro", "media": {}})
        for number, asked in enumerate(requests, 1):
            request: dict[str, Any] = {"id": f"v{number}", **asked}
            where = f"{asked['op']} {asked['row']['id']} (request v{number})"
            problem = _exchange(process, handshake, request, time_limit)
            if problem is not None:
                problems.append(f"{where}: {problem}")
                if process.popen.poll() is not None or "no answer" in problem:
                    problems.append("the bridge stopped answering; the remaining requests unsent")
                    break
    finally:
        process.close()
    return problems


def _exchange(
    process: Process, handshake: Handshake, request: dict[str, Any], time_limit: float
) -> str | None:
    try:
        process.send(request)
        line = process.receive(time.monotonic() + time_limit)
    except ProcessDied as error:
        return f"the process died: {error}"
    except ProcessTimeout:
        return f"no answer within {time_limit:g} s"
    except ProcessGarbage as error:
        return f"not a protocol line: {error}"
    try:
        answer = parse_answer(line)
    except (ValueError, ValidationError) as error:
        return f"not an answer of the schema ($defs/Answer): {' '.join(str(error).split())[:600]}"
    if answer.id != request["id"]:
        return f"answered request {answer.id!r} instead"
    if request["op"] == "repro":
        return None if isinstance(answer, ReproAnswer) else "a repro request needs a `script`"
    if isinstance(answer, ReproAnswer):
        return "a render request answered with a `script`"
    if isinstance(answer, RefusalAnswer) and answer.refusal.kind not in handshake.refusal_kinds:
        return f"refusal kind {answer.refusal.kind!r} is not in the handshake's refusal_kinds"
    if isinstance(answer, PayloadAnswer):
        try:
            decode_payload(answer.payload)
        except ValueError as error:
            return f"payload: {error}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.adoption.verify_bridge")
    parser.add_argument("--matrix", help="matrix.yaml (default: the packaged one)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per answer")
    parser.add_argument("command", nargs="+", help="the command that starts the bridge")
    args = parser.parse_args(argv)
    problems = verify_bridge(
        args.command,
        matrix=Path(args.matrix) if args.matrix else None,
        time_limit=args.time_limit,
    )
    for problem in problems:
        print(problem)
    print(f"{len(problems)} protocol problem(s)" if problems else "the bridge speaks protocol 1")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
