"""One bridge process: started, handshaken, asked one line at a time, killed.

Private to `conformance.targets.bridge`. A process reads requests on stdin and writes one JSON
line per answer on stdout; a reader thread turns stdout into a queue of lines (None at end of
file), so that waiting for an answer has a deadline, and another drains stderr into a short
tail quoted when the process dies.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any, cast

__all__ = ["STDERR_TAIL", "Process", "ProcessDied", "ProcessGarbage", "ProcessTimeout"]

STDERR_TAIL = 2000
"""Characters of a process's stderr kept, the last ones, to quote when it dies."""
MAX_LINE = 256 * 1024 * 1024
"""Longest answer line read (a payload with every fixture inline is a few MB)."""


class ProcessDied(Exception):
    """The process ended (or closed its stdout) before answering."""


class ProcessTimeout(Exception):
    """No answer line within the deadline."""


class ProcessGarbage(Exception):
    """A line on stdout that is not one JSON object."""


class Process:
    """A started bridge process and its two reader threads."""

    def __init__(
        self, command: Sequence[str], *, cwd: str | None, env: Mapping[str, str] | None
    ) -> None:
        self.command = tuple(command)
        self.popen = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **env} if env is not None else None,
        )
        self.lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._lock = threading.Lock()
        self.busy = False
        """A request was sent and its answer not read (its waiter gave up or was abandoned)."""
        out, err = cast("IO[bytes]", self.popen.stdout), cast("IO[bytes]", self.popen.stderr)
        threading.Thread(target=self._read_out, args=(out,), daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err, args=(err,), daemon=True)
        self._err_reader.start()

    def _read_out(self, stream: IO[bytes]) -> None:
        try:
            while line := stream.readline(MAX_LINE):
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(None)

    def _read_err(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stream.fileno(), 4096):
                text = chunk.decode("utf-8", "replace")
                with self._lock:
                    self._stderr.append(text)
                    self._stderr_size += len(text)
                    while self._stderr_size > STDERR_TAIL * 2 and len(self._stderr) > 1:
                        self._stderr_size -= len(self._stderr.popleft())

    def stderr_tail(self) -> str:
        with self._lock:
            return "".join(self._stderr)[-STDERR_TAIL:].strip()

    def send(self, message: dict[str, Any]) -> None:
        """Write one request line; `ProcessDied` when the process no longer reads."""
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        stdin = cast("IO[bytes]", self.popen.stdin)
        try:
            stdin.write(line.encode("utf-8"))
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as error:
            raise ProcessDied(self.died(f"it stopped reading its stdin ({error})")) from None

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next answer line as a JSON object, before `deadline` (`time.monotonic`)."""
        try:
            line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise ProcessTimeout from None
        if line is None:
            raise ProcessDied(self.died("it closed its stdout"))
        try:
            value = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise ProcessGarbage(f"a line that is not JSON: {_shown(line)}") from None
        if not isinstance(value, dict):
            raise ProcessGarbage(f"a line that is not a JSON object: {_shown(line)}")
        return cast("dict[str, Any]", value)

    def died(self, how: str) -> str:
        """Why the process is gone: its exit status (once it has one) and its stderr tail."""
        try:
            code = self.popen.wait(timeout=5.0)  # a loaded machine reaps slowly
        except subprocess.TimeoutExpired:
            code = None
        if code is not None:  # what it wrote before it ended, read to the end
            self._err_reader.join(timeout=2.0)
        status = "it is still running" if code is None else f"exit status {code}"
        tail = self.stderr_tail()
        return f"{how}; {status}" + (f"; its stderr ends: {tail[-600:]}" if tail else "")

    def kill(self) -> None:
        """End the process (no answer it might still give is read) and reap it."""
        with contextlib.suppress(OSError):
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=5.0)
        for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def close(self) -> None:
        """Close stdin (a bridge ends at end of input); kill it if it does not end soon."""
        with contextlib.suppress(OSError, ValueError):
            if self.popen.stdin is not None:
                self.popen.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(timeout=2.0)
        self.kill()


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").rstrip("\n")
    return repr(text[:200]) + (f" ... ({len(text)} characters)" if len(text) > 200 else "")
