"""Strands' model provider classes, one per api, pointed at a base URL (the recorder).

Each is the provider class Strands ships for that api (`strands.models.<module>`), configured
as its docs show, with a stand-in key and its SDK client's base URL on the recorder:

- `openai-chat`: `OpenAIModel(client_args={"api_key", "base_url"}, model_id=...)`;
- `openai-responses`: `OpenAIResponsesModel`, the same arguments;
- `anthropic`: `AnthropicModel(client_args={"api_key", "base_url"}, model_id, max_tokens)`;
- `gemini`: `GeminiModel(client_args={"api_key", "http_options": {"base_url"}}, model_id)`;
- `gemini-vertex`: the same `GeminiModel`, its `client_args` (which `_get_client` passes to
  `genai.Client(**client_args)`) in google-genai's Vertex mode: `vertexai`, a project, a
  location and google-auth `Credentials(token=...)` (a stand-in access token), the base URL
  in `http_options`; google-genai then sends `/v1beta1/projects/.../models/{model}:...`
  (how Strands users reach Vertex AI: strands-agents/harness-sdk#1039);
- `bedrock-converse`: `BedrockModel(boto_session=<fake credentials>, endpoint_url=...,
  model_id)`: botocore signs the Converse (stream) request, the runtime endpoint is the
  recorder, and the model id travels in the path;
- `mistral`: `MistralModel(api_key=..., client_args={"server_url"}, model_id)`.

Strands has no provider class of its own for Cohere, Groq, xAI or Hugging Face (their rows
skip with that reason); its LiteLLM provider would be a variant of its own. Claude on Vertex
AI (`anthropic-vertex`) skips too: `AnthropicModel` builds the plain `anthropic.AsyncAnthropic`
client from its `client_args`, never `AnthropicVertex`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import PROJECT, TOKEN

__all__ = ["API_KEY", "MODELS", "ModelSpec"]

API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""
MAX_TOKENS = 1024
"""`max_tokens` for the providers that require one (Anthropic's Messages api)."""


@dataclass(frozen=True)
class ModelSpec:
    """How a row's api is served: the Strands module and class, the extra that installs its
    SDK, the SDK distribution, the builder, and the same construction as source for the
    reproducer (`imports`; `source`, an expression over `BASE`, `KEY` and `{model}`)."""

    module: str
    cls: str
    extra: str
    sdk: str
    build: Callable[[RowRef, str], Any]
    imports: str
    source: str
    env: Callable[[str], dict[str, str]] | None = None
    """Environment variables the user sets for this route, given the base URL (set around the
    run only)."""
    leaves_sessions: bool = False
    """Whether the SDK leaves an HTTP session open per event loop (LiteLLM's aiohttp client,
    one per `agent()` call, which runs its own loop): the render then collects them inside its
    warnings filter, so their finalizers' `ResourceWarning` is not raised in a later test."""
    setup: str = ""
    """Source the reproducer runs after its recorder and before `source` (which may read what
    it defines: a Vertex route's service account key)."""

    def load(self) -> Any:
        return getattr(importlib.import_module(self.module), self.cls)


def _openai(cls: str) -> Callable[[RowRef, str], Any]:
    def build(row: RowRef, base: str) -> Any:
        spec = MODELS["openai-chat" if cls == "OpenAIModel" else "openai-responses"]
        model: Any = spec.load()
        return model(client_args={"api_key": API_KEY, "base_url": base + "/v1"}, model_id=row.model)

    return build


def _anthropic(row: RowRef, base: str) -> Any:
    model: Any = MODELS["anthropic"].load()
    return model(
        client_args={"api_key": API_KEY, "base_url": base},
        model_id=row.model,
        max_tokens=MAX_TOKENS,
    )


def _gemini(row: RowRef, base: str) -> Any:
    model: Any = MODELS["gemini"].load()
    return model(
        client_args={"api_key": API_KEY, "http_options": {"base_url": base}},
        model_id=row.model,
    )


VERTEX_LOCATION = "us-central1"
"""The Vertex AI location the Gemini client names (the recorder answers any)."""


def _gemini_vertex(row: RowRef, base: str) -> Any:
    """Gemini on Vertex AI: `GeminiModel` whose `client_args` make google-genai's Vertex client
    (`vertexai=True`, a project and location), an access token as its credentials."""
    credentials: Any = importlib.import_module("google.oauth2.credentials").Credentials
    model: Any = MODELS["gemini-vertex"].load()
    return model(
        client_args={
            "vertexai": True,
            "project": PROJECT,
            "location": VERTEX_LOCATION,
            "credentials": credentials(token=TOKEN),
            "http_options": {"base_url": base},
        },
        model_id=row.model,
    )


FAKE_AWS = {
    "aws_access_key_id": "AKIACONFORMANCE0000",
    "aws_secret_access_key": API_KEY,
    "region_name": "us-east-1",
}
"""boto3 session arguments: fake credentials (botocore signs; the recorder never checks)."""


def _bedrock(row: RowRef, base: str) -> Any:
    boto3: Any = importlib.import_module("boto3")
    model: Any = MODELS["bedrock-converse"].load()
    return model(boto_session=boto3.Session(**FAKE_AWS), endpoint_url=base, model_id=row.model)


def _mistral(row: RowRef, base: str) -> Any:
    model: Any = MODELS["mistral"].load()
    return model(api_key=API_KEY, client_args={"server_url": base}, model_id=row.model)


_OPENAI_SOURCE = (
    '{cls}(client_args={{{{"api_key": KEY, "base_url": BASE + "/v1"}}}}, model_id={{model!r}})'
)

MODELS: dict[str, ModelSpec] = {
    "openai-chat": ModelSpec(
        "strands.models.openai",
        "OpenAIModel",
        "openai",
        "openai",
        _openai("OpenAIModel"),
        "from strands.models.openai import OpenAIModel",
        _OPENAI_SOURCE.format(cls="OpenAIModel"),
    ),
    "openai-responses": ModelSpec(
        "strands.models.openai_responses",
        "OpenAIResponsesModel",
        "openai",
        "openai",
        _openai("OpenAIResponsesModel"),
        "from strands.models.openai_responses import OpenAIResponsesModel",
        _OPENAI_SOURCE.format(cls="OpenAIResponsesModel"),
    ),
    "anthropic": ModelSpec(
        "strands.models.anthropic",
        "AnthropicModel",
        "anthropic",
        "anthropic",
        _anthropic,
        "from strands.models.anthropic import AnthropicModel",
        'AnthropicModel(client_args={{"api_key": KEY, "base_url": BASE}}, model_id={model!r}, '
        f"max_tokens={MAX_TOKENS})",
    ),
    "gemini": ModelSpec(
        "strands.models.gemini",
        "GeminiModel",
        "gemini",
        "google-genai",
        _gemini,
        "from strands.models.gemini import GeminiModel",
        'GeminiModel(client_args={{"api_key": KEY, "http_options": {{"base_url": BASE}}}}, '
        "model_id={model!r})",
    ),
    "gemini-vertex": ModelSpec(
        "strands.models.gemini",
        "GeminiModel",
        "gemini",
        "google-genai",
        _gemini_vertex,
        "from google.oauth2.credentials import Credentials\n"
        "from strands.models.gemini import GeminiModel",
        'GeminiModel(client_args={{"vertexai": True, '
        f'"project": "{PROJECT}", "location": "{VERTEX_LOCATION}", '
        f'"credentials": Credentials(token="{TOKEN}"), '
        '"http_options": {{"base_url": BASE}}}}, model_id={model!r})',
    ),
    "bedrock-converse": ModelSpec(
        "strands.models.bedrock",
        "BedrockModel",
        "",
        "boto3",
        _bedrock,
        "import boto3\nfrom strands.models.bedrock import BedrockModel",
        "BedrockModel(boto_session=boto3.Session(**"
        + repr(FAKE_AWS).replace("{", "{{").replace("}", "}}")
        + "), endpoint_url=BASE, model_id={model!r})",
    ),
    "mistral": ModelSpec(
        "strands.models.mistral",
        "MistralModel",
        "mistral",
        "mistralai",
        _mistral,
        "from strands.models.mistral import MistralModel",
        'MistralModel(api_key=KEY, client_args={{"server_url": BASE}}, model_id={model!r})',
    ),
}
"""The provider class of each api Strands serves natively."""


def import_error(spec: ModelSpec) -> str | None:
    """Why the installed Strands cannot load this provider class (a missing extra, or a
    release without it), or None."""
    try:
        spec.load()
    except (ImportError, AttributeError) as error:
        return str(error)
    return None
