"""The Google ADK target's reproducer: a standalone script that rebuilds the history as ADK session
events and function tools, resumes the invocation with ADK's `Runner` against a stdlib server on
127.0.0.1, and prints the body it got."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from conformance.history import History, ToolCall, ToolResult
from conformance.scenarios.fixtures import ORIGIN_STAND_IN, stand_in_text
from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import repro_credentials
from conformance.targets.google_adk._messages import AGENT, APP, INVOCATION, USER, plan, returned
from conformance.targets.kit import fixture_names, repro_recorder, repro_report

_STAND_IN = "http://conformance.recording.media"

_REPRO = """\
#!/usr/bin/env python3
\"\"\"Google ADK {version} {api} request for {row}: what an `LlmAgent` sends for this history.

Needs only `pip install google-adk{extra}`. The session holds the user's message and the
model's function calls; resuming the invocation runs the function tools, which return the
history's results (`google.genai.types.Part` for media), and ADK sends the next request to a
stdlib HTTP server on 127.0.0.1 that records it and answers 400, so nothing leaves the machine.
URL media is served by this script on 127.0.0.1 too.
\"\"\"

import asyncio
import json
import logging
import warnings

from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.events import Event
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool, ToolContext
from google.genai import types

warnings.simplefilter("ignore")  # ADK's experimental-feature warnings
logging.disable(logging.CRITICAL)  # ADK logs the 400 answer with a traceback

EVENTS = {events!r}  # the session's events as ADK's pydantic models dump them
RETURNS = json.loads({returns!r})  # call id -> what its tool returns
TOOLS = {tools!r}
MODEL = {model!r}

{recorder}


def value(spec):
    if "text" in spec:
        return spec["text"]
    if "part" in spec:
        return types.Part.model_validate(spec["part"])
    if "list" in spec:
        return [value(item) for item in spec["list"]]
    return spec["dict"]


def tool(name):
    def answer(tool_context: ToolContext):
        spec = RETURNS.get(tool_context.function_call_id or "")
        return "" if spec is None else value(spec)

    answer.__name__ = answer.__qualname__ = name
    answer.__doc__ = "Return what the scenario's tool returned for this call."
    return FunctionTool(answer)


def model():
{model_code}


async def main():
    agent = LlmAgent(name={agent!r}, model=model(), tools=[tool(n) for n in TOOLS])
    app = App(
        name={app!r}, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True)
    )
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name={app!r}, user_id={user!r})
    for stored in EVENTS:
        event = Event.model_validate_json(stored.replace({stand_in!r}, ORIGIN))
        await service.append_event(session, event)
    async for _ in runner.run_async(
        user_id={user!r}, session_id=session.id, invocation_id={invocation!r}
    ):
        pass


RETURNS = json.loads(json.dumps(RETURNS).replace({stand_in!r}, ORIGIN))
{report}"""

_GEMINI = """\
    from google.adk.models import Gemini

    return Gemini(model=MODEL, base_url=ORIGIN, client_kwargs={"api_key": "not-a-key"})"""


_GEMINI_VERTEX = """\
    from google.adk.models import Gemini
    from google.oauth2.credentials import Credentials

    client = {{
        "vertexai": True,
        "project": {project!r},
        "location": {location!r},
        "credentials": Credentials(token="not-a-token"),  # sent as given, never exchanged
    }}
    return Gemini(model=MODEL, base_url=ORIGIN, client_kwargs=client)"""

_CLAUDE = """\
    import os
    import tempfile

    from google.adk.models.anthropic_llm import Claude

{credentials}
    # Application Default Credentials: the key in a file, as `gcloud` users point ADC at one.
    handle, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(handle, "w") as file:
        file.write(KEY_JSON)
    os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = path
    os.environ["GOOGLE_CLOUD_PROJECT"] = {project!r}
    os.environ["GOOGLE_CLOUD_LOCATION"] = {location!r}
    os.environ["ANTHROPIC_VERTEX_BASE_URL"] = ORIGIN + "/v1"
    return Claude(model=MODEL)"""


def vertex_model_code(api: str, project: str, location: str) -> str:
    """The reproducer's `model()` body for a Vertex AI row: ADK's `Gemini` with a Vertex
    client, or ADK's `Claude` with the environment and a service account key of its own."""
    if api == "gemini-vertex":
        return _GEMINI_VERTEX.format(project=project, location=location)
    credentials = textwrap.indent(repro_credentials("KEY_JSON"), "    ")
    return _CLAUDE.format(project=project, location=location, credentials=credentials)


def _spec(value: Any) -> dict[str, Any]:
    from google.genai import types

    if isinstance(value, str):
        return {"text": value}
    if isinstance(value, types.Part):
        return {"part": value.model_dump(mode="json", exclude_none=True)}
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return {"list": [_spec(item) for item in items]}
    return {"dict": value}


def _on_stand_in(text: str) -> str:
    """The fixture host's origin as a stand-in that the script replaces by its own server's."""
    return stand_in_text(text).replace(ORIGIN_STAND_IN, _STAND_IN)


_REPLY = {"error": {"code": 400, "message": "recorded", "status": "INVALID_ARGUMENT"}}
"""The error google-genai raises on (`errors.ClientError`), as the Gemini api answers."""


def repro_script(
    row: RowRef, history: History, version: str, *, model_code: str = _GEMINI, extra: str = ""
) -> str:
    """The source of a standalone script: this history, resumed by ADK's `Runner` with the
    row's model (`model_code`, the body of a function that may read `ORIGIN` and `MODEL`)
    against a stdlib recorder on 127.0.0.1; it prints the request body as indented JSON."""
    found = plan(history)
    events = [_on_stand_in(e.model_dump_json(exclude_none=True)) for e in found.events]
    returns = _on_stand_in(json.dumps({k: _spec(returned(v)) for k, v in found.pending.items()}))
    tools = list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))
    return _REPRO.format(
        version=version,
        api=row.api,
        row=row.id,
        extra=extra,
        events=events,
        returns=returns,
        tools=tools,
        model=row.model,
        recorder=repro_recorder(fixture_names(history), _REPLY),
        report=repro_report("asyncio.run(main())"),
        model_code=model_code,
        agent=AGENT,
        app=APP,
        user=USER,
        invocation=INVOCATION,
        stand_in=_STAND_IN,
    )
