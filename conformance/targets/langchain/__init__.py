"""The LangChain target: langchain-core messages, rendered by each provider's official
integration package, observed on the wire.

How a cell is rendered:

1. The canonical history becomes LangChain messages (`to_messages`): `HumanMessage`,
   `AIMessage(tool_calls=[...])`, one `ToolMessage` per tool result with langchain-core 1.x
   standard content blocks for media, and tool-produced user content as a `HumanMessage` after
   the tool messages (`_messages.py` says which block shapes and why).
2. The row's chat model from its integration package (`ChatOpenAI`, `ChatAnthropic`,
   `ChatGoogleGenerativeAI`, `ChatBedrockConverse`, `ChatVertexAI`, ...; `_models.py`) is
   built with a fake key and its base URL on the suite's loopback recorder, the scenario's
   tools are bound with `bind_tools`, and `invoke(messages)` sends the request, as a LangChain
   user does. The recorder answers 400, so exactly one request is made and nothing leaves
   the machine.
3. What the integration raises before a request arrives is the outcome; `refusal_types` are
   the exception types the packages raise for content a provider cannot carry.

Storage round trip: `messages_to_dict` to JSON, `messages_from_dict`, render again (LangChain's
documented chat-history storage, what `FileChatMessageHistory` and the database histories use;
`dumpd`/`load` is its general serializer for any `Serializable`, with an allow-list of classes
to load, and not what it documents for persisting conversations).

Its variants (`_variants.py`: `langchain.source-type-blocks`, `langchain.native-blocks`,
`langchain.openai-converter`) write the parts in another format (`block_for`) or send the
messages another way (`invoke`); the rest is this target's.

The module imports without LangChain; the target then reports itself `unavailable`.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import socket
import threading
import uuid
import warnings
from collections.abc import Callable, Generator
from contextlib import contextmanager
from importlib import metadata
from typing import Any

from conformance.history import History
from conformance.targets.base import Payload, RowRef
from conformance.targets.kit import body_or_raise, thread_token
from conformance.targets.langchain._messages import (
    Block,
    dump_messages,
    load_messages,
    to_block,
    to_messages,
    tool_names,
)
from conformance.targets.langchain._models import MODELS, ModelSpec, import_error

__all__ = [
    "DISTRIBUTION",
    "INSTALL_HINT",
    "LangChainTarget",
    "dump_messages",
    "load_messages",
    "model",
    "to_messages",
]

DISTRIBUTION = "langchain-core"
INSTALL_HINT = (
    "pip install langchain-core langchain-openai langchain-anthropic langchain-google-genai "
    "langchain-aws langchain-mistralai langchain-cohere langchain-groq langchain-xai "
    "langchain-huggingface langchain-google-vertexai "
    '(or `nox -s "target(langchain)"`)'
)


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _missing() -> str | None:
    try:
        importlib.import_module("langchain_core")
    except ImportError:
        return f"langchain-core is not installed: {INSTALL_HINT}"
    return None


@functools.cache
def _tool(name: str) -> Any:
    """The scenario's tool of this name. Built once per name: building it infers a pydantic
    schema from the function (a tenth of a render in the profile); `bind_tools` only reads it,
    so every render binds the same definition as a fresh one would give."""
    from langchain_core.tools import StructuredTool

    def tool() -> str:
        return ""

    return StructuredTool.from_function(
        func=tool,
        name=name,
        description="A tool of the scenario; the model is never asked to run it again.",
    )


def _sdk_versions() -> dict[str, str]:
    names = [
        DISTRIBUTION,
        *dict.fromkeys(d for s in MODELS.values() for d in (s.distribution, s.sdk)),
    ]
    found = {name: _version(name) for name in names}
    return {name: version for name, version in found.items() if version is not None}


def _refusal_types() -> tuple[type[BaseException], ...]:
    """What the integration packages raise, before sending, for content a provider cannot
    carry (docs/langchain.md#refusals reads each one in the packages' source)."""
    return (ValueError,)


class LangChainTarget:
    """langchain-core messages through each provider's LangChain chat model, `invoke` with
    the scenario's tools bound."""

    name = "langchain"

    def __init__(self) -> None:
        self.unavailable = _missing()
        self.version = _version(DISTRIBUTION) or "not installed"
        self.sdk_versions: dict[str, str] = _sdk_versions()
        self.refusal_types: tuple[type[BaseException], ...] = _refusal_types()
        self.unsupported_error: type[BaseException] = ValueError

    def supports(self, row: RowRef) -> str | None:
        if self.unavailable is not None:
            return self.unavailable
        spec = MODELS.get(row.api)
        if spec is None:
            return f"the langchain target has no integration package for api {row.api!r}"
        error = import_error(spec)
        if error is not None:
            return (
                f"{spec.distribution} is not importable beside langchain-core {self.version} "
                f"({error}); pip install {spec.distribution}"
            )
        return None

    def block_for(self, row: RowRef) -> Block:
        """How a part is written as content for `row`: standard blocks (a variant's format in
        `_variants.py`)."""
        del row
        return to_block

    def render(self, row: RowRef, history: History) -> Payload:
        return self._send(row, history, to_messages(history, self.block_for(row)))

    def render_stored(self, row: RowRef, history: History) -> Payload:
        stored = dump_messages(to_messages(history, self.block_for(row)))
        return self._send(row, history, load_messages(stored))

    def repro(self, row: RowRef, history: History) -> str:
        from conformance.targets.langchain._repro import repro_script

        return repro_script(row, history, self.block_for(row))

    def _send(self, row: RowRef, history: History, messages: list[Any]) -> Payload:
        spec = MODELS[row.api]
        tools = [_tool(n) for n in tool_names(history)]
        token = thread_token()

        def send(base: str) -> None:
            self.invoke(spec, row, base, tools, messages)

        with warnings.catch_warnings(), _loopback_only(), _numbered_ids():
            warnings.simplefilter("ignore")  # the suite runs with warnings as errors
            payload = body_or_raise(row.api, send, token=token)
        return _struct_keys_sorted(payload) if row.api == "gemini-vertex" else payload

    def invoke(
        self, spec: ModelSpec, row: RowRef, base: str, tools: list[Any], messages: list[Any]
    ) -> None:
        """Send `messages` as a user of this entry point does: the row's chat model, the tools
        bound, `invoke`."""
        model(spec, row, base).bind_tools(tools).invoke(messages)


_STRUCTS = {"functionCall": "args", "functionResponse": "response"}
"""The Part fields of a Gemini body and their `google.protobuf.Struct` member."""


def _struct_keys_sorted(value: Any, inside: bool = False) -> Any:
    """A Vertex Gemini body with the keys of its `google.protobuf.Struct` values
    (`functionCall.args`, `functionResponse.response`) in sorted order. ChatVertexAI's gapic
    client writes a Struct's fields in its map's iteration order, which the protobuf runtime
    leaves undefined and which changed with the process's hash seed (the same render gave four
    orders under four `PYTHONHASHSEED`s); a JSON object's key order carries nothing, and a
    snapshot must not change from run to run. Everything else stays as sent."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [_struct_keys_sorted(item, inside) for item in items]
    if not isinstance(value, dict):
        return value
    fields: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    if inside:
        return {key: _struct_keys_sorted(item, True) for key, item in sorted(fields.items())}
    out: dict[str, Any] = {}
    for key, item in fields.items():
        member = _STRUCTS.get(key)
        if member is not None and isinstance(item, dict):
            part: dict[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
            out[key] = {
                name: _struct_keys_sorted(field, name == member) for name, field in part.items()
            }
        else:
            out[key] = _struct_keys_sorted(item)
    return out


class _Models(threading.local):
    """The chat models built on this rendering thread."""

    def __init__(self) -> None:
        self.built: dict[tuple[str, str, str], Any] = {}  # per constructor, model, base URL


_MODELS = _Models()


def model(spec: ModelSpec, row: RowRef, base: str) -> Any:
    """The row's chat model (or SDK client) for `base`, built once per rendering thread and
    constructor (`spec.source`): the base URL is the thread's own recorder channel
    (`toolkit.thread_token`), the same for every render, so a model built for one render is the
    one a later render would build (a model is configuration: `invoke` keeps no state between
    calls). Building one per render cost 15 times the invoke
    (its SDK clients, each with an SSL context; langchain-openai also keeps two HTTP clients per
    distinct base URL for the life of the process)."""
    key = (spec.source, row.model, base)
    found = _MODELS.built.get(key)
    if found is None:
        found = _MODELS.built[key] = spec.build(row, base)
    return found


class _Ids(threading.local):
    """The ids this rendering thread has handed out, while it renders (None otherwise)."""

    def __init__(self) -> None:
        self.count: itertools.count[int] | None = None


_IDS = _Ids()


@contextmanager
def _numbered_ids() -> Generator[None]:
    """langchain-core's `ensure_id` (`langchain_core/utils/utils.py`) numbered per render
    instead of random: `BaseChatModel` rewrites OpenAI `input_audio` and `file` parts into
    standard blocks with an `lc_<uuid4>` id (`_normalize_messages`), and integrations that
    send a ToolMessage's content as is put that id on the wire, so two runs would never send
    the same bytes. Only the id's value changes; renders on other threads keep `uuid4`."""
    utils: Any = importlib.import_module("langchain_core.utils.utils")  # where ensure_id is
    original = utils.uuid4
    if not isinstance(original, _Counted):
        utils.uuid4 = _Counted(original)
    _IDS.count = itertools.count(1)
    try:
        yield
    finally:
        _IDS.count = None


class _Counted:
    """`uuid4` that gives `UUID(int=n)`, n counted per render, on a thread that renders."""

    def __init__(self, original: Callable[[], uuid.UUID]) -> None:
        self.original = original

    def __call__(self) -> uuid.UUID:
        count = _IDS.count
        return self.original() if count is None else uuid.UUID(int=next(count))


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@contextmanager
def _loopback_only() -> Generator[None]:
    """Name resolution for loopback hosts only while a cell renders: an integration that
    downloads URL media (langchain-google-genai does, with `requests`) may fetch from the
    suite's fixture host on 127.0.0.1, never from the network. A refused lookup surfaces as
    the integration's own connection error: a crash of the cell, never a pass."""
    original = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in _LOOPBACK:
            raise socket.gaierror(
                socket.EAI_NONAME, f"the conformance suite resolves loopback hosts only: {name}"
            )
        return original(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
    try:
        yield
    finally:
        socket.getaddrinfo = original
