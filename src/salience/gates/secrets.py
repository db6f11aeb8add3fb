"""The secret scanner: content that holds a credential is never stored.

It cannot be disabled: there is no flag, setting, environment variable or argument for it.
A finding names the kind of secret and where it starts (line and column), never the secret.

Two layers: known token formats (one combined regular expression, one pass), then a
high-entropy rule for random-looking tokens that no format names. The entropy rule skips what
only looks random: UUIDs, hex digests and git SHAs, file paths, identifiers, and base64 that
decodes to text or to a known file format.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from dataclasses import dataclass

_END = r"(?![A-Za-z0-9_-])"  # a token ends where its alphabet ends (\\b fails after - or _)

# kind -> pattern. Patterns are matched case-sensitively unless they say (?i:...).
_FORMATS: dict[str, str] = {
    "private key": r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
    "AWS access key": r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b",
    "AWS secret key": (
        r"(?i:aws_?secret_?(?:access_?)?key)\s*[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+=]{40}"
    ),
    "GitHub token": r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}",
    "GitLab token": r"\bgl(?:pat|ptt|dt|rt|cbt|oas|ft)-[A-Za-z0-9_\-]{20,}",
    "Slack token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
    "Slack webhook": r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
    "Discord webhook": r"discord(?:app)?\.com/api/webhooks/\d+/[\w-]{20,}",
    "Discord bot token": r"\b[MNO][A-Za-z\d_-]{23,27}\.[\w-]{6}\.[\w-]{27,40}" + _END,
    "Telegram bot token": r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}" + _END,
    "Azure storage key": r"(?i:AccountKey)\s*=\s*[^;\s\"']{4,}",
    "Azure SAS token": r"[?&]sig=[A-Za-z0-9%/+]{30,}",
    "password in URL": r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]{1,128}:[^\s/@\"'<>]{1,128}@[^\s/@]",
    "password in connection string": r"(?i:\b(?:password|pwd))\s*=\s*[^;\s\"']{3,}",
    "JWT": r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "Anthropic API key": r"\bsk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_-]{20,}",
    "OpenAI API key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "Stripe secret key": r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
    "npm token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "PyPI token": r"\bpypi-AgE[A-Za-z0-9_-]{50,}",
    "Docker Hub token": r"\bdckr_pat_[A-Za-z0-9_-]{20,}",
    "Google API key": r"\bAIza[0-9A-Za-z_-]{35}" + _END,
    "Google OAuth secret": r"\bGOCSPX-[A-Za-z0-9_-]{28}" + _END,
    "GCP service account": r"\"type\"\s*:\s*\"service_account\"",
    "Hugging Face token": r"\bhf_[A-Za-z0-9]{34,}\b",
    "SendGrid key": r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _END,
    "Mailgun key": r"\bkey-[0-9a-f]{32}\b",
    "Twilio key": r"\bSK[0-9a-fA-F]{32}\b",
    "Shopify token": r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
    "Square token": r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}\b",
    "DigitalOcean token": r"\bdo[por]_v1_[a-f0-9]{64}\b",
    "Atlassian token": r"\bATATT3[A-Za-z0-9_\-=]{50,}",
    "Linear API key": r"\blin_api_[A-Za-z0-9]{40}\b",
    "Notion token": r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b",
    "Groq API key": r"\bgsk_[A-Za-z0-9]{52}\b",
    "xAI API key": r"\bxai-[A-Za-z0-9]{60,}\b",
    "Replicate token": r"\br8_[A-Za-z0-9]{37}\b",
    "Vault token": r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}",
    "age secret key": r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b",
    "Terraform Cloud token": r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}",
    "authorization header": r"(?i:authorization)\s*:\s*(?i:basic|bearer)\s+[A-Za-z0-9._~+/=-]{12,}",
    "secret assignment": (
        r"\b[A-Za-z0-9_.-]*(?i:secret|api_?key|apikey|access_?key|auth_?token|access_?token"
        r"|private_?key|password|passwd|client_?secret|token)[A-Za-z0-9_.-]*"
        r"[\"']?\s*[:=]\s*[\"']?(?!\$\{|\$\(|<|\{\{|\*\*\*|os\.environ|process\.env)"
        r"[A-Za-z0-9/+=_.\-!@#$%^&*]{8,}"
    ),
}
_COMBINED = re.compile("|".join(f"(?P<g{i}>{p})" for i, p in enumerate(_FORMATS.values())))
_KINDS = tuple(_FORMATS)

# Words that make an assignment's value a description rather than a secret.
_PROSE_VALUES = re.compile(r"^[a-z]+(?:[-_][a-z]+)*$")

_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{20,}")
_HEX = re.compile(r"^[0-9a-fA-F-]+$")
_IDENTIFIER = re.compile(r"^[A-Za-z]+(?:[_-][A-Za-z]+)*\d{0,4}$")  # no nested ambiguity
_DIGEST_PREFIX = re.compile(r"^(?:sha(?:1|224|256|384|512)|md5)[-:]")
_BASE64_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x1f\x8b", b"PK\x03\x04", b"%PDF", b"RIFF")
HIGH_ENTROPY = "high-entropy string"


@dataclass(frozen=True)
class SecretFinding:
    """Where a secret starts, and what kind it is. Never holds the secret itself."""

    kind: str
    start: int
    line: int
    column: int

    def describe(self) -> str:
        """``a GitHub token at line 1, column 12``."""
        return f"{_article(self.kind)} {self.kind} at line {self.line}, column {self.column}"


def _article(kind: str) -> str:
    return "an" if kind[0].lower() in "aeiou" else "a"


def _finding(text: str, kind: str, start: int) -> SecretFinding:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return SecretFinding(kind, start, line, column)


def shannon_entropy(token: str) -> float:
    """Bits per character of ``token``'s own character distribution."""
    counts = Counter(token)
    size = len(token)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _decodes_to_data(token: str) -> bool:
    """Base64 that decodes to mostly printable text, or to a known file format, is data."""
    padded = token.replace("-", "+").replace("_", "/")
    padded += "=" * (-len(padded) % 4)
    try:
        raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return False
    if raw.startswith(_BASE64_MAGIC):
        return True
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return len(raw) > 0 and printable / len(raw) > 0.85


def looks_random(token: str) -> bool:
    """Whether a 20+ character token is a likely credential by its randomness alone."""
    if len(token) > 128 or _HEX.match(token) or _IDENTIFIER.match(token):
        return False
    if _DIGEST_PREFIX.match(token):
        return False  # a content digest (sha256-..., as in subresource integrity)
    if "/" in token and not any(c.isdigit() for c in token.rsplit("/", maxsplit=1)[-1]):
        return False  # a path: words between slashes
    classes = (
        any(c.islower() for c in token)
        + any(c.isupper() for c in token)
        + any(c.isdigit() for c in token)
    )
    if classes < 3:
        return False
    ceiling = math.log2(min(len(token), 64))
    if shannon_entropy(token) < 0.82 * ceiling:
        return False
    return not _decodes_to_data(token)


def scan(text: str) -> list[SecretFinding]:
    """Every secret found in ``text``, by position."""
    findings: list[SecretFinding] = []
    covered: list[tuple[int, int]] = []
    position = 0
    while match := _COMBINED.search(text, position):
        kind = _KINDS[int(str(match.lastgroup)[1:])]
        if kind == "secret assignment" and _is_prose_assignment(match.group()):
            position = match.start() + 1  # its value may still hold a known format
            continue
        start = match.start()
        if kind == "secret assignment":
            kind, start = _specific_kind(text, match) or (kind, start)
        findings.append(_finding(text, kind, start))
        covered.append(match.span())
        position = max(match.end(), match.start() + 1)
    for match in _TOKEN.finditer(text):
        if any(a <= match.start() < b for a, b in covered):
            continue
        if looks_random(match.group().strip("=")):
            findings.append(_finding(text, HIGH_ENTROPY, match.start()))
    return sorted(findings, key=lambda f: f.start)


def _specific_kind(text: str, assignment: re.Match[str]) -> tuple[str, int] | None:
    """A named format inside an assignment's value (``TOKEN=ghp_…`` is a GitHub token)."""
    separator = re.search(r"[:=]", assignment.group())
    value_start = assignment.start() + (separator.end() if separator else 0)
    line_end = text.find("\n", value_start)
    inner = _COMBINED.search(text, value_start, len(text) if line_end < 0 else line_end)
    if inner is None:
        return None
    kind = _KINDS[int(str(inner.lastgroup)[1:])]
    return None if kind == "secret assignment" else (kind, inner.start())


def _is_prose_assignment(matched: str) -> bool:
    """``token: refresh-rotation`` is prose; ``token=…`` or a value with digits is not."""
    key, separator, value = re.split(r"([:=])", matched, maxsplit=1)
    if separator == "=" or key.endswith(("'", '"')):
        return False
    return bool(_PROSE_VALUES.match(value.strip(" \"'")))


def first_secret(text: str) -> SecretFinding | None:
    """The first secret in ``text``, or None."""
    findings = scan(text)
    return findings[0] if findings else None
