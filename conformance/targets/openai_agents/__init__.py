"""The OpenAI Agents SDK target: an `Agent` with real function tools, run by `Runner.run`
through the SDK's own model classes, observed on the wire.

How a cell is rendered, the way an Agents SDK user gets there:

1. The history before its last tool-call turn becomes the input items `Runner.run` takes
   (`_items.to_input_items`: easy input messages, `function_call` and `function_call_output`
   items, the outputs made by the SDK's `ItemHelpers.tool_call_output_item`).
2. The last turn is produced by the run (`_run`): the agent's model answers the first call
   with the turn's function calls (`FirstTurn`, a `Model` of the SDK's public interface, since
   the recorder answers every request with an error), the SDK runs each `function_tool`,
   which returns the history's tool result as the SDK documents it (`ToolOutputImage`,
   `ToolOutputFileContent`, `ToolOutputText`, or the exact string; `_items.tool_output`) or
   raises with its error text, and the SDK sends the next request through the row's real model
   class: `OpenAIResponsesModel` for `openai-responses`, `OpenAIChatCompletionsModel` for
   `openai-chat`, each with an `AsyncOpenAI` client whose `base_url` is the loopback recorder.
   That request is the payload (`conformance.targets.kit.body_or_raise`).
3. A history the run cannot produce (tool-produced user content: an Agents SDK tool has no way
   to add user content; results out of call order; a failure carrying media) is sent as stored
   input items, `Runner.run(agent, input=to_input_items(history))`, the way a user resumes a
   stored conversation; tool-produced user content is then a user message after the outputs.
4. What the SDK raises before a request arrives is the outcome; `refusal_types` is what it
   raises for content a model class cannot carry (`UserError`, read from its source).

Storage round trip (`render_stored`): the input the run handed the real model (what
`RunResult.to_input_list()` returns for a finished run; this run ends on the recorder's error,
which leaves no result) is dumped as JSON, loaded, and run again, as a user stores and resumes
a conversation.

The module imports without the SDK; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from importlib import metadata
from typing import Any

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, thread_token
from conformance.targets.openai_agents._items import (
    dump_items,
    load_items,
    plan,
    to_input_items,
    tool_output,
)
from conformance.targets.openai_agents._run import (
    MODELS,
    agent_for,
    first_turn,
    model_for,
    run,
)

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "SDKS",
    "OpenAIAgentsTarget",
    "dump_items",
    "load_items",
    "to_input_items",
    "tool_output",
]

DISTRIBUTION = "openai-agents"
INSTALL_HINT = 'pip install openai-agents  (or: nox -s "target(openai-agents)")'
SDKS = ("openai", "httpx", "pydantic")
"""What the model classes drive: `sdk_versions`."""

_RENDER_LOCK = threading.Lock()


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _import_sdk() -> Any:
    return importlib.import_module("agents")


def _missing() -> str | None:
    try:
        _import_sdk()
    except ImportError as error:
        return f"openai-agents is not installed ({error}): {INSTALL_HINT}"
    if _version(DISTRIBUTION) is None:  # another distribution's `agents` module
        return f"the `agents` module is not the openai-agents distribution's: {INSTALL_HINT}"
    return None


def _refusal_types() -> tuple[type[BaseException], ...]:
    """What the SDK raises, before sending, for content a model class cannot carry.

    `agents.exceptions.UserError` in every release run (0.16.1, 0.20.0, 0.24.0):
    `Converter.extract_all_content` (`models/chatcmpl_converter.py`) raises it for an
    `input_file` with only a `file_url` ("Only file_data or file_id is supported"), an
    `input_image` without a URL, and content it does not know; `items_to_messages` for items
    Chat Completions has no message for, and, with `strict_feature_validation`, for tool
    outputs with no text. The Responses model converts nothing: it sends the items as they
    are.
    """
    from agents.exceptions import UserError

    return (UserError,)


class OpenAIAgentsTarget:
    """The Agents SDK's `Runner.run` with function tools and its OpenAI model classes."""

    name = "openai-agents"

    def __init__(self) -> None:
        self.unavailable: str | None = _missing()
        self.version = _version(DISTRIBUTION) or "not installed"
        self.refusal_types: tuple[type[BaseException], ...] = ()
        self.sdk_versions: dict[str, str] = {}
        if self.unavailable is None:
            from agents import set_tracing_disabled

            set_tracing_disabled(True)  # no trace export to OpenAI, whatever a run says
            self.refusal_types = _refusal_types()
            self.sdk_versions = {n: v for n in SDKS if (v := _version(n)) is not None}

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in self.models:
            return (
                f"the Agents SDK's own model classes speak OpenAI's apis (Responses, Chat "
                f"Completions); api {row.api!r} is reached through its LiteLLM extension (target "
                "openai-agents-litellm)"
            )
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history)[0]

    def render_stored(self, row: RowRef, history: History) -> Payload:
        _, sent = self._send(row, history)
        return self._send_items(row, history, load_items(dump_items(sent)))[0]

    def _send(self, row: RowRef, history: History) -> tuple[Payload, list[Any]]:
        """The request the run sends for this history, and the input its model received."""
        steps = plan(history)
        if steps is None:
            return self._send_items(row, history, to_input_items(history))
        inputs: list[Any] = []

        def send(base: str) -> None:
            model = first_turn(self._model(row, base), steps.calls)
            agent = agent_for(history, model, self.settings(row, base))
            try:
                with self.during(row, history, base):
                    run(agent, to_input_items(steps.head), steps.calls)
            finally:
                inputs.extend(model.inputs)

        payload = self._body(row, send)
        return payload, _json_items(inputs[0] if inputs else [])

    def _send_items(self, row: RowRef, history: History, items: list[Any]) -> tuple[Payload, Any]:
        """A run resumed from stored input items: its first request is the payload."""

        def send(base: str) -> None:
            agent = agent_for(history, self._model(row, base), self.settings(row, base))
            with self.during(row, history, base):
                run(agent, items, [])

        return self._body(row, send), items

    def _model(self, row: RowRef, base: str) -> Any:
        return model_for(row, base, self.models[row.api])

    def _body(self, row: RowRef, send: Callable[[str], None]) -> Payload:
        with _RENDER_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return body_or_raise(row.api, send, token=thread_token())

    # --- what a variant of the target (another model class) changes ---------------------------

    models: dict[str, Callable[[RowRef, str], Any]] = MODELS
    """The model class per api, built for a base URL on the recorder."""

    def settings(self, row: RowRef, base: str) -> Any:
        """The agent's `ModelSettings` for the row, or None for the SDK's defaults."""
        return None

    def during(self, row: RowRef, history: History, base: str) -> AbstractContextManager[Any]:
        """What holds while the run sends (the environment a model class reads, say)."""
        return nullcontext()

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (the SDK and the standard library) that runs this cell's agent
        against a recorder on 127.0.0.1 and prints the request body as indented JSON."""
        from conformance.targets.openai_agents._repro import repro_script

        return repro_script(row, history, self.version)


def _json_items(items: Any) -> list[Any]:
    """The model's input as plain JSON data (the SDK hands its models dicts and, in some
    releases, pydantic items): what `to_input_list()` gives a user to store."""
    out: list[Any] = []
    listed: list[Any] = items if isinstance(items, list) else []  # pyright: ignore[reportUnknownVariableType]
    for item in listed:
        dump = getattr(item, "model_dump", None)
        out.append(dump(exclude_unset=True, mode="json") if callable(dump) else item)
    return out
