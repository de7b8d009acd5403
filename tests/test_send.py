"""What each official client really sends for a payload: the cassette body against the snapshot.

The snapshot is the reviewable view of the payload a mapper built; the cassette holds the bytes
the SDK put on the wire. For each api these tests take every committed cassette, undo exactly
the changes its SDK is known to make, and require the snapshot's payload back, so a change we
have not explained fails here:

- openai-chat, openai-responses, xai, huggingface (the openai client): nothing, same bytes;
- anthropic, groq: the order of the top-level keys (the SDK's parameter order);
- cohere: adds `"stream": false`;
- mistral: adds `"stream": false`, `"prefix": false` on assistant messages and an `index` on
  each tool call; orders keys its own way; escapes non-ASCII;
- gemini: re-serialises the body. Inside `functionResponse.parts` and in `inlineData` and
  `fileData` the keys become snake_case (`mime_type`, `file_uri`, `display_name`), base64
  data becomes URL-safe base64, an empty `generationConfig` is added, keys are reordered and
  non-ASCII is escaped;
- bedrock-converse: `modelId` leaves the body for the URL path (`/model/<id>/converse`,
  percent-encoded); raw `bytes` blobs go out as base64 strings; non-ASCII is escaped.

The Gemini change is the one that matters: proto3 JSON parsers accept both spellings and both
base64 alphabets, so it carries the same request, but it is not the payload the mapper wrote.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from conformance.history import Image
from conformance.judging.payload import to_bytes
from conformance.recording.media import read_snapshot
from conformance.scenarios.build import fixture_part

ROOT = Path(__file__).resolve().parent.parent
CASSETTES = ROOT / "cassettes" / "reference"
SNAPSHOTS = ROOT / "snapshots" / "reference"


def _pairs(api: str) -> list[tuple[Path, dict[str, Any], bytes, str]]:
    """(cassette, snapshot payload, body sent, uri) for each recorded cell of `api`."""
    out: list[tuple[Path, dict[str, Any], bytes, str]] = []
    for cassette in sorted((CASSETTES / api).glob("*.yaml")):
        snapshot = SNAPSHOTS / api / (cassette.stem + ".json")
        request = yaml.safe_load(cassette.read_text(encoding="utf-8"))["interactions"][0]["request"]
        body = request["body"]
        out.append(
            (
                cassette,
                read_snapshot(snapshot),  # media references expanded from _media/
                body.encode() if isinstance(body, str) else body,
                request["uri"],
            )
        )
    assert out, f"no cassettes for {api}"
    return out


def _bytes_as_base64(value: Any) -> Any:
    """The snapshot's `{"$bytes": <base64>}` as the base64 string JSON carries on the wire."""
    if isinstance(value, dict):
        mapping = cast("dict[str, Any]", value)
        if set(mapping) == {"$bytes"}:
            return mapping["$bytes"]
        return {k: _bytes_as_base64(v) for k, v in mapping.items()}
    if isinstance(value, list):
        return [_bytes_as_base64(v) for v in cast("list[Any]", value)]
    return value


@pytest.mark.parametrize("api", ["openai-chat", "openai-responses", "xai", "huggingface"])
def test_the_openai_client_sends_the_payload_bytes_unchanged(api: str) -> None:
    for cassette, payload, body, _ in _pairs(api):
        assert body == to_bytes(payload), cassette


@pytest.mark.parametrize("api", ["anthropic", "groq"])
def test_only_the_key_order_changes(api: str) -> None:
    reordered = 0
    for cassette, payload, body, _ in _pairs(api):
        sent = json.loads(body)
        assert sent == payload, cassette
        reordered += list(sent) != list(payload)
    assert reordered, "the SDK was expected to put the top-level keys in its own order"


def test_cohere_adds_stream_false() -> None:
    for cassette, payload, body, _ in _pairs("cohere"):
        assert body == to_bytes({**payload, "stream": False}), cassette


def _mistral_defaults(sent: dict[str, Any]) -> dict[str, Any]:
    assert sent.pop("stream") is False
    for message in sent["messages"]:
        if message["role"] == "assistant":
            assert message.pop("prefix") is False
        calls: list[dict[str, Any]] = message.get("tool_calls") or []
        for call in calls:
            assert call.pop("index") == 0  # the SDK's default, the same for every parallel call
    return sent


def test_mistral_adds_its_defaults_and_reorders() -> None:
    for cassette, payload, body, _ in _pairs("mistral"):
        assert body != to_bytes(payload), cassette
        assert _mistral_defaults(json.loads(body)) == payload, cassette


_CAMEL = {"mime_type": "mimeType", "file_uri": "fileUri", "display_name": "displayName"}
_MEDIA = {"inlineData", "inline_data", "fileData", "file_data"}


def _gemini_spelling(value: Any, media: bool = False) -> Any:
    """The wire body with the SDK's snake_case keys camelCased and URL-safe base64 made standard."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in cast("dict[str, Any]", value).items():
            name = _CAMEL.get(key, key) if media else key
            name = {"inline_data": "inlineData", "file_data": "fileData"}.get(name, name)
            if media and name == "data":
                item = str(item).replace("-", "+").replace("_", "/")
            out[name] = _gemini_spelling(item, media or key in _MEDIA)
        return out
    if isinstance(value, list):
        return [_gemini_spelling(v, media) for v in cast("list[Any]", value)]
    return value


def test_gemini_respells_media_keys_and_base64_and_adds_generation_config() -> None:
    snake = urlsafe = 0
    for cassette, payload, body, uri in _pairs("gemini"):
        text = body.decode()
        snake += "mime_type" in text
        urlsafe += bool(re.search(r'"data": "[A-Za-z0-9+/=]*[-_]', text))
        sent = json.loads(body)
        assert sent.pop("generationConfig") == {}, cassette
        assert _gemini_spelling(sent) == payload, cassette
        assert re.fullmatch(r"/v1beta/models/[\w.-]+:generateContent", urlsplit(uri).path)
    assert snake, "the SDK was expected to send snake_case media keys"
    assert urlsafe, "the SDK was expected to send URL-safe base64"


def test_bedrock_moves_the_model_id_to_the_path_and_base64_encodes_blobs() -> None:
    blobs = 0
    for cassette, payload, body, uri in _pairs("bedrock-converse"):
        match = re.fullmatch(r"/model/([^/]+)/converse", urlsplit(uri).path)
        assert match, uri
        sent = json.loads(body)
        assert "modelId" not in sent
        assert {"modelId": unquote(match[1]), **sent} == _bytes_as_base64(payload), cassette
        blobs += '"$bytes"' in json.dumps(payload)
    assert blobs, "some Bedrock cells were expected to carry raw bytes"


def test_the_base64_on_the_wire_is_the_fixture_itself() -> None:
    """One blob end to end: what botocore encodes decodes to the scenario's fixture bytes."""
    image = fixture_part("image")
    assert isinstance(image, Image)
    assert image.data is not None
    (body,) = [
        b for c, _, b, _ in _pairs("bedrock-converse") if c.name == "nova.image.inline.result.yaml"
    ]
    assert base64.b64encode(image.data).decode() in body.decode()
