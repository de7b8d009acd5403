"""Wire locator for Claude through Bedrock InvokeModel (`POST /model/{modelId}/invoke`).

Written from Amazon Bedrock's "Anthropic Claude Messages API" pages
(https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html):
the request body of InvokeModel is the Messages body, with `anthropic_version` in it (required,
`bedrock-2023-05-31`) and the model id in the URL, not in the body. Tool calls, tool results
and user content sit where they sit in a Messages body, so the Messages locator reads it; the
view is named for this api.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.wire import anthropic

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "anthropic-bedrock"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Claude-on-Bedrock InvokeModel request body."""
    return replace(anthropic.locate(payload), api=API)
