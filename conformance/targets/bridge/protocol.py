"""The bridge protocol, version 1: a target in any language behind JSON lines.

A bridge is a process. It reads requests on stdin and writes answers on stdout, one JSON
object per line (UTF-8, no line breaks inside a message); stdout carries nothing else, so a
bridge sends its own and its framework's logging to stderr, which is its own (quoted when it
dies). It ends at the end of its input.

1. At start it writes one `Handshake` line: `protocol` (1), the target's `name` and
   `version`, `sdk_versions` (what it drives), `refusal_kinds` (the names of its typed
   refusals; only these count as `raised`), `rows` (the apis or row ids it serves: `openai-chat`
   serves every row of that api, `openai-chat/gpt-6` one row), and optionally `unsupported`
   (row id or api -> why it is not served) and `repro` (how its reproducers are run).
2. Then, for each `Request` line (`id`, `op`, `row`, `history` as
   `conformance.history.dump` writes it: media `data` is base64 in the URL-safe alphabet, as
   pydantic writes bytes), exactly one answer line with the same `id`:
   `{"id", "payload"}` (what the target would send, the `Payload` of
   `conformance.targets.base`), `{"id", "refusal": {"kind", "message"}}` (a typed refusal,
   before sending), `{"id", "error": {"type", "message"}}` (anything else that went wrong), or,
   for `op: "repro"`, `{"id", "script"}` (the source of a standalone reproducer; the request
   then also carries `media`, the bytes of every fixture URL in the history, so the script
   can serve them itself).

Bytes in a payload (Bedrock Converse takes media as raw bytes) are written as
`{"$bytes": "<base64>"}`, an object with that one key; anywhere else a payload is plain JSON.

The models here validate every line the suite reads and are the source of
`bridge.schema.json` (`conformance bridge-schema` would print it; `json_schema()` makes it).
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

__all__ = [
    "BYTES_KEY",
    "PROTOCOL_VERSION",
    "Answer",
    "ErrorAnswer",
    "Handshake",
    "PayloadAnswer",
    "RefusalAnswer",
    "ReproAnswer",
    "Request",
    "decode_payload",
    "encode_payload",
    "json_schema",
    "parse_answer",
]

PROTOCOL_VERSION = 1
BYTES_KEY = "$bytes"
_NAME = r"^[a-z0-9][a-z0-9_.-]*$"
_KIND = r"^[A-Za-z_$][A-Za-z0-9_$.]*$"
_ROW = r"^[a-z0-9][a-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$"


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Repro(_Message):
    """How the bridge's reproducers are run: the file suffix and the comment prefix of the
    script's language, and the command (with `{file}`) that runs one."""

    suffix: Annotated[str, Field(pattern=r"^\.[a-z0-9]+$")]
    comment: Annotated[str, Field(min_length=1, max_length=4)]
    run: Annotated[str, Field(pattern=r"\{file\}")]


class Handshake(_Message):
    """The first line a bridge writes."""

    protocol: Literal[1]
    name: Annotated[str, Field(pattern=_NAME, max_length=64)]
    version: Annotated[str, Field(min_length=1, max_length=64)]
    sdk_versions: dict[str, str] = Field(default_factory=dict[str, str])
    refusal_kinds: list[Annotated[str, Field(pattern=_KIND, max_length=120)]]
    """The typed refusals the target raises before sending; an empty list declares none."""
    rows: list[Annotated[str, Field(pattern=_ROW)]]
    """The apis (every row of it) and row ids (`api/family`) the bridge renders for."""
    unsupported: dict[Annotated[str, Field(pattern=_ROW)], str] = Field(
        default_factory=dict[str, str]
    )
    """Rows or apis listed in `rows` that the bridge cannot render here, with the reason."""
    repro: Repro | None = None


class RowMessage(_Message):
    """A model row as the suite gives it (`conformance.targets.base.RowRef`)."""

    id: str
    api: str
    family: str
    model: str


class Request(_Message):
    """One line the suite writes; the history is `conformance.history.dump`'s JSON."""

    id: Annotated[str, Field(min_length=1)]
    op: Literal["render", "render_stored", "repro"]
    row: RowMessage
    history: list[dict[str, Any]]
    media: dict[str, dict[str, str]] | None = None
    """`repro` only: fixture URL -> `{"media_type", "data"}` (base64), to serve in the script."""


class Refusal(_Message):
    kind: Annotated[str, Field(pattern=_KIND, max_length=120)]
    message: str


class Failure(_Message):
    type: Annotated[str, Field(min_length=1, max_length=120)]
    message: str


class PayloadAnswer(_Message):
    id: str
    payload: dict[str, Any]
    """The payload; bytes as `{"$bytes": "<base64>"}`."""


class RefusalAnswer(_Message):
    id: str
    refusal: Refusal


class ErrorAnswer(_Message):
    id: str
    error: Failure


class ReproAnswer(_Message):
    id: str
    script: Annotated[str, Field(min_length=1)]


Answer = PayloadAnswer | RefusalAnswer | ErrorAnswer | ReproAnswer
_ANSWER: TypeAdapter[Answer] = TypeAdapter(Answer)


def parse_answer(value: dict[str, Any]) -> Answer:
    """The answer a line holds, by its one key besides `id`; `ValueError` names what is wrong."""
    keys = set(value) - {"id"}
    kinds = {
        "payload": PayloadAnswer,
        "refusal": RefusalAnswer,
        "error": ErrorAnswer,
        "script": ReproAnswer,
    }
    if "id" not in value or len(keys) != 1 or next(iter(keys)) not in kinds:
        raise ValueError(
            "an answer is an object with `id` and exactly one of `payload`, `refusal`, `error`,"
            f" `script`; got the keys {sorted(value)}"
        )
    return kinds[next(iter(keys))].model_validate(value)


def decode_payload(value: Any, where: str = "$") -> Any:
    """The payload with every `{"$bytes": base64}` object as the bytes it encodes."""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [decode_payload(item, f"{where}[{i}]") for i, item in enumerate(items)]
    if not isinstance(value, dict):
        return value
    mapping: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    if BYTES_KEY in mapping:
        data = mapping[BYTES_KEY]
        if len(mapping) != 1 or not isinstance(data, str):
            raise ValueError(f"{where}: a {BYTES_KEY!r} object has that one key, a base64 string")
        try:
            return base64.b64decode(data, validate=True)
        except binascii.Error:
            raise ValueError(f"{where}: {BYTES_KEY!r} is not base64: {data[:40]!r}") from None
    return {key: decode_payload(item, f"{where}.{key}") for key, item in mapping.items()}


def encode_payload(value: Any) -> Any:
    """The inverse of `decode_payload`: bytes as `{"$bytes": base64}` (for bridges in Python)."""
    if isinstance(value, bytes | bytearray):
        return {BYTES_KEY: base64.b64encode(value).decode("ascii")}
    if isinstance(value, list | tuple):
        items: list[Any] = list(value)  # pyright: ignore[reportUnknownArgumentType]
        return [encode_payload(item) for item in items]
    if isinstance(value, dict):
        mapping: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        return {key: encode_payload(item) for key, item in mapping.items()}
    return value


def json_schema() -> dict[str, Any]:
    """The protocol as JSON Schema (draft 2020-12): `$defs` for each message; a line the
    bridge writes is a `Handshake` or an `Answer`, a line the suite writes a `Request`."""
    defs: dict[str, Any] = {}
    for model in (Handshake, Request, PayloadAnswer, RefusalAnswer, ErrorAnswer, ReproAnswer):
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[model.__name__] = schema
    defs["Answer"] = {
        "oneOf": [
            {"$ref": f"#/$defs/{name}"}
            for name in ("PayloadAnswer", "RefusalAnswer", "ErrorAnswer", "ReproAnswer")
        ]
    }
    defs["Bytes"] = {
        "description": "Bytes inside a payload (Bedrock Converse media): base64, the one key.",
        "type": "object",
        "properties": {BYTES_KEY: {"type": "string", "contentEncoding": "base64"}},
        "required": [BYTES_KEY],
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tool-result-conformance bridge protocol, version 1",
        "description": (
            "JSON lines between the suite and a target process: the bridge writes a Handshake,"
            " then one Answer per Request, with the request's id."
        ),
        "$defs": dict(sorted(defs.items())),
        "oneOf": [{"$ref": "#/$defs/Handshake"}, {"$ref": "#/$defs/Answer"}],
    }
