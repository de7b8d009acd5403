"""The OpenAI Agents SDK through its LiteLLM extension: the same run as the `openai-agents`
target, with `LitellmModel` as the agent's model for every provider.

The run, the tools, the stored items and the storage round trip are the `openai-agents`
target's (`conformance/targets/openai_agents/`); only the model class differs. The SDK's
`LitellmModel` (`agents/extensions/models/litellm_model.py`, installed with
`openai-agents[litellm]`) turns the run's input items into OpenAI-format messages with the
SDK's own `Converter.items_to_messages(..., preserve_tool_output_all_content=True)`, so media in
tool outputs is kept, and hands them to `litellm.acompletion`, whose translation layer makes each
provider's request. Each row gets LiteLLM's provider prefix and its way to a base URL as the
`litellm` target has them (`conformance.targets.litellm`): `LitellmModel(model, base_url,
api_key)` for most, and for Bedrock (the Converse route, and `bedrock/invoke/` for Claude's
Messages body on InvokeModel) the route's credentials and runtime endpoint as the
agent's `ModelSettings(extra_args=...)`, which the model passes to `litellm.acompletion` (a
user's way to give LiteLLM more arguments). The Hugging Face router's base comes from
`HF_API_BASE`, set around the run. LiteLLM's loopback guard lets the suite's fixture host
through for URL media, as in the `litellm` target.

Refusals: the SDK's `UserError` (its converter, as for the Chat Completions model) and LiteLLM's
`BadRequestError` (its prompt factories, before sending).

The module imports without the SDK or LiteLLM; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import importlib
from contextlib import AbstractContextManager, ExitStack
from typing import Any

from conformance.history import History
from conformance.targets import litellm as litellm_target
from conformance.targets.base import RowRef
from conformance.targets.kit import environment, litellm_media_allowed
from conformance.targets.litellm._routes import signing_missing
from conformance.targets.openai_agents import OpenAIAgentsTarget

__all__ = ["INSTALL_HINT", "OpenAIAgentsLiteLLMTarget", "route"]

INSTALL_HINT = (
    'pip install "openai-agents[litellm]" boto3  (or: nox -s "target(openai-agents-litellm)")'
)
_SDKS = ("openai", "litellm", "httpx", "pydantic", "boto3", "botocore", "google-auth")
# The `litellm` target's routes and LiteLLM helpers, shared so that both LiteLLM paths reach
# each provider the same way (candidates for the toolkit).
_ROUTES: dict[str, Any] = litellm_target.ROUTES
_ENV: str = litellm_target.ENV
_import_litellm = litellm_target.import_litellm
_installed = litellm_target._installed  # pyright: ignore[reportPrivateUsage]


def route(row: RowRef, base: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """For a row and a recorder base: `LitellmModel`'s arguments, the `extra_args` of the
    agent's `ModelSettings`, and the environment LiteLLM reads for the base."""
    kwargs = dict(_ROUTES[row.api](row, base))
    environment: dict[str, str] = kwargs.pop(_ENV, {})
    model = {
        "model": kwargs.pop("model"),
        "base_url": kwargs.pop("api_base", None),
        "api_key": kwargs.pop("api_key", None),
    }
    return model, kwargs, environment


def _litellm_model(row: RowRef, base: str) -> Any:
    from agents.extensions.models.litellm_model import LitellmModel

    arguments, _, _ = route(row, base)
    return LitellmModel(**arguments)


def _import_extension() -> Any:
    _import_litellm()  # first: its environment keeps the import offline
    return importlib.import_module("agents.extensions.models.litellm_model")


class OpenAIAgentsLiteLLMTarget(OpenAIAgentsTarget):
    """The Agents SDK's `Runner.run` with function tools and its `LitellmModel`."""

    name = "openai-agents-litellm"
    models = dict.fromkeys(_ROUTES, _litellm_model)

    def __init__(self) -> None:
        super().__init__()
        if self.unavailable is None:
            try:
                _import_extension()
            except ImportError as error:
                self.unavailable = (
                    f"the SDK's LiteLLM extension cannot load ({error}): {INSTALL_HINT}"
                )
        if self.unavailable is not None:
            self.refusal_types = ()
            return
        litellm = _import_litellm()
        self.refusal_types = (*self.refusal_types, litellm.BadRequestError)
        self.sdk_versions = {n: v for n in _SDKS if (v := _installed(n)) is not None}

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in self.models:
            return f"the openai-agents-litellm target has no LiteLLM prefix for api {row.api!r}"
        return signing_missing(row.api, _installed)

    def settings(self, row: RowRef, base: str) -> Any:
        from agents import ModelSettings

        _, extra, _ = route(row, base)
        return ModelSettings(extra_args=extra) if extra else None

    def during(self, row: RowRef, history: History, base: str) -> AbstractContextManager[Any]:
        _, _, variables = route(row, base)
        litellm = _import_litellm()
        stack = ExitStack()
        stack.enter_context(environment(variables))
        stack.enter_context(litellm_media_allowed(litellm, history))
        return stack

    def repro(self, row: RowRef, history: History) -> str:
        from conformance.targets.openai_agents._repro import repro_script

        return repro_script(row, history, self.version, litellm=True)
