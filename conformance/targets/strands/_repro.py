"""A standalone reproducer for one cell: Strands and the standard library only.

The script holds the cell's history as Strands messages (Python literals, media as bytes) and
each pending call's `ToolResult`; it builds the row's Strands provider class with its base URL on
a stdlib `http.server` on 127.0.0.1 (which records the request and answers 400), gives an
`Agent` those messages and one `@tool` per tool name that returns its call's result, and calls
`agent()`, as the target does. It prints the captured request body as indented JSON, or what
Strands raised before sending.
"""

from __future__ import annotations

import pprint

from conformance.history import History, ToolCall, ToolResult
from conformance.targets.base import RowRef
from conformance.targets.kit import repro_recorder, repro_report
from conformance.targets.strands._messages import system_prompt, to_messages
from conformance.targets.strands._models import API_KEY, ModelSpec

__all__ = ["repro_script"]

_TEMPLATE = '''\
"""Reproducer: {row}, {model}.

What Strands Agents sends to the {api} api for a tool result, captured offline: the request
goes to a local server on 127.0.0.1 that records it and answers 400.
Needs: pip install "strands-agents{extra}"
"""

import os
{preamble}
from strands import Agent, tool
{model_import}

KEY = {key!r}

{recorder}
BASE = ORIGIN + "/api"
{env}{setup}
# What each pending call's tool returns, by call id: a Strands ToolResult without its id.
RESULTS = {results}


def make_tool(name):
    def returns(tool_context):
        empty = {{"status": "success", "content": []}}
        return dict(RESULTS.get(tool_context.tool_use["toolUseId"], empty))

    returns.__name__ = name
    returns.__doc__ = "Return what the scenario's tool returned for this call."
    return tool(name=name, description=returns.__doc__, context=True)(returns)


messages = {messages}

agent = Agent(
    model={model_source},
    messages=messages,
    tools=[make_tool(name) for name in {tools!r}],
    system_prompt={system!r},
    callback_handler=None,
)
{report}'''


def repro_script(spec: ModelSpec, row: RowRef, history: History, planned: bool) -> str:
    """The source of the reproducer for `row` and `history`: the tools produce the last turn
    where `planned` (the target's `plan`), else the stored messages are sent as they are."""
    from conformance.targets.strands import plan

    steps = plan(history) if planned else None
    head = steps.head if steps is not None else history
    results = steps.results if steps is not None else {}
    env = "".join(f"os.environ[{k!r}] = BASE\n" for k in (spec.env("") if spec.env else {}))
    names = list(dict.fromkeys(i.name for i in history if isinstance(i, ToolCall | ToolResult)))
    return _TEMPLATE.format(
        row=row.id,
        model=row.model,
        api=row.api,
        model_import=spec.imports,
        extra=f"[{spec.extra}]" if spec.extra else "",
        env=env,
        setup=spec.setup,
        preamble=(
            '\nos.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline cost map'
            "\nimport litellm\n\nlitellm.suppress_debug_info = True  # no banner on stdout"
            if spec.module == "strands.models.litellm"
            else ""
        ),
        key=API_KEY,
        results=pprint.pformat(results, width=96, sort_dicts=False),
        messages=pprint.pformat(to_messages(head), width=96, sort_dicts=False),
        model_source=spec.source.format(model=row.model),
        tools=names,
        system=system_prompt(history),
        recorder=repro_recorder(),
        report=repro_report("agent()", refusal="one line", unwrap="original_exception"),
    )
