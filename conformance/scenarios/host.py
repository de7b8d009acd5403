"""The fixture host: the scenarios' URL media served on 127.0.0.1 during a run.

A url cell's history points at this host, so a target that downloads a URL is observed doing so
(every fetch is recorded) and nothing passes because of a guard of the suite's own. Its origin
changes every run; stored data holds `ORIGIN_STAND_IN` in its place
(`conformance.scenarios.fixtures`).
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from conformance.scenarios.fixtures import (
    FIXTURE_TYPES,
    fixture_bytes,
    forget_origin,
    register_origin,
)

__all__ = ["Fetch", "FixtureHost", "fixture_host"]

_SINGLETON_LOCK = threading.Lock()
_SINGLETON: list[FixtureHost] = []


@dataclass(frozen=True)
class Fetch:
    """One request for a fixture URL."""

    method: str
    path: str
    user_agent: str
    status: int


@dataclass
class FixtureHost:
    """The fixture media under `<origin>/conformance/<name>` on 127.0.0.1, with each file's
    media type; every request is recorded, found or not (404)."""

    fetches: list[Fetch] = field(default_factory=list[Fetch])

    def __post_init__(self) -> None:
        lock = threading.Lock()
        fetches = self.fetches

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self, head: bool) -> None:
                name = self.path.split("?", 1)[0].removeprefix("/conformance/")
                media_type = FIXTURE_TYPES.get(name) if "/" not in name else None
                status = 200 if media_type is not None else 404
                with lock:
                    fetches.append(
                        Fetch(self.command, self.path, self.headers.get("user-agent", ""), status)
                    )
                body = fixture_bytes(name) if media_type is not None else b"not a fixture\n"
                self.send_response(status)
                self.send_header("content-type", media_type or "text/plain")
                self.send_header("content-length", str(len(body)))
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()
                if not head:
                    self.wfile.write(body)

            def do_GET(self) -> None:
                self._serve(head=False)

            def do_HEAD(self) -> None:
                self._serve(head=True)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._lock = lock
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        register_origin(self.origin)

    def url(self, name: str) -> str:
        """The URL of one fixture, e.g. `url("chart.png")`."""
        return f"{self.origin}/conformance/{name}"

    @contextmanager
    def watch(self) -> Generator[list[Fetch]]:
        """The fetches made while the block runs (the list fills when it ends)."""
        with self._lock:
            start = len(self.fetches)
        seen: list[Fetch] = []
        try:
            yield seen
        finally:
            with self._lock:
                seen.extend(self.fetches[start:])

    def close(self) -> None:
        forget_origin(self.origin)
        self._server.shutdown()
        self._server.server_close()


def fixture_host() -> FixtureHost:
    """The process's one fixture host, started on first use."""
    with _SINGLETON_LOCK:
        if not _SINGLETON:
            _SINGLETON.append(FixtureHost())
        return _SINGLETON[0]
