"""The LlamaIndex target: `ChatMessage`s with content blocks, sent by each provider's official
`llama-index-llms-*` integration with the scenario's `FunctionTool`s, observed on the wire.

How a cell is rendered, the way a LlamaIndex user gets there:

1. The canonical history becomes the `ChatMessage`s a `FunctionAgent` keeps for the same
   conversation (`_messages.to_messages`): the tool result is a `MessageRole.TOOL` message whose
   blocks are the tool output's (`TextBlock`, `ImageBlock`, `DocumentBlock`, `AudioBlock`,
   `VideoBlock`), with `additional_kwargs={"tool_call_id": ...}`, as the agent writes it.
2. The row's LLM from its integration (`OpenAI`, `OpenAIResponses`, `Anthropic`, `GoogleGenAI`,
   `BedrockConverse`, `MistralAI`, `Cohere`, `Groq`; `_models.py`; for Claude through Bedrock
   InvokeModel, `Anthropic` with `aws_region`; for Vertex AI, `Anthropic` with `project_id` and
   `region`, `GoogleGenAI` with `vertexai_config`) is built with a fake key and its base URL on
   the loopback recorder, and `llm.chat_with_tools(tools, chat_history=...)`
   sends the request with one `FunctionTool` per tool of the history: the call a
   `FunctionAgent` makes for its next step. The recorder answers 400, so exactly one request is
   made and nothing leaves the machine.
3. What the integration raises before a request arrives is the outcome; `refusal_types` are
   the exception types the integrations raise for content a provider cannot carry.

Storage round trip (`render_stored`): each `ChatMessage.model_dump_json()` (what LlamaIndex's
chat stores persist), loaded back with `ChatMessage.model_validate`, rendered again.

The module imports without LlamaIndex; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import functools
import importlib
import socket
import threading
import warnings
from collections.abc import Generator
from contextlib import contextmanager
from importlib import metadata
from typing import Any

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, environment, thread_token
from conformance.targets.llamaindex._messages import (
    dump_messages,
    load_messages,
    to_messages,
    tool_names,
)
from conformance.targets.llamaindex._models import (
    MODELS,
    VERTEX_ENVIRONMENT,
    ModelSpec,
    import_error,
)

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "NOT_APPLICABLE",
    "LlamaIndexTarget",
    "dump_messages",
    "load_messages",
    "to_messages",
]

DISTRIBUTION = "llama-index-core"
INSTALL_HINT = (
    "pip install llama-index-core llama-index-llms-openai llama-index-llms-anthropic "
    "llama-index-llms-google-genai llama-index-llms-bedrock-converse llama-index-llms-mistralai "
    'llama-index-llms-cohere llama-index-llms-groq (or `nox -s "target(llamaindex)"`)'
)

NOT_APPLICABLE: dict[str, str] = {
    "style:prompt": (
        "LlamaIndex has no tool-produced user content: a FunctionTool's output becomes the "
        "tool message (FunctionAgent.handle_tool_call_results) and nothing is added beside it"
    ),
}


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    try:
        importlib.import_module("llama_index.core.base.llms.types")
    except ImportError as error:
        return f"llama-index-core is not installed ({error}): {INSTALL_HINT}"
    return None


def _not_applicable() -> dict[str, str]:
    """The declared features, and video where the installed core defines no `VideoBlock`."""
    found = dict(NOT_APPLICABLE)
    types = importlib.import_module("llama_index.core.base.llms.types")
    if getattr(types, "VideoBlock", None) is None:
        found["content:video"] = "this llama-index-core defines no VideoBlock"
    return found


@functools.cache
def _tool(name: str) -> Any:
    """The scenario's tool of this name, a real `FunctionTool` (built once: building infers a
    pydantic schema from the function, and the LLM only reads its metadata)."""
    from llama_index.core.tools import FunctionTool

    def tool() -> str:
        return ""

    return FunctionTool.from_defaults(
        fn=tool,
        name=name,
        description="A tool of the scenario; the model is never asked to run it again.",
    )


def _sdk_versions() -> dict[str, str]:
    names = [
        DISTRIBUTION,
        *dict.fromkeys(d for s in MODELS.values() for d in (s.distribution, s.sdk)),
    ]
    found = {name: _version(name) for name in names}
    return {name: version for name, version in found.items() if version is not None}


def _refusal_types() -> tuple[type[BaseException], ...]:
    """What the integrations raise, before sending, for content a provider cannot carry
    (docs/llamaindex.md#refusals reads each one in the integrations' source): `ValueError`
    (e.g. `llama_index.llms.anthropic.utils` for a block it has no mapping for,
    `llama_index.llms.bedrock_converse.utils` for media it cannot inline)."""
    return (ValueError,)


class LlamaIndexTarget:
    """LlamaIndex `ChatMessage`s through each provider's integration, `chat_with_tools`."""

    name = "llamaindex"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _version(DISTRIBUTION) or "not installed"
        self.sdk_versions: dict[str, str] = _sdk_versions()
        self.refusal_types: tuple[type[BaseException], ...] = _refusal_types()
        self.not_applicable: dict[str, str] = (
            _not_applicable() if self.unavailable is None else dict(NOT_APPLICABLE)
        )

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        spec = MODELS.get(row.api)
        if spec is None:
            return f"the llamaindex target has no integration for api {row.api!r}"
        error = import_error(spec)
        if error is not None:
            return (
                f"{spec.distribution} is not importable beside llama-index-core {self.version} "
                f"({error}); pip install {spec.distribution}"
            )
        return _unknown_model(spec, row)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, to_messages(history, MODELS[row.api].turn))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        stored = dump_messages(to_messages(history, MODELS[row.api].turn))
        return self._send(row, history, load_messages(stored))

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (LlamaIndex and the stdlib) that sends this cell's messages."""
        from conformance.targets.llamaindex._repro import repro_script

        return repro_script(row, history)

    def _send(self, row: RowRef, history: History, messages: list[Any]) -> Payload:
        spec = MODELS[row.api]
        tools = [_tool(n) for n in tool_names(history)]
        token = thread_token()

        def send(base: str) -> None:
            with _vertex_environment(row.api):
                _model(spec, row, base).chat_with_tools(tools, chat_history=list(messages))

        with warnings.catch_warnings(), _loopback_only():
            warnings.simplefilter("ignore")  # the suite runs with warnings as errors
            return body_or_raise(row.api, send, token=token)


@functools.cache
def _unknown_model(spec: ModelSpec, row: RowRef) -> str | None:
    """Why the integration cannot serve the row's model at all, else None.

    Some integrations read the model's context size from a table of the model names they knew
    when released (`mistralai_modelname_to_contextsize` in llama-index-llms-mistralai,
    `cohere_modelname_to_contextsize` in llama-index-llms-cohere) and raise `ValueError` for
    any other name, from `llm.metadata`, which `chat` reads for every request. That is no
    refusal of content: every request for that model fails the same way, so the row is not
    served, with that reason.
    """
    try:
        metadata = spec.build(row, "http://127.0.0.1:9").metadata
    except ValueError as error:
        first = str(error).split(". Please", 1)[0]
        return f"{spec.distribution} {_version(spec.distribution)} refuses the model: {first}"
    return None if metadata is not None else f"{spec.distribution} gave no model metadata"


class _Models(threading.local):
    """The LLMs built on this rendering thread, per api, model and base URL."""

    def __init__(self) -> None:
        self.built: dict[tuple[str, str, str], Any] = {}


_MODELS = _Models()


def _model(spec: ModelSpec, row: RowRef, base: str) -> Any:
    """The row's LLM for `base`, built once per rendering thread (the base URL is the thread's
    own recorder channel, the same every render; an LLM is configuration, `chat` keeps no
    state between calls, and building one makes its SDK clients anew)."""
    key = (row.api, row.model, base)
    found = _MODELS.built.get(key)
    if found is None:
        found = _MODELS.built[key] = spec.build(row, base)
    return found


@contextmanager
def _vertex_environment(api: str) -> Generator[None]:
    """What a request of the api needs from the environment, held for the request: for
    `anthropic-vertex`, Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`),
    which anthropic's `AnthropicVertex._ensure_access_token` loads through google-auth
    (`load_auth`) on the client's first request, as `Anthropic(project_id=..., region=...)`
    gives it no credentials: a service account key whose token exchange stays on 127.0.0.1
    (`conformance.targets.gcp_credentials`). Nothing for any other api."""
    if api != "anthropic-vertex":
        yield
        return
    from conformance.targets.gcp_credentials import credentials_file

    with VERTEX_ENVIRONMENT, environment({"GOOGLE_APPLICATION_CREDENTIALS": credentials_file()}):
        yield


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@contextmanager
def _loopback_only() -> Generator[None]:
    """Name resolution for loopback hosts only while a cell renders: an integration that
    downloads URL media may fetch from the suite's fixture host on 127.0.0.1, never from the
    network. A refused lookup surfaces as the integration's own error: a crash, never a pass."""
    original = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in _LOOPBACK:
            raise socket.gaierror(
                socket.EAI_NONAME, f"the conformance suite resolves loopback hosts only: {name}"
            )
        return original(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.getaddrinfo = original
