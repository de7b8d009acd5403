"""The Strands Agents target through its LiteLLM provider: the same Strands `Agent`, `@tool`
functions and history as the `strands` target (`conformance/targets/strands/`), with Strands'
`LiteLLMModel` as the model for every row, observed on the wire.

`LiteLLMModel` (`strands/models/litellm.py`) is a subclass of Strands' `OpenAIModel`: it formats
the conversation into OpenAI-format messages with `OpenAIModel`'s formatters (its own only for
video and reasoning blocks) and passes them to `litellm.acompletion(**client_args, **request)`,
which translates them for the provider the model id's prefix names. A Strands user picks the
provider with that prefix and passes LiteLLM's own arguments in `client_args`
(`ROUTES`): `openai/`, `openai/responses/` (LiteLLM's Responses bridge), `anthropic/`,
`gemini/`, `bedrock/converse/` (botocore signs with fake credentials; the runtime endpoint is
the recorder), `bedrock/invoke/` for Claude's Messages body on Bedrock InvokeModel (the litellm
target's route, signed the same way with the double's AWS fake keys), `mistral/`,
`cohere_chat/v2/`, `groq/`, `xai/`, `huggingface/` (the router; its base from `HF_API_BASE`,
since LiteLLM sends messages untranslated to an explicit `api_base`), `vertex_ai/` for Claude
and Gemini on Vertex AI (the litellm target's route: a service account key whose token
exchange stays on 127.0.0.1).
Everything else (tool run, storage, refusals, skipped cells) is the `strands` target's.

LiteLLM imports its model-cost map from GitHub unless `LITELLM_LOCAL_MODEL_COST_MAP` is set;
the target sets it (as a user offline does) before Strands imports LiteLLM.

The module imports without Strands or LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, ClassVar

from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import PROJECT, repro_credentials
from conformance.targets.litellm._routes import ROUTES as LITELLM_ROUTES
from conformance.targets.litellm._vertex import (
    CREDENTIALS_KEY,
    VERTEX_APIS,
    VERTEX_REGION,
    google_auth_missing,
    model_path,
    vertex_route,
)
from conformance.targets.strands import StrandsTarget
from conformance.targets.strands._models import API_KEY, FAKE_AWS, ModelSpec

__all__ = ["INSTALL_HINT", "ROUTES", "StrandsLiteLLMTarget"]

INSTALL_HINT = 'pip install "strands-agents[litellm]"  (or: nox -s "target(strands-litellm)")'


def _import_litellm_model() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: the bundled map
    module = importlib.import_module("strands.models.litellm")
    litellm: Any = importlib.import_module("litellm")
    litellm.suppress_debug_info = True  # no "Give Feedback" banner printed per failed call
    return module.LiteLLMModel


def _prefixed(prefix: str) -> Callable[[RowRef, str], dict[str, Any]]:
    def client_args(row: RowRef, base: str) -> dict[str, Any]:
        return {"model_id": f"{prefix}/{row.model}", "api_base": base, "api_key": API_KEY}

    return client_args


def _bedrock(row: RowRef, base: str) -> dict[str, Any]:
    return {
        "model_id": f"bedrock/converse/{row.model}",
        "aws_access_key_id": FAKE_AWS["aws_access_key_id"],
        "aws_secret_access_key": FAKE_AWS["aws_secret_access_key"],
        "aws_region_name": FAKE_AWS["region_name"],
        "aws_bedrock_runtime_endpoint": base,
    }


def _bedrock_invoke(row: RowRef, base: str) -> dict[str, Any]:
    """The litellm target's `bedrock/invoke/<model id>` route (Claude's Messages body to
    InvokeModel, signed by botocore with the double's AWS fake keys), `model` as `model_id`."""
    arguments = LITELLM_ROUTES["anthropic-bedrock"](row, base)
    return {"model_id": arguments.pop("model"), **arguments}


def _huggingface(row: RowRef, base: str) -> dict[str, Any]:
    return {"model_id": f"huggingface/{row.model}", "api_key": API_KEY}


def _vertex(api: str) -> Callable[[RowRef, str], dict[str, Any]]:
    """The litellm target's `vertex_ai/` route, `model` as `model_id`: a service account key
    whose token exchange stays on 127.0.0.1, the model's Vertex path as `api_base`."""
    route = vertex_route(api)

    def client_args(row: RowRef, base: str) -> dict[str, Any]:
        arguments = route(row, base)
        return {"model_id": arguments.pop("model"), **arguments}

    return client_args


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
    "anthropic-vertex": _vertex("anthropic-vertex"),
    "gemini-vertex": _vertex("gemini-vertex"),
    "anthropic-bedrock": _bedrock_invoke,
}
"""LiteLLM's provider prefix of each api and its arguments for a base URL: `model_id` goes to
`LiteLLMModel`'s config, the rest into its `client_args`."""


def _source(api: str) -> str:
    """The reproducer's `LiteLLMModel(...)` for this route: a format template over `{model}`,
    with `BASE` and `KEY` the script's own names (and, for Vertex AI, `KEY_JSON`, the service
    account key the script makes: `ModelSpec.setup`)."""
    if api in VERTEX_APIS:  # built here, so that no key is made at import
        items = (
            f"'api_base': BASE + {model_path(api, 'MODEL')!r}, 'vertex_project': {PROJECT!r},"
            f" 'vertex_location': {VERTEX_REGION[api]!r}, {CREDENTIALS_KEY!r}: KEY_JSON"
        )
        text = f"LiteLLMModel(client_args={{{items}}}, model_id='vertex_ai/MODEL')"
        return text.replace("{", "{{").replace("}", "}}").replace("MODEL", "{model}")
    probe = ROUTES[api](RowRef(id="", api=api, family="", model="MODEL"), "__BASE__")
    model_id = probe.pop("model_id")
    names = {"__BASE__": "BASE", API_KEY: "KEY"}
    items = ", ".join(f"{k!r}: {names.get(v, repr(v))}" for k, v in probe.items())
    text = f"LiteLLMModel(client_args={{{items}}}, model_id={model_id!r})"
    return text.replace("{", "{{").replace("}", "}}").replace("MODEL", "{model}")


def _router_base(base: str) -> dict[str, str]:
    """Hugging Face's router base, as a user behind a proxy sets it (an explicit `api_base`
    makes LiteLLM send the messages untranslated, the dedicated-endpoint path)."""
    return {"HF_API_BASE": base}


def _spec(api: str) -> ModelSpec:
    def build(row: RowRef, base: str) -> Any:
        arguments = ROUTES[api](row, base)  # looked up per call: the route table decides
        model_id = arguments.pop("model_id")
        return _import_litellm_model()(client_args=arguments, model_id=model_id)

    env = _router_base if api == "huggingface" else None
    return ModelSpec(
        "strands.models.litellm",
        "LiteLLMModel",
        "litellm",
        "litellm",
        build,
        "from strands.models.litellm import LiteLLMModel",
        _source(api),
        env,
        leaves_sessions=True,
        setup=repro_credentials("KEY_JSON") if api in VERTEX_APIS else "",
    )


class StrandsLiteLLMTarget(StrandsTarget):
    """The `strands` target with Strands' `LiteLLMModel` for every row."""

    name = "strands-litellm"
    models: ClassVar[dict[str, ModelSpec]] = {api: _spec(api) for api in ROUTES}

    def __init__(self) -> None:
        super().__init__()
        if self.unavailable is None:
            try:
                _import_litellm_model()
            except ImportError as error:
                self.unavailable = (
                    f"Strands' LiteLLM provider cannot load ({error}): {INSTALL_HINT}"
                )
        if self.unavailable is not None:
            self.refusal_types = ()
            return
        litellm: Any = importlib.import_module("litellm")
        self.refusal_types = (*self.refusal_types, litellm.BadRequestError)
        """Strands' formatter refusals (`TypeError`, `ValueError`), and LiteLLM's
        `BadRequestError`, which its prompt factories raise before sending for content a
        provider's format cannot take."""
        version = _installed("litellm")
        if version is not None:
            self.sdk_versions = {**self.sdk_versions, "litellm": version}

    def supports(self, row: RowRef) -> str | None:
        reason = super().supports(row)
        if reason is None and row.api in VERTEX_APIS:
            return google_auth_missing()
        return reason


def _installed(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
