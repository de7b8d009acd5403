"""Driving the OpenAI Agents SDK: an `Agent` with real function tools, run by `Runner.run`.

A run needs a model answer before it reaches a tool: the first model call of the run must ask
for the history's last tool-call turn. The recorder answers every request with an error, so
that answer comes from `FirstTurn`, a `Model` (the SDK's public model interface,
`agents.models.interface.Model`, the one custom model providers implement) that answers the
run's first call with the turn's `function_call` items itself and hands every later call to
the row's real model class. The SDK then does everything a user's run does: it runs each
function tool (built with `function_tool`), turns each return value into a
`function_call_output` item (`ItemHelpers.tool_call_output_item`), and calls the real model
(`OpenAIResponsesModel`, `OpenAIChatCompletionsModel`) with the whole input, whose
`AsyncOpenAI` client sends it to the loopback recorder. Only that request is judged; the first
answer never reaches the wire (there is nothing of the SDK's in it to judge).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import threading
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import Any

from conformance.history import History
from conformance.targets.base import RowRef
from conformance.targets.openai_agents._items import Call, text_of, tool_names, tool_output

__all__ = [
    "API_KEY",
    "MODELS",
    "TOOL_DOC",
    "FirstTurn",
    "ToolFailed",
    "agent_for",
    "first_turn",
    "model_for",
    "run",
]

API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""

TOOL_DOC = "Return what the scenario's tool returned for this call."


class ToolFailed(Exception):
    """What a tool raises for a failed call: its message is the history's error text."""


def error_text(context: Any, error: Exception) -> str:
    """The tools' `failure_error_function`: the error's own text, as the history says the call
    failed. The SDK's default (0.24) sends a fixed sentence instead of the exception's text, and
    its docs tell a user who wants the model to read the error to pass a function like this."""
    return str(error)


CALLS: ContextVar[dict[str, Call] | None] = ContextVar("CALLS", default=None)
"""The pending calls of the render under way and what each one's tool returns: set around the
run, read by the tools (the run's tasks copy the context)."""


@functools.cache
def _tool(name: str) -> Any:
    """One function tool per name, built once (`function_tool` infers its schema from the
    function, and an agent only reads it), named with `name_override` as a user names one.
    The SDK names a pydantic model after the tool, which fails for a name no api allows (a NUL
    character, in histories the properties draw): such a tool is the same tool with its `name`
    replaced (`FunctionTool` is a dataclass), so the request still carries the history's name."""
    try:
        return _function_tool(name)
    except ValueError:
        return dataclasses.replace(_function_tool("scenario_tool"), name=name)


def _function_tool(name: str) -> Any:
    """A function tool that takes no arguments (the scenarios' calls have none; arguments a
    history gives are ignored, as the non-strict schema lets them be) and returns, or fails
    with, what `CALLS` says the call returned."""
    from agents import function_tool
    from agents.tool_context import ToolContext

    async def result(ctx: Any) -> Any:
        call = (CALLS.get() or {}).get(ctx.tool_call_id)
        if call is None:
            return ""
        if call.status == "error":
            raise ToolFailed(text_of(call.value))
        return tool_output(call.value) if call.value else ""

    result.__doc__ = TOOL_DOC
    result.__annotations__ = {"ctx": ToolContext[Any], "return": Any}
    return function_tool(
        result, name_override=name, failure_error_function=error_text, strict_mode=False
    )


class FirstTurn:
    """A `Model` that answers the run's first call with `calls` and hands every other call to
    `real`, keeping the input each of those calls received (`inputs`)."""

    def __init__(self, real: Any, calls: list[Call]) -> None:
        self.real = real
        self.calls = calls
        self.inputs: list[Any] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        if self.calls:
            calls, self.calls = self.calls, []
            return _answer(calls)
        self.inputs.append(kwargs.get("input", args[1] if len(args) > 1 else None))
        return await self.real.get_response(*args, **kwargs)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the target runs with Runner.run, never streamed")


def _answer(calls: list[Call]) -> Any:
    """A model response asking for the calls, as the SDK's model classes return one."""
    import json

    from agents.items import ModelResponse
    from agents.usage import Usage
    from openai.types.responses import ResponseFunctionToolCall

    output = [
        ResponseFunctionToolCall(
            type="function_call",
            call_id=call.tool_call_id,
            name=call.name,
            arguments=json.dumps(call.arguments),
            status="completed",
        )
        for call in calls
    ]
    return ModelResponse(output=list(output), usage=Usage(), response_id=None)


@functools.cache
def _first_turn_class() -> type[Any]:
    """`FirstTurn` as a subclass of the SDK's `Model` (an ABC), made once the SDK is there."""
    from agents.models.interface import Model

    return type("FirstTurnModel", (FirstTurn, Model), {})


# --- models, one per api -----------------------------------------------------------------------


def _client(base: str) -> Any:
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=base + "/v1", api_key=API_KEY, max_retries=0)


def _responses(row: RowRef, base: str) -> Any:
    from agents import OpenAIResponsesModel

    return OpenAIResponsesModel(model=row.model, openai_client=_client(base))


def _chat(row: RowRef, base: str) -> Any:
    from agents import OpenAIChatCompletionsModel

    return OpenAIChatCompletionsModel(model=row.model, openai_client=_client(base))


MODELS: dict[str, Callable[[RowRef, str], Any]] = {
    "openai-responses": _responses,
    "openai-chat": _chat,
}
"""The SDK's own model class per api: Responses for `openai-responses`, Chat Completions (its
`Converter.items_to_messages`) for `openai-chat`, both with an `AsyncOpenAI` client."""


class _Session(threading.local):
    """Per rendering thread (renders run one at a time on one worker thread): one event loop,
    and the models built for the thread's own recorder channel (`toolkit.thread_token`), so the
    `AsyncOpenAI` client of a model (its httpx client, its SSL context) is built once per
    thread and stays on the one loop it was first used on. The recorder closes every
    connection after its answer, so nothing of one render reaches the next."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.models: dict[tuple[str, ...], Any] = {}


_SESSION = _Session()


def model_for(row: RowRef, base: str, build: Callable[[RowRef, str], Any]) -> Any:
    """`build(row, base)`, once per rendering thread, model class, row and base URL."""
    key = (build.__module__, build.__qualname__, row.api, row.model, base)
    found = _SESSION.models.get(key)
    if found is None:
        found = _SESSION.models[key] = build(row, base)
    return found


def agent_for(history: History, model: Any, settings: Any = None) -> Any:
    """The agent a user writes: a name, the model, one function tool per tool of the history,
    and `ModelSettings` where the model class needs some (None: the SDK's defaults)."""
    from agents import Agent

    tools = [_tool(name) for name in tool_names(history)]
    if settings is None:
        return Agent(name="assistant", model=model, tools=tools)
    return Agent(name="assistant", model=model, tools=tools, model_settings=settings)


def run(agent: Any, items: list[Any], calls: list[Call]) -> None:
    """`Runner.run(agent, input=items)` with tracing off, on the thread's event loop, the
    tools answering from `calls`; what the run left running is cancelled before the next."""
    from agents import RunConfig, Runner

    async def main() -> None:
        await Runner.run(agent, input=list(items), run_config=RunConfig(tracing_disabled=True))

    loop = _SESSION.loop
    if loop is None or loop.is_closed():
        loop = _SESSION.loop = asyncio.new_event_loop()
    pending = CALLS.set({call.tool_call_id: call for call in calls})
    try:
        loop.run_until_complete(main())
    finally:
        CALLS.reset(pending)
        leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))


def first_turn(real: Any, calls: list[Call]) -> Any:
    """A `FirstTurn` model (an SDK `Model`) answering the run's first call with `calls`."""
    model: Any = _first_turn_class()(real, list(calls))
    return model
