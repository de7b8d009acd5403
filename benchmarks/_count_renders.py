"""A pytest plugin for `bench_framework.py`'s counting run: what a cell asks of the target, counted.

Loaded with `-p _count_renders` (this folder on `PYTHONPATH`). For every cell the run renders
(`conformance.running.engine` calls `run_cell` once per target and cell, whatever number of its
checks run), it counts:

- `runs`: calls of `run_cell` for that target and cell (1 when the cell's checks share it);
- `direct` and `stored`: the target's `render` and `render_stored` calls inside them;
- `requests`: the requests that reached the loopback recorder inside them
  (`conformance.targets.kit.Recorder.channel`), i.e. what the framework sent; a framework that
  ran its agent a third time to get the messages it stores would show a third request.

The property searches render outside `run_cell` and are not counted. At the end of the session
the counts go to the JSON file named by `CONFORMANCE_BENCH_COUNTS`, as
`{"<target> <cell>": {"runs": n, "direct": n, "stored": n, "requests": n}}`.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

_COUNTS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
_OPEN: list[collections.Counter[str]] = []
"""The counter of the `run_cell` under way (renders run on a worker thread while the main thread
waits for them, so one at a time)."""


class _Counting:
    """The target, with its two renders counted; everything else is the target's own."""

    def __init__(self, target: Any, counts: collections.Counter[str]) -> None:
        self._target = target
        self._counts = counts

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)

    def render(self, row: Any, history: Any) -> Any:
        self._counts["direct"] += 1
        return self._target.render(row, history)

    def render_stored(self, row: Any, history: Any) -> Any:
        self._counts["stored"] += 1
        return self._target.render_stored(row, history)


def _counting_run_cell(original: Callable[..., Any]) -> Callable[..., Any]:
    def run_cell(target: Any, cell: Any) -> Any:
        counts = _COUNTS[f"{getattr(target, 'name', type(target).__name__)} {cell.id}"]
        counts["runs"] += 1
        _OPEN.append(counts)
        try:
            return original(_Counting(target, counts), cell)
        finally:
            _OPEN.pop()

    return run_cell


def _counting_channel(original: Callable[..., Any]) -> Callable[..., Any]:
    @contextlib.contextmanager
    def channel(self: Any, token: str | None = None) -> Generator[tuple[str, list[Any]]]:
        seen: list[list[Any]] = []
        try:
            with original(self, token) as (base, taken):
                seen.append(taken)
                yield base, taken
        finally:  # the list fills when the original block ends
            if _OPEN and seen:
                _OPEN[-1]["requests"] += len(seen[0])

    return channel


@pytest.hookimpl(trylast=True)  # after the suite's plugin has set up assertion rewriting
def pytest_configure(config: Any) -> None:
    from conformance.running import engine
    from conformance.targets import kit

    engine.run_cell = _counting_run_cell(engine.run_cell)  # type: ignore[assignment]
    kit.Recorder.channel = _counting_channel(kit.Recorder.channel)  # type: ignore[method-assign]


def pytest_sessionfinish(session: Any) -> None:
    out = os.environ.get("CONFORMANCE_BENCH_COUNTS")
    if out:
        data = {key: dict(counts) for key, counts in sorted(_COUNTS.items())}
        Path(out).write_text(json.dumps(data, indent=1), encoding="utf-8")
