"""The secret scanner: a planted credential of every provider's format is caught, with its
file and line; the committed cassettes are clean; what only looks random is left alone."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.cli import main as cli
from conformance.recording.secrets import scan_paths, scan_text
from conformance.recording.send import FAKE_KEYS

ROOT = Path(__file__).resolve().parent.parent
CASSETTE = ROOT / "cassettes/reference/openai-chat/gpt-6.text.inline.result.yaml"

# Each planted key is made up here (none is a real credential) in its provider's real format.
PLANTED: dict[str, str] = {
    "openai": "sk-proj-Q3vX9kLm2Np7Rs4Tu8Wy1Za5Bc6De0Fg",
    "anthropic": "sk-ant-api03-Hj7Kl2Mn9Pq4Rs1Tu6Vw3Xy8Za5Bc0De",
    "google": "AIzaSyD4f7Gh2Jk9Lm3Np6Qr8St1Uv5Wx0Yz2Ab",
    "aws-access-key": "AKIAQ7XKD2M4N8P3R5T6",
    "groq": "gsk_Wq8Er4Ty2Ui6Op0As3Df7Gh1Jk5Lz9Xc",
    "xai": "xai-Mn3Bv7Cx1Za5Sd9Fg2Hj6Kl0Qw4Er8Ty",
    "huggingface": "hf_Rt5Yu9Io3Pa7Sd1Fg6Hj2Kl8Zx4Cv0Bn",
}


@pytest.mark.parametrize(("kind", "key"), sorted(PLANTED.items()))
def test_a_prefixed_key_is_caught_anywhere(kind: str, key: str) -> None:
    text = f'interactions:\n- request:\n    body: \'{{"note": "{key}"}}\'\n'
    (finding,) = scan_text(text, "c.yaml")
    assert (finding.kind, finding.line) == (kind, 3)
    assert key not in str(finding)  # the report does not leak the key again


def test_an_aws_secret_key_is_caught_next_to_its_access_key() -> None:
    secret = "q8Wx2Er5Ty9Ui3Op7As1Df4Gh6Jk0Lz+Xc/Vb8Nm"
    found = scan_text(f"aws_access_key_id: AKIAQ7XKD2M4N8P3R5T6\naws_secret: {secret}\n")
    assert [(f.kind, f.line) for f in found] == [("aws-access-key", 1), ("aws-secret-key", 2)]
    assert scan_text(f"checksum: {secret}\n") == []  # 40 characters alone say nothing


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        ("mistral", "MISTRAL_API_KEY=Zx8Cv4Bn1Mq7Wr3Ty9Ui5Op2As6Df0Gh"),
        ("cohere", "CO_API_KEY: Ab3Cd7Ef1Gh5Ij9Kl2Mn6Op0Qr4St8Uv3Wx7Yz1A (cohere)"),
    ],
)
def test_an_unprefixed_key_is_caught_next_to_its_name(kind: str, line: str) -> None:
    (finding,) = scan_text(line + "\n")
    assert finding.kind == kind


def test_a_bearer_token_and_a_kept_credential_header_are_caught() -> None:
    mistral = "      authorization:\n      - Bearer Zx8Cv4Bn1Mq7Wr3Ty9Ui5Op2As6Df0Gh\n"
    assert [f.kind for f in scan_text(mistral)] == ["mistral"]  # the most specific rule
    short = "      authorization:\n      - Bearer abc\n"  # no key shape: still a kept header
    assert [f.kind for f in scan_text(short)] == ["credential-header"]
    assert [f.kind for f in scan_text("curl -H 'Authorization: Bearer abcdefgh12345678'")] == [
        "bearer"
    ]
    kept = "    headers:\n      x-goog-api-key:\n      - anything\n    method: POST\n"
    assert [(f.kind, f.line) for f in scan_text(kept)] == [("credential-header", 2)]


def test_a_key_in_a_binary_yaml_block_is_caught() -> None:
    hidden = base64.b64encode(f"Bearer {PLANTED['groq']}".encode()).decode()
    text = f"    headers:\n      X-Custom:\n      - !!binary |\n        {hidden}\n"
    kinds = {f.kind for f in scan_text(text)}
    assert "groq" in kinds


def test_every_fake_key_of_the_double_matches_its_providers_rule() -> None:
    """The fakes the double and replays use are credential-shaped on purpose: a recording
    filter that let one through would fail `nox -s lint`."""
    hint = {"aws_secret_access_key": "aws: ", "mistral": "mistral: ", "cohere": "cohere: "}
    for name, key in FAKE_KEYS.items():
        assert scan_text(hint.get(name, "") + key + "\n"), name


def test_what_only_looks_random_is_left_alone() -> None:
    png = base64.b64encode(bytes(range(256)) * 3).decode()
    text = (
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
        "commit: 3df195b0a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6\n"
        f"data: {png}\n"
        "tool_call_id: call_1\nmodel: meta-llama/llama-4-scout-17b-16e-instruct\n"
    )
    assert scan_text(text) == []


def test_the_committed_cassettes_are_clean() -> None:
    findings, count = scan_paths([ROOT / "cassettes"])
    assert count > 100
    assert findings == []


def test_the_cli_names_file_and_line_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = tmp_path / "clean.yaml"
    shutil.copyfile(CASSETTE, clean)
    assert cli(["scan-secrets", str(clean)]) == 0
    assert "no credentials found in 1 files" in capsys.readouterr().out
    dirty = tmp_path / "dirty" / "c.yaml"
    dirty.parent.mkdir()
    lines = CASSETTE.read_text(encoding="utf-8").splitlines()
    lines.insert(3, f"      x-planted: {PLANTED['anthropic']}")
    dirty.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli(["scan-secrets", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{dirty}:4: anthropic: sk-ant-api" in out
    assert PLANTED["anthropic"] not in out
    assert cli(["scan-secrets", str(tmp_path / "nowhere")]) == 2


# --- every format in every place vcrpy can put it ------------------------------------------

# Made up here in each format's real shape, built by concatenation so that no line of this
# file is itself a credential-shaped string.
FORMATS: dict[str, str] = {
    **PLANTED,
    "github": "ghp" + "_" + "Ab1Cd2Ef3Gh4" * 3,
    "gitlab": "glpat" + "-" + "Xy9Zw8Vu7Ts6Rq5Po4Nm",
    "slack": "xoxb" + "-" + "1234567890-0987654321-Ab1Cd2Ef3Gh4Ij5K",
    "slack-webhook": "https://hooks.slack.com/services/" + "T0ABC1234/B0DEF5678/" + "Ab1Cd2" * 4,
    "stripe": "sk" + "_live_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8",
    "google-oauth": "ya29" + "." + "a0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9",
    "npm": "npm" + "_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2",
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N",
    "private-key": "-----BEGIN " + "RSA PRIVATE KEY-----",
    "url-credentials": "https://deploy" + ":hunter2hunter2@" + "internal.example.com",
    "mistral": "mistral api key: " + "Zx8Cv4Bn1Mq7Wr3Ty9Ui5Op2As6Df0Gh",
    "cohere": "cohere: " + "Ab3Cd7Ef1Gh5Ij9Kl2Mn6Op0Qr4St8Uv3Wx7Yz1A",
    "aws-secret-key": "aws_secret_access_key=" + "q8Wx2Er5Ty9Ui3Op7As1Df4Gh6Jk0Lz+Xc/Vb8Nm",
}


def _block(data: bytes, indent: str = "      ") -> str:
    """`data` as PyYAML writes bytes: a `!!binary |` block of base64 lines."""
    encoded = base64.encodebytes(data).decode()
    return "!!binary |\n" + "".join(f"{indent}{line}\n" for line in encoded.splitlines())


def _body(key: str) -> bytes:
    return json.dumps({"messages": [{"role": "user", "content": f"key {key} here"}]}).encode()


def _raw_deflate(data: bytes) -> bytes:
    squeezer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    return squeezer.compress(data) + squeezer.flush()


LOCATIONS: dict[str, tuple[str, Callable[[str], str]]] = {
    "as-is": ("", lambda key: f"    body: '{_body(key).decode()}'\n"),
    "binary": ("!!binary", lambda key: f"    body: {_block(_body(key))}"),
    "base64-in-body": (
        "base64",
        lambda key: (
            "    body: '" + json.dumps({"document": base64.b64encode(_body(key)).decode()}) + "'\n"
        ),
    ),
    "gzip-binary": (
        "!!binary+gzip",
        lambda key: f"    body: {_block(gzip.compress(_body(key), mtime=0))}",
    ),
    "deflate-binary": (
        "!!binary+deflate",
        lambda key: f"    body: {_block(zlib.compress(_body(key)))}",
    ),
    "raw-deflate-binary": (
        "!!binary+deflate",
        lambda key: f"    body: {_block(_raw_deflate(_body(key)))}",
    ),
    "base64-in-gzip-binary": (
        "!!binary+gzip+base64",
        lambda key: (
            "    body: "
            + _block(
                gzip.compress(
                    json.dumps({"b": base64.b64encode(_body(key)).decode()}).encode(), mtime=0
                )
            )
        ),
    ),
    "response-string-binary": (
        "!!binary",
        lambda key: f"  response:\n    body:\n      string: {_block(_body(key), ' ' * 8)}",
    ),
}


@pytest.mark.parametrize("location", sorted(LOCATIONS))
@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_each_format_is_caught_in_each_place(kind: str, location: str) -> None:
    via, place = LOCATIONS[location]
    text = "interactions:\n- request:\n" + place(FORMATS[kind])
    found = [(f.kind, f.via) for f in scan_text(text, "c.yaml")]
    assert (kind, via) in found
    at = next(n for n, t in enumerate(text.splitlines(), 1) if "body: " in t or "string: " in t)
    assert {f.line for f in scan_text(text, "c.yaml")} == {at}
    assert FORMATS[kind] not in "\n".join(str(f) for f in scan_text(text))


def test_a_finding_says_which_encodings_hid_it() -> None:
    text = "    body: " + _block(gzip.compress(_body(FORMATS["github"])))
    (finding,) = scan_text(text, "c.yaml")
    assert str(finding).startswith("c.yaml:1: github (inside !!binary+gzip): ghp_Ab1Cd")


def test_media_and_ids_stay_clean_when_decoded() -> None:
    """Base64 media, compressed or not, and long identifiers are decoded and left alone."""
    png = (ROOT / "conformance/scenarios/fixtures/chart.png").read_bytes()
    pdf = (ROOT / "conformance/scenarios/fixtures/report.pdf").read_bytes()
    text = (
        f"    body: {_block(gzip.compress(png))}"
        f"    body: '{json.dumps({'data': base64.b64encode(pdf).decode()})}'\n"
        "    id: ChatCompletionMessageToolCallParamWithSomeLength\n"
        f"    body: {_block(zlib.compress(b'{}' * 500))}"
    )
    assert scan_text(text) == []


def test_base64_lines_that_spell_aws_by_chance_are_not_a_secret() -> None:
    """A gzip stream whose base64 holds 'aws' near a 40-character line end (found in CI, where
    gzip's header carried the clock): only the real key inside it is reported."""
    body = gzip.compress(
        json.dumps({"b": base64.b64encode(_body(FORMATS["google-oauth"])).decode()}).encode(),
        mtime=1796128972,
    )
    text = "interactions:\n- request:\n    body: " + _block(body)
    assert [(f.kind, f.line) for f in scan_text(text, "c.yaml")] == [("google-oauth", 3)]
