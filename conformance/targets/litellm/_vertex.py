"""LiteLLM's `vertex_ai/` routes (Claude through Vertex's rawPredict, Gemini through its
generateContent), with credentials that never reach Google.

How LiteLLM authenticates a Vertex call (`litellm/llms/vertex_ai/vertex_llm_base.py`):
`VertexBase.get_access_token` loads `vertex_credentials` (a JSON string or dict: a service
account key, an authorized user, an external account) in `load_auth`, then always calls
`refresh_auth`, google-auth's `credentials.refresh(Request())`, and sends the token it got as
`Authorization: Bearer`. It takes no access token of its own (BerriAI/litellm#6906 asked for
one, #5643 for a credentials object; both were closed unimplemented), and an authorized-user
file always refreshes at oauth2.googleapis.com (google-auth's `from_authorized_user_info`
overrides its `token_uri`). A service account key is the form its Vertex docs show, and
google-auth's service account credentials exchange their signed JWT at the key's own
`token_uri`: here a stdlib server on 127.0.0.1 that answers every exchange with a stand-in
token, the key's RSA key pair made for the process (`conformance.targets.gcp_credentials`).

The model's URL: with an `api_base` whose path is neither empty nor an api version, LiteLLM
appends `:<method>` to it (`VertexBase._check_custom_proxy`, the custom-proxy form its docs
give). The recorder's channel is a path prefix, so the route gives the model's full Vertex path
under the channel: `<base>/v1/projects/<project>/locations/<region>/publishers/<publisher>/
models/<model>`, and the request reaches `...:rawPredict` (Claude) or `...:generateContent`
(Gemini), the paths AnthropicVertex and google-genai use.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any, Final

from conformance.targets.base import RowRef
from conformance.targets.gcp_credentials import PROJECT, service_account

__all__ = [
    "CREDENTIALS_KEY",
    "VERTEX_APIS",
    "VERTEX_REGION",
    "google_auth_missing",
    "model_path",
    "vertex_route",
]

CREDENTIALS_KEY: Final = "vertex_credentials"
"""LiteLLM's argument for the credentials (a reproducer builds its own)."""

_PLACES: Final[dict[str, tuple[str, str]]] = {
    "anthropic-vertex": ("us-east5", "anthropic"),
    "gemini-vertex": ("us-central1", "google"),
}
"""Per Vertex api, its region (as the anthropic and google-genai clients of the reference are
configured) and the publisher in the model's path."""

VERTEX_APIS: Final = frozenset(_PLACES)
VERTEX_REGION: Final = {api: region for api, (region, _) in _PLACES.items()}


def google_auth_missing() -> str | None:
    """Why LiteLLM cannot authenticate a Vertex call here, or None: it needs google-auth
    (and google-auth's `requests` transport, which `refresh_auth` uses)."""
    for name in ("google-auth", "requests", "cryptography"):
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            return (
                "LiteLLM's Vertex routes need google-auth:"
                f" pip install 'google-auth[requests]' ({name} is missing)"
            )
    return None


def model_path(api: str, model: str) -> str:
    """The model's Vertex path, which LiteLLM appends `:<method>` to."""
    region, publisher = _PLACES[api]
    return f"/v1/projects/{PROJECT}/locations/{region}/publishers/{publisher}/models/{model}"


def vertex_route(api: str) -> Callable[[RowRef, str], dict[str, Any]]:
    """The `vertex_ai/<model>` arguments for a row of a Vertex api, aimed at a base URL."""
    region, _ = _PLACES[api]

    def kwargs(row: RowRef, base: str) -> dict[str, Any]:
        return {
            "model": f"vertex_ai/{row.model}",
            "api_base": base + model_path(api, row.model),
            "vertex_project": PROJECT,
            "vertex_location": region,
            CREDENTIALS_KEY: service_account(),
        }

    return kwargs
