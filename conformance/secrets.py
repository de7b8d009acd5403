"""A scanner for credentials in committed files (cassettes above all).

`conformance scan-secrets [PATH...]` (default `cassettes`) prints `file:line: kind: excerpt`
per finding, the excerpt cut short so that the report does not leak the key again, and exits 1
when it finds any. `nox -s lint` runs it over `cassettes/`.

What it looks for (`RULES`), one rule per provider key format and per place a key travels:

- `anthropic`: `sk-ant-` and 20 or more of `[A-Za-z0-9_-]`;
- `openai`: `sk-`, `sk-proj-`, `sk-svcacct-` or `sk-admin-` and 20 or more (not `sk-ant-`);
- `google`: `AIza` and 35 of `[0-9A-Za-z_-]`;
- `aws-access-key`: `AKIA`, `ASIA`, `ABIA` or `ACCA` and 16 of `[0-9A-Z]`;
- `aws-secret-key`: 40 of `[A-Za-z0-9/+]`, mixed case with a digit, with `aws`, `amz`,
  `secret` or an access key id on the same line or up to two lines away;
- `groq` (`gsk_`), `xai` (`xai-`), `huggingface` (`hf_`): the prefix and 20 or more
  alphanumerics;
- `mistral`: a 32-character token, `cohere`: a 40-character token (mixed case and digits),
  each next to its name, `authorization`, `bearer` or `api key`;
- `bearer`: `Bearer ` and 16 or more token characters, any provider's key in an auth header;
- `credential-header`: any value under a request header that carries credentials
  (`authorization`, `x-api-key`, `api-key`, `x-goog-api-key`, `x-amz-security-token`) in a
  YAML cassette: the recording filters must have removed it.

Mistral and Cohere keys have no prefix, so they are only recognised with a hint next to them;
the `bearer` and `credential-header` rules catch them wherever they were sent. Base64 blocks
that YAML writes as `!!binary` are decoded and scanned too, so a header stored as bytes cannot
hide a key.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["RULES", "SCANNED_SUFFIXES", "Finding", "Rule", "main", "scan_paths", "scan_text"]

SCANNED_SUFFIXES: Final = frozenset({".yaml", ".yml", ".json", ".jsonl", ".txt", ".md"})
"""File types a folder is scanned for (a file named on the command line is always scanned)."""

_MIXED: Final = r"(?=[A-Za-z0-9]*[a-z])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[0-9])"
"""Lookaheads at the start of a token: it has a lower-case letter, an upper-case one and a
digit, as generated keys do and words, hex digests and ids mostly do not."""


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    context: re.Pattern[str] | None = None
    """When set, the match counts only with this on the same line or up to two lines away."""


RULES: Final[tuple[Rule, ...]] = (
    Rule("anthropic", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")),
    Rule("openai", re.compile(r"\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    Rule("google", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
    Rule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    Rule(
        "aws-secret-key",
        re.compile(
            r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])"
            r"(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        ),
        re.compile(r"(?i)aws|amz|secret|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ),
    Rule("groq", re.compile(r"\bgsk_[A-Za-z0-9]{20,}")),
    Rule("xai", re.compile(r"\bxai-[A-Za-z0-9]{20,}")),
    Rule("huggingface", re.compile(r"\bhf_[A-Za-z0-9]{20,}")),
    Rule(
        "mistral",
        re.compile(rf"(?<![A-Za-z0-9_-]){_MIXED}[A-Za-z0-9]{{32}}(?![A-Za-z0-9_-])"),
        re.compile(r"(?i)mistral|authorization|bearer|api[-_ ]?key"),
    ),
    Rule(
        "cohere",
        re.compile(rf"(?<![A-Za-z0-9_/+-]){_MIXED}[A-Za-z0-9]{{40}}(?![A-Za-z0-9_/+=-])"),
        re.compile(r"(?i)cohere|co_api_key|authorization|bearer|api[-_ ]?key"),
    ),
    Rule("bearer", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*")),
    Rule(
        "credential-header",
        re.compile(
            r"(?im)^(\s*)(?:authorization|x-api-key|api-key|x-goog-api-key|x-amz-security-token)"
            r"\s*:\s*(?:\n\1\s*-\s*|\s*)(?:'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"\[{][^\n]*)"
        ),
    ),
)

_BINARY: Final = re.compile(r"!!binary\s*\|[-+]?\s*\n((?:[ \t]+[A-Za-z0-9+/=]+\n?)+)")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str
    excerpt: str
    """The start of the match and its length: enough to find it, not enough to use it."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.excerpt}"


def _excerpt(text: str) -> str:
    text = text.strip().replace("\n", " ")
    return f"{text[:10]}… ({len(text)} characters)"


def _scan(text: str, path: str, offset_line: int | None) -> Iterator[Finding]:
    lines = text.splitlines()
    taken: list[tuple[int, int]] = []
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            start, end = match.span()
            if any(s < end and start < e for s, e in taken):
                continue  # one finding per place: the most specific rule wins
            line = text.count("\n", 0, start)
            if rule.context is not None:
                near = "\n".join(lines[max(0, line - 2) : line + 3])
                found = [m for m in rule.context.finditer(near) if m.group() != match.group()]
                if not found:
                    continue
            taken.append((start, end))
            yield Finding(
                path,
                offset_line if offset_line is not None else line + 1,
                rule.kind,
                _excerpt(match.group()),
            )


def scan_text(text: str, path: str = "<text>") -> list[Finding]:
    """Every credential-shaped string in `text`, including inside YAML `!!binary` blocks."""
    findings = list(_scan(text, path, None))
    for block in _BINARY.finditer(text):
        line = text.count("\n", 0, block.start()) + 1
        try:
            decoded = base64.b64decode("".join(block.group(1).split()), validate=True)
        except (binascii.Error, ValueError):
            continue
        findings += _scan(decoded.decode("utf-8", "replace"), path, line)
    return sorted(findings, key=lambda f: (f.line, f.kind))


def _files(paths: Iterable[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix in SCANNED_SUFFIXES
            )
        else:
            yield path


def scan_paths(paths: Iterable[Path]) -> tuple[list[Finding], int]:
    """The findings in every file under `paths`, and how many files were scanned."""
    findings: list[Finding] = []
    count = 0
    for file in _files(paths):
        count += 1
        findings += scan_text(file.read_text(encoding="utf-8", errors="replace"), str(file))
    return findings, count


def main(paths: Sequence[str]) -> int:
    """The `scan-secrets` command: 1 with one line per finding, else 0."""
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print(f"scan-secrets: no such file or folder: {', '.join(missing)}")
        return 2
    findings, count = scan_paths(Path(p) for p in paths)
    for finding in findings:
        print(finding)
    if findings:
        print(
            f"scan-secrets: {len(findings)} credential-shaped strings in {count} files;"
            " remove them (and revoke the keys) before committing"
        )
        return 1
    print(f"scan-secrets: no credentials found in {count} files")
    return 0
