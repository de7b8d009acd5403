"""One LangChain chat model per api, each from its provider's official integration package,
pointed at a base URL with a fake key, as a user points it at a proxy.

Hugging Face goes through langchain-huggingface's `ChatHuggingFace` over a
`HuggingFaceEndpoint(endpoint_url=...)`: the integration LangChain documents for Hugging Face
chat models, which sends OpenAI-style chat completions through `huggingface_hub`'s
`InferenceClient`. (The OpenAI-compatible path, `ChatOpenAI` on the router, would test
langchain-openai a second time, not the Hugging Face integration.)

Vertex AI goes through langchain-google-vertexai: `ChatAnthropicVertex` (anthropic's
`AnthropicVertex` client, given an access token, so google-auth is never asked for one) and
`ChatVertexAI` over REST (`api_transport="rest"`: its gapic client speaks gRPC by default) with
google-auth's `AnonymousCredentials`, which put no token on the request and never refresh.

Claude's Messages body through Bedrock InvokeModel (`anthropic-bedrock`) goes through
langchain-aws's `ChatBedrock` (its InvokeModel chat model; `ChatBedrockConverse` serves
`bedrock-converse`), given a boto3 `bedrock-runtime` client on the recorder signed with AWS's
documented example key pair (the recording layer's fake AWS keys).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from conformance.targets.base import RowRef
from conformance.targets.kit import recorder

__all__ = ["API_KEY", "MODELS", "ModelSpec"]

API_KEY = "conformance-not-a-key"
VERTEX_PROJECT = "conformance-project"
"""The Google Cloud project the Vertex models name (the recorder answers any; not a secret)."""


@dataclass(frozen=True)
class ModelSpec:
    """How one api is served: the integration package, its module, the SDK under it."""

    distribution: str
    module: str
    sdk: str
    build: Callable[[RowRef, str], Any]
    source: str
    """The constructor call as a LangChain user writes it, `{model}` to fill in and `BASE`
    the variable holding the base URL: the reproducer scripts use it."""
    also: str = ""
    """Import lines the constructor call needs besides the integration's classes."""
    call: str = "model.bind_tools(tools).invoke(messages)"
    """What the reproducer runs to send `messages` with `tools` on `model`."""

    @property
    def imports(self) -> str:
        """The import lines the constructor call needs."""
        names = [n for n in _CLASSES if re.search(rf"\b{n}\(", self.source)]
        return self.also + f"from {self.module} import {', '.join(names)}"


def _openai(row: RowRef, base: str, responses: bool = False) -> Any:
    from langchain_openai import ChatOpenAI

    # Said explicitly, as a user who targets one api does: langchain-openai 1.7 sends a gpt-6
    # request with tools to the Responses API unless told (`_use_responses_api`).
    return ChatOpenAI(
        model=row.model,
        api_key=SecretStr(API_KEY),
        base_url=base + "/v1",
        max_retries=0,
        use_responses_api=responses,
    )


def _anthropic(row: RowRef, base: str) -> Any:
    from langchain_anthropic import ChatAnthropic

    chat: Any = ChatAnthropic  # its pydantic aliases (model_name, ...) confuse the type checker
    return chat(model=row.model, api_key=API_KEY, base_url=base, max_retries=0)


def _gemini(row: RowRef, base: str) -> Any:
    from langchain_google_genai import ChatGoogleGenerativeAI

    return ChatGoogleGenerativeAI(
        model=row.model, google_api_key=API_KEY, base_url=base, max_retries=1
    )


_BOTO: dict[str, Any] = {}


def _bedrock(row: RowRef, base: str) -> Any:
    """`ChatBedrockConverse` with its boto3 clients made from one shared session (its
    documented `client` / `bedrock_client` fields): building a fresh session per request, as
    `endpoint_url=` alone does, loads the service models again, about a second each time."""
    from langchain_aws import ChatBedrockConverse

    if "session" not in _BOTO:
        boto3: Any = importlib.import_module("boto3")
        _BOTO["session"] = boto3.session.Session(
            aws_access_key_id="conformance",
            aws_secret_access_key=API_KEY,
            region_name="us-east-1",
        )
        # The control-plane client is only used for inference-profile ARNs; it points at the
        # loopback recorder too, so that nothing it might send leaves the machine.
        _BOTO["control"] = _BOTO["session"].client("bedrock", endpoint_url=recorder().origin)
    client = _BOTO["session"].client("bedrock-runtime", endpoint_url=base)
    return ChatBedrockConverse(
        model=row.model, region_name="us-east-1", client=client, bedrock_client=_BOTO["control"]
    )


AWS_EXAMPLE_KEYS = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
"""AWS's documented example key pair, the same as the recording layer's fake AWS keys
(`conformance.recording.send.FAKE_KEYS`, which targets may not import: the layer contract), so
the InvokeModel request is signed with the key the double and the tests know."""


def _bedrock_invoke(row: RowRef, base: str) -> Any:
    """`ChatBedrock`, langchain-aws's chat model on Bedrock's InvokeModel API, as a user builds
    it for Claude: the model id, a region, and a boto3 `bedrock-runtime` client (its documented
    `client` field) on the recorder. For an `anthropic` model id it formats the messages itself
    (`_format_anthropic_messages`) and posts the Messages body to `/model/{id}/invoke`
    (`BedrockBase._prepare_input_and_invoke`, `client.invoke_model`). Its own session, with
    the example keys: the Converse client's session (`_bedrock`) keeps its stand-ins."""
    from langchain_aws import ChatBedrock

    if "invoke" not in _BOTO:
        boto3: Any = importlib.import_module("boto3")
        _BOTO["invoke"] = boto3.session.Session(
            aws_access_key_id=AWS_EXAMPLE_KEYS[0],
            aws_secret_access_key=AWS_EXAMPLE_KEYS[1],
            region_name="us-east-1",
        )
    client = _BOTO["invoke"].client("bedrock-runtime", endpoint_url=base)
    chat: Any = ChatBedrock  # its fields are declared by alias (model, ...)
    return chat(model_id=row.model, region_name="us-east-1", client=client)


def _mistral(row: RowRef, base: str) -> Any:
    from langchain_mistralai import ChatMistralAI

    chat: Any = ChatMistralAI  # its fields are declared by alias (base_url, api_key)
    return chat(model=row.model, api_key=API_KEY, endpoint=base + "/v1", max_retries=0)


def _cohere(row: RowRef, base: str) -> Any:
    from langchain_cohere import ChatCohere

    chat: Any = ChatCohere  # `max_retries` comes from a base class pyright does not see
    return chat(model=row.model, cohere_api_key=API_KEY, base_url=base, max_retries=0)


def _groq(row: RowRef, base: str) -> Any:
    from langchain_groq import ChatGroq

    return ChatGroq(model=row.model, api_key=SecretStr(API_KEY), base_url=base, max_retries=0)


def _xai(row: RowRef, base: str) -> Any:
    from langchain_xai import ChatXAI

    chat: Any = ChatXAI  # `xai_api_base` is declared by alias (base_url) since 1.3, not in 1.2
    return chat(model=row.model, api_key=API_KEY, xai_api_base=base + "/v1", max_retries=0)


def _huggingface(row: RowRef, base: str) -> Any:
    from langchain_huggingface import ChatHuggingFace, HuggingFaceEndpoint

    # Both fill `model` in a validator, which the type checker takes for a required field.
    endpoint: Any = HuggingFaceEndpoint
    chat: Any = ChatHuggingFace
    return chat(
        llm=endpoint(endpoint_url=base, huggingfacehub_api_token=API_KEY), model_id=row.model
    )


def _anthropic_vertex(row: RowRef, base: str) -> Any:
    """`ChatAnthropicVertex` builds anthropic's `AnthropicVertex` from its fields
    (`validate_environment`): `base_url` is the client's (`.../v1`, the model then in the URL,
    `:rawPredict`), and an `access_token` is used as is, where `credentials` would be refreshed
    by google-auth. Its `max_retries` is a tenacity retry around the SDK (which gets 0): one
    attempt."""
    from langchain_google_vertexai.model_garden import ChatAnthropicVertex

    chat: Any = ChatAnthropicVertex  # its fields are declared by alias (model, base_url)
    return chat(
        model=row.model,
        project=VERTEX_PROJECT,
        location="us-east5",
        access_token=API_KEY,
        base_url=base + "/v1",
        max_retries=1,
    )


def _gemini_vertex(row: RowRef, base: str) -> Any:
    """`ChatVertexAI`: google-cloud-aiplatform's gapic `PredictionServiceClient` with the REST
    transport (gRPC is its default, and the recorder reads HTTP bodies), `base_url` as its
    endpoint (`/v1beta1/projects/.../publishers/google/models/{model}:generateContent`), and
    anonymous credentials: nothing to refresh, no token in the request."""
    from google.auth.credentials import AnonymousCredentials

    # Deprecated since 3.2.0 (for ChatGoogleGenerativeAI), and still what the package serves
    # for Gemini on Vertex AI and its users drive.
    from langchain_google_vertexai import ChatVertexAI  # pyright: ignore[reportDeprecated]

    chat: Any = ChatVertexAI  # pyright: ignore[reportDeprecated]
    return chat(
        model=row.model,
        project=VERTEX_PROJECT,
        location="us-central1",
        credentials=AnonymousCredentials(),
        api_transport="rest",
        base_url=base,
        max_retries=1,
    )


_CLASSES = (
    "OpenAI",
    "ChatOpenAI",
    "ChatAnthropic",
    "ChatGoogleGenerativeAI",
    "ChatBedrockConverse",
    "ChatBedrock",
    "ChatMistralAI",
    "ChatCohere",
    "ChatGroq",
    "ChatXAI",
    "ChatHuggingFace",
    "HuggingFaceEndpoint",
    "ChatAnthropicVertex",
    "ChatVertexAI",
)

MODELS: dict[str, ModelSpec] = {
    "openai-chat": ModelSpec(
        "langchain-openai",
        "langchain_openai",
        "openai",
        _openai,
        'ChatOpenAI(model={model!r}, api_key="fake", base_url=BASE + "/v1", '
        "max_retries=0, use_responses_api=False)",
    ),
    "openai-responses": ModelSpec(
        "langchain-openai",
        "langchain_openai",
        "openai",
        lambda row, base: _openai(row, base, responses=True),
        'ChatOpenAI(model={model!r}, api_key="fake", base_url=BASE + "/v1", '
        "max_retries=0, use_responses_api=True)",
    ),
    "anthropic": ModelSpec(
        "langchain-anthropic",
        "langchain_anthropic",
        "anthropic",
        _anthropic,
        'ChatAnthropic(model={model!r}, api_key="fake", base_url=BASE, max_retries=0)',
    ),
    "gemini": ModelSpec(
        "langchain-google-genai",
        "langchain_google_genai",
        "google-genai",
        _gemini,
        'ChatGoogleGenerativeAI(model={model!r}, google_api_key="fake", base_url=BASE, '
        "max_retries=1)",
    ),
    "bedrock-converse": ModelSpec(
        "langchain-aws",
        "langchain_aws",
        "boto3",
        _bedrock,
        'ChatBedrockConverse(model={model!r}, region_name="us-east-1", endpoint_url=BASE, '
        'aws_access_key_id="fake", aws_secret_access_key="fake")',
    ),
    "anthropic-bedrock": ModelSpec(
        "langchain-aws",
        "langchain_aws",
        "boto3",
        _bedrock_invoke,
        'ChatBedrock(model_id={model!r}, region_name="us-east-1", endpoint_url=BASE, '
        'aws_access_key_id="fake", aws_secret_access_key="fake")',
    ),
    "mistral": ModelSpec(
        "langchain-mistralai",
        "langchain_mistralai",
        "httpx",
        _mistral,
        'ChatMistralAI(model={model!r}, api_key="fake", endpoint=BASE + "/v1", max_retries=0)',
    ),
    "cohere": ModelSpec(
        "langchain-cohere",
        "langchain_cohere",
        "cohere",
        _cohere,
        'ChatCohere(model={model!r}, cohere_api_key="fake", base_url=BASE, max_retries=0)',
    ),
    "groq": ModelSpec(
        "langchain-groq",
        "langchain_groq",
        "groq",
        _groq,
        'ChatGroq(model={model!r}, api_key="fake", base_url=BASE, max_retries=0)',
    ),
    "xai": ModelSpec(
        "langchain-xai",
        "langchain_xai",
        "openai",
        _xai,
        'ChatXAI(model={model!r}, api_key="fake", xai_api_base=BASE + "/v1", max_retries=0)',
    ),
    "huggingface": ModelSpec(
        "langchain-huggingface",
        "langchain_huggingface",
        "huggingface-hub",
        _huggingface,
        "ChatHuggingFace(llm=HuggingFaceEndpoint(endpoint_url=BASE, "
        'huggingfacehub_api_token="fake"), model_id={model!r})',
    ),
    "anthropic-vertex": ModelSpec(
        "langchain-google-vertexai",
        "langchain_google_vertexai.model_garden",
        "anthropic",
        _anthropic_vertex,
        f'ChatAnthropicVertex(model={{model!r}}, project="{VERTEX_PROJECT}", location="us-east5", '
        'access_token="fake", base_url=BASE + "/v1", max_retries=1)',
    ),
    "gemini-vertex": ModelSpec(
        "langchain-google-vertexai",
        "langchain_google_vertexai",
        "google-cloud-aiplatform",
        _gemini_vertex,
        f'ChatVertexAI(model={{model!r}}, project="{VERTEX_PROJECT}", location="us-central1", '
        'credentials=AnonymousCredentials(), api_transport="rest", base_url=BASE, max_retries=1)',
        also="from google.auth.credentials import AnonymousCredentials\n",
    ),
}


def import_error(spec: ModelSpec) -> str | None:
    """None if the integration package imports, else why not."""
    try:
        importlib.import_module(spec.module)
    except ImportError as error:
        return str(error)
    return None
