"""Wire locator for Gemini on Vertex AI (`.../publishers/google/models/{model}:generateContent`).

Vertex AI's generateContent takes the same request body as the Gemini Developer API
(`contents`, `systemInstruction`, `tools`, `toolConfig`, `generationConfig`, with the same
`Content` and `Part` shapes: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/projects.locations.publishers.models/generateContent);
the model is in the URL. The Developer API locator reads the body; the view is named for this
api.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from conformance.wire import gemini

if TYPE_CHECKING:
    from collections.abc import Mapping

    from conformance.wire.base import WireView

__all__ = ["API", "locate"]

API = "gemini-vertex"


def locate(payload: Mapping[str, Any]) -> WireView:
    """The neutral view of a Vertex AI generateContent request body."""
    return replace(gemini.locate(payload), api=API)
