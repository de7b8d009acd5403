"""A standalone reproducer for one cell: LangChain and the standard library only.

The script rebuilds the cell's history as LangChain messages written out as constructor calls,
builds the row's chat model from its integration package with its base URL on a stdlib
`http.server` on 127.0.0.1 (which records the request and answers 400), binds the tools and
calls `invoke`, as the target does. It prints the captured request body as indented JSON, or
what LangChain raised before sending. URL media is served by the script itself on 127.0.0.1.
"""

from __future__ import annotations

import pprint
from typing import Any, cast

from conformance.history import History
from conformance.targets.base import RowRef
from conformance.targets.kit import comment, fixture_names, repro_recorder, repro_report
from conformance.targets.langchain._messages import Block, to_block, tool_names
from conformance.targets.langchain._models import MODELS, ModelSpec

__all__ = ["repro_script"]

_URL = "__conformance_fixture_url__:"


def _content(parts: list[Any], block: Block) -> Any:
    from conformance.history import Text

    if len(parts) == 1 and isinstance(parts[0], Text):
        return parts[0].text
    return [_marked(block(part), getattr(part, "url", None), part) for part in parts]


def _marked(value: Any, url: str | None, part: Any) -> Any:
    """`value` with the part's URL, wherever the format nests it, marked as its fixture's."""
    if url is not None and value == url:
        return _URL + part.identifier
    if isinstance(value, dict):
        return {k: _marked(v, url, part) for k, v in cast("dict[str, Any]", value).items()}
    return value


class _FixtureUrl(str):
    """A fixture's URL in a literal: its `repr` is code, the origin of the script's own file
    server plus the path as a string literal (a file name is data, never code)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ORIGIN + {'/conformance/' + str(self)!r}"


def _urls(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_URL):
        return _FixtureUrl(value.removeprefix(_URL))
    if isinstance(value, dict):
        return {k: _urls(v) for k, v in cast("dict[str, Any]", value).items()}
    if isinstance(value, list):
        return [_urls(v) for v in cast("list[Any]", value)]
    return value


def _literal(value: Any) -> str:
    return pprint.pformat(_urls(value), width=96, sort_dicts=False)


def _message_lines(history: History, block: Block) -> list[str]:
    from conformance.history import ToolCall, ToolResult

    lines: list[str] = []
    calls: list[dict[str, Any]] = []

    def flush() -> None:
        if calls:
            lines.append(f'AIMessage(content="", tool_calls={_literal(list(calls))}),')
            calls.clear()

    for item in history:
        if isinstance(item, ToolCall):
            calls.append(
                {
                    "type": "tool_call",
                    "name": item.name,
                    "args": item.arguments,
                    "id": item.tool_call_id,
                }
            )
            continue
        flush()
        if isinstance(item, ToolResult):
            lines.append(
                f"ToolMessage(content={_literal(_content(list(item.content), block))}, "
                f"tool_call_id={item.tool_call_id!r}, name={item.name!r}, "
                f"status={item.status!r}),"
            )
        else:
            kind = {"system": "SystemMessage", "user": "HumanMessage", "assistant": "AIMessage"}
            content = (
                item.content
                if isinstance(item.content, str)
                else _content(list(item.content), block)
            )
            lines.append(f"{kind[item.role]}(content={_literal(content)}),")
    flush()
    return lines


_TEMPLATE = '''\
{about}"""Reproducer of the cell named above.

What LangChain {framework} sends to the api for a tool result, captured offline: the
request goes to a local server on 127.0.0.1 that records it and answers 400.
Needs: pip install {distributions}
"""

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool
{model_import}

{recorder}
BASE = ORIGIN + "/api"


def tool():
    return ""


tools = [
    StructuredTool.from_function(func=tool, name=name, description="A tool of the scenario.")
    for name in {tools}
]
messages = [
{messages}
]

model = {model}
{report}'''


def repro_script(
    row: RowRef, history: History, block: Block = to_block, spec: ModelSpec | None = None
) -> str:
    """The source of the reproducer script for `row` and `history`, each part written by
    `block`, sent by `spec.call` on the model `spec.source` builds (the row's chat model)."""
    spec = spec or MODELS[row.api]
    lines = _message_lines(history, block)
    messages = "\n".join("    " + line.replace("\n", "\n    ") for line in lines)
    return _TEMPLATE.format(
        about=comment(f"Reproducer: {row.id}, {row.model}, the {row.api} api"),
        framework=spec.distribution,
        distributions=" ".join(dict.fromkeys(("langchain-core", spec.distribution))),
        model_import=spec.imports,
        recorder=repro_recorder(fixture_names(history)),
        report=repro_report(spec.call.format(model=row.model), refusal="one line"),
        tools=repr(tool_names(history)),
        messages=messages,
        model=spec.source.format(model=row.model),
    )
