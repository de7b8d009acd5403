"""The LiteLLM target's reproducer: a standalone script that rebuilds a history as LiteLLM messages
and calls `litellm.completion` against a stdlib server on 127.0.0.1, printing the body it got."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from conformance.history import (
    History,
)
from conformance.scenarios.fixtures import FIXTURE_TYPES
from conformance.targets.base import RowRef
from conformance.targets.kit import comment, repro_recorder, repro_report
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


def _media_stand_ins(messages: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """The messages as JSON with fixture URLs on a stand-in origin the script replaces by its
    own server's, and the fixtures it serves there."""

    text = json.dumps(messages, ensure_ascii=False)
    media: list[str] = []
    urls: set[str] = set(_URL.findall(text))
    for url in sorted(urls):
        name = urlsplit(url).path.rsplit("/", 1)[-1]
        if name not in FIXTURE_TYPES:
            continue
        media.append(name)
        text = text.replace(url, f"{_STAND_IN}/conformance/{name}")
    return text, media


_URL = re.compile(r"https?://[^\"\s]+/conformance/[\w.-]+")
_STAND_IN = "http://conformance.recording.media"


def repro_script(row: RowRef, history: History, *, error_flag: bool = True) -> str:
    """The source of a standalone script: this history, sent by `litellm.completion` for the
    row to a stdlib recorder on 127.0.0.1; it prints the request body as indented JSON."""
    messages, media = _media_stand_ins(to_messages(history, error_flag=error_flag))
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
        recorder=repro_recorder(media),
        stand_in=_STAND_IN,
        base_key=base_key,
        report=repro_report("litellm.completion(messages=json.loads(text), tools=TOOLS, **CALL)"),
    )
