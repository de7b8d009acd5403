"""The LiteLLM target's reproducer: a standalone script that rebuilds a history as LiteLLM messages
and calls `litellm.completion` against a stdlib server on 127.0.0.1, printing the body it got."""

from __future__ import annotations

import json
from typing import Any

from conformance.history import (
    History,
)
from conformance.scenarios.fixtures import ORIGIN_STAND_IN, stand_in_text
from conformance.targets.base import RowRef
from conformance.targets.kit import comment, fixture_names, repro_recorder, repro_report
from conformance.targets.litellm._messages import to_messages
from conformance.targets.litellm._routes import ENV, completion_kwargs

# --- the reproducer ----------------------------------------------------------------------------

_REPRO = """\
#!/usr/bin/env python3
{about}\"\"\"The LiteLLM request named above: what `litellm.completion` sends for this history.

Needs only `pip install litellm{boto3}`. A stdlib HTTP server on 127.0.0.1 records the
request and answers 400, so nothing leaves the machine; the request body is printed as JSON.
URL media is served by this script on 127.0.0.1 too, so a LiteLLM that downloads it does so.
\"\"\"

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: bundled cost map
import litellm  # noqa: E402

MESSAGES = json.loads({messages!r})
TOOLS = json.loads({tools!r})
CALL = json.loads({call!r})  # litellm.completion's other arguments, without the base URL
BASE_KEY = {base_key!r}

{recorder}
text = json.dumps(MESSAGES).replace({stand_in!r}, ORIGIN)
if MEDIA and hasattr(litellm, "user_url_allowed_hosts"):  # LiteLLM refuses loopback URLs else
    litellm.user_url_allowed_hosts = [ORIGIN.removeprefix("http://")]
litellm.suppress_debug_info = True
if BASE_KEY.startswith("$"):  # the base from the environment, e.g. $HF_API_BASE
    os.environ[BASE_KEY[1:]] = ORIGIN
else:
    CALL[BASE_KEY] = ORIGIN
{report}"""


_STAND_IN = "http://conformance.recording.media"


def _on_stand_in(messages: list[dict[str, Any]]) -> str:
    """The messages as JSON, the fixture host's origin as a stand-in that the script replaces
    by its own server's."""
    text = stand_in_text(json.dumps(messages, ensure_ascii=False))
    return text.replace(ORIGIN_STAND_IN, _STAND_IN)


def repro_script(row: RowRef, history: History, *, error_flag: bool = True) -> str:
    """The source of a standalone script: this history, sent by `litellm.completion` for the
    row to a stdlib recorder on 127.0.0.1; it prints the request body as indented JSON."""
    messages = _on_stand_in(to_messages(history, error_flag=error_flag))
    call = completion_kwargs(row, history, "")
    base_key = "aws_bedrock_runtime_endpoint" if row.api == "bedrock-converse" else "api_base"
    if ENV in call:
        (variable,) = call.pop(ENV)
        base_key = "$" + variable
    else:
        call.pop(base_key)
    tools = call.pop("tools")
    return _REPRO.format(
        about=comment(f"LiteLLM {row.api} request for {row.id}"),
        boto3=" boto3" if row.api == "bedrock-converse" else "",
        messages=messages,
        tools=json.dumps(tools),
        call=json.dumps(call),
        recorder=repro_recorder(fixture_names(history)),
        stand_in=_STAND_IN,
        base_key=base_key,
        report=repro_report("litellm.completion(messages=json.loads(text), tools=TOOLS, **CALL)"),
    )
