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
   runtime endpoint pointed at the recorder; Claude's Messages body through InvokeModel
   (`anthropic-bedrock`) the same way through `bedrock/invoke/<model id>`. Vertex AI
   (`vertex_ai/<model>`: Claude to rawPredict, Gemini to generateContent) is given a service
   account key whose token exchange stays on 127.0.0.1 and an `api_base` naming the model's
   Vertex path (`_vertex.py`). The recorder records the body and answers 400; the payload is
   the first body that reached it (`conformance.targets.kit.body_or_raise`).
3. An exception raised before any request arrived is the target's: LiteLLM's
   `BadRequestError` is its refusal (`refusal_types`); anything else is a crash.

Storage round trip: LiteLLM has no history type of its own; its users store the OpenAI-format
messages list as JSON. `render_stored` does `json.loads(json.dumps(messages))` and renders again.

The module imports without LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import copy
from importlib import metadata
from typing import Any

from conformance.history import (
    History,
)
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, environment
from conformance.targets.litellm._messages import (
    dump_messages,
    error_flag_declared,
    import_litellm,
    load_messages,
    to_messages,
    tools_of,
)
from conformance.targets.litellm._render import offline_render
from conformance.targets.litellm._repro import repro_script
from conformance.targets.litellm._routes import API_KEY as API_KEY
from conformance.targets.litellm._routes import (
    ENV,
    ROUTES,
    completion_kwargs,
    signing_missing,
)

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
INSTALL_HINT = 'pip install litellm boto3 "google-auth[requests]"  (or: nox -s "target(litellm)")'
_SDKS = ("openai", "httpx", "boto3", "botocore", "google-auth")


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
        return signing_missing(row.api, _installed)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, to_messages(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, load_messages(dump_messages(to_messages(history))))

    def _send(self, row: RowRef, history: History, messages: list[dict[str, Any]]) -> Payload:
        litellm = import_litellm()

        def send(base: str) -> None:
            kwargs = completion_kwargs(row, history, base)
            with environment(kwargs.pop(ENV, {})):
                litellm.completion(messages=copy.deepcopy(messages), **kwargs)

        with offline_render(litellm, history):
            return body_or_raise(row.api, send)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (litellm and the stdlib only) that sends this history."""
        return repro_script(row, history, error_flag=error_flag_declared())
