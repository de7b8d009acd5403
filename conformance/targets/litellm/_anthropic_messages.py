"""The `litellm.anthropic-messages` variant: LiteLLM's Anthropic-messages interface.

`litellm.anthropic.messages.acreate` (`litellm/anthropic_interface/`, the path the proxy's
`/v1/messages` route takes) takes Anthropic-shaped requests and sends them to any provider. A
user holding an Anthropic-format conversation calls it per provider:

1. The history becomes Anthropic Messages params (`_anthropic_format.to_anthropic`):
   `tool_use` blocks, `tool_result` blocks whose content is the exact string or text, image and
   document blocks, `is_error` on a failed call, tool-produced user content after the turn's
   `tool_result` blocks.
2. `await litellm.anthropic.messages.acreate(model=<route>, max_tokens, messages, system,
   tools, ...)` with the LiteLLM target's routes (`_routes.ROUTES`: provider prefix, recorder
   base, stand-in key, Bedrock's signed Converse route, Hugging Face's `HF_API_BASE`). For an
   `openai/` model LiteLLM sends a Responses request unless
   `litellm.use_chat_completions_url_for_anthropic_messages` is set
   (`_should_route_to_responses_api`, `llms/anthropic/messages/native/handler.py`, whose
   docstring names that opt-out): the `openai-responses` rows take the default, the
   `openai-chat` rows set the switch for the render. LiteLLM passes the request through for
   Anthropic (`_native_messages_config`) and for Claude on Vertex AI (`vertex_ai/claude-*`:
   `VertexAIPartnerModelsAnthropicMessagesConfig`, the body without `model` and with
   `anthropic_version`, to rawPredict), builds the Responses input itself for `openai/`
   models (`LiteLLMMessagesToResponsesAPIHandler`), and translates it to Chat Completions
   messages for every other provider
   (`LiteLLMAnthropicMessagesAdapter.translate_anthropic_messages_to_openai`) before
   `litellm.acompletion`.
3. The payload is what reached the recorder; LiteLLM's `BadRequestError` raised before that is
   its refusal (`refusal_types`, as for the `litellm` target: what the provider prompt
   factories behind `acompletion` raise, `ImageFetchError` for a failed download included).
   On 1.110.2 the interface itself refuses nothing of the matrix: every cell is sent.

Storage round trip: the params a user stores, `{"system", "messages"}` as JSON.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any, ClassVar

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, environment, run_async
from conformance.targets.litellm import LiteLLMTarget, import_litellm
from conformance.targets.litellm._anthropic_format import (
    MAX_TOKENS,
    NoAnthropicForm,
    anthropic_tools,
    to_anthropic,
)
from conformance.targets.litellm._render import offline_render
from conformance.targets.litellm._repro import script
from conformance.targets.litellm._routes import ENV, ROUTES

__all__ = ["LiteLLMAnthropicMessagesTarget", "NoAnthropicForm", "interface_kwargs"]

CHAT_SWITCH = "use_chat_completions_url_for_anthropic_messages"
"""LiteLLM's setting that sends an `openai/` model's Anthropic-messages request to Chat
Completions instead of the Responses api."""

ROUTE_OF: dict[str, Callable[[RowRef, str], dict[str, Any]]] = {
    **ROUTES,
    "openai-responses": ROUTES["openai-chat"],  # `openai/<model>`: the interface's own bridge
}
"""The LiteLLM target's routes, but for the Responses rows: through this interface an
`openai/` model reaches the Responses api by itself (the `openai/responses/` prefix is
`litellm.completion`'s bridge)."""


def interface_kwargs(row: RowRef, history: History, base: str) -> dict[str, Any]:
    """Everything `litellm.anthropic.messages.acreate` is called with for a row, but the
    messages and the system prompt."""
    return {
        "max_tokens": MAX_TOKENS,
        **ROUTE_OF[row.api](row, base),
        "tools": anthropic_tools(history),
        "timeout": 60,
    }


def dump_params(system: str | None, messages: list[dict[str, Any]]) -> str:
    """The storage an Anthropic-format user has: the params as JSON."""
    return json.dumps({"system": system, "messages": messages}, ensure_ascii=False)


def load_params(stored: str) -> tuple[str | None, list[dict[str, Any]]]:
    loaded: dict[str, Any] = json.loads(stored)
    return loaded["system"], loaded["messages"]


@contextmanager
def _chat_completions(litellm: Any, on: bool) -> Generator[None]:
    """LiteLLM's switch to Chat Completions for `openai/` models, set for the block."""
    before = getattr(litellm, CHAT_SWITCH)
    setattr(litellm, CHAT_SWITCH, on)
    try:
        yield
    finally:
        setattr(litellm, CHAT_SWITCH, before)


def _interface_missing(version: str) -> str | None:
    """Why the installed LiteLLM lacks what this variant calls, or None."""
    litellm = import_litellm()
    interface = getattr(getattr(litellm, "anthropic", None), "messages", None)
    if not callable(getattr(interface, "acreate", None)):
        return f"litellm {version} has no litellm.anthropic.messages.acreate"
    if not hasattr(litellm, CHAT_SWITCH):
        return f"litellm {version} has no litellm.{CHAT_SWITCH}"
    return None


class LiteLLMAnthropicMessagesTarget(LiteLLMTarget):
    """`litellm.anthropic.messages.acreate` per provider route, with Anthropic Messages params."""

    name = "litellm.anthropic-messages"
    variant_of = "litellm"
    not_applicable: ClassVar[dict[str, str]] = {
        "content:audio": (
            "the Anthropic Messages format the interface takes has image and document blocks"
            " only (AnthropicMessagesImageParam, AnthropicMessagesDocumentParam in"
            " litellm/types/llms/anthropic.py): an Anthropic-format conversation holds no audio"
        ),
        "content:video": (
            "the Anthropic Messages format the interface takes has image and document blocks"
            " only (AnthropicMessagesImageParam, AnthropicMessagesDocumentParam in"
            " litellm/types/llms/anthropic.py): an Anthropic-format conversation holds no video"
        ),
    }
    """Features the Anthropic format lacks: their cells are n/a with the reason."""

    def __init__(self) -> None:
        super().__init__()
        if self.unavailable is None:
            self.unavailable = _interface_missing(self.version)

    def render(self, row: RowRef, history: History) -> Payload:
        system, messages = to_anthropic(history)
        return self._send_params(row, history, system, messages)

    def render_stored(self, row: RowRef, history: History) -> Payload:
        system, messages = load_params(dump_params(*to_anthropic(history)))
        return self._send_params(row, history, system, messages)

    def _send_params(
        self, row: RowRef, history: History, system: str | None, messages: list[dict[str, Any]]
    ) -> Payload:
        litellm = import_litellm()

        def send(base: str) -> None:
            kwargs = interface_kwargs(row, history, base)
            given = copy.deepcopy(messages)
            with environment(kwargs.pop(ENV, {})):
                run_async(
                    lambda: litellm.anthropic.messages.acreate(
                        messages=given, system=system, **kwargs
                    )
                )

        with (
            offline_render(litellm, history),
            _chat_completions(litellm, row.api == "openai-chat"),
        ):
            return body_or_raise(row.api, send)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (litellm and the stdlib only) that sends this history through
        `litellm.anthropic.messages.acreate`."""
        system, messages = to_anthropic(history)
        call = {**interface_kwargs(row, history, ""), "system": system}
        switch = f"litellm.{CHAT_SWITCH} = {row.api == 'openai-chat'!r}\n"
        return script(
            row,
            history,
            messages,
            call,
            entry="litellm.anthropic.messages.acreate",
            setup=f"import asyncio  # noqa: E402\n{switch}",
            send="asyncio.run(litellm.anthropic.messages.acreate("
            "messages=json.loads(text), tools=TOOLS, **CALL))",
        )
