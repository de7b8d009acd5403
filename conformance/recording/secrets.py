"""A scanner for credentials in committed files (cassettes above all).

`conformance scan-secrets [PATH...]` (default `cassettes`) prints `file:line: kind: excerpt`
per finding, the excerpt cut short so that the report does not leak the key again, and exits 1
when it finds any. `nox -s lint` runs it over `cassettes/`.

What it looks for (`RULES`), one rule per provider key format and per place a key travels:

- `anthropic`: `sk-ant-` and 20 or more of `[A-Za-z0-9_-]`;
- `openai`: `sk-`, `sk-proj-`, `sk-svcacct-` or `sk-admin-` and 20 or more (not `sk-ant-`);
- `google`: `AIza` and 35 of `[0-9A-Za-z_-]`;
- `aws-access-key`: `AKIA`, `ASIA`, `ABIA` or `ACCA` and 16 of `[0-9A-Z]`;
- `aws-secret-key`: 40 of `[A-Za-z0-9/+]`, mixed case with a digit, with a secret key's name
  (`aws_secret_access_key`, `SecretAccessKey`, `x-amz-security-token`, or `aws` standing
  alone, never inside a base64 run) or an access key id on
  the same line or up to two lines away;
- `groq` (`gsk_`), `xai` (`xai-`), `huggingface` (`hf_`): the prefix and 20 or more
  alphanumerics;
- `mistral`: a 32-character token, `cohere`: a 40-character token (mixed case and digits),
  each next to its name, `authorization`, `bearer` or `api key`;
- generic formats with a fixed shape: `github` (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`,
  `github_pat_`), `gitlab` (`glpat-`), `slack` (`xoxb-`...) and `slack-webhook`, `stripe`
  (`sk_live_`, `rk_test_`...), `google-oauth` (`ya29.`), `npm` (`npm_`), `jwt` (three
  base64url parts, the first two JSON objects), `private-key` (a PEM `PRIVATE KEY` block),
  `url-credentials` (`scheme://user:password@host`);
- `bearer`: `Bearer ` and 16 or more token characters, any provider's key in an auth header;
- `credential-header`: any value under a request header that carries credentials
  (`authorization`, `x-api-key`, `api-key`, `x-goog-api-key`, `x-amz-security-token`) in a
  YAML cassette: the recording filters must have removed it.

Mistral and Cohere keys have no prefix, so they are only recognised with a hint next to them;
the `bearer` and `credential-header` rules catch them wherever they were sent.

What vcrpy writes is decoded before it is scanned, up to three layers deep: YAML `!!binary`
values (every recorded body that was bytes), base64 runs inside bodies and headers (standard
and URL-safe), and gzip, zlib or raw deflate streams inside those. A finding inside an
encoding names it (`github (inside !!binary+gzip)`) and the line where the encoded value
starts. Decoded bytes that are not mostly text (media) are not scanned as text.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
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
            r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])"
            r"(?=[A-Za-z0-9/+]*[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        ),
        # A name, not any three letters: "aws" turns up by chance in every few lines of base64.
        re.compile(
            r"(?i)secret[_-]?(?:access[_-]?)?key|aws[_-]?secret|x-amz-security-token"
            r"|(?<![A-Za-z0-9+/])(?:aws|amz)(?![A-Za-z0-9+/])"
            r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
        ),
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
    Rule("github", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b")),
    Rule("github", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{50,}")),
    Rule("gitlab", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    Rule("slack", re.compile(r"\bxox[abeoprs]-[A-Za-z0-9-]{10,}")),
    Rule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"),
    ),
    Rule("stripe", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}")),
    Rule("google-oauth", re.compile(r"\bya29\.[A-Za-z0-9_-]{20,}")),
    Rule("npm", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    Rule(
        "jwt",
        re.compile(
            r"\beyJ[A-Za-z0-9_-]{10,}={0,2}\.eyJ[A-Za-z0-9_-]{10,}={0,2}\.[A-Za-z0-9_-]{10,}"
        ),
    ),
    Rule(
        "private-key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ),
    Rule(
        "url-credentials",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@'\"]{1,64}:[^/\s@'\"]{6,}@[A-Za-z0-9.-]+"),
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

_BINARY: Final = re.compile(
    r"!!binary[ \t]*(?:[|>][-+]?[ \t]*\n((?:[ \t]+[A-Za-z0-9+/=]+[ \t]*(?:\n|$))+)"
    r"|\"([A-Za-z0-9+/=\s\\]+)\"|'([A-Za-z0-9+/=\s]+)'|([A-Za-z0-9+/=]+))"
)
"""A YAML `!!binary` value, as PyYAML (and so vcrpy) writes it: a literal or folded block of
base64 lines, or a quoted or plain scalar."""
_BASE64: Final = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
"""A run that may be base64 (standard or URL-safe alphabet) inside a body or a header."""
MAX_LAYERS: Final = 3
"""Encodings peeled off one inside another (`!!binary` of a gzip body holding base64...)."""
MAX_DECODED: Final = 16 * 1024 * 1024
"""Bytes one decompression may produce: a larger one is scanned up to here."""


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    kind: str
    excerpt: str
    """The start of the match and its length: enough to find it, not enough to use it."""
    via: str = ""
    """The encodings the key was found under, outermost first (`!!binary+gzip`); empty when
    it was in the file as it is."""

    def __str__(self) -> str:
        inside = f" (inside {self.via})" if self.via else ""
        return f"{self.path}:{self.line}: {self.kind}{inside}: {self.excerpt}"


def _excerpt(text: str) -> str:
    text = text.strip().replace("\n", " ")
    return f"{text[:10]}… ({len(text)} characters)"


def _scan(text: str, path: str, offset_line: int | None, via: str = "") -> Iterator[Finding]:
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
                via,
            )


def _b64(text: str) -> bytes | None:
    compact = "".join(text.replace("\\n", "").split())
    compact += "=" * (-len(compact.rstrip("=")) % 4 if not compact.endswith("=") else 0)
    try:
        if "-" in compact or "_" in compact:
            return base64.urlsafe_b64decode(compact)
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def _inflate(data: bytes) -> tuple[str, bytes] | None:
    """A gzip, zlib or raw deflate stream, decompressed (up to `MAX_DECODED` bytes)."""
    if data[:2] == b"\x1f\x8b":
        attempts = (("gzip", 16 + zlib.MAX_WBITS),)
    elif len(data) > 1 and data[0] & 0x0F == 8 and int.from_bytes(data[:2], "big") % 31 == 0:
        attempts = (("deflate", zlib.MAX_WBITS),)
    else:
        attempts = (("deflate", -zlib.MAX_WBITS),)
    for name, bits in attempts:
        try:
            inflater = zlib.decompressobj(bits)
            out = inflater.decompress(data, MAX_DECODED)
        except zlib.error:
            continue
        if out and (inflater.eof or len(out) >= MAX_DECODED):
            return name, out
    return None


def _texty(data: bytes) -> bool:
    """Mostly printable: worth scanning as text (media and random bytes are not)."""
    if not data:
        return False
    sample = data[:4096]
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in sample)
    return printable / len(sample) > 0.85


def _layers(data: bytes, via: str, depth: int) -> Iterator[tuple[str, str]]:
    """The text inside decoded bytes, and the text inside that, with the encodings used."""
    if depth > MAX_LAYERS:
        return
    inflated = _inflate(data)
    if inflated is not None:
        name, data = inflated
        via = f"{via}+{name}"
    if not _texty(data):
        return
    text = data.decode("utf-8", "replace")
    yield text, via
    yield from _inner(text, via, depth + 1)


def _inner(text: str, via: str, depth: int) -> Iterator[tuple[str, str]]:
    """Base64 runs inside `text`, decoded (and decompressed), as text to scan."""
    if depth > MAX_LAYERS:
        return
    for run in _BASE64.finditer(text):
        decoded = _b64(run.group())
        if decoded is not None:
            yield from _layers(decoded, f"{via}+base64" if via else "base64", depth)


def scan_text(text: str, path: str = "<text>") -> list[Finding]:
    """Every credential-shaped string in `text`, and in what it encodes: YAML `!!binary`
    values, base64 runs (inside bodies and headers) and gzip or deflate streams inside them,
    up to `MAX_LAYERS` deep; a finding inside an encoding is placed at the line it starts."""
    findings = list(_scan(text, path, None))
    seen = {(f.line, f.kind, f.excerpt) for f in findings}
    blocks = list(_BINARY.finditer(text))
    binaries = [
        (block.start(), next(g for g in block.groups() if g is not None), "!!binary")
        for block in blocks
    ]
    runs = [
        (run.start(), run.group(), "base64")
        for run in _BASE64.finditer(text)
        if not any(b.start() <= run.start() < b.end() for b in blocks)
    ]
    for start, encoded, via in binaries + runs:
        decoded = _b64(encoded)
        if decoded is None:
            continue
        line = text.count("\n", 0, start) + 1
        for inner, inner_via in _layers(decoded, via, 1):
            for finding in _scan(inner, path, line, inner_via):
                key = (finding.line, finding.kind, finding.excerpt)
                if key not in seen:
                    seen.add(key)
                    findings.append(finding)
    return sorted(findings, key=lambda f: (f.line, f.kind, f.via))


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
