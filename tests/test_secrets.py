"""The secret scanner: a planted credential of every provider's format is caught, with its
file and line; the committed cassettes are clean; what only looks random is left alone."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from conformance.cli import main as cli
from conformance.secrets import scan_paths, scan_text
from conformance.send import FAKE_KEYS

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
