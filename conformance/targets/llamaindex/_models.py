"""One LlamaIndex LLM per api, each from its official `llama-index-llms-*` integration,
pointed at a base URL with a fake key, as a user points it at a proxy."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.history import ToolCall
from conformance.targets.base import RowRef
from conformance.targets.kit import environment
from conformance.targets.llamaindex._messages import CallTurn, call_blocks

__all__ = ["API_KEY", "AWS_EXAMPLE_KEYS", "BEDROCK_BASE_ENV", "MODELS", "ModelSpec", "import_error"]

API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""


@dataclass(frozen=True)
class ModelSpec:
    """How one api is served: the integration package, its module, the SDK under it."""

    distribution: str
    module: str
    sdk: str
    build: Callable[[RowRef, str], Any]
    source: str
    """The constructor call as a LlamaIndex user writes it, `{model}` to fill in and `BASE`
    the variable holding the base URL: the reproducer scripts use it."""
    cls: str
    """The class `source` constructs, imported from `module`."""
    turn: CallTurn = call_blocks
    """How the integration's own chat response holds a tool-call turn."""
    setup: str = ""
    """Lines the reproducer runs before `source` (with `BASE` defined)."""


def _class(module: str, name: str) -> Any:
    """A class of an integration package (some ship no type information: read as `Any`)."""
    return getattr(importlib.import_module(module), name)


def _openai(row: RowRef, base: str) -> Any:
    OpenAI = _class("llama_index.llms.openai", "OpenAI")

    return OpenAI(model=row.model, api_key=API_KEY, api_base=base + "/v1", max_retries=0)


def _responses(row: RowRef, base: str) -> Any:
    OpenAIResponses = _class("llama_index.llms.openai", "OpenAIResponses")

    return OpenAIResponses(model=row.model, api_key=API_KEY, api_base=base + "/v1", max_retries=0)


def _anthropic(row: RowRef, base: str) -> Any:
    Anthropic = _class("llama_index.llms.anthropic", "Anthropic")

    return Anthropic(model=row.model, api_key=API_KEY, base_url=base, max_retries=0)


AWS_EXAMPLE_KEYS = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
"""AWS's documented example key pair, the recording layer's fake AWS keys (which targets may
not import: the layer contract); a test keeps the two equal. Given explicitly, so no
credential chain is consulted."""

BEDROCK_BASE_ENV = "ANTHROPIC_BEDROCK_BASE_URL"
"""Where anthropic's `AnthropicBedrock` reads its base URL when none is given
(`anthropic/lib/bedrock/_client.py`, `AnthropicBedrock.__init__`)."""

_ENVIRONMENT = threading.Lock()
"""Held while the environment carries one thread's base URL (the rendering threads each have
their own recorder channel)."""


def _anthropic_bedrock(row: RowRef, base: str) -> Any:
    """Claude through Bedrock InvokeModel as LlamaIndex documents it: llama-index-llms-anthropic's
    `Anthropic` given `aws_region` and AWS keys, which builds anthropic's `AnthropicBedrock`
    (the model in the URL, `/model/{id}/invoke`, SigV4-signed; `anthropic_version`
    `bedrock-2023-05-31` set in the body by the SDK). That branch of `Anthropic.__init__` passes
    no `base_url` to the client, so the base is where the SDK reads it when none is given, the
    `ANTHROPIC_BEDROCK_BASE_URL` environment variable, set only while the client is built."""
    Anthropic = _class("llama_index.llms.anthropic", "Anthropic")

    with _ENVIRONMENT, environment({BEDROCK_BASE_ENV: base}):
        return Anthropic(
            model=row.model,
            aws_region="us-east-1",
            aws_access_key_id=AWS_EXAMPLE_KEYS[0],
            aws_secret_access_key=AWS_EXAMPLE_KEYS[1],
            max_retries=0,
        )


def _gemini(row: RowRef, base: str) -> Any:
    """`GoogleGenAI` with `max_tokens` and `context_window` given, as its docstring says: without
    them it asks the API for the model's metadata (`client.models.get`) while being built."""
    from google.genai import types

    GoogleGenAI = _class("llama_index.llms.google_genai", "GoogleGenAI")

    return GoogleGenAI(
        model=row.model,
        api_key=API_KEY,
        http_options=types.HttpOptions(base_url=base),
        max_tokens=1024,
        context_window=1_000_000,
        max_retries=0,
    )


VERTEX_BASE_ENV = "ANTHROPIC_VERTEX_BASE_URL"
"""Where anthropic's `AnthropicVertex` reads its base URL when none is given
(`anthropic/lib/vertex/_client.py`, `AnthropicVertex.__init__`)."""

VERTEX_REGIONS = {"anthropic-vertex": "us-east5", "gemini-vertex": "us-central1"}
"""The Vertex AI location each Vertex row names (the recorder answers any)."""

VERTEX_ENVIRONMENT = threading.RLock()
"""Held while the environment carries what anthropic's `AnthropicVertex` reads from it for one
rendering thread (each thread has its own recorder channel): its base URL while it is built,
the credentials while a request is made (`llamaindex._vertex_environment`)."""


def _anthropic_vertex(row: RowRef, base: str) -> Any:
    """Claude on Vertex AI as LlamaIndex documents it: llama-index-llms-anthropic's `Anthropic`
    given `project_id` and `region`, which builds anthropic's `AnthropicVertex` (the model in
    the URL, `:rawPredict`; `anthropic_version` `vertex-2023-10-16` in the body, no `model`).
    That branch of `Anthropic.__init__` passes the client no `base_url` and no credentials, so
    the base is where the SDK reads it when none is given, `ANTHROPIC_VERTEX_BASE_URL`, set
    only while the client is built; the token comes from Application Default Credentials when
    the first request is made (`llamaindex._vertex_environment`)."""
    from conformance.targets.gcp_credentials import PROJECT

    Anthropic = _class("llama_index.llms.anthropic", "Anthropic")

    with VERTEX_ENVIRONMENT, environment({VERTEX_BASE_ENV: base + "/v1"}):
        return Anthropic(
            model=row.model,
            project_id=PROJECT,
            region=VERTEX_REGIONS["anthropic-vertex"],
            max_retries=0,
        )


def _gemini_vertex(row: RowRef, base: str) -> Any:
    """Gemini on Vertex AI: `GoogleGenAI` given a `vertexai_config` (its `VertexAIConfig`:
    project, location, credentials), which builds google-genai's Vertex client
    (`vertexai=True`, `/v1beta1/projects/{p}/locations/{l}/publishers/google/models/{m}`);
    `http_options.base_url` is passed through to it. The credentials are an OAuth token, which
    google-genai sends as given (nothing to refresh, nothing reaches Google)."""
    from google.genai import types
    from google.oauth2.credentials import Credentials

    from conformance.targets.gcp_credentials import PROJECT, TOKEN

    GoogleGenAI = _class("llama_index.llms.google_genai", "GoogleGenAI")

    return GoogleGenAI(
        model=row.model,
        vertexai_config={
            "project": PROJECT,
            "location": VERTEX_REGIONS["gemini-vertex"],
            "credentials": Credentials(token=TOKEN),  # pyright: ignore[reportCallIssue]
        },
        http_options=types.HttpOptions(base_url=base),
        max_tokens=1024,
        context_window=1_000_000,
        max_retries=0,
    )


def _bedrock(row: RowRef, base: str) -> Any:
    BedrockConverse = _class("llama_index.llms.bedrock_converse", "BedrockConverse")

    return BedrockConverse(
        model=row.model,
        region_name="us-east-1",
        aws_access_key_id="AKIACONFORMANCE0000",
        aws_secret_access_key=API_KEY,
        endpoint_url=base,
        max_retries=1,
    )


def _mistral(row: RowRef, base: str) -> Any:
    MistralAI = _class("llama_index.llms.mistralai", "MistralAI")

    return MistralAI(model=row.model, api_key=API_KEY, endpoint=base, max_retries=0)


def _cohere(row: RowRef, base: str) -> Any:
    Cohere = _class("llama_index.llms.cohere", "Cohere")

    return Cohere(model=row.model, api_key=API_KEY, base_url=base, max_retries=0)


def _cohere_turn(calls: list[ToolCall]) -> Any:
    """llama-index-llms-cohere's `Cohere.chat` returns the calls as the Cohere SDK's `ToolCall`
    objects in `additional_kwargs["tool_calls"]` (no `ToolCallBlock`), and reads them back from
    there when it maps tool messages (`_message_to_cohere_tool_results`)."""
    from cohere.types import ToolCall as CohereToolCall
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    tool_calls = [CohereToolCall(name=c.name, parameters=dict(c.arguments)) for c in calls]
    return ChatMessage(
        role=MessageRole.ASSISTANT, content="", additional_kwargs={"tool_calls": tool_calls}
    )


def _groq(row: RowRef, base: str) -> Any:
    Groq = _class("llama_index.llms.groq", "Groq")

    return Groq(model=row.model, api_key=API_KEY, api_base=base + "/v1", max_retries=0)


def _anthropic_vertex_setup() -> str:
    """The reproducer's lines for Claude on Vertex AI: a service account key and token server
    of its own (`gcp_credentials.repro_credentials`), the key in a file for Application Default
    Credentials, and the base URL where `AnthropicVertex` reads it."""
    from conformance.targets.gcp_credentials import repro_credentials

    return (
        "import os  # noqa: E402\n"
        "import tempfile  # noqa: E402\n\n"
        + repro_credentials("KEY_JSON")
        + "# Application Default Credentials: the key in a file, as `gcloud` users point ADC at\n"
        "# one. Anthropic(project_id=..., region=...) gives AnthropicVertex no base_url and no\n"
        "# credentials; the SDK reads both from the environment.\n"
        'handle, path = tempfile.mkstemp(suffix=".json")\n'
        'with os.fdopen(handle, "w") as file:\n'
        "    file.write(KEY_JSON)\n"
        'os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = path\n'
        f'os.environ["{VERTEX_BASE_ENV}"] = BASE + "/v1"\n'
    )


MODELS: dict[str, ModelSpec] = {
    "openai-chat": ModelSpec(
        "llama-index-llms-openai",
        "llama_index.llms.openai",
        "openai",
        _openai,
        'OpenAI(model={model!r}, api_key="fake", api_base=BASE + "/v1", max_retries=0)',
        "OpenAI",
    ),
    "openai-responses": ModelSpec(
        "llama-index-llms-openai",
        "llama_index.llms.openai",
        "openai",
        _responses,
        'OpenAIResponses(model={model!r}, api_key="fake", api_base=BASE + "/v1", max_retries=0)',
        "OpenAIResponses",
    ),
    "anthropic": ModelSpec(
        "llama-index-llms-anthropic",
        "llama_index.llms.anthropic",
        "anthropic",
        _anthropic,
        'Anthropic(model={model!r}, api_key="fake", base_url=BASE, max_retries=0)',
        "Anthropic",
    ),
    "anthropic-bedrock": ModelSpec(
        "llama-index-llms-anthropic",
        "llama_index.llms.anthropic",
        "anthropic",
        _anthropic_bedrock,
        'Anthropic(model={model!r}, aws_region="us-east-1", aws_access_key_id="fake", '
        'aws_secret_access_key="fake", max_retries=0)',
        "Anthropic",
        setup=(
            "import os\n\n"
            "# Anthropic(aws_region=...) gives AnthropicBedrock no base_url; the SDK reads this.\n"
            f'os.environ["{BEDROCK_BASE_ENV}"] = BASE\n'
        ),
    ),
    "gemini": ModelSpec(
        "llama-index-llms-google-genai",
        "llama_index.llms.google_genai",
        "google-genai",
        _gemini,
        'GoogleGenAI(model={model!r}, api_key="fake", http_options={{"base_url": BASE}}, '
        "max_tokens=1024, context_window=1000000, max_retries=0)",
        "GoogleGenAI",
    ),
    "gemini-vertex": ModelSpec(
        "llama-index-llms-google-genai",
        "llama_index.llms.google_genai",
        "google-genai",
        _gemini_vertex,
        'GoogleGenAI(model={model!r}, vertexai_config={{"project": PROJECT, "location": '
        '"us-central1", "credentials": Credentials(token="fake")}}, '
        'http_options={{"base_url": BASE}}, max_tokens=1024, context_window=1000000, '
        "max_retries=0)",
        "GoogleGenAI",
        setup=(
            "from google.oauth2.credentials import Credentials\n\n"
            "# The token is sent as given: google-genai never exchanges or refreshes it.\n"
            'PROJECT = "conformance-project"\n'
        ),
    ),
    "anthropic-vertex": ModelSpec(
        "llama-index-llms-anthropic",
        "llama_index.llms.anthropic",
        "anthropic",
        _anthropic_vertex,
        'Anthropic(model={model!r}, project_id="conformance-project", region="us-east5", '
        "max_retries=0)",
        "Anthropic",
        setup=_anthropic_vertex_setup(),
    ),
    "bedrock-converse": ModelSpec(
        "llama-index-llms-bedrock-converse",
        "llama_index.llms.bedrock_converse",
        "boto3",
        _bedrock,
        'BedrockConverse(model={model!r}, region_name="us-east-1", aws_access_key_id="fake", '
        'aws_secret_access_key="fake", endpoint_url=BASE, max_retries=1)',
        "BedrockConverse",
    ),
    "mistral": ModelSpec(
        "llama-index-llms-mistralai",
        "llama_index.llms.mistralai",
        "mistralai",
        _mistral,
        'MistralAI(model={model!r}, api_key="fake", endpoint=BASE, max_retries=0)',
        "MistralAI",
    ),
    "cohere": ModelSpec(
        "llama-index-llms-cohere",
        "llama_index.llms.cohere",
        "cohere",
        _cohere,
        'Cohere(model={model!r}, api_key="fake", base_url=BASE, max_retries=0)',
        "Cohere",
        _cohere_turn,
    ),
    "groq": ModelSpec(
        "llama-index-llms-groq",
        "llama_index.llms.groq",
        "openai",
        _groq,
        'Groq(model={model!r}, api_key="fake", api_base=BASE + "/v1", max_retries=0)',
        "Groq",
    ),
}
"""The integration per api, each the official `llama-index-llms-*` package for that provider.
The xai and huggingface rows are not served: this target has no integration for them yet, and
says so in `supports`."""


def import_error(spec: ModelSpec) -> str | None:
    """None if the integration package imports, else why not."""
    try:
        importlib.import_module(spec.module)
    except ImportError as error:
        return str(error)
    return None
