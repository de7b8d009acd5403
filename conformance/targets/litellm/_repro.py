"""The LiteLLM targets' reproducer: a standalone script that rebuilds a history in an entry
point's format (`litellm.completion`'s messages, or a variant's) and sends it against a stdlib
server on 127.0.0.1, printing the body it got."""

from __future__ import annotations

import json
from typing import Any

from conformance.history import (
    History,
)
from conformance.scenarios.fixtures import ORIGIN_STAND_IN, stand_in_text
from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import repro_credentials
from conformance.targets.kit import comment, fixture_names, repro_recorder, repro_report
from conformance.targets.litellm._messages import to_messages
from conformance.targets.litellm._routes import BEDROCK_APIS, ENV, completion_kwargs
from conformance.targets.litellm._vertex import CREDENTIALS_KEY

# --- the reproducer ----------------------------------------------------------------------------

_REPRO = """\
#!/usr/bin/env python3
{about}\"\"\"The LiteLLM request named above: what `{entry}` sends for this history.

Needs only `pip install litellm{extra}`. A stdlib HTTP server on 127.0.0.1 records the
request and answers 400, so nothing leaves the machine; the request body is printed as JSON.
URL media is served by this script on 127.0.0.1 too, so a LiteLLM that downloads it does so.
\"\"\"

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: bundled cost map
import litellm  # noqa: E402

MESSAGES = json.loads({messages!r})
TOOLS = json.loads({tools!r})
CALL = json.loads({call!r})  # {entry}'s other arguments, without the base URL
BASE_KEY = {base_key!r}
BASE_PATH = {base_path!r}  # the path under the base URL the route names, if any

{recorder}
text = json.dumps(MESSAGES).replace({stand_in!r}, ORIGIN)
if MEDIA and hasattr(litellm, "user_url_allowed_hosts"):  # LiteLLM refuses loopback URLs else
    litellm.user_url_allowed_hosts = [ORIGIN.removeprefix("http://")]
litellm.suppress_debug_info = True
{credentials}{setup}if BASE_KEY.startswith("$"):  # the base from the environment, e.g. $HF_API_BASE
    os.environ[BASE_KEY[1:]] = ORIGIN
else:
    CALL[BASE_KEY] = ORIGIN + BASE_PATH
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
    call = completion_kwargs(row, history, "")
    return script(
        row,
        history,
        to_messages(history, error_flag=error_flag),
        call,
        entry="litellm.completion",
        send="litellm.completion(messages=json.loads(text), tools=TOOLS, **CALL)",
    )


def script(
    row: RowRef,
    history: History,
    messages: list[dict[str, Any]],
    call: dict[str, Any],
    *,
    entry: str,
    send: str,
    setup: str = "",
) -> str:
    """A reproducer that sends `messages` (the history in the entry point's format) with
    `send`, a fixed line of code that reads `json.loads(text)` (the messages, fixture URLs on
    the script's own server), `TOOLS` and `CALL` (`call` but its base URL and tools, which the
    script fills in). `setup` is fixed code run before, after LiteLLM is imported."""
    call = dict(call)
    base_key = "aws_bedrock_runtime_endpoint" if row.api in BEDROCK_APIS else "api_base"
    base_path = ""
    if ENV in call:
        (variable,) = call.pop(ENV)
        base_key = "$" + variable
    else:
        base_path = call.pop(base_key)  # the route's path under an empty base
    tools = call.pop("tools")
    credentials = ""
    if call.pop(CREDENTIALS_KEY, None) is not None:  # a Vertex route: the script makes its own
        credentials = repro_credentials(f"CALL[{CREDENTIALS_KEY!r}]")
    extra = " boto3" if row.api in BEDROCK_APIS else ""
    return _REPRO.format(
        about=comment(f"LiteLLM {row.api} request for {row.id}"),
        entry=entry,
        extra=" 'google-auth[requests]'" if credentials else extra,
        messages=_on_stand_in(messages),
        tools=json.dumps(tools),
        call=json.dumps(call),
        recorder=repro_recorder(fixture_names(history)),
        stand_in=_STAND_IN,
        base_key=base_key,
        base_path=base_path,
        credentials=credentials,
        setup=setup,
        report=repro_report(send),
    )
