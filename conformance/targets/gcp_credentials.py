"""Google Cloud credentials that never reach Google, for targets whose framework authenticates
a Vertex AI call itself through google-auth (LiteLLM's `vertex_ai/` routes, the anthropic
SDK's `AnthropicVertex` behind ADK's `Claude`).

google-auth's service account credentials exchange a JWT signed with the key at the key file's
own `token_uri` (`google.oauth2.service_account.Credentials.refresh`, `_client.jwt_grant`);
an authorized-user file cannot be kept local (`from_authorized_user_info` always sets Google's
token endpoint). So the stand-in is a service account key whose `token_uri` is `TokenHost`, a
stdlib server on 127.0.0.1 that answers every exchange with `TOKEN`. The key's RSA key pair is
made for the process (cryptography, which google-auth depends on): it is in no file of the
repository, and the key file `credentials_file()` writes for Application Default Credentials
(`GOOGLE_APPLICATION_CREDENTIALS`) is removed when the process exits.

- `service_account()`: the key as JSON (what LiteLLM's `vertex_credentials` takes).
- `credentials_file()`: the path of that JSON, for `GOOGLE_APPLICATION_CREDENTIALS`.
- `repro_credentials()`: the source of a reproducer's block doing the same with the stdlib and
  cryptography.
"""

from __future__ import annotations

import atexit
import json
import os
import tempfile
import threading
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

__all__ = [
    "PROJECT",
    "TOKEN",
    "TokenHost",
    "credentials_file",
    "repro_credentials",
    "service_account",
    "token_host",
]

PROJECT: Final = "conformance-project"
"""The Google Cloud project the key names and the targets use (the recorder answers any; not a
secret)."""

TOKEN: Final = "conformance-not-a-token"
"""The access token the stand-in token server hands out."""

_ANSWER: Final = json.dumps(
    {"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"}
).encode()


class TokenHost:
    """A threaded HTTP server on 127.0.0.1 that answers every request with an OAuth token
    response (the JWT-bearer grant google-auth makes for a service account), `TOKEN` valid for
    an hour. It records nothing: what a framework sends to a model never goes here."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(_ANSWER)))
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()
                self.wfile.write(_ANSWER)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.token_uri = f"http://127.0.0.1:{self._server.server_address[1]}/token"


@cache
def token_host() -> TokenHost:
    """The process's one token server, started on first use."""
    return TokenHost()


def _private_key() -> str:
    """A fresh RSA private key as PKCS#8 PEM (google-auth's signer reads that form)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def _key_file(private_key: str, token_uri: str) -> dict[str, str]:
    """A service account key file's fields, as Google's console downloads one."""
    return {
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "conformance",
        "private_key": private_key,
        "client_email": f"conformance@{PROJECT}.iam.gserviceaccount.com",
        "client_id": "0",
        "token_uri": token_uri,
    }


@cache
def service_account() -> str:
    """The service account key, as JSON, that LiteLLM is given: the process's key pair, its
    token exchange at `token_host()`."""
    return json.dumps(_key_file(_private_key(), token_host().token_uri))


@cache
def credentials_file() -> str:
    """`service_account()` in a file of its own (mode 0600), removed at exit: the value of
    `GOOGLE_APPLICATION_CREDENTIALS` for Application Default Credentials."""
    handle, path = tempfile.mkstemp(prefix="conformance-gcp-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(service_account())
    atexit.register(os.remove, path)
    return path


_REPRO_CREDENTIALS = """\
# Google credentials that never reach Google: a service account key made here, whose token
# exchange (google-auth's, inside the framework) goes to a second stdlib server on 127.0.0.1.
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402


class TokenServer(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({{"access_token": {token!r}, "expires_in": 3600}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


tokens = ThreadingHTTPServer(("127.0.0.1", 0), TokenServer)
tokens.daemon_threads = True
threading.Thread(target=tokens.serve_forever, daemon=True).start()
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
)
{target} = json.dumps({{
    **{fields!r},
    "private_key": KEY.decode("ascii"),
    "token_uri": "http://127.0.0.1:%d/token" % tokens.server_address[1],
}})
"""


def repro_credentials(target: str) -> str:
    """The source of a reproducer's block (after `kit.repro_recorder`, whose imports it uses)
    that starts a token server and assigns the service account key JSON to `target` (a name,
    or an expression such as `CALL["vertex_credentials"]`). It imports cryptography, which
    google-auth brings."""
    fields = {k: v for k, v in _key_file("", "").items() if k not in {"private_key", "token_uri"}}
    return _REPRO_CREDENTIALS.format(token=TOKEN, fields=fields, target=target)
