"""The LiteLLM target: `litellm.completion` with each row's provider prefix, observed on the wire.

How a cell is rendered:

1. The canonical history becomes the OpenAI-format messages list LiteLLM takes
   (`to_messages`): the user prompt, an assistant message whose `tool_calls` hold the parallel
   calls, one `{"role": "tool", "tool_call_id": ..., "content": ...}` message per result, and
   tool-produced user content (style `prompt`) as one user message after the tool messages of
   the turn. A text-only result is the exact string; media is a list of content parts of the
   kinds LiteLLM's own types declare for tool and user messages (`ToolMessageContentPart`,
   `OpenAIMessageContentListBlock` in `litellm/types/llms/openai.py`): `image_url` (a data
   URI or the URL), `input_audio` (inline audio: base64 and format), and `file` for documents,
   video and audio by URL (`file_data` as a data URI, or `file_id` with the URL and `format`,
   as LiteLLM's "document / video input" docs show). A failed call is a tool message with the
   error text, and `is_error: true` where the installed LiteLLM declares that key on
   `ChatCompletionToolMessage`. LiteLLM keeps no provenance for tool-produced user content, so
   none is passed (no marker: a LiteLLM user has nothing to put there).
2. `litellm.completion(model="<prefix>/<row model>", messages=..., tools=...,
   api_base=<a recorder channel>, api_key=...)` sends the request through LiteLLM's own
   translation layer for that provider (`ROUTES`, in `_routes.py`). Bedrock goes through the
   Converse route (`bedrock/converse/<model id>`) signed by botocore with fake credentials, its
   runtime endpoint pointed at the recorder. The recorder records the body and answers 400; the
   payload is the first body that reached it (`conformance.targets.kit.body_or_raise`).
3. An exception raised before any request arrived is the target's: LiteLLM's
   `BadRequestError` is its refusal (`refusal_types`); anything else is a crash.

Storage round trip: LiteLLM has no history type of its own; its users store the OpenAI-format
messages list as JSON. `render_stored` does `json.loads(json.dumps(messages))` and renders again.

The module imports without LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import copy
import os
import threading
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from importlib import metadata
from typing import Any
from urllib.parse import urlsplit

from conformance.history import (
    History,
    Message,
    ToolResult,
)
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise
from conformance.targets.litellm._messages import (
    dump_messages,
    error_flag_declared,
    import_litellm,
    load_messages,
    to_messages,
    tools_of,
)
from conformance.targets.litellm._repro import repro_script
from conformance.targets.litellm._routes import API_KEY as API_KEY
from conformance.targets.litellm._routes import ENV, ROUTES, completion_kwargs

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "LiteLLMTarget",
    "completion_kwargs",
    "dump_messages",
    "load_messages",
    "to_messages",
    "tools_of",
]

DISTRIBUTION = "litellm"
INSTALL_HINT = 'pip install litellm boto3  (or: nox -s "target(litellm)")'
_SDKS = ("openai", "httpx", "boto3", "botocore")
_RENDER_LOCK = threading.Lock()


# --- the target --------------------------------------------------------------------------------


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    try:
        import_litellm()
    except ImportError as error:
        return f"litellm is not installed ({error}): {INSTALL_HINT}"
    return None


@contextmanager
def _environment(values: dict[str, str]) -> Generator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _loopback_hosts(history: History) -> list[str]:
    """`host:port` of every media URL of the history on 127.0.0.1 (the suite's fixture host)."""
    hosts: list[str] = []
    for item in history:
        parts = item.content if isinstance(item, ToolResult | Message) else []
        for part in parts if isinstance(parts, list) else []:
            url = getattr(part, "url", None)
            found = urlsplit(url) if isinstance(url, str) else None
            if found is not None and found.hostname == "127.0.0.1" and found.port is not None:
                hosts.append(f"127.0.0.1:{found.port}")
    return list(dict.fromkeys(hosts))


@contextmanager
def _loopback_media_allowed(litellm: Any, history: History) -> Generator[None]:
    """Let LiteLLM download the suite's fixture URLs as it would a public URL.

    LiteLLM refuses to fetch user-given URLs that resolve to private or loopback addresses
    (`litellm_core_utils/url_utils.py`, `validate_url`) unless the host is on its documented
    allowlist `litellm.user_url_allowed_hosts`. The fixture host serves on 127.0.0.1, so its
    `host:port` (and nothing else) is allowed for the render; a release without the setting has
    no such guard and needs nothing.
    """
    hosts = _loopback_hosts(history)
    before = getattr(litellm, "user_url_allowed_hosts", None)
    if not hosts or before is None:
        yield
        return
    litellm.user_url_allowed_hosts = [*before, *hosts]
    try:
        yield
    finally:
        litellm.user_url_allowed_hosts = before


class LiteLLMTarget:
    """`litellm.completion` per provider prefix, with the OpenAI-format history LiteLLM takes."""

    name = "litellm"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _installed(DISTRIBUTION) or "not installed"
        self.sdk_versions = {n: v for n in _SDKS if (v := _installed(n)) is not None}
        self.refusal_types: tuple[type[BaseException], ...] = ()
        """LiteLLM's `BadRequestError`: what its prompt factories raise, before sending, for
        content a provider's format cannot take (in `factory.py`, e.g. `_gemini_tool_media_part`
        for a file reference Gemini tool results cannot inline, the Bedrock file converters for a
        `file` part without data), and its `ImageFetchError` subclass for a failed download."""
        if self.unavailable is None:
            litellm = import_litellm()
            self.refusal_types = (litellm.BadRequestError,)
        self.unsupported_error: type[BaseException] = (
            self.refusal_types[0] if self.refusal_types else Exception
        )
        """The older single-type spelling of `refusal_types`, still read by the properties."""

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in ROUTES:
            return f"the litellm target has no provider prefix for api {row.api!r}"
        if row.api == "bedrock-converse" and _installed("boto3") is None:
            return "LiteLLM signs Bedrock requests with botocore: pip install boto3"
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, to_messages(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, load_messages(dump_messages(to_messages(history))))

    def _send(self, row: RowRef, history: History, messages: list[dict[str, Any]]) -> Payload:
        litellm = import_litellm()

        def send(base: str) -> None:
            kwargs = completion_kwargs(row, history, base)
            with _environment(kwargs.pop(ENV, {})):
                litellm.completion(messages=copy.deepcopy(messages), **kwargs)

        # LiteLLM imports provider modules lazily, on first use, and some of them warn (pydantic
        # `ReadOnly` TypedDicts); the suite runs with warnings as errors, LiteLLM users do not.
        with _RENDER_LOCK, warnings.catch_warnings(), _loopback_media_allowed(litellm, history):
            warnings.simplefilter("ignore")
            return body_or_raise(row.api, send)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (litellm and the stdlib only) that sends this history."""
        return repro_script(row, history, error_flag=error_flag_declared())
