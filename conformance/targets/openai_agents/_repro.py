"""Repro scripts for the Agents SDK target: `OpenAIAgentsTarget.repro(row, history)`.

A script uses only openai-agents (with the openai SDK it depends on) and the standard library.
It rebuilds the run the target makes: the stored input items, function tools that return the
SDK's tool output models (or fail with the history's error text), and a model that answers the
first call with the last turn's function calls and hands the next to the SDK's own model class,
whose `AsyncOpenAI` client points at a `http.server` recorder on 127.0.0.1 that answers 400.
URL media is served by the script on 127.0.0.1 too. It prints the request as indented JSON,
URLs as the suite's snapshots store them, so its output can be compared with the cell's
snapshot or attached to an upstream issue.
"""

from __future__ import annotations

import json
import re
from typing import Any

from conformance.history import History
from conformance.scenarios.fixtures import (
    FIXTURE_TYPES,
    ORIGIN_STAND_IN,
    stand_in_text,
)
from conformance.targets.base import RowRef
from conformance.targets.kit import repro_recorder, repro_report
from conformance.targets.openai_agents._items import plan, to_input_items, tool_names, tool_output
from conformance.targets.openai_agents._run import TOOL_DOC

__all__ = ["repro_script"]

_MODEL_CLASSES = {
    "openai-responses": "OpenAIResponsesModel",
    "openai-chat": "OpenAIChatCompletionsModel",
}

_TEMPLATE = '''\
"""Reproduces conformance cell {cell} with openai-agents {version}.

Runs an Agents SDK agent whose function tools return what this history's tools returned; the
SDK sends the next request through {model_class} to a recorder on 127.0.0.1 (which answers 400,
so nothing leaves the machine), and the request is printed as indented JSON. URL media is
served by this script on 127.0.0.1 too. Needs only `pip install {install}`.
"""

import asyncio
import json
from typing import Any

from agents import (
    Agent,
    ModelSettings,
    RunConfig,
    Runner,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
    set_tracing_disabled,
)
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import ResponseFunctionToolCall

MODEL = {model!r}
KEY = "repro-not-a-key"
INPUT = {items!r}
"""The run's input items (JSON); `{stand_in}` is this script's file server."""
CALLS = {calls!r}
"""The last turn's calls, in call order: what each tool returns, or the text it fails with."""
TOOLS = {names!r}

{recorder}
BASE = ORIGIN
OUTPUTS = {{"text": ToolOutputText, "image": ToolOutputImage, "file": ToolOutputFileContent}}


def local(value):
    """The value with the stand-in origin replaced by this script's file server."""
    return json.loads(json.dumps(value).replace({stand_in!r}, ORIGIN))


def output(value):
    """A tool's return value: the string itself, else the SDK's tool output models."""
    if isinstance(value, list):
        return [output(v) for v in value]
    if isinstance(value, dict):
        return OUTPUTS[value["type"]](**value)
    return value


class ToolFailed(Exception):
    pass


async def result(ctx: ToolContext[Any]) -> Any:
    call = CALLS.get(ctx.tool_call_id)
    if call is None:
        return ""
    if call["status"] == "error":
        raise ToolFailed(call["output"])
    return output(local(call["output"]))


result.__doc__ = {doc!r}


def error_text(ctx, error):  # the error's own text reaches the model (the SDK's default hides it)
    return str(error)


class FirstTurn(Model):
    """Answers the run's first call with the last turn's calls; hands the rest to `real`."""

    def __init__(self, real):
        self.real = real
        self.first = bool(CALLS)

    async def get_response(self, *args, **kwargs):
        if self.first:
            self.first = False
            calls = [
                ResponseFunctionToolCall(
                    type="function_call", call_id=call_id, name=call["name"],
                    arguments=json.dumps(call["arguments"]), status="completed",
                )
                for call_id, call in CALLS.items()
            ]
            return ModelResponse(output=calls, usage=Usage(), response_id=None)
        return await self.real.get_response(*args, **kwargs)

    def stream_response(self, *args, **kwargs):
        raise NotImplementedError


set_tracing_disabled(True)
{model_block}
model = FirstTurn(real)
tools = [
    function_tool(result, name_override=name, failure_error_function=error_text, strict_mode=False)
    for name in TOOLS
]
agent = Agent(name="assistant", model=model, tools=tools, model_settings=settings)
# URLs of this script's server printed as the suite's snapshots store them
{report}'''

_OPENAI_MODEL = """\
from openai import AsyncOpenAI
from agents import {model_class}

client = AsyncOpenAI(base_url=BASE + "/v1", api_key=KEY, max_retries=0)
real = {model_class}(model=MODEL, openai_client=client)
settings = ModelSettings()"""

_LITELLM_MODEL = """\
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: bundled cost map
import litellm
from agents.extensions.models.litellm_model import LitellmModel

litellm.suppress_debug_info = True
if MEDIA and hasattr(litellm, "user_url_allowed_hosts"):  # LiteLLM refuses loopback URLs else
    litellm.user_url_allowed_hosts = [ORIGIN.removeprefix("http://")]
ARGUMENTS, EXTRA, ENVIRONMENT = json.loads({route!r}.replace("{base_stand_in}", BASE))
os.environ.update(ENVIRONMENT)
{credentials}real = LitellmModel(**ARGUMENTS)
settings = ModelSettings(extra_args=EXTRA or None)"""

_BASE_STAND_IN = "http://recorder.conformance.invalid"

_LITELLM_EXTRA = {
    "bedrock-converse": " boto3",
    "anthropic-bedrock": " boto3",
    "anthropic-vertex": " 'google-auth[requests]'",
    "gemini-vertex": " 'google-auth[requests]'",
}
"""What LiteLLM needs beside it for an api: botocore signs Bedrock, google-auth Vertex AI."""

_FIXTURE_URL = re.compile(re.escape(ORIGIN_STAND_IN) + r"/conformance/([\w.-]+)")


def _dumped(value: Any) -> Any:
    """A tool output as JSON data: the string, or the output models' fields."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [_dumped(v) for v in items]
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else value


def _model_block(row: RowRef, litellm: bool) -> tuple[str, str]:
    """The script's lines that build `real` (the model) and `settings`, and the class named."""
    if not litellm:
        model_class = _MODEL_CLASSES[row.api]
        return _OPENAI_MODEL.format(model_class=model_class), model_class
    from conformance.targets.gcp_credentials import repro_credentials
    from conformance.targets.litellm._vertex import CREDENTIALS_KEY
    from conformance.targets.openai_agents_litellm import route

    found = list(route(row, _BASE_STAND_IN))
    # A Vertex route's service account key: the script makes its own (never the key here).
    vertex = found[1].pop(CREDENTIALS_KEY, None) is not None
    credentials = repro_credentials(f"EXTRA[{CREDENTIALS_KEY!r}]") if vertex else ""
    text = _LITELLM_MODEL.format(
        route=json.dumps(found), base_stand_in=_BASE_STAND_IN, credentials=credentials
    )
    return text, "LitellmModel (LiteLLM's translation for the provider)"


def repro_script(row: RowRef, history: History, version: str, *, litellm: bool = False) -> str:
    steps = plan(history)
    head = history if steps is None else steps.head
    calls: dict[str, dict[str, Any]] = {}
    for call in [] if steps is None else steps.calls:
        if call.status == "error":
            out: Any = "".join(getattr(p, "text", "") for p in call.value)
        else:
            out = _dumped(tool_output(call.value)) if call.value else ""
        calls[call.tool_call_id] = {
            "name": call.name,
            "arguments": call.arguments,
            "status": call.status,
            "output": out,
        }
    items = json.loads(stand_in_text(json.dumps(to_input_items(head), ensure_ascii=False)))
    calls = json.loads(stand_in_text(json.dumps(calls, ensure_ascii=False)))
    files = [n for n in _FIXTURE_URL.findall(json.dumps([items, calls])) if n in FIXTURE_TYPES]
    model_block, model_class = _model_block(row, litellm)
    return _TEMPLATE.format(
        cell=row.id,
        version=version,
        model_class=model_class,
        model_block=model_block,
        install='"openai-agents[litellm]"' + _LITELLM_EXTRA.get(row.api, "")
        if litellm
        else "openai-agents",
        model=row.model,
        recorder=repro_recorder(files),
        report=repro_report(
            "config = RunConfig(tracing_disabled=True)\n"
            "asyncio.run(Runner.run(agent, input=local(INPUT), run_config=config))",
            refusal="exit",
            path_line=False,
            stand_in=ORIGIN_STAND_IN,
        ),
        items=items,
        calls=calls,
        names=tool_names(history),
        stand_in=ORIGIN_STAND_IN,
        doc=TOOL_DOC,
    )
