"""The pydantic-ai target's model classes, one per api, each with its provider's client pointed at
the recorder channel `base`; one event loop and one HTTP client per provider are kept per
rendering thread (`Session`)."""

from __future__ import annotations

import asyncio
import importlib
import os
import threading
from collections.abc import Callable
from typing import Any

from conformance.targets.base import RowRef

API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""

# --- models, one per api -----------------------------------------------------------------------


def _openai_chat_class() -> Any:
    module = importlib.import_module("pydantic_ai.models.openai")
    return getattr(module, "OpenAIChatModel", None) or module.OpenAIModel


# --- what one rendering thread keeps: an event loop and the providers' HTTP clients -----------


class Session(threading.local):
    """Per rendering thread (renders run on one worker thread, `conformance.judging.guard`): one
    event loop for every agent run, and the HTTP clients the providers would each build for
    themselves, built once here by the same factories with the same settings and handed to each
    provider as its `http_client`. A provider never closes a client it was given, and every client
    stays on the one loop it was first used on. The recorder closes every connection after its
    answer, so no connection outlives a render; nothing a request carries depends on the client
    being new (the profile in docs/performance.md: building a client per render, with a fresh SSL
    context loading the CA bundle, cost more than the run itself)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: dict[str, Any] = {}
        self.models: dict[tuple[str, str, str], Any] = {}

    def event_loop(self) -> asyncio.AbstractEventLoop:
        if self.loop is None or self.loop.is_closed():
            self.loop = asyncio.new_event_loop()
        return self.loop

    def client(self, kind: str, make: Callable[[], Any]) -> Any:
        found = self.clients.get(kind)
        if found is None or getattr(found, "is_closed", False):
            found = self.clients[kind] = make()
        return found


SESSION = Session()


def _factory(name: str) -> Callable[[], Any] | None:
    """One of pydantic-ai's client factories, in a release whose providers build a client per
    provider (2.x, with `create_async_httpx2_client`); None in 1.x, whose providers share a
    cached client of their own already: they are then left to do so."""
    models = importlib.import_module("pydantic_ai.models")
    if not hasattr(models, "create_async_httpx2_client"):
        return None
    return getattr(models, name, None)


def _shared_client(factory: str) -> Any:
    """The client a provider builds when given none, built once per rendering thread by
    pydantic-ai's own factory (its timeouts, pool limits, user agent and timeout hook): either
    `create_async_httpx2_client` or, for an SDK that still takes a legacy `httpx.AsyncClient`
    (Groq), `create_async_http_client`. None where the release shares its own (1.x)."""
    make = _factory(factory)
    return None if make is None else SESSION.client(factory, make)


def _openai_provider(base: str) -> Any:
    from pydantic_ai.providers.openai import OpenAIProvider

    client = _shared_client("create_async_httpx2_client")
    return OpenAIProvider(base_url=base + "/v1", api_key=API_KEY, http_client=client)


def _openai_chat(row: RowRef, base: str) -> Any:
    return _openai_chat_class()(row.model, provider=_openai_provider(base))


def _openai_responses(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.openai import OpenAIResponsesModel

    return OpenAIResponsesModel(row.model, provider=_openai_provider(base))


def _xai(row: RowRef, base: str) -> Any:
    """xAI's chat completions api through the OpenAI chat model with pydantic-ai's grok profile
    (its native `XaiModel` speaks gRPC through xai-sdk, not the JSON api of the matrix row)."""
    from pydantic_ai.profiles.grok import grok_model_profile
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer, OpenAIModelProfile

    openai_profile: Any = OpenAIModelProfile(json_schema_transformer=OpenAIJsonSchemaTransformer)
    profile = openai_profile.update(grok_model_profile(row.model))
    return _openai_chat_class()(row.model, provider=_openai_provider(base), profile=profile)


def _anthropic(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = _shared_client("create_async_httpx2_client")
    provider = AnthropicProvider(base_url=base, api_key=API_KEY, http_client=client)
    return AnthropicModel(row.model, provider=provider)


VERTEX_PROJECT = "conformance-project"
"""The Google Cloud project the Vertex clients name (the recorder answers any; not a secret)."""


def _anthropic_vertex(row: RowRef, base: str) -> Any:
    """Claude on Vertex AI as pydantic-ai documents it: `AnthropicProvider` given anthropic's
    `AsyncAnthropicVertex` client, which puts the model in the URL (`:rawPredict`) and the
    version in the body; an access token stands in for Google credentials."""
    from anthropic.lib.vertex import AsyncAnthropicVertex
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = AsyncAnthropicVertex(
        region="us-east5", project_id=VERTEX_PROJECT, access_token=API_KEY, base_url=base + "/v1"
    )
    return AnthropicModel(row.model, provider=AnthropicProvider(anthropic_client=client))


BEDROCK_REGION = "us-east-1"
"""The AWS region the Bedrock clients sign for (the recorder answers any)."""


def _anthropic_bedrock(row: RowRef, base: str) -> Any:
    """Claude through Bedrock InvokeModel as pydantic-ai documents it: `AnthropicProvider` given
    anthropic's `AsyncAnthropicBedrock` client, which puts the model in the URL
    (`/model/{id}/invoke`) and SigV4-signs with the AWS keys given: the same stand-ins as
    `_bedrock`'s, given explicitly so that no credential chain is consulted (the recorder
    checks no signature). What `anthropic_version` the body carries is left to pydantic-ai
    and the SDK."""
    from anthropic.lib.bedrock import AsyncAnthropicBedrock
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = AsyncAnthropicBedrock(
        aws_access_key="conformance",
        aws_secret_key=API_KEY,
        aws_region=BEDROCK_REGION,
        base_url=base,
    )
    return AnthropicModel(row.model, provider=AnthropicProvider(anthropic_client=client))


def _gemini_vertex(row: RowRef, base: str) -> Any:
    """Gemini on Vertex AI: `GoogleProvider` given google-genai's Vertex client
    (`vertexai=True`, a project and location), with an access token as its credentials."""
    from google.genai import Client
    from google.genai.types import HttpOptions
    from google.oauth2.credentials import Credentials
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    client = Client(
        vertexai=True,
        project=VERTEX_PROJECT,
        location="us-central1",
        credentials=Credentials(token=API_KEY),
        http_options=HttpOptions(base_url=base, api_version="v1beta1", **_google_ssl()),
    )
    return GoogleModel(row.model, provider=GoogleProvider(client=client))


def _gemini(row: RowRef, base: str) -> Any:
    from google.genai import Client
    from google.genai.types import HttpOptions
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    client = Client(api_key=API_KEY, http_options=HttpOptions(base_url=base, **_google_ssl()))
    return GoogleModel(row.model, provider=GoogleProvider(client=client))


def _google_ssl() -> dict[str, Any]:
    """google-genai's `client_args` / `async_client_args` holding the SSL context it would
    make for each new `Client` (certifi's CA bundle, or `SSL_CERT_FILE` / `SSL_CERT_DIR`, as
    it reads them), made once per rendering thread: `verify` for its httpx clients, `ssl` for
    its websocket one. Its clients are still its own, built per render."""

    def make() -> Any:
        import ssl

        certifi: Any = importlib.import_module("certifi")
        return ssl.create_default_context(
            cafile=os.environ.get("SSL_CERT_FILE", certifi.where()),
            capath=os.environ.get("SSL_CERT_DIR"),
        )

    context = SESSION.client("google-ssl", make)
    return {
        "client_args": {"verify": context},
        "async_client_args": {"verify": context, "ssl": context},
    }


def _bedrock(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.bedrock import BedrockConverseModel
    from pydantic_ai.providers.bedrock import BedrockProvider

    boto3: Any = importlib.import_module("boto3")
    client: Any = boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=base,
        aws_access_key_id="conformance",
        aws_secret_access_key=API_KEY,
    )
    return BedrockConverseModel(row.model, provider=BedrockProvider(bedrock_client=client))


def _mistral(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.mistral import MistralModel
    from pydantic_ai.providers.mistral import MistralProvider

    client = _shared_client("create_async_httpx2_client")
    provider = MistralProvider(base_url=base, api_key=API_KEY, http_client=client)
    return MistralModel(row.model, provider=provider)


def _cohere(row: RowRef, base: str) -> Any:
    from cohere import AsyncClientV2
    from pydantic_ai.models.cohere import CohereModel
    from pydantic_ai.providers.cohere import CohereProvider

    client = AsyncClientV2(api_key=API_KEY, base_url=base, **_cohere_http())
    return CohereModel(row.model, provider=CohereProvider(cohere_client=client))


_COHERE_TIMEOUT = 300
"""cohere's default request timeout for a client it builds itself (`base_client.py`)."""


def _cohere_http() -> dict[str, Any]:
    """The `httpx_client` cohere's `AsyncClientV2` builds when given none (its own
    `_make_default_async_client`: the keep-alive transports, redirects followed, its default
    timeout), made once per rendering thread, and that same timeout, which the client applies
    per request only when it built the client itself. Nothing where the SDK has no such
    factory: it then builds its own, as before."""
    base_client: Any = importlib.import_module("cohere.base_client")
    make: Any = getattr(base_client, "_make_default_async_client", None)
    if make is None:
        return {}
    client = SESSION.client("cohere", lambda: make(timeout=_COHERE_TIMEOUT, follow_redirects=True))
    return {"httpx_client": client, "timeout": _COHERE_TIMEOUT}


def _groq(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.groq import GroqModel
    from pydantic_ai.providers.groq import GroqProvider

    client = _shared_client("create_async_http_client")
    return GroqModel(
        row.model, provider=GroqProvider(base_url=base, api_key=API_KEY, http_client=client)
    )


def _huggingface(row: RowRef, base: str) -> Any:
    from pydantic_ai.models.huggingface import HuggingFaceModel
    from pydantic_ai.providers.huggingface import HuggingFaceProvider

    return HuggingFaceModel(row.model, provider=HuggingFaceProvider(base_url=base, api_key=API_KEY))


MODELS: dict[str, tuple[str, Callable[[RowRef, str], Any]]] = {
    "openai-chat": ("pydantic_ai.models.openai", _openai_chat),
    "openai-responses": ("pydantic_ai.models.openai", _openai_responses),
    "anthropic": ("pydantic_ai.models.anthropic", _anthropic),
    "gemini": ("pydantic_ai.models.google", _gemini),
    "anthropic-vertex": ("pydantic_ai.models.anthropic", _anthropic_vertex),
    "anthropic-bedrock": ("pydantic_ai.models.anthropic", _anthropic_bedrock),
    "gemini-vertex": ("pydantic_ai.models.google", _gemini_vertex),
    "bedrock-converse": ("pydantic_ai.models.bedrock", _bedrock),
    "mistral": ("pydantic_ai.models.mistral", _mistral),
    "cohere": ("pydantic_ai.models.cohere", _cohere),
    "groq": ("pydantic_ai.models.groq", _groq),
    "xai": ("pydantic_ai.models.openai", _xai),
    "huggingface": ("pydantic_ai.models.huggingface", _huggingface),
}
EXTRAS = {
    "openai-chat": "openai",
    "openai-responses": "openai",
    "xai": "openai",
    "gemini": "google",
    "anthropic-vertex": "anthropic",
    "anthropic-bedrock": "anthropic,bedrock",
    "gemini-vertex": "google",
    "bedrock-converse": "bedrock",
}


def model_for(row: RowRef, base: str) -> Any:
    """The row's model class for `base`, built once per rendering thread, api and model: the
    base URL is the thread's own recorder channel (`toolkit.thread_token`), the same for every
    render, so the model built for one render is the one the next would build (a model is its
    provider and settings; the agent, built per render, holds the run). Building the provider's
    SDK client per render (google-genai's and boto3's above all) cost more than the run."""
    key = (row.api, row.model, base)
    found = SESSION.models.get(key)
    if found is None:
        _, build = MODELS[row.api]
        found = SESSION.models[key] = build(row, base)
    return found
