"""Send a rendered payload with its api's official Python client.

`Senders(base_urls, keys)` builds one client per api, lazily, and `send(api, model, payload)`
makes the one call a framework would make with that client:

| api | client and call |
|---|---|
| openai-chat | `openai.OpenAI(...).chat.completions.create(**payload)` |
| openai-responses | `openai.OpenAI(...).responses.create(**payload)` |
| anthropic | `anthropic.Anthropic(...).messages.create(**payload)` |
| gemini | `google.genai.Client(...).models.generate_content(model=, contents=, config=)` |
| bedrock-converse | `boto3.client("bedrock-runtime", ...).converse(**payload)` |
| mistral | `mistralai.client.Mistral(...).chat.complete(**payload)` |
| cohere | `cohere.ClientV2(...).chat(**payload)` |
| groq | `groq.Groq(...).chat.completions.create(**payload)` |
| xai, huggingface | `openai.OpenAI(base_url=<OpenAI-compatible endpoint>)`, chat completions |

Retries are off and timeouts short, so a replay that does not match fails at once. The SDKs
are imported only when their api is first sent; a missing one raises `SdkMissing`.

Gemini: the payload is a REST `generateContent` body; it is given to `generate_content` as
`contents` plus a config holding the body's other top-level keys (`tools`, `toolConfig`,
`systemInstruction`, `generationConfig` merged in), which is what a framework using the SDK
does. The SDK re-serialises it on the way to the wire (see `tests/test_send.py` for what
changes); the cassette shows what it really sent.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final

from conformance.recording.sdk_schema import SdkMissing

__all__ = ["APIS", "CANONICAL", "FAKE_KEYS", "KEY_SLOT", "LIVE_KEYS", "SdkMissing", "Senders"]

VERTEX_CLAUDE_REGION: Final = "us-east5"
VERTEX_GEMINI_REGION: Final = "us-central1"
VERTEX_PROJECT_ENV: Final = "GOOGLE_CLOUD_PROJECT"
"""The Google Cloud project of a live Vertex recording (not a secret; `conformance-project`
against the double)."""

CANONICAL: Final[Mapping[str, str]] = {
    "openai-chat": "https://api.openai.com/v1",
    "openai-responses": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "bedrock-converse": "https://bedrock-runtime.us-east-1.amazonaws.com",
    "mistral": "https://api.mistral.ai",
    "cohere": "https://api.cohere.com",
    "groq": "https://api.groq.com",
    "xai": "https://api.x.ai/v1",
    "huggingface": "https://router.huggingface.co/v1",
    "anthropic-vertex": f"https://{VERTEX_CLAUDE_REGION}-aiplatform.googleapis.com/v1",
    "gemini-vertex": f"https://{VERTEX_GEMINI_REGION}-aiplatform.googleapis.com",
    "anthropic-bedrock": "https://bedrock-runtime.us-east-1.amazonaws.com",
}
"""Each api's real base URL, as its client is configured for it (path prefix included)."""

APIS: Final = tuple(CANONICAL)

BEDROCK_REGION: Final = "us-east-1"

LIVE_KEYS: Final[Mapping[str, tuple[tuple[str, ...], ...]]] = {
    "openai-chat": (("OPENAI_API_KEY",),),
    "openai-responses": (("OPENAI_API_KEY",),),
    "anthropic": (("ANTHROPIC_API_KEY",),),
    "gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY"),),
    "bedrock-converse": (("AWS_ACCESS_KEY_ID",), ("AWS_SECRET_ACCESS_KEY",)),
    "mistral": (("MISTRAL_API_KEY",),),
    "cohere": (("CO_API_KEY",),),
    "groq": (("GROQ_API_KEY",),),
    "xai": (("XAI_API_KEY",),),
    "huggingface": (("HF_TOKEN",),),
    "anthropic-vertex": (("GOOGLE_CLOUD_ACCESS_TOKEN",),),
    "gemini-vertex": (("GOOGLE_CLOUD_ACCESS_TOKEN",),),
    "anthropic-bedrock": (("AWS_ACCESS_KEY_ID",), ("AWS_SECRET_ACCESS_KEY",)),
}
"""Per api, the environment variables a live recording needs: each inner tuple is one
credential, given by any of its names (`AWS_SESSION_TOKEN` is used when set)."""

FAKE_KEYS: Final[Mapping[str, str]] = {
    "openai": "sk-proj-double0not0a0real0key0000000000",
    "anthropic": "sk-ant-api03-double0not0a0real0key0000000",
    "gemini": "AIzaDouble0Not0A0Real0Key" + "0" * 14,
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "mistral": "Double0Not0A0Real0Mistral0Key000",
    "cohere": "Double0Not0A0Real0Cohere0Key" + "0" * 12,
    "groq": "gsk_double0not0a0real0key00000000000000",
    "xai": "xai-double0not0a0real0key0000000000000000",
    "huggingface": "hf_double0not0a0real0key000000000000",
    "vertex": "ya29.double0not0a0real0token0000000000",
}
"""Credential-shaped fakes for the double and for replay: each one matches the secret
scanner's pattern for its provider, so a filter that lets one through fails `nox -s lint`."""

KEY_SLOT: Final[Mapping[str, str]] = {  # api -> its entry in `keys` (Bedrock has two, by name)
    "openai-chat": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "mistral": "mistral",
    "cohere": "cohere",
    "groq": "groq",
    "xai": "xai",
    "huggingface": "huggingface",
    "anthropic-vertex": "vertex",
    "gemini-vertex": "vertex",
}

_REQUIREMENTS: Final[Mapping[str, str]] = {
    "openai": "openai>=2.0",
    "anthropic": "anthropic>=2.0",
    "google.genai": "google-genai>=3.0",
    "boto3": "boto3>=1.40",
    "botocore": "botocore>=1.44",
    "mistralai.client": "mistralai>=3.0",
    "cohere": "cohere>=7.0",
    "groq": "groq>=1.0",
}


def _sdk(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        requirement = _REQUIREMENTS[module]
        raise SdkMissing(
            f"sending needs {requirement!r}: pip install '{requirement}' (or the project's"
            f" 'test' dependency group); import {module} failed: {exc}",
            name=module,
        ) from exc


@dataclass
class Senders:
    """One official client per api, built on first use, pointed at `base_urls[api]`.

    `base_urls` defaults to the real APIs (`CANONICAL`), `keys` to `FAKE_KEYS`; `timeout` is
    in seconds and applies to connecting and reading.
    """

    base_urls: Mapping[str, str] = field(default_factory=lambda: dict(CANONICAL))
    keys: Mapping[str, str] = field(default_factory=lambda: dict(FAKE_KEYS))
    timeout: float = 5.0
    _clients: dict[str, Any] = field(default_factory=dict[str, Any])

    def client(self, api: str) -> Any:
        if api not in self._clients:
            self._clients[api] = _BUILD[api](self, api)
        return self._clients[api]

    def send(self, api: str, model: str, payload: Mapping[str, Any]) -> Any:
        """Send `payload` as `api`'s request body with its official client; the parsed answer."""
        if api not in _SEND:
            raise ValueError(f"no sender for api {api!r}; known: {', '.join(APIS)}")
        client = self.client(api)
        with warnings.catch_warnings():
            # e.g. anthropic warns that a model is deprecated: news for the matrix, not a failure
            # to send (the test suite turns warnings into errors)
            warnings.simplefilter("ignore", DeprecationWarning)
            return _SEND[api](client, model, dict(payload))

    def key(self, api: str) -> str:
        return self.keys[KEY_SLOT[api]]

    def close(self) -> None:
        """Close every client (and its connections)."""
        for client in self._clients.values():
            close = getattr(client, "close", None)
            if callable(close):
                close()
            elif hasattr(client, "__exit__"):
                client.__exit__(None, None, None)
            http = getattr(client, "_conformance_http", None)
            if http is not None:
                http.close()
        self._clients.clear()


# --- clients ----------------------------------------------------------------------------------


def _openai(senders: Senders, api: str) -> Any:
    return _sdk("openai").OpenAI(
        api_key=senders.key(api),
        base_url=senders.base_urls[api],
        max_retries=0,
        timeout=senders.timeout,
    )


def _anthropic(senders: Senders, api: str) -> Any:
    return _sdk("anthropic").Anthropic(
        api_key=senders.key(api),
        base_url=senders.base_urls[api],
        max_retries=0,
        timeout=senders.timeout,
    )


def _gemini(senders: Senders, api: str) -> Any:
    genai = _sdk("google.genai")
    types = genai.types
    return genai.Client(
        api_key=senders.key(api),
        http_options=types.HttpOptions(
            base_url=senders.base_urls[api],
            api_version="v1beta",  # the mappers' REST path; the default differs by release
            timeout=int(senders.timeout * 1000),  # milliseconds
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )


def _vertex_project() -> str:
    return os.environ.get(VERTEX_PROJECT_ENV) or "conformance-project"


def _anthropic_vertex(senders: Senders, api: str) -> Any:
    """anthropic's own Vertex client, given an OAuth access token (no google-auth lookup)."""
    return _sdk("anthropic").AnthropicVertex(
        region=VERTEX_CLAUDE_REGION,
        project_id=_vertex_project(),
        access_token=senders.key(api),
        base_url=senders.base_urls[api],
        max_retries=0,
        timeout=senders.timeout,
    )


def _gemini_vertex(senders: Senders, api: str) -> Any:
    """google-genai's Vertex AI client, with the access token as its credentials."""
    genai = _sdk("google.genai")
    types = genai.types
    credentials = importlib.import_module("google.oauth2.credentials")
    return genai.Client(
        vertexai=True,
        project=_vertex_project(),
        location=VERTEX_GEMINI_REGION,
        credentials=credentials.Credentials(token=senders.key(api)),
        http_options=types.HttpOptions(
            base_url=senders.base_urls[api],
            api_version="v1beta1",
            timeout=int(senders.timeout * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )


def _bedrock(senders: Senders, api: str) -> Any:
    boto3 = _sdk("boto3")
    config = _sdk("botocore").config.Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=senders.timeout,
        read_timeout=senders.timeout,
    )
    return boto3.session.Session().client(
        "bedrock-runtime",
        region_name=BEDROCK_REGION,
        endpoint_url=senders.base_urls[api],
        aws_access_key_id=senders.keys["aws_access_key_id"],
        aws_secret_access_key=senders.keys["aws_secret_access_key"],
        aws_session_token=senders.keys.get("aws_session_token"),
        config=config,
    )


def _anthropic_bedrock(senders: Senders, api: str) -> Any:
    """anthropic's own Bedrock client (`AnthropicBedrock`, SigV4-signed by botocore), given the
    AWS keys explicitly so no credential chain is consulted."""
    return _sdk("anthropic").AnthropicBedrock(
        aws_access_key=senders.keys["aws_access_key_id"],
        aws_secret_key=senders.keys["aws_secret_access_key"],
        aws_session_token=senders.keys.get("aws_session_token"),
        aws_region=BEDROCK_REGION,
        base_url=senders.base_urls[api],
        max_retries=0,
        timeout=senders.timeout,
    )


def _mistral(senders: Senders, api: str) -> Any:
    return _sdk("mistralai.client").Mistral(
        api_key=senders.key(api),
        server_url=senders.base_urls[api],
        retry_config=None,
        timeout_ms=int(senders.timeout * 1000),
    )


def _cohere(senders: Senders, api: str) -> Any:
    """ClientV2 has no `close`: it is given an httpx client that `Senders.close` closes."""
    import httpx

    http = httpx.Client(timeout=senders.timeout)
    client = _sdk("cohere").ClientV2(
        api_key=senders.key(api),
        base_url=senders.base_urls[api],
        timeout=senders.timeout,
        max_retries=0,
        httpx_client=http,
    )
    client._conformance_http = http
    return client


def _groq(senders: Senders, api: str) -> Any:
    return _sdk("groq").Groq(
        api_key=senders.key(api),
        base_url=senders.base_urls[api],
        max_retries=0,
        timeout=senders.timeout,
    )


_BUILD: Final[Mapping[str, Callable[[Senders, str], Any]]] = {
    "openai-chat": _openai,
    "openai-responses": _openai,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock-converse": _bedrock,
    "mistral": _mistral,
    "cohere": _cohere,
    "groq": _groq,
    "xai": _openai,
    "huggingface": _openai,
    "anthropic-vertex": _anthropic_vertex,
    "gemini-vertex": _gemini_vertex,
    "anthropic-bedrock": _anthropic_bedrock,
}


# --- calls ------------------------------------------------------------------------------------


def _chat(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.chat.completions.create(**payload)


def _responses(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.responses.create(**payload)


def _messages(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.messages.create(**payload)


GEMINI_CONFIG_KEYS: Final[Mapping[str, str]] = {
    "tools": "tools",
    "toolConfig": "tool_config",
    "systemInstruction": "system_instruction",
    "safetySettings": "safety_settings",
    "cachedContent": "cached_content",
    "labels": "labels",
}
"""Top-level keys of a REST generateContent body -> their `GenerateContentConfig` field;
`generationConfig`'s own keys are config fields too and are merged in."""


def gemini_call(payload: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A REST generateContent body as `generate_content`'s `contents` and `config`."""
    config: dict[str, Any] = {}
    for key, value in payload.items():
        if key == "contents":
            continue
        if key in ("generationConfig", "generation_config"):
            config.update(value)
        elif key in GEMINI_CONFIG_KEYS:
            config[GEMINI_CONFIG_KEYS[key]] = value
        elif key in GEMINI_CONFIG_KEYS.values():
            config[key] = value
        else:
            raise ValueError(f"gemini body key {key!r} has no generate_content counterpart")
    return payload.get("contents"), config


def _generate_content(client: Any, model: str, payload: dict[str, Any]) -> Any:
    contents, config = gemini_call(payload)
    return client.models.generate_content(model=model, contents=contents, config=config or None)


def _versioned_messages(client: Any, model: str, payload: dict[str, Any]) -> Any:
    """AnthropicVertex and AnthropicBedrock put `model` into the URL; the body's own
    `anthropic_version` goes as extra body, which each client keeps (it sets one only when
    none is given)."""
    body = {key: value for key, value in payload.items() if key != "anthropic_version"}
    extra = (
        {"anthropic_version": payload["anthropic_version"]}
        if "anthropic_version" in payload
        else {}
    )
    return client.messages.create(model=model, **body, extra_body=extra or None)


def _converse(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.converse(**payload)


def _mistral_chat(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.chat.complete(**payload)


def _cohere_chat(client: Any, _: str, payload: dict[str, Any]) -> Any:
    return client.chat(**payload)


_SEND: Final[Mapping[str, Callable[[Any, str, dict[str, Any]], Any]]] = {
    "openai-chat": _chat,
    "openai-responses": _responses,
    "anthropic": _messages,
    "gemini": _generate_content,
    "bedrock-converse": _converse,
    "mistral": _mistral_chat,
    "cohere": _cohere_chat,
    "groq": _chat,
    "xai": _chat,
    "huggingface": _chat,
    "anthropic-vertex": _versioned_messages,
    "gemini-vertex": _generate_content,
    "anthropic-bedrock": _versioned_messages,
}
