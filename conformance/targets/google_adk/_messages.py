"""The Google ADK target's translation: the canonical history as ADK session events, what each
pending call's function tool returns, and the session's storage as JSON.

An ADK session is a list of `google.adk.events.Event`s, each with a `google.genai.types.Content`.
A history becomes the events a run would have left: the user's message (author `user`), the
model's function calls (author: the agent, role `model`, one event per turn), and, for turns
before the last, the function responses ADK built for them (role `user`). The last tool-call
turn is left pending: its function tools produce the results when ADK resumes the invocation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conformance.history import (
    Audio,
    Document,
    History,
    Image,
    Message,
    Part,
    Text,
    ToolCall,
    ToolResult,
    Video,
)

AGENT = "assistant"
"""The agent's name, the author of its model events."""
APP = "conformance"
USER = "user"
INVOCATION = "e-conformance-1"
"""The invocation every event of the history belongs to: the one ADK resumes."""

TOOL_DOC = "Return what the scenario's tool returned for this call."


@dataclass
class Pending:
    """One call of the last tool-call turn and what its tool returns (or fails with)."""

    name: str
    status: str = "success"
    content: list[Part] = field(default_factory=list[Part])


@dataclass
class Plan:
    """The events stored before the run, the pending calls the tools answer (by call id, in
    call order; empty when the history has no last turn tools can produce) and the system
    text the agent is instructed with."""

    events: list[Any]
    pending: dict[str, Pending]
    instruction: str | None


def genai_part(part: Part) -> Any:
    """One canonical part as the `google.genai.types.Part` an ADK user builds: text, inline
    bytes (`Part.from_bytes`) or a URL (`Part.from_uri`, `file_data`)."""
    from google.genai import types

    if isinstance(part, Text):
        return types.Part(text=part.text)
    assert isinstance(part, Image | Document | Audio | Video)
    if part.data is not None:
        return types.Part.from_bytes(data=part.data, mime_type=part.media_type)
    assert part.url is not None
    return types.Part.from_uri(file_uri=part.url, mime_type=part.media_type)


def tool_value(content: list[Part]) -> Any:
    """What a function tool returns for a successful result: the text itself for a lone text
    part, the `types.Part` itself for a lone media part (ADK moves media parts a tool returns
    into the function response's `parts`), else a list of strings and parts."""
    if len(content) == 1:
        only = content[0]
        return only.text if isinstance(only, Text) else genai_part(only)
    return [p.text if isinstance(p, Text) else genai_part(p) for p in content]


def error_value(content: list[Part]) -> dict[str, Any]:
    """What a function tool returns for a failed call, as ADK's function-tool docs advise (a
    dict with a `status` and an `error_message`; an exception stops the run)."""
    text = "".join(p.text for p in content if isinstance(p, Text))
    return {"status": "error", "error_message": text}


def returned(call: Pending) -> Any:
    return error_value(call.content) if call.status == "error" else tool_value(call.content)


def _content(role: str, parts: list[Any]) -> Any:
    from google.genai import types

    return types.Content(role=role, parts=parts)


def _message_parts(content: str | list[Part]) -> list[Any]:
    from google.genai import types

    if isinstance(content, str):
        return [types.Part(text=content)]
    return [genai_part(p) for p in content]


def _response_part(result: ToolResult) -> Any:
    """A stored function response of an earlier turn, built the way ADK builds one from what
    the tool returned: a dict response (`{"result": ...}` for anything else), media parts in
    `parts` (genai's `Part.from_function_response`)."""
    from google.genai import types

    value: Any = returned(Pending(result.name, result.status, list(result.content)))
    media: list[Any] = []
    items: list[Any] = list(value) if isinstance(value, list) else [value]  # pyright: ignore[reportUnknownArgumentType]
    if result.status == "error":  # the error dict, and any media the failure carried
        items = [value, *(genai_part(p) for p in result.content if not isinstance(p, Text))]
    kept: list[Any] = []
    for item in items:
        if isinstance(item, types.Part):
            if item.inline_data is not None:
                blob = item.inline_data
                media.append(
                    types.FunctionResponsePart.from_bytes(
                        data=blob.data or b"", mime_type=blob.mime_type or ""
                    )
                )
            elif item.file_data is not None:
                file = item.file_data
                media.append(
                    types.FunctionResponsePart.from_uri(
                        file_uri=file.file_uri or "", mime_type=file.mime_type or ""
                    )
                )
        else:
            kept.append(item)
    response: Any = None
    if isinstance(value, dict):
        response = value  # pyright: ignore[reportUnknownVariableType]
    if response is None:
        rest = kept[0] if len(kept) == 1 and not isinstance(value, list) else kept
        response = {} if not kept else {"result": rest}
    part = types.Part.from_function_response(
        name=result.name, response=response, parts=media or None
    )
    assert part.function_response is not None
    part.function_response.id = result.tool_call_id
    return part


def _pending_turn(history: History) -> tuple[int, dict[str, Pending]] | None:
    """Where the last tool-call turn starts and its calls, if everything after its calls is
    one successful or failed result per call (what its tools can produce); else None."""
    last = max((i for i, item in enumerate(history) if isinstance(item, ToolCall)), default=None)
    if last is None:
        return None
    start = last
    while start > 0 and isinstance(history[start - 1], ToolCall):
        start -= 1
    pending: dict[str, Pending] = {}
    for item in history[start : last + 1]:
        assert isinstance(item, ToolCall)
        if item.tool_call_id in pending:
            return None
        pending[item.tool_call_id] = Pending(item.name)
    answered: set[str] = set()
    for item in history[last + 1 :]:
        if not isinstance(item, ToolResult) or item.tool_call_id not in pending:
            return None
        call = pending[item.tool_call_id]
        if item.tool_call_id in answered or item.name != call.name:
            return None
        if item.status == "error" and not all(isinstance(p, Text) for p in item.content):
            return None
        answered.add(item.tool_call_id)
        call.status, call.content = item.status, list(item.content)
    if answered != set(pending):
        return None
    return start, pending


def plan(history: History) -> Plan:
    """The session events for a history and the calls its tools answer on resume."""
    found = _pending_turn(history)
    if found is None:
        head, pending = list(history), {}
    else:
        start, pending = found
        head = history[: start + len(pending)]
    return Plan(_events(head), pending, _instruction(history))


def _instruction(history: History) -> str | None:
    texts = [
        i.content if isinstance(i.content, str) else "".join(_texts(i.content))
        for i in history
        if isinstance(i, Message) and i.role == "system"
    ]
    return "\n\n".join(texts) if texts else None


def _texts(parts: list[Part]) -> list[str]:
    return [p.text for p in parts if isinstance(p, Text)]


def _events(items: History) -> list[Any]:
    """The events a run leaves for these items; consecutive calls (and their consecutive
    results) share one event, as ADK writes a parallel turn."""
    from google.adk.events import Event
    from google.genai import types

    events: list[Any] = []
    kind: str | None = None
    for item in items:
        if isinstance(item, ToolCall):
            part = types.Part(
                function_call=types.FunctionCall(
                    id=item.tool_call_id, name=item.name, args=dict(item.arguments)
                )
            )
            this = "call"
        elif isinstance(item, ToolResult):
            part, this = _response_part(item), "result"
        elif item.role == "system":
            kind = None
            continue
        else:
            role = "user" if item.role == "user" else "model"
            author = USER if item.role == "user" else AGENT
            events.append(
                Event(
                    author=author,
                    invocation_id=INVOCATION,
                    content=_content(role, _message_parts(item.content)),
                )
            )
            kind = None
            continue
        if kind == this:
            events[-1].content.parts.append(part)
        else:
            role = "model" if this == "call" else "user"
            events.append(
                Event(author=AGENT, invocation_id=INVOCATION, content=_content(role, [part]))
            )
        kind = this
    return events


def dump_session(session: Any) -> str:
    """The storage an ADK user has: the session (its events) as JSON, by its pydantic model."""
    text: str = session.model_dump_json()
    json.loads(text)  # what a store keeps is JSON
    return text


def load_session(stored: str) -> Any:
    from google.adk.sessions import Session

    return Session.model_validate_json(stored)
