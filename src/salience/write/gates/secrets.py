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
import string
from collections import Counter
from dataclasses import dataclass

_END = r"(?![A-Za-z0-9_-])"  # a token ends where its alphabet ends (\\b fails after - or _)

# kind -> pattern. Patterns are matched case-sensitively unless they say (?i:...).
_FORMATS: dict[str, str] = {
    # A header alone is words about a key; a key has a body (after optional PEM headers).
    "private key": (
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----\s*(?:[A-Za-z-]+: [^\n]*\n\s*)*"
        r"[A-Za-z0-9+/=]{32,}"
    ),
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
    "password in URL": (
        r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]{0,128}:(?P<value>[^\s/@\"'<>]{1,128})@[^\s/@]"
    ),
    "DSN with a key": r"\bhttps?://[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.-]+",
    "password in connection string": (r"(?i:\b(?:password|pwd))\s*=\s*(?P<value>[^;\s\"']{3,})"),
    # A 32-64 hex digit value right after words that name a credential: vendors whose tokens
    # have no prefix of their own are recognisable only by what is said around them.
    "token named in the text": (
        r"(?i:\b(?:api[ _-]?key|auth[ _-]?token|access[ _-]?(?:key|token)|token|secret"
        r"|password)\b)[^\n]{0,24}?\b(?P<value>[0-9a-f]{32,64}|[0-9A-F]{32,64})\b"
    ),
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
}

# kind -> substrings one of which must occur for the format to be possible: a cheap `in` test
# skips most regular expressions on ordinary text. Needles are exact-case for case-sensitive
# formats and lower-case (tested against the lower-cased text) for case-insensitive ones.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "private key": ("PRIVATE KEY",),
    "AWS access key": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
    "AWS secret key": ("aws",),
    "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "GitLab token": ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-", "glft-"),
    "Slack token": ("xox", "xapp-"),
    "Slack webhook": ("hooks.slack.com",),
    "Discord webhook": ("discord",),
    "Discord bot token": (".",),
    "Telegram bot token": (":AA",),
    "Azure storage key": ("accountkey",),
    "Azure SAS token": ("sig=",),
    "password in URL": ("://",),
    "DSN with a key": ("://",),
    "token named in the text": ("token", "key", "secret", "password"),
    "password in connection string": ("password", "pwd"),
    "JWT": ("eyJ",),
    "Anthropic API key": ("sk-ant-",),
    "OpenAI API key": ("sk-",),
    "Stripe secret key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    "npm token": ("npm_",),
    "PyPI token": ("pypi-AgE",),
    "Docker Hub token": ("dckr_pat_",),
    "Google API key": ("AIza",),
    "Google OAuth secret": ("GOCSPX-",),
    "GCP service account": ("service_account",),
    "Hugging Face token": ("hf_",),
    "SendGrid key": ("SG.",),
    "Mailgun key": ("key-",),
    "Twilio key": ("SK",),
    "Shopify token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "Square token": ("sq0",),
    "DigitalOcean token": ("_v1_",),
    "Atlassian token": ("ATATT3",),
    "Linear API key": ("lin_api_",),
    "Notion token": ("secret_", "ntn_"),
    "Groq API key": ("gsk_",),
    "xAI API key": ("xai-",),
    "Replicate token": ("r8_",),
    "Vault token": ("hvs.", "hvb.", "hvr."),
    "age secret key": ("AGE-SECRET-KEY-",),
    "Terraform Cloud token": ("atlasv1",),
    "authorization header": ("authorization",),
}
_RULES = {kind: re.compile(pattern) for kind, pattern in _FORMATS.items()}
_INSENSITIVE = {kind for kind, pattern in _FORMATS.items() if "(?i" in pattern}
# Flat (needle, kind, case-insensitive) triples: plain `in` tests, no per-rule generator.
_NEEDLE_TABLE = tuple(
    (needle, kind, kind in _INSENSITIVE) for kind, needles in _NEEDLES.items() for needle in needles
)
_PRIORITY = {kind: i for i, kind in enumerate(_FORMATS)}

# SECRET=..., api_key: "...", client_secret = ... : anchored on the keyword (no leading [..]*
# to backtrack over); the name around the keyword is found afterwards.
ASSIGNMENT = "secret assignment"
_ASSIGNMENT_NEEDLES = ("secret", "key", "token", "passw", "auth")
_ASSIGNMENT = re.compile(
    r"(?i:secret|api_?key|apikey|access_?key|auth_?token|access_?token|private_?key|password"
    r"|passwd|client_?secret|token)[A-Za-z0-9_.-]*[\"']?[ \t]*(?P<sep>[:=])[ \t]*[\"']?"
    r"(?!\$\{|\$\(|<|\{\{|\*\*\*|os\.environ|process\.env)"
    r"(?P<value>[A-Za-z0-9/+=_.\-!@#$%^&*]{8,})"
)
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
# A value of lowercase words after "key:" is prose ("token: refresh-rotation"), not a secret.
_PROSE_VALUES = re.compile(r"^[A-Za-z]+(?:[-_][A-Za-z]+)*$")

_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{20,}")
# Public material: random-looking, but not a secret. Tokens inside it are not judged.
_PUBLIC = re.compile(
    r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)"
    r" AAAA[A-Za-z0-9+/=]+"
    r"|-----BEGIN (?:CERTIFICATE|PUBLIC KEY|RSA PUBLIC KEY|PGP PUBLIC KEY BLOCK|X509 CRL"
    r"|CERTIFICATE REQUEST)-----.*?(?:-----END [A-Z0-9 ]+-----|\Z)",
    re.S,
)
_PUBLIC_NEEDLES = ("ssh-", "ecdsa-", "-----BEGIN")
# Values that stand in for a secret in examples and docs: not secrets.
_PLACEHOLDERS = frozenset(
    "password passwd pass pwd secret secrets changeme change_me changeit example placeholder "
    "redacted hidden none null nil undefined empty test testing dummy sample foo bar baz "
    "admin root user username mypassword yourpassword your_password my_password "
    "supersecret letmein qwerty 123456 12345678 password123 token apikey api_key".split()
)
_WORDISH = re.compile(r"[a-z_]+(?:\.[a-z_]+)*")  # a variable or attribute name
_CODE_VALUE = re.compile(r"[A-Za-z_$][A-Za-z_]*(?:[.-][A-Za-z_]+)+|[a-z]+[A-Z][A-Za-z]*")
_WORD_CHUNK = re.compile(r"[A-Z]?[a-z]{3,}")
_BITCOIN = re.compile(r"[13][a-km-zA-HJ-NP-Z1-9]{25,34}|bc1[a-z0-9]{25,60}")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s<>\"')\]]+")


def is_placeholder(value: str) -> bool:
    """Whether a value that sits where a secret goes only stands in for one."""
    v = value.strip("\"'`;,.()[]{}").lower()
    if not v or v in _PLACEHOLDERS or len(set(v)) <= 2:
        return True  # (xxxx, ****, 0000)
    if v.startswith(("<", "$", "{{", "%(", "your", "my-", "my_", "xxx", "***", "...")):
        return True  # <db_password>, ${TOKEN}, {{ secret }}, your-api-key
    return bool(
        _WORDISH.fullmatch(v) and any(w in v for w in ("pass", "secret", "key", "token", "pwd"))
    )  # this.password = password; pass = self.password


def _is_code(text: str, value: str, end: int) -> bool:
    """Whether an assigned value is an expression, not a literal: a call, an attribute, an
    index, a concatenation (accessToken = response["access_token"], ConvertTo-SecureString)."""
    after = text[end : end + 1]
    if value.startswith("+") or "(" in value or "[" in value or (after and after in "([."):
        return True
    return bool(_CODE_VALUE.fullmatch(value))


def _wordy(token: str) -> bool:
    """Whether a token is mostly words (an identifier, a file name), however mixed its case:
    S3OperationException, 2023-07-15_Beach_Sunset_1.jpg."""
    letters = sum(c.isalpha() for c in token)
    covered = sum(len(m.group()) for m in _WORD_CHUNK.finditer(token))
    return letters > 0 and covered >= 0.6 * letters


_HEX = re.compile(r"^[0-9a-fA-F-]+$")
_IDENTIFIER = re.compile(r"^[A-Za-z]+(?:[_-][A-Za-z]+)*\d{0,4}$")  # no nested ambiguity
_DIGEST_PREFIX = re.compile(r"^(?:sha(?:1|224|256|384|512)|md5)[-:]")
_BASE64_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x1f\x8b", b"PK\x03\x04", b"%PDF", b"RIFF")
HIGH_ENTROPY = "high-entropy string"
NAMED_IN_TEXT = "token named in the text"


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
    if (
        len(token) > 128
        or _HEX.match(token)
        or _IDENTIFIER.match(token)
        or _wordy(token)
        or _BITCOIN.fullmatch(token)  # a Bitcoin address: public, meant to be shared
    ):
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


def _format_matches(text: str, lowered: str) -> list[tuple[int, int, str]]:
    kinds: set[str] = set()
    for needle, kind, insensitive in _NEEDLE_TABLE:
        if needle in (lowered if insensitive else text):
            kinds.add(kind)
    spans: list[tuple[int, int, str]] = []
    for kind in kinds:
        for m in _RULES[kind].finditer(text):
            value = m.groupdict().get("value")
            if value is not None and is_placeholder(value):
                continue
            if (
                kind == "password in connection string"
                and value is not None
                and _is_code(text, value, m.end())
            ):
                continue  # password = request.form['password']: code, not a literal
            if kind == NAMED_IN_TEXT:  # the value is the secret: a named format inside it wins
                spans.append((m.start("value"), m.end("value"), kind))
            else:
                spans.append((m.start(), m.end(), kind))
    return spans


def _assignment_matches(text: str, lowered: str) -> list[tuple[int, int, str]]:
    if not any(needle in lowered for needle in _ASSIGNMENT_NEEDLES):
        return []
    spans = []
    position = 0
    while (m := _ASSIGNMENT.search(text, position)) is not None:
        value = m.group("value")
        position = m.end()
        if m.group("sep") == ":" and _PROSE_VALUES.match(value.strip("*_`")):
            continue  # "Secrets: Unlocking ...", "token: refresh-rotation": words, not a value
        if (
            is_placeholder(value)
            or value.startswith(("/", "~/", "./", "../"))
            or _is_code(text, value, m.end())
            or (len(value) >= 24 and _decodes_to_data(value))  # base64 of text, not a key
        ):
            # a stand-in, or a path (private_key_file=/home/...): look again inside it
            # (TOKEN_NAME='JWT_SECRET: ...' names its secret after a name)
            position = m.start("value")
            continue
        start = m.start()
        while start > 0 and text[start - 1] in _NAME_CHARS:
            start -= 1
        spans.append((start, m.end(), ASSIGNMENT))
    return spans


def scan(text: str) -> list[SecretFinding]:
    """Every secret in ``text``, by position. A named format wins over a generic assignment
    on the same line, so ``TOKEN=ghp_…`` is reported as a GitHub token."""
    lowered = text.lower()
    spans: list[tuple[int, int, str]] = []
    for span in sorted(_format_matches(text, lowered), key=lambda s: (s[0], _PRIORITY[s[2]])):
        if not any(a <= span[0] < b for a, b, _ in spans):
            spans.append(span)
    for start, end, kind in _assignment_matches(text, lowered):
        line_end = text.find("\n", start)
        limit = len(text) if line_end < 0 else line_end
        if not any(start <= a < limit or a <= start < b for a, b, _ in spans):
            spans.append((start, end, kind))
    public = (
        [(m.start(), m.end()) for m in _PUBLIC.finditer(text)]
        if any(needle in text for needle in _PUBLIC_NEEDLES)
        else []
    )
    if "://" in text:  # entropy alone never decides inside a URL (share links, ids in paths)
        public += [(m.start(), m.end()) for m in _URL.finditer(text)]
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b, _ in spans) or any(
            a <= m.start() < b for a, b in public
        ):
            continue
        if looks_random(m.group().strip("=")):
            spans.append((m.start(), m.end(), HIGH_ENTROPY))
    return [_finding(text, kind, start) for start, _, kind in sorted(spans)]


def first_secret(text: str) -> SecretFinding | None:
    """The first secret in ``text``, or None."""
    findings = scan(text)
    return findings[0] if findings else None
