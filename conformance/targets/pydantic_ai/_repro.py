"""Repro scripts for the pydantic-ai target: `PydanticAITarget.repro(row, history)`.

A script uses only pydantic-ai (with the api's SDK) and the standard library. It rebuilds the
history in pydantic-ai's own types (its stored JSON, and tools that return what the last turn's
calls returned, or fail the version's way), runs `Agent.run(None, message_history=...)` against a
`http.server` recorder on 127.0.0.1 that answers 400, serves URL media itself on 127.0.0.1, and
prints the request as indented JSON (URLs as the suite's snapshots store them), so its output can
be compared with the cell's snapshot or attached to an upstream issue. Every value from the row
or the history is a `repr` literal; the cell and version are a comment (`kit.comment`).
"""

from __future__ import annotations

import base64

from conformance.history import History, Part, Text, ToolCall, ToolResult
from conformance.scenarios.fixtures import (
    ORIGIN_STAND_IN,
    stand_in_text,
)
from conformance.targets.base import RowRef
from conformance.targets.kit import comment, fixture_names, repro_recorder, repro_report
from conformance.targets.pydantic_ai._messages import TOOL_DOC, dump_messages, plan, to_messages

__all__ = ["repro_script"]

_REPRO_MODELS = {
    "openai-chat": (
        "from pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "provider = OpenAIProvider(base_url=BASE + '/v1', api_key=KEY)\n"
        "model = OpenAIChatModel(MODEL, provider=provider)"
    ),
    "openai-responses": (
        "from pydantic_ai.models.openai import OpenAIResponsesModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "provider = OpenAIProvider(base_url=BASE + '/v1', api_key=KEY)\n"
        "model = OpenAIResponsesModel(MODEL, provider=provider)"
    ),
    "xai": (
        "from pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.profiles.grok import grok_model_profile\n"
        "from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer, OpenAIModelProfile\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "profile = OpenAIModelProfile(json_schema_transformer=OpenAIJsonSchemaTransformer)"
        ".update(grok_model_profile(MODEL))\n"
        "provider = OpenAIProvider(base_url=BASE + '/v1', api_key=KEY)\n"
        "model = OpenAIChatModel(MODEL, provider=provider, profile=profile)"
    ),
    "anthropic": (
        "from pydantic_ai.models.anthropic import AnthropicModel\n"
        "from pydantic_ai.providers.anthropic import AnthropicProvider\n"
        "model = AnthropicModel(MODEL, provider=AnthropicProvider(base_url=BASE, api_key=KEY))"
    ),
    "gemini": (
        "from google.genai import Client\n"
        "from google.genai.types import HttpOptions\n"
        "from pydantic_ai.models.google import GoogleModel\n"
        "from pydantic_ai.providers.google import GoogleProvider\n"
        "client = Client(api_key=KEY, http_options=HttpOptions(base_url=BASE))\n"
        "model = GoogleModel(MODEL, provider=GoogleProvider(client=client))"
    ),
    "anthropic-vertex": (
        "from anthropic import AsyncAnthropicVertex\n"
        "from pydantic_ai.models.anthropic import AnthropicModel\n"
        "from pydantic_ai.providers.anthropic import AnthropicProvider\n"
        "client = AsyncAnthropicVertex(region='us-east5', project_id='conformance-project',\n"
        "                              access_token=KEY, base_url=BASE + '/v1')\n"
        "model = AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=client))"
    ),
    "anthropic-bedrock": (
        "from anthropic import AsyncAnthropicBedrock\n"
        "from pydantic_ai.models.anthropic import AnthropicModel\n"
        "from pydantic_ai.providers.anthropic import AnthropicProvider\n"
        "client = AsyncAnthropicBedrock(aws_access_key='repro', aws_secret_key=KEY,\n"
        "                               aws_region='us-east-1', base_url=BASE)\n"
        "model = AnthropicModel(MODEL, provider=AnthropicProvider(anthropic_client=client))"
    ),
    "gemini-vertex": (
        "from google.genai import Client\n"
        "from google.genai.types import HttpOptions\n"
        "from google.oauth2.credentials import Credentials\n"
        "from pydantic_ai.models.google import GoogleModel\n"
        "from pydantic_ai.providers.google import GoogleProvider\n"
        "client = Client(vertexai=True, project='conformance-project', location='us-central1',\n"
        "                credentials=Credentials(token=KEY),\n"
        "                http_options=HttpOptions(base_url=BASE, api_version='v1beta1'))\n"
        "model = GoogleModel(MODEL, provider=GoogleProvider(client=client))"
    ),
    "bedrock-converse": (
        "import boto3\n"
        "from pydantic_ai.models.bedrock import BedrockConverseModel\n"
        "from pydantic_ai.providers.bedrock import BedrockProvider\n"
        "client = boto3.client('bedrock-runtime', region_name='us-east-1', endpoint_url=BASE,\n"
        "                      aws_access_key_id='repro', aws_secret_access_key=KEY)\n"
        "model = BedrockConverseModel(MODEL, provider=BedrockProvider(bedrock_client=client))"
    ),
    "mistral": (
        "from pydantic_ai.models.mistral import MistralModel\n"
        "from pydantic_ai.providers.mistral import MistralProvider\n"
        "model = MistralModel(MODEL, provider=MistralProvider(base_url=BASE, api_key=KEY))"
    ),
    "cohere": (
        "from cohere import AsyncClientV2\n"
        "from pydantic_ai.models.cohere import CohereModel\n"
        "from pydantic_ai.providers.cohere import CohereProvider\n"
        "client = AsyncClientV2(api_key=KEY, base_url=BASE)\n"
        "model = CohereModel(MODEL, provider=CohereProvider(cohere_client=client))"
    ),
    "groq": (
        "from pydantic_ai.models.groq import GroqModel\n"
        "from pydantic_ai.providers.groq import GroqProvider\n"
        "model = GroqModel(MODEL, provider=GroqProvider(base_url=BASE, api_key=KEY))"
    ),
    "huggingface": (
        "from pydantic_ai.models.huggingface import HuggingFaceModel\n"
        "from pydantic_ai.providers.huggingface import HuggingFaceProvider\n"
        "model = HuggingFaceModel(MODEL, provider=HuggingFaceProvider(base_url=BASE, api_key=KEY))"
    ),
}

_REPRO_TEMPLATE = '''\
{about}"""Reproduces the cell named above with pydantic-ai.

Sends the request pydantic-ai's agent makes for this history to a recorder on 127.0.0.1
(which answers 400, so nothing leaves the machine) and prints it as indented JSON. URL media is
served by this script on 127.0.0.1 too. Run it with pydantic-ai-slim and the api's SDK installed.
"""

import asyncio
import base64
import json
from urllib.parse import unquote

from typing import Any

from pydantic_ai import Agent, RunContext, Tool, capture_run_messages, exceptions
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ModelMessagesTypeAdapter,
    ToolReturn,
    VideoUrl,
)

API = {api!r}
MODEL = {model!r}
KEY = "repro-not-a-key"
HISTORY = {history!r}
"""The stored messages (pydantic-ai's own JSON); `{stand_in}` is this script's file server."""
CALLS = {calls!r}
"""The pending tool calls of the last turn: what each tool returns, or the text it fails with."""

{recorder}
BASE = ORIGIN
URL_KINDS = {{"image": ImageUrl, "document": DocumentUrl, "audio": AudioUrl, "video": VideoUrl}}


def item(spec):
    if "text" in spec:
        return spec["text"]
    if "data" in spec:
        data = base64.b64decode(spec["data"])
        return BinaryContent(data, media_type=spec["media_type"], identifier=spec["identifier"])
    url = spec["url"].replace({stand_in!r}, ORIGIN)
    kind = URL_KINDS[spec["kind"]]
    return kind(url, media_type=spec["media_type"], identifier=spec["identifier"])


Failed = getattr(exceptions, "ToolFailed", None) or exceptions.ModelRetry  # 2.x, else 1.x


def tool(ctx: RunContext[None]) -> Any:
    call = CALLS.get(ctx.tool_call_id)
    if call is None:
        return ""
    if call["status"] == "error":
        raise Failed("".join(part["text"] for part in call["value"]))
    values = [item(part) for part in call["value"]]
    value = values[0] if len(values) == 1 else (values or "")
    if call["produced"]:
        return ToolReturn(return_value=value, content=[item(part) for part in call["produced"]])
    return value


def tool_with_arguments(ctx: RunContext[None], **arguments: Any) -> Any:
    return tool(ctx)


tool.__doc__ = tool_with_arguments.__doc__ = {doc!r}


# Downloads: pydantic-ai's SSRF guard blocks loopback addresses; a user's URL is public, so
# let this script's file server through (that origin only).
from pydantic_ai import _ssrf  # noqa: E402

_validate = _ssrf.validate_and_resolve_url


async def validate(url, allow_local):
    return await _validate(url, allow_local or url.startswith(ORIGIN + "/"))


_ssrf.validate_and_resolve_url = validate

{model_code}

names = dict.fromkeys({names!r})
if {parameterless!r}:  # the history's calls have no arguments: tools without parameters
    tools = [Tool(tool, name=n, takes_ctx=True) for n in names]
else:
    schema = {{"type": "object", "properties": {{}}, "additionalProperties": True}}
    tools = [
        Tool.from_schema(
            tool_with_arguments, n, tool.__doc__, json_schema=schema, takes_ctx=True
        )
        for n in names
    ]
messages = ModelMessagesTypeAdapter.validate_json(HISTORY.replace({stand_in!r}, ORIGIN))
agent = Agent(model, tools=tools)


def payload(path, body):
    if API == "bedrock-converse":  # the model id travels in the path there
        return {{"modelId": unquote(path.split("/")[2]), **body}}
    return body


# URLs of this script's server printed as the suite's snapshots store them
{report}'''


def _spec(part: Part) -> dict[str, str]:
    if isinstance(part, Text):
        return {"text": part.text}
    if part.data is not None:
        return {
            "data": base64.b64encode(part.data).decode("ascii"),
            "media_type": part.media_type,
            "identifier": part.identifier,
        }
    assert part.url is not None
    return {
        "url": stand_in_text(part.url),
        "kind": part.type,
        "media_type": part.media_type,
        "identifier": part.identifier,
    }


def repro_script(row: RowRef, history: History, version: str) -> str:
    steps = plan(history)
    head = history if steps is None else steps.head
    calls = {} if steps is None else steps.calls
    stored = stand_in_text(dump_messages(to_messages(head)).decode("utf-8"))
    return _REPRO_TEMPLATE.format(
        about=comment(f"Conformance cell {row.id}, pydantic-ai {version}"),
        api=row.api,
        model=row.model,
        recorder=repro_recorder(fixture_names(history)),
        report=repro_report(
            "with capture_run_messages():\n"
            "    asyncio.run(agent.run(None, message_history=messages))",
            refusal="exit",
            path_line=False,
            payload="payload",
            stand_in=ORIGIN_STAND_IN,
        ),
        history=stored,
        stand_in=ORIGIN_STAND_IN,
        calls={
            call_id: {
                "status": call.status,
                "value": [_spec(p) for p in call.value],
                "produced": [_spec(p) for p in call.produced],
            }
            for call_id, call in calls.items()
        },
        names=[i.name for i in history if isinstance(i, ToolCall | ToolResult)],
        model_code=_REPRO_MODELS[row.api],
        doc=TOOL_DOC,
        parameterless=all(not i.arguments for i in history if isinstance(i, ToolCall)),
    )
