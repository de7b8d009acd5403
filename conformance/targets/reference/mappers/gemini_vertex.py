"""Gemini on Vertex AI: history -> the JSON body of `...models/{model}:generateContent`.

Vertex AI's generateContent body is the Developer API's (the model is in the URL), so the
Gemini mapper builds it; only the api name differs.
"""

from __future__ import annotations

from dataclasses import replace

from conformance.targets.reference.mappers import gemini

__all__ = ["PROFILES", "render"]

API = "gemini-vertex"

PROFILES = {
    # Gemini 3.8 Flash on Vertex: the same model, so the same channels as on the Developer API.
    "gemini-3": replace(gemini.PROFILES["gemini-3"], api=API),
}

render = gemini.render
