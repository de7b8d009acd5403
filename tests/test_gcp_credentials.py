"""The Google credentials stand-in: a service account key whose token exchange stays on
127.0.0.1, as google-auth itself performs it."""

from __future__ import annotations

import json
import os
import stat

import pytest

from conformance.targets.gcp_credentials import (
    PROJECT,
    TOKEN,
    credentials_file,
    repro_credentials,
    service_account,
    token_host,
)

service_account_module = pytest.importorskip("google.oauth2.service_account")
transport = pytest.importorskip("google.auth.transport.requests")

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]


def test_google_auth_exchanges_the_key_for_the_stand_in_token_locally() -> None:
    """google-auth's own refresh of the key (the JWT-bearer grant) reaches the local token
    server and gets `TOKEN`; the key names no Google endpoint."""
    info = json.loads(service_account())
    assert info["type"] == "service_account"
    assert info["project_id"] == PROJECT
    assert info["token_uri"] == token_host().token_uri
    assert info["token_uri"].startswith("http://127.0.0.1:")
    credentials = service_account_module.Credentials.from_service_account_info(info, scopes=SCOPES)
    credentials.refresh(transport.Request())
    assert credentials.token == TOKEN
    assert credentials.valid


def test_the_key_file_is_the_same_key_readable_by_its_owner_only() -> None:
    path = credentials_file()
    with open(path, encoding="utf-8") as file:
        assert file.read() == service_account()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_the_reproducer_block_makes_its_own_key_and_token_server() -> None:
    """The block holds no key (it makes one) and, run, yields a key google-auth exchanges at
    the block's own server."""
    source = repro_credentials("KEY_JSON")
    assert "PRIVATE KEY" not in source
    scope: dict[str, object] = {}
    prelude = (
        "import json, threading\n"
        "from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer\n"
    )
    exec(prelude + source, scope)  # the script's own code, as the reproducer runs it
    info = json.loads(str(scope["KEY_JSON"]))
    assert info["token_uri"] != token_host().token_uri
    credentials = service_account_module.Credentials.from_service_account_info(info, scopes=SCOPES)
    credentials.refresh(transport.Request())
    assert credentials.token == TOKEN
