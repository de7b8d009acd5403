"""Cassettes: each rendered payload's HTTP exchange, recorded once and replayed as a check.

A cassette is `cassettes/<target>/<api>/<family>.<type>.<source>.<style>.yaml` (the snapshot's
name), in vcrpy's YAML format with one interaction: the request the api's official client sent
for the cell's payload (`conformance.recording.send`), and the answer it got. vcrpy's `metadata` key
says where it came from:

```yaml
metadata:
  origin: double        # or live
  date: '2026-11-30'
```

- **Recording** (`nox -s record`, or `-- --live`): the client is pointed at the local double
  (`conformance.recording.double`) or the real API; the request is stored with the real API's host
  (the double's `127.0.0.1:<port>` is rewritten, `Host` header included), credentials filtered out
  (`FILTER_HEADERS`, `FILTER_QUERY`, `SCRUB_RESPONSE_HEADERS`).
- **URL media**: the payload is sent, recorded and replayed with the fixture host's origin
  (`http://127.0.0.1:<port>`, a new port every run) replaced by
  `conformance.scenarios.fixtures.ORIGIN_STAND_IN`, so a cassette's body does not depend on the port
  and the replayed body matches it byte for byte. (A live API could not fetch 127.0.0.1 either: a
  live recording of a URL cell records the API's answer to the stand-in URL.)
- **Replay** (the `cassette` check): record mode `none`, the network blocked, and the request
  must match on method, scheme, host, port, path, query and the exact body bytes (`exact_body`,
  which shows a unified diff of the pretty-printed JSON when they differ). A missing cassette,
  one that cannot be read, an interaction left unplayed or a request the cassette does not
  hold fails the check.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import importlib
import json
import re
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, cast
from urllib.parse import urlsplit, urlunsplit

from conformance.matrix import CellSpec
from conformance.recording.send import CANONICAL, KEY_SLOT, LIVE_KEYS, Senders
from conformance.scenarios.fixtures import stand_in

__all__ = [
    "FILTER_HEADERS",
    "FILTER_QUERY",
    "MATCH_ON",
    "SCRUB_RESPONSE_HEADERS",
    "CassetteResult",
    "Cassettes",
    "Live",
    "MissingKeys",
    "Origin",
    "Recorder",
    "Replayer",
    "cassette_path",
    "exact_body",
    "live_keys",
]

Origin = Literal["double", "live"]

FILTER_HEADERS: Final = (
    "authorization",  # Bearer keys (OpenAI, Mistral, Cohere, Groq, xAI, HF...) and AWS SigV4
    "x-api-key",  # Anthropic
    "api-key",  # Azure-style OpenAI deployments
    "x-goog-api-key",  # Gemini
    "x-amz-security-token",  # AWS session token: a credential in its own right
    "x-amz-date",  # part of the SigV4 signature context; also makes every recording differ
    "amz-sdk-invocation-id",  # a random id per call: noise in a committed file
    "cookie",
    # the recording machine (OS, kernel, architecture, Python build), not the request
    "x-stainless-os",
    "x-stainless-arch",
    "x-stainless-runtime-version",
    "x-fern-platform",
    "x-fern-runtime",
)
"""Request headers removed before a request is stored (and before it is matched).

`x-amz-content-sha256` is kept when a client sends it: it is the SHA-256 of the (public)
body, not a credential."""

FILTER_QUERY: Final = ("key", "api_key", "api-key", "apikey", "access_token", "token")
"""Query parameters removed before a request is stored (Gemini's `?key=`, and the like)."""

SCRUB_RESPONSE_HEADERS: Final = frozenset(
    {
        "set-cookie",
        "openai-organization",
        "openai-project",
        "anthropic-organization-id",
        "x-amzn-requestid",
        "date",
        "server",
    }
)
"""Response headers dropped from a recording: cookies and account ids from a live API, and
the per-run noise (`date`, `server`) that would make every re-recording a diff."""

MATCH_ON: Final = ("method", "scheme", "host", "port", "path", "query", "exact_body")

_DIFF_LINES: Final = 60


@dataclass(frozen=True)
class Live:
    """What a live API said to a cell's request: accepted (2xx) or not, and when."""

    accepted: bool
    date: dt.date


@dataclass(frozen=True)
class CassetteResult:
    passed: bool
    detail: str
    live: Live | None = None


def cassette_path(root: Path, target: str, cell: CellSpec) -> Path:
    """`<root>/<target>/<api>/<family>.<type>.<source>.<style>.yaml`, as snapshots are named."""
    name = f"{cell.family}.{cell.content_type}.{cell.source}.{cell.style}.yaml"
    return root / target / cell.api / name


# --- matching ---------------------------------------------------------------------------------


def _pretty(body: bytes) -> list[str]:
    """Indented JSON in the body's own key order; the raw text when it is not JSON."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return [repr(body)]
    try:
        value = json.loads(text)
    except ValueError:
        return text.splitlines()
    return json.dumps(value, indent=2, ensure_ascii=False).splitlines()


def _bytes(body: object) -> bytes:
    if body is None:
        return b""
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    raise TypeError(f"a request body of type {type(body).__name__}")


def body_diff(sent: bytes, recorded: bytes) -> str:
    """Why two bodies differ: a unified diff of their pretty-printed JSON, or, when that is
    the same, the first byte where they part."""
    diff = list(
        difflib.unified_diff(_pretty(recorded), _pretty(sent), "recorded", "sent", n=2, lineterm="")
    )
    if not diff:
        at = next(
            (i for i, (a, b) in enumerate(zip(sent, recorded, strict=False)) if a != b),
            min(len(sent), len(recorded)),
        )
        return (
            f"the same JSON, different bytes ({len(recorded)} recorded, {len(sent)} sent), "
            f"first difference at byte {at}: recorded {recorded[at : at + 40]!r}, "
            f"sent {sent[at : at + 40]!r}"
        )
    shown = diff[:_DIFF_LINES]
    if len(diff) > _DIFF_LINES:
        shown.append(f"... ({len(diff) - _DIFF_LINES} more lines)")
    return "\n".join(shown)


def exact_body(sent: Any, recorded: Any) -> None:
    """vcrpy matcher: the bodies are the same bytes (vcrpy's `body` matcher compares parsed
    JSON, which hides key order, spacing and escaping)."""
    a, b = _bytes(sent.body), _bytes(recorded.body)
    if a != b:
        raise AssertionError(body_diff(a, b))


# --- host rewriting and scrubbing -------------------------------------------------------------


def _rewrite(api: str, *, host: bool = True) -> Callable[[Any], Any]:
    """before_record_request: the request as sent to `api`'s real host.

    vcrpy runs this hook on the request it matches as well as on the one it stores. Replay
    passes `host=False`: rewriting the host there would make any host, scheme or port the
    client sent to match the recorded one, so the check could never fail on them.
    """
    real = urlsplit(CANONICAL[api])

    def rewrite(request: Any) -> Any:
        if host:
            parts = urlsplit(str(request.uri))
            request.uri = urlunsplit((real.scheme, real.netloc, parts.path, parts.query, ""))
        for name, value in list(request.headers.items()):
            if isinstance(value, bytes):  # botocore's: stored as text, readable and scannable
                value = request.headers[name] = value.decode("latin-1")
            if name.lower() == "host" and host:
                request.headers[name] = real.netloc
            elif name.lower() == "user-agent":
                request.headers[name] = _USER_AGENT_MACHINE.sub("", str(value)).strip()
        return request

    return rewrite


_USER_AGENT_MACHINE: Final = re.compile(r"\s*\b(?:os|md|m|cfg|ua|lang)/\S+")
"""botocore's user-agent parts that describe the machine and feature flags (in no fixed order);
the SDK's own `name/version` parts stay."""


def _scrub_response(response: dict[str, Any]) -> dict[str, Any]:
    headers: dict[str, Any] = response.get("headers", {})
    for name in list(headers):
        if name.lower() in SCRUB_RESPONSE_HEADERS:
            del headers[name]
    return response


# --- vcrpy ------------------------------------------------------------------------------------


def _module(name: str) -> Any:
    """A vcrpy or pytest-recording module (imported when cassettes are used; no type stubs).

    pytest-recording's package is always loaded first: it asks pytest to rewrite `vcr.matchers`
    when it is imported, and loaded after vcrpy (a run with `-p no:recording`, where only its
    network guard is used) pytest warns that the module is already imported, which a project
    that turns warnings into errors makes a failure of every cassette check."""
    importlib.import_module("pytest_recording")
    return importlib.import_module(name)


def _vcr(api: str, record_mode: str) -> Any:
    config = _module("vcr").VCR(
        serializer="yaml",
        record_mode=record_mode,
        match_on=MATCH_ON,
        filter_headers=FILTER_HEADERS,
        filter_query_parameters=FILTER_QUERY,
        before_record_request=_rewrite(api, host=record_mode != "none"),
        before_record_response=_scrub_response,
        decode_compressed_response=True,
    )
    config.register_matcher("exact_body", exact_body)
    return config


def _origin(cassette: Any) -> tuple[Origin, dt.date, int]:
    """The cassette's origin, date and recorded status; `ValueError` when they are missing."""
    metadata: Mapping[str, Any] = cassette._metadata  # pyright: ignore[reportPrivateUsage]
    origin, date = metadata.get("origin"), metadata.get("date")
    if origin not in ("double", "live"):
        raise ValueError(
            f"metadata.origin is {origin!r}, not 'double' or 'live'; re-record with `nox -s record`"
        )
    try:
        day = dt.date.fromisoformat(str(date))
    except ValueError:
        raise ValueError(f"metadata.date {date!r} is not a YYYY-MM-DD date") from None
    responses: list[Any] = cassette.responses
    return origin, day, int(responses[0]["status"]["code"]) if responses else 0


def _causes(error: BaseException) -> Iterator[BaseException]:
    """The error and everything it was raised from (botocore keeps the cause in `kwargs`)."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        kwargs = getattr(current, "kwargs", None)
        inner = cast("dict[str, object]", kwargs).get("error") if isinstance(kwargs, dict) else None
        todo += [current.__cause__, current.__context__]
        if isinstance(inner, BaseException):
            todo.append(inner)


def _describe_mismatch(path: str, error: BaseException, recorded: Any) -> str:
    cannot_play = _module("vcr.errors").CannotOverwriteExistingCassetteException
    found: Any = next((e for e in _causes(error) if isinstance(e, cannot_play)), None)
    if found is None or found.failed_request is None:
        return f"{path}: sending failed: {type(error).__name__}: {error}"
    sent = found.failed_request
    lines = [f"{path}: the cassette does not hold the request the SDK sent"]
    if sent.method != recorded.method:
        lines.append(f"method: recorded {recorded.method}, sent {sent.method}")
    if sent.uri != recorded.uri:
        lines.append(f"uri: recorded {recorded.uri}, sent {sent.uri}")
    was, now = _user_agent(recorded), _user_agent(sent)
    if was != now:
        lines.append(
            f"client: recorded with {was or '?'}, sent with {now or '?'}; an SDK upgrade can"
            " change the bytes (re-record with `nox -s record` and review the diff)"
        )
    sent_body = _bytes(sent.body)
    recorded_body = _bytes(recorded.body)
    if sent_body != recorded_body:
        lines.append("body (re-record with `nox -s record` if the change is intended):")
        lines.append(body_diff(sent_body, recorded_body))
    return "\n".join(lines)


def _user_agent(request: Any) -> str:
    headers: Mapping[str, Any] = request.headers
    value: Any = next((v for k, v in headers.items() if k.lower() == "user-agent"), "")
    if isinstance(value, list):
        value = cast("list[Any]", value)[0] if value else ""
    text = str(value)
    return _USER_AGENT_MACHINE.sub("", text).strip()


@contextlib.contextmanager
def _network_blocked() -> Generator[None]:
    """pytest-recording's guard: every socket connection raises, loopback included."""
    with _module("pytest_recording.network").blocking_context():
        yield


# --- replay and record ------------------------------------------------------------------------


@dataclass
class Replayer:
    """Replays cassettes through the official clients, pointed at the real hosts, offline."""

    root: Path
    senders: Senders = field(default_factory=Senders)
    _vcrs: dict[str, Any] = field(default_factory=dict[str, Any])

    def _config(self, api: str) -> Any:
        if api not in self._vcrs:
            self._vcrs[api] = _vcr(api, "none")
        return self._vcrs[api]

    def check(self, target: str, cell: CellSpec, payload: Mapping[str, Any]) -> CassetteResult:
        path = cassette_path(self.root, target, cell)
        shown = _shown(path)
        if not path.exists():
            return CassetteResult(
                False, f"no cassette at {shown}; record it with `nox -s record` (offline)"
            )
        failure: BaseException | None = None
        with contextlib.ExitStack() as stack:
            try:
                cassette = stack.enter_context(
                    self._config(cell.api).use_cassette(str(path), allow_playback_repeats=False)
                )
                origin, day, status = _origin(cassette)
            except Exception as error:  # unreadable YAML, a wrong shape, no origin: say which
                return CassetteResult(False, _unreadable(shown, error))
            if len(cassette) != 1:
                return CassetteResult(
                    False,
                    f"{shown}: holds {len(cassette)} interactions; one cell sends one request"
                    " (re-record with `nox -s record`)",
                )
            with _network_blocked():
                try:
                    self.senders.send(cell.api, cell.model, stand_in(payload))
                except Exception as error:  # judged below: a replayed error answer is fine
                    failure = error
            played, total, all_played = cassette.play_count, len(cassette), cassette.all_played
            recorded = cassette.requests[0]
        if played == 0:
            assert failure is not None
            return CassetteResult(False, _describe_mismatch(shown, failure, recorded))
        if not all_played:
            return CassetteResult(False, f"{shown}: {total - played} of {total} left unplayed")
        live = Live(200 <= status < 300, day) if origin == "live" else None
        said = f"answered {status}" + (
            f" (the SDK raised {type(failure).__name__})" if failure else ""
        )
        return CassetteResult(
            True, f"{shown}: request byte-identical; recorded {origin} {day}, {said}", live
        )


def _unreadable(shown: str, error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return f"{shown}: not a readable cassette ({type(error).__name__}): {text}"


@dataclass
class Recorder:
    """Records one cassette per cell with clients pointed at `senders` (double or live)."""

    root: Path
    senders: Senders
    origin: Origin
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())

    def record(self, target: str, cell: CellSpec, payload: Mapping[str, Any]) -> CassetteResult:
        path = cassette_path(self.root, target, cell)
        path.unlink(missing_ok=True)  # a recording always starts afresh
        failure: BaseException | None = None
        with _vcr(cell.api, "once").use_cassette(str(path)) as cassette:
            cassette.get_metadata("origin", self.origin)
            cassette.get_metadata("date", self.today.isoformat())
            try:
                self.senders.send(cell.api, cell.model, stand_in(payload))
            except Exception as error:  # a rejection is recorded too; the report says so
                failure = error
            responses: list[Any] = list(cassette.responses)
        shown = _shown(path)
        if len(responses) != 1:
            path.unlink(missing_ok=True)
            return CassetteResult(
                False,
                f"{shown}: {len(responses)} exchanges recorded, not one:"
                f" {type(failure).__name__}: {failure}",
            )
        status = int(responses[0]["status"]["code"])
        live = Live(200 <= status < 300, self.today) if self.origin == "live" else None
        detail = f"recorded {shown} ({self.origin}, answered {status})"
        if failure is not None:
            detail += f"; the SDK raised {type(failure).__name__}: {failure}"
        return CassetteResult(failure is None, detail, live)


def _shown(path: Path) -> str:
    """The path relative to the working directory when it is below it."""
    with contextlib.suppress(ValueError):
        return str(path.relative_to(Path.cwd()))
    return str(path)


class MissingKeys(ValueError):
    """A live recording lacks credentials; the message names the environment variables."""


def live_keys(apis: set[str], env: Mapping[str, str]) -> dict[str, str]:
    """The credentials a live recording of `apis` needs, from `env`, as `Senders.keys`."""
    keys: dict[str, str] = {}
    missing: list[str] = []
    slots = {
        "AWS_ACCESS_KEY_ID": "aws_access_key_id",
        "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key",
    }
    for api in sorted(apis):
        for names in LIVE_KEYS[api]:
            value = next((env[n] for n in names if env.get(n)), None)
            if value is None:
                missing.append(f"{api} needs {' or '.join(names)}")
                continue
            slot = slots.get(names[0]) or KEY_SLOT[api]
            keys[slot] = value
    if apis & {"bedrock-converse", "anthropic-bedrock"} and env.get("AWS_SESSION_TOKEN"):
        keys["aws_session_token"] = env["AWS_SESSION_TOKEN"]
    if missing:
        raise MissingKeys(
            "live recording: missing credentials in the environment: "
            + "; ".join(missing)
            + " (narrow the recording to the apis you have keys for, e.g. -k openai-chat)"
        )
    return keys


class Cassettes:
    """The cassette check of a pytest session: replay (`record=None`), or record against the
    double or live; clients, vcrpy configs and the double are made once and closed at the end."""

    def __init__(
        self, root: Path, record: Origin | None = None, keys: Mapping[str, str] | None = None
    ) -> None:
        self.root = root
        self.record_origin = record
        self._keys = dict(keys) if keys is not None else None
        self._stack = contextlib.ExitStack()
        self._replayer: Replayer | None = None
        self._recorder: Recorder | None = None

    def check(self, target: str, cell: CellSpec, payload: Mapping[str, Any]) -> CassetteResult:
        if self.record_origin is None:
            if self._replayer is None:
                self._replayer = Replayer(self.root)
                self._stack.callback(self._replayer.senders.close)
            return self._replayer.check(target, cell, payload)
        return self._recording().record(target, cell, payload)

    def _recording(self) -> Recorder:
        if self._recorder is None:
            if self.record_origin == "live":
                senders = Senders(keys=self._keys or {}, timeout=60.0)
            else:
                from conformance.recording.double import running

                double = self._stack.enter_context(running())
                senders = Senders(
                    base_urls={a: double.base_url + urlsplit(u).path for a, u in CANONICAL.items()}
                )
            self._stack.callback(senders.close)
            origin: Origin = "live" if self.record_origin == "live" else "double"
            self._recorder = Recorder(self.root, senders, origin)
        return self._recorder

    def close(self) -> None:
        self._stack.close()
