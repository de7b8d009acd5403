"""The Google ADK target: an `LlmAgent` with function tools, run by ADK's `Runner`, observed on
the wire.

How a cell is rendered, the way an ADK user gets there:

1. The history up to its last tool-call turn becomes the events of an ADK session
   (`_messages.plan`): the user's message and the model's function calls of that turn, as the
   model's answer would have left them (the recorder answers every request with an error, so no
   model can answer with a call offline). Earlier turns' function responses are stored as ADK
   builds them (`Part.from_function_response`, media in `parts`).
2. The session belongs to a resumable `App` (`ResumabilityConfig(is_resumable=True)`), and
   `Runner.run_async(invocation_id=...)` resumes the invocation: ADK finds the pending function
   calls and runs the agent's function tools, which return what the history says the call
   returned, as ADK's docs say a tool returns media: the `google.genai.types.Part` itself
   (`Part.from_bytes`, or `Part.from_uri` for a URL), the text as a `str`, a failure as
   `{"status": "error", "error_message": text}` (a raised exception ends the run). ADK builds
   the function response from that value (`flows/llm_flows/tools/_caller.py`,
   `_build_function_response_content`) and sends the next request through the row's model:
   `google.adk.models.Gemini` with `base_url` pointed at the loopback recorder. The payload is
   that request (`conformance.targets.kit.body_or_raise`).
3. What ADK raises before sending, for content it cannot carry, is `refusal_types`.

ADK has no tool-produced user content (a tool's media goes into its function response, or into
an artifact the model must ask for in a later turn with `load_artifacts`): `style:prompt` is
declared not applicable. Rows of other apis go through ADK's LiteLLM wrapper, the
`google-adk-litellm` target (`conformance.targets.google_adk_litellm`).

Storage round trip (`render_stored`): the session the run left, dumped with its pydantic model
(`Session.model_dump_json`), loaded (`Session.model_validate_json`), its events appended to a
fresh `InMemorySessionService` session, and the invocation resumed again: ADK finds the function
responses already there and sends the request from the stored events.

The module imports without ADK; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
import warnings
from collections.abc import Callable, Generator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from importlib import metadata
from typing import Any

from conformance.history import History, ToolCall, ToolResult
from conformance.targets.base import Payload, RowRef
from conformance.targets.gcp_credentials import PROJECT, TOKEN, credentials_file
from conformance.targets.google_adk._messages import (
    AGENT,
    APP,
    INVOCATION,
    TOOL_DOC,
    USER,
    Pending,
    dump_session,
    load_session,
    plan,
    returned,
)
from conformance.targets.kit import body_or_raise, environment, thread_token

__all__ = [
    "API_KEY",
    "DISTRIBUTION",
    "INSTALL_HINT",
    "GoogleADKTarget",
    "Run",
    "dump_session",
    "load_session",
    "plan",
]

DISTRIBUTION = "google-adk"
INSTALL_HINT = 'pip install google-adk  (or: nox -s "target(google-adk)")'
API_KEY = "conformance-not-a-key"
"""A stand-in key: the recorder never checks it and nothing leaves 127.0.0.1."""
SDKS = (
    "google-genai",
    "anthropic",
    "google-auth",
    "litellm",
    "openai",
    "httpx",
    "boto3",
    "botocore",
)
_RENDER_LOCK = threading.Lock()

NOT_APPLICABLE = {
    "style:prompt": (
        "ADK has no tool-produced user content: a function tool's media goes into its "
        "function response (or into an artifact the model must request with load_artifacts "
        "in a later turn), so there is no user content for a tool to add"
    ),
}


def installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def missing_adk() -> str | None:
    try:
        with warnings.catch_warnings():  # deprecations of ADK's dependencies at import time
            warnings.simplefilter("ignore")
            importlib.import_module("google.adk.runners")
    except ImportError as error:
        return f"google-adk is not installed ({error}): {INSTALL_HINT}"
    return None


class _Loop(threading.local):
    """One event loop per rendering thread (renders run one at a time on a worker thread)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        if self.loop is None or self.loop.is_closed():
            self.loop = asyncio.new_event_loop()
        return self.loop


_LOOP = _Loop()


def _run_on_loop(main: Callable[[], Any]) -> None:
    loop = _LOOP.get()
    try:
        loop.run_until_complete(main())
    finally:
        leftovers = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in leftovers:
            task.cancel()
        if leftovers:
            loop.run_until_complete(asyncio.gather(*leftovers, return_exceptions=True))


def _tool(name: str, pending: dict[str, Pending]) -> Any:
    """A function tool named as the history's tool: it returns what its call's result holds."""
    from google.adk.tools import FunctionTool, ToolContext

    def answer(tool_context: ToolContext) -> Any:
        call = pending.get(tool_context.function_call_id or "")
        return "" if call is None else returned(call)

    answer.__name__ = answer.__qualname__ = name
    answer.__doc__ = TOOL_DOC
    # The annotations as objects: ADK resolves them in the function's module, where the
    # lazily imported `ToolContext` is not a global.
    answer.__annotations__ = {"tool_context": ToolContext, "return": Any}
    return FunctionTool(answer)


def _tools(history: History, pending: dict[str, Pending]) -> list[Any]:
    names = dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult))
    return [_tool(name, pending) for name in names]


@contextmanager
def _quiet() -> Generator[None]:
    """ADK warns of its experimental features (resumability) and logs the recorder's error
    answer with a traceback; the suite runs with warnings as errors, ADK users do not."""
    adk = logging.getLogger("google_adk")
    level = adk.level
    adk.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        adk.setLevel(level)


class Run:
    """One ADK run of a history: an `LlmAgent` in a resumable `App`, a `Runner` with an
    in-memory session service, the model built per render for the recorder channel."""

    def __init__(
        self,
        model: Callable[[RowRef, str], Any],
        around: Callable[[RowRef, History, str], AbstractContextManager[None]] | None = None,
    ) -> None:
        self.model = model
        self.around = around
        """What the model needs around a run (environment, download allowlists), if anything."""

    def agent(self, row: RowRef, base: str, history: History, found: Any) -> Any:
        from google.adk.agents import LlmAgent

        instruction: str | None = found.instruction
        kwargs: dict[str, Any] = {}
        if instruction is not None:  # a provider: ADK fills no `{state}` templates into it
            kwargs["instruction"] = lambda _context: instruction  # pyright: ignore[reportUnknownLambdaType]
        return LlmAgent(
            name=AGENT, model=self.model(row, base), tools=_tools(history, found.pending), **kwargs
        )

    def runner(self, agent: Any) -> Any:
        from google.adk.apps import App, ResumabilityConfig
        from google.adk.runners import Runner
        from google.adk.sessions import InMemorySessionService

        app = App(
            name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True)
        )
        return Runner(app=app, session_service=InMemorySessionService())

    def send(
        self, row: RowRef, history: History, events: list[Any] | None = None
    ) -> tuple[Payload, Any]:
        """The request ADK sends on resuming the history's invocation (or the stored
        `events`' one), and the session the run left."""
        found = plan(history)
        stored = found.events if events is None else events
        left: list[Any] = []

        def send(base: str) -> None:
            runner = self.runner(self.agent(row, base, history, found))
            service = runner.session_service

            async def main() -> None:
                session = await service.create_session(app_name=APP, user_id=USER)
                for event in stored:
                    await service.append_event(session, event.model_copy(deep=True))
                try:
                    async for _ in runner.run_async(
                        user_id=USER, session_id=session.id, invocation_id=INVOCATION
                    ):
                        pass
                finally:
                    left.append(
                        await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
                    )

            if self.around is None:
                _run_on_loop(main)
                return
            with self.around(row, history, base):
                _run_on_loop(main)

        with _RENDER_LOCK, _quiet():
            payload = body_or_raise(row.api, send, token=thread_token())
        return payload, left[0]


def _gemini(row: RowRef, base: str) -> Any:
    """ADK's `Gemini` model with its google-genai client's `base_url` on the recorder."""
    from google.adk.models import Gemini

    kwargs: dict[str, Any] = {"model": row.model, "base_url": base}
    if "client_kwargs" in Gemini.model_fields:
        kwargs["client_kwargs"] = {"api_key": API_KEY}
    return Gemini(**kwargs)


VERTEX_REGIONS = {"anthropic-vertex": "us-east5", "gemini-vertex": "us-central1"}
"""The Vertex AI region of each Vertex api's row (as the reference's clients are configured)."""


def _gemini_vertex(row: RowRef, base: str) -> Any:
    """ADK's `Gemini` model on Vertex AI, configured as its docstring says for what ADK does
    not expose as fields: `client_kwargs` for google-genai's `Client` (`vertexai`, `project`,
    `location`, `credentials`); the credentials are an OAuth token, which google-genai sends
    as given (no exchange, nothing reaches Google)."""
    from google.adk.models import Gemini
    from google.oauth2.credentials import Credentials

    client = {
        "vertexai": True,
        "project": PROJECT,
        "location": VERTEX_REGIONS["gemini-vertex"],
        "credentials": Credentials(token=TOKEN),  # pyright: ignore[reportCallIssue]
    }
    return Gemini(model=row.model, base_url=base, client_kwargs=client)


def _claude(row: RowRef, base: str) -> Any:
    """ADK's `Claude` (`google.adk.models.anthropic_llm`), the class its docs give for Claude
    on Vertex AI: it builds anthropic's `AsyncAnthropicVertex` from the environment
    (`_claude_environment`)."""
    from google.adk.models.anthropic_llm import Claude

    return Claude(model=row.model)


@contextmanager
def _claude_environment(row: RowRef, history: History, base: str) -> Generator[None]:
    """What ADK's `Claude` reads, set for the run: `GOOGLE_CLOUD_PROJECT` and
    `GOOGLE_CLOUD_LOCATION` (`Claude._anthropic_client`), the base URL anthropic's
    `AsyncAnthropicVertex` takes from `ANTHROPIC_VERTEX_BASE_URL`, and Application Default
    Credentials (`GOOGLE_APPLICATION_CREDENTIALS`): a service account key whose token
    exchange, google-auth's inside the anthropic SDK, stays on 127.0.0.1
    (`conformance.targets.gcp_credentials`)."""
    values = {
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "GOOGLE_CLOUD_LOCATION": VERTEX_REGIONS["anthropic-vertex"],
        "ANTHROPIC_VERTEX_BASE_URL": base + "/v1",
        "GOOGLE_APPLICATION_CREDENTIALS": credentials_file(),
    }
    with environment(values):
        yield


_MODELS: dict[
    str,
    tuple[
        Callable[[RowRef, str], Any],
        Callable[[RowRef, History, str], AbstractContextManager[None]] | None,
    ],
] = {
    "gemini": (_gemini, None),
    "gemini-vertex": (_gemini_vertex, None),
    "anthropic-vertex": (_claude, _claude_environment),
}
"""Per api, ADK's native model for it and what it needs around a run."""


def _model(row: RowRef, base: str) -> Any:
    return _MODELS[row.api][0](row, base)


def _around(row: RowRef, history: History, base: str) -> AbstractContextManager[None]:
    around = _MODELS[row.api][1]
    return nullcontext() if around is None else around(row, history, base)


def _anthropic_missing() -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module("google.adk.models.anthropic_llm")
    except ImportError as error:
        return f"ADK's Claude model needs the anthropic SDK ({error}): pip install anthropic"
    return None


class GoogleADKTarget:
    """ADK's `LlmAgent` on its `Gemini` model, resumed by its `Runner` so its tools run."""

    name = "google-adk"
    not_applicable = NOT_APPLICABLE

    def __init__(self) -> None:
        self.unavailable = missing_adk()
        self.version = installed(DISTRIBUTION) or "not installed"
        self.sdk_versions = {n: v for n in SDKS if (v := installed(n)) is not None}
        self.refusal_types: tuple[type[BaseException], ...] = (ValueError,)
        """ADK's `ValueError`: what its models raise before sending for content they cannot
        take (`models/lite_llm.py`: "does not support content part with MIME type", "File URI
        ... not supported for provider"; google-genai's own checks of a request's parts raise
        it too). ADK's `Gemini` model has no content refusal of its own (`models/google_llm.py`
        passes the contents through)."""
        self._run = Run(_model, _around)

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        if row.api not in _MODELS:
            return (
                f"ADK's native models are Gemini and, on Vertex AI, Claude; api {row.api!r} "
                "goes through ADK's LiteLLM wrapper: the google-adk-litellm target"
            )
        if row.api == "anthropic-vertex":
            return _anthropic_missing()
        return None

    def render(self, row: RowRef, history: History) -> Payload:
        return self._run.send(row, history)[0]

    def render_stored(self, row: RowRef, history: History) -> Payload:
        _, session = self._run.send(row, history)
        loaded = load_session(dump_session(session))
        return self._run.send(row, history, list(loaded.events))[0]

    def repro(self, row: RowRef, history: History) -> str:
        """A standalone script (ADK and the standard library) that sends this cell's request
        to a recorder on 127.0.0.1 and prints the payload as indented JSON."""
        from conformance.targets.google_adk._repro import repro_script, vertex_model_code

        if row.api in VERTEX_REGIONS:
            code = vertex_model_code(row.api, PROJECT, VERTEX_REGIONS[row.api])
            extra = " anthropic" if row.api == "anthropic-vertex" else ""
            return repro_script(row, history, self.version, model_code=code, extra=extra)
        return repro_script(row, history, self.version)
