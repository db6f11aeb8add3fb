"""What only looks like a secret: placeholders, code, words, paths, digests, encoded data.

The scanner (secrets.py) finds what has the shape of a credential; these predicates take back
what merely has the shape: `password=changeme`, `ghp_...`, `token = response["token"]`,
`/Users/dev/build/yEX1eCQ4rZ9Lf6aIcq0tyZmj.o`, base64 of a sentence, a Bitcoin address.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

# Values that stand in for a secret in examples and docs: not secrets.
_PLACEHOLDERS = frozenset(
    "password passwd pass pwd secret secrets changeme change_me changeit example placeholder "
    "redacted hidden none null nil undefined empty test testing dummy sample foo bar baz "
    "admin root user username mypassword yourpassword your_password my_password "
    "supersecret letmein qwerty 123456 12345678 password123 token apikey api_key".split()
)
_FILLER = re.compile(r"(.)\1{7,}")  # eight of one character: filler, never random
_WORDISH = re.compile(r"[a-z_]+(?:\.[a-z_]+)*")  # a variable or attribute name
_CODE_VALUE = re.compile(r"[A-Za-z_$][A-Za-z_]*(?:[.-][A-Za-z_]+)+|[a-z]+[A-Z][A-Za-z]*")
_WORD_CHUNK = re.compile(r"[A-Z]?[a-z]{3,}")
_BITCOIN = re.compile(r"[13][a-km-zA-HJ-NP-Z1-9]{25,34}|bc1[a-z0-9]{25,60}")


def stands_in(v: str) -> bool:
    """<db_password>, ${TOKEN}, {{ secret }}, your-api-key, ...: words for a value, not one."""
    return (
        v in _PLACEHOLDERS
        or v.startswith(("<", "$", "{{", "%(", "your", "my-", "my_", "..."))
        or v.endswith(("...", "\u2026"))  # elided: sk-..., ghp_abc…
    )


def is_placeholder(value: str) -> bool:
    """Whether a value that sits where a secret goes only stands in for one."""
    v = value.strip("\"'`;,.()[]{} ").lower()
    if not v or len(set(v)) <= 2 or _FILLER.search(v) or v.startswith(("xxx", "***")):
        return True  # xxxx, ****, 0000, ghp_xxxxxxxxxxxx
    if stands_in(value.strip("\"'`;,()[]{} ").lower()):
        return True  # <db_password>, sk-...
    return bool(
        _WORDISH.fullmatch(v) and any(w in v for w in ("pass", "secret", "key", "token", "pwd"))
    )  # this.password = password; pass = self.password


_SEGMENT = re.compile(r"[A-Za-z]+\d{0,2}|\d+")  # a word, a version (v2), a number


def made_of_words(value: str) -> bool:
    """Whether a value in a token's place reads as words, not as random characters: no digit
    and not mixed case (a-word-like-this), or words and numbers between separators
    (config_v2_2024), or mostly words however mixed (SomeClassName)."""
    has_digit = any(c.isdigit() for c in value)
    if not has_digit and (value.islower() or value.isupper()):
        return True
    parts = re.split(r"[_.\-]", value)
    if len(parts) > 1 and all(_SEGMENT.fullmatch(p) for p in parts if p):
        return True
    return not has_digit and wordy(value)


def is_code(text: str, value: str, end: int) -> bool:
    """Whether an assigned value is an expression, not a literal: a call, an attribute, an
    index, a concatenation (accessToken = response["access_token"], ConvertTo-SecureString)."""
    after = text[end : end + 1]
    if value.startswith("+") or "(" in value or "[" in value or (after and after in "([."):
        return True
    return bool(_CODE_VALUE.fullmatch(value))


def wordy(token: str) -> bool:
    """Whether a token is mostly words (an identifier, a file name), however mixed its case:
    S3OperationException, 2023-07-15_Beach_Sunset_1.jpg."""
    letters = sum(c.isalpha() for c in token)
    covered = sum(len(m.group()) for m in _WORD_CHUNK.finditer(token))
    return letters > 0 and covered >= 0.6 * letters


_HEX = re.compile(r"^[0-9a-fA-F-]+$")
_PATH_WORD = re.compile(r"[a-z]{2,}|[A-Z][a-z]{2,}")  # a directory name: src, Users, build
_IDENTIFIER = re.compile(r"^[A-Za-z]+(?:[_-][A-Za-z]+)*\d{0,4}$")  # no nested ambiguity
_DIGEST_PREFIX = re.compile(r"^(?:sha(?:1|224|256|384|512)|md5)[-:]")
_BASE64_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"\x1f\x8b", b"PK\x03\x04", b"%PDF", b"RIFF")


def shannon_entropy(token: str) -> float:
    """Bits per character of ``token``'s own character distribution."""
    counts = Counter(token)
    size = len(token)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def decodes_to_data(token: str) -> bool:
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
        or wordy(token)
        or _BITCOIN.fullmatch(token)  # a Bitcoin address: public, meant to be shared
    ):
        return False
    if _DIGEST_PREFIX.match(token):
        return False  # a content digest (sha256-..., as in subresource integrity)
    if "/" in token and (
        token.startswith(("/", "~/", "./", "../"))
        or not any(c.isdigit() for c in token.rsplit("/", maxsplit=1)[-1])
        or sum(bool(_PATH_WORD.fullmatch(part)) for part in token.split("/")) >= 2
    ):
        return False  # a path (entropy never decides inside one), or words between slashes
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
    return not decodes_to_data(token)
