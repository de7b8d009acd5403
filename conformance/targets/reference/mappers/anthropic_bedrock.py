"""Claude through Bedrock InvokeModel: history -> the JSON body of `/model/{modelId}/invoke`.

Amazon Bedrock's Claude Messages request page
(https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html):
the body is the Messages body with `anthropic_version` in it, which "must be
bedrock-2023-05-31"; the model id travels in the URL. Everything else, tool results included,
is the Messages mapper's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from conformance.history import History
from conformance.targets.reference.mappers import anthropic
from conformance.targets.reference.mappers._common import Profile

__all__ = ["ANTHROPIC_VERSION", "PROFILES", "render"]

API = "anthropic-bedrock"
ANTHROPIC_VERSION = "bedrock-2023-05-31"

PROFILES = {
    # Claude Opus 4.6 through its global inference profile: a Claude 4 model, so its
    # tool_result takes what Claude's takes on Anthropic's own api (text, image, PDF). The
    # Bedrock request page shows base64 sources only and no page read says InvokeModel fetches
    # a `url` source, so media given by URL is refused, not sent.
    "claude-opus-4-6": replace(
        anthropic.PROFILES["claude-sonnet-5"],
        api=API,
        model="global.anthropic.claude-opus-4-6-v1",
        url=frozenset(),
    ),
}


def render(profile: Profile, history: History) -> dict[str, Any]:
    """The InvokeModel body for `profile`; raises `UnsupportedContent` before building."""
    body = anthropic.render(profile, history)
    del body["model"]
    return {"anthropic_version": ANTHROPIC_VERSION, **body}
