"""The `litellm.responses` variant: LiteLLM's Responses interface.

`litellm.aresponses` (`litellm/responses/main.py`) takes Responses-shaped requests and sends
them to any provider. A user holding a Responses-format conversation calls it per provider:

1. The history becomes Responses params (`_responses_format.to_responses`): `instructions`,
   `message`, `function_call` and `function_call_output` items, media as `input_image` and
   `input_file` parts, tool-produced user content as a user message after the outputs.
2. `await litellm.aresponses(model=<route>, input, instructions, tools, ...)` with the LiteLLM
   target's routes (`_routes.ROUTES`). An `openai/` model goes to OpenAI's Responses api as
   given; the Chat Completions rows pass `use_chat_completions_api=True`, LiteLLM's opt-in to
   its chat-completions bridge (`_pop_use_chat_completions_api_kw`), which every other
   provider takes by itself (`LiteLLMCompletionResponsesConfig`,
   `responses/litellm_completion_transformation/transformation.py`) before
   `litellm.acompletion`.
3. The payload is what reached the recorder; LiteLLM's `BadRequestError` raised before that is
   its refusal (`refusal_types`, as for the `litellm` target).

Storage round trip: the params a user stores, `{"instructions", "input"}` as JSON.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, ClassVar

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, environment, run_async
from conformance.targets.litellm import LiteLLMTarget, import_litellm
from conformance.targets.litellm._render import offline_render
from conformance.targets.litellm._repro import script
from conformance.targets.litellm._responses_format import (
    NoResponsesForm,
    responses_tools,
    to_responses,
)
from conformance.targets.litellm._routes import ENV, ROUTES

__all__ = ["LiteLLMResponsesTarget", "NoResponsesForm", "responses_kwargs"]

ROUTE_OF: dict[str, Callable[[RowRef, str], dict[str, Any]]] = {
    **ROUTES,
    "openai-responses": ROUTES["openai-chat"],  # `openai/<model>`: the Responses api itself
}


def responses_kwargs(row: RowRef, history: History, base: str) -> dict[str, Any]:
    """Everything `litellm.aresponses` is called with for a row, but the input and the
    instructions."""
    chat = {"use_chat_completions_api": True} if row.api == "openai-chat" else {}
    return {
        **ROUTE_OF[row.api](row, base),
        **chat,
        "tools": responses_tools(history),
        "timeout": 60,
    }


def dump_params(instructions: str | None, items: list[dict[str, Any]]) -> str:
    """The storage a Responses-format user has: the params as JSON."""
    return json.dumps({"instructions": instructions, "input": items}, ensure_ascii=False)


def load_params(stored: str) -> tuple[str | None, list[dict[str, Any]]]:
    loaded: dict[str, Any] = json.loads(stored)
    return loaded["instructions"], loaded["input"]


_NO_MEDIA = (
    "the Responses input format the interface takes has text, image and file parts only"
    " (ResponseInputContentParam and ResponseFunctionCallOutputItemListParam in"
    " openai.types.responses)"
)


def _interface_missing(version: str) -> str | None:
    """Why the installed LiteLLM lacks what this variant calls, or None."""
    if callable(getattr(import_litellm(), "aresponses", None)):
        return None
    return f"litellm {version} has no litellm.aresponses"


class LiteLLMResponsesTarget(LiteLLMTarget):
    """`litellm.aresponses` per provider route, with Responses params."""

    name = "litellm.responses"
    variant_of = "litellm"
    not_applicable: ClassVar[dict[str, str]] = {
        "content:audio": f"{_NO_MEDIA}: a Responses-format conversation holds no audio",
        "content:video": f"{_NO_MEDIA}: a Responses-format conversation holds no video",
    }

    def __init__(self) -> None:
        super().__init__()
        if self.unavailable is None:
            self.unavailable = _interface_missing(self.version)

    def supports(self, row: RowRef) -> str | None:
        if row.api == "xai" and self.unavailable is None:
            return (
                "through litellm.responses an xai/ model goes to xAI's own Responses api"
                " (litellm/llms/xai/responses/), which no matrix row describes"
            )
        return super().supports(row)

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send_params(row, history, *to_responses(history))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        return self._send_params(row, history, *load_params(dump_params(*to_responses(history))))

    def _send_params(
        self, row: RowRef, history: History, instructions: str | None, items: list[dict[str, Any]]
    ) -> Payload:
        litellm = import_litellm()

        def send(base: str) -> None:
            kwargs = responses_kwargs(row, history, base)
            given = copy.deepcopy(items)
            with environment(kwargs.pop(ENV, {})):
                run_async(
                    lambda: litellm.aresponses(input=given, instructions=instructions, **kwargs)
                )

        with offline_render(litellm, history):
            return body_or_raise(row.api, send)

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (litellm and the stdlib only) that sends this history through
        `litellm.aresponses`."""
        instructions, items = to_responses(history)
        call = {**responses_kwargs(row, history, ""), "instructions": instructions}
        return script(
            row,
            history,
            items,
            call,
            entry="litellm.aresponses",
            setup="import asyncio  # noqa: E402\n",
            send="asyncio.run(litellm.aresponses(input=json.loads(text), tools=TOOLS, **CALL))",
        )
