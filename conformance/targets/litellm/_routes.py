"""The LiteLLM target's routes: per api, the provider prefix and the arguments `litellm.completion`
takes to reach that provider through the recorder channel `base`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.history import (
    History,
)
from conformance.targets.base import RowRef
from conformance.targets.litellm._messages import tools_of
from conformance.targets.litellm._vertex import VERTEX_APIS, google_auth_missing, vertex_route

API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""

AWS_EXAMPLE_KEYS = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
"""AWS's documented example key pair, the same as the recording layer's fake AWS keys
(`conformance.recording.send.FAKE_KEYS`, which targets may not import: the layer contract in
pyproject.toml), so the InvokeModel route signs with the keys the double and the tests know."""

# --- one route per api -------------------------------------------------------------------------


def _prefixed(prefix: str) -> Callable[[RowRef, str], dict[str, Any]]:
    def kwargs(row: RowRef, base: str) -> dict[str, Any]:
        return {"model": f"{prefix}/{row.model}", "api_base": base, "api_key": API_KEY}

    return kwargs


def _bedrock(row: RowRef, base: str) -> dict[str, Any]:
    """The Converse route, SigV4-signed by botocore with fake credentials; the runtime
    endpoint is the recorder (the model id travels in the path, `/model/<id>/converse`)."""
    return {
        "model": f"bedrock/converse/{row.model}",
        "aws_access_key_id": "AKIACONFORMANCE0000",
        "aws_secret_access_key": API_KEY,
        "aws_region_name": "us-east-1",
        "aws_bedrock_runtime_endpoint": base,
    }


def _bedrock_invoke(row: RowRef, base: str) -> dict[str, Any]:
    """Claude's Messages body through Bedrock InvokeModel (`bedrock/invoke/<model id>`, LiteLLM's
    Bedrock docs: the route that "forces" InvokeModel where `bedrock/<id>` would pick Converse for
    Claude), signed by botocore as the Converse route is, with the double's AWS fake keys; the
    request goes to the recorder's `/model/<id>/invoke`."""
    return {
        "model": f"bedrock/invoke/{row.model}",
        "aws_access_key_id": AWS_EXAMPLE_KEYS[0],
        "aws_secret_access_key": AWS_EXAMPLE_KEYS[1],
        "aws_region_name": "us-east-1",
        "aws_bedrock_runtime_endpoint": base,
    }


BEDROCK_APIS = frozenset({"bedrock-converse", "anthropic-bedrock"})
"""The apis LiteLLM signs with botocore (boto3 must be installed)."""


def signing_missing(api: str, installed: Callable[[str], str | None]) -> str | None:
    """Why a row of `api` cannot be sent through LiteLLM in this venv, if it cannot: Bedrock
    requests are signed with botocore, Vertex AI's with google-auth. `installed` gives a
    distribution's version, or None (each target's own, so its tests can hide one)."""
    if api in BEDROCK_APIS and installed("boto3") is None:
        return "LiteLLM signs Bedrock requests with botocore: pip install boto3"
    if api in VERTEX_APIS:
        return google_auth_missing()
    return None


def _huggingface(row: RowRef, base: str) -> dict[str, Any]:
    """The router's path: LiteLLM's Hugging Face config transforms the messages (as for the
    default router URL) when the base comes from `HF_API_BASE`, and sends them untouched when
    `api_base` is given (a dedicated endpoint). The base goes in the environment, as a router
    user behind a proxy sets it (`ENV` is popped and set around the call)."""
    return {"model": f"huggingface/{row.model}", "api_key": API_KEY, ENV: {"HF_API_BASE": base}}


ENV = "__environment__"

ROUTES: dict[str, Callable[[RowRef, str], dict[str, Any]]] = {
    "openai-chat": _prefixed("openai"),
    "openai-responses": _prefixed("openai/responses"),
    "anthropic": _prefixed("anthropic"),
    "gemini": _prefixed("gemini"),
    "bedrock-converse": _bedrock,
    "mistral": _prefixed("mistral"),
    "cohere": _prefixed("cohere_chat/v2"),
    "groq": _prefixed("groq"),
    "xai": _prefixed("xai"),
    "huggingface": _huggingface,
    # `vertex_ai/<model>`: Claude (a partner model: rawPredict) and Gemini (generateContent),
    # with a service account key whose token exchange stays on 127.0.0.1 (`_vertex`).
    "anthropic-vertex": vertex_route("anthropic-vertex"),
    "gemini-vertex": vertex_route("gemini-vertex"),
    # `bedrock/invoke/<model id>`: Claude's Messages body to InvokeModel, not Converse.
    "anthropic-bedrock": _bedrock_invoke,
}
"""The provider prefix of each api (LiteLLM's "providers" docs) and how to aim it at a base."""


def completion_kwargs(row: RowRef, history: History, base: str) -> dict[str, Any]:
    """Everything `litellm.completion` is called with for a row, but the messages."""
    return {**ROUTES[row.api](row, base), "tools": tools_of(history), "timeout": 60}
