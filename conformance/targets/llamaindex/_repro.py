"""A standalone reproducer for one cell: LlamaIndex and the standard library only.

The script holds the cell's messages as LlamaIndex stores them (`ChatMessage.model_dump_json`,
loaded back with `ChatMessage.model_validate`), builds the row's LLM from its integration with
its base URL on a stdlib `http.server` on 127.0.0.1 (which records the request and answers
400), and calls `chat_with_tools` with a `FunctionTool` per tool, as the target does. It prints
the captured request body as indented JSON, or what LlamaIndex raised before sending. URL media
is served by the script itself on 127.0.0.1.
"""

from __future__ import annotations

import json
import re

from conformance.history import History
from conformance.targets.base import RowRef
from conformance.targets.kit import fixture_names, repro_recorder, repro_report
from conformance.targets.llamaindex._messages import dump_messages, to_messages, tool_names
from conformance.targets.llamaindex._models import MODELS

__all__ = ["repro_script"]

_ORIGIN = "__FIXTURE_ORIGIN__"
_LOOPBACK_ORIGIN = re.compile(r"http://127\.0\.0\.1:\d+")


_TEMPLATE = '''\
"""Reproducer: {cell_note}.

What LlamaIndex ({distribution}) sends to the {api} api for a tool result, captured offline:
the request goes to a local server on 127.0.0.1 that records it and answers 400.
Needs: pip install llama-index-core {distribution}
"""

import json

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.tools import FunctionTool
from {module} import {cls}

{recorder}
BASE = ORIGIN + "/api"
{setup}

def tool():
    return ""


tools = [
    FunctionTool.from_defaults(fn=tool, name=name, description="A tool of the scenario.")
    for name in {tools}
]
# The conversation as LlamaIndex stores it (ChatMessage.model_dump_json per message).
STORED = {stored}
messages = [
    ChatMessage.model_validate(m)
    for m in json.loads(STORED.replace("{origin}", ORIGIN))
]

llm = {model}
{report}'''


def repro_script(row: RowRef, history: History) -> str:
    """The source of the reproducer script for `row` and `history`."""
    spec = MODELS[row.api]
    stored = _LOOPBACK_ORIGIN.sub(_ORIGIN, dump_messages(to_messages(history, spec.turn)))
    pretty = json.dumps(json.loads(stored), indent=1, ensure_ascii=False)
    return _TEMPLATE.format(
        cell_note=f"{row.id}, {row.model}",
        distribution=spec.distribution,
        api=row.api,
        module=spec.module,
        cls=spec.cls,
        recorder=repro_recorder(fixture_names(history)),
        report=repro_report(
            "llm.chat_with_tools(tools, chat_history=messages)", refusal="one line"
        ),
        tools=repr(tool_names(history)),
        stored=repr(pretty),
        origin=_ORIGIN,
        model=spec.source.format(model=row.model),
        setup=spec.setup,
    )
