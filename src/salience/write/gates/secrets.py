"""The secret scanner: content that holds a credential is never stored.

It cannot be disabled: there is no flag, setting, environment variable or argument for it.
A finding names the kind of secret and where it starts (line and column), never the secret.

Four layers, the more specific first: the kinds of secret_kinds.py and secret_named.py (a
vendor's prefix, a vendor's name before a value, or a format such as a URL with a password;
about 250 kinds, each reported by its name), then generic assignments (``SECRET=...``), then
a high-entropy rule for random-looking tokens that no kind names. What only looks like a
secret (lookalikes.py: placeholders, code, paths, digests, public keys) is taken back.
Only runs of 16+ non-space characters can hold a token, so most chat is read once.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass

from salience.write.gates.evasions import JOINED_MIN, Form, decoded, folded, joined
from salience.write.gates.lookalikes import (
    decodes_to_data,
    is_code,
    is_placeholder,
    looks_random,
    made_of_words,
    stands_in,
    wordy,
)
from salience.write.gates.secret_kinds import FORMATS, PREFIXED, WEAK_PREFIX_KINDS
from salience.write.gates.secret_named import NAMED


def _trie(words: list[str]) -> str:
    """One regular expression for a set of literal words, as a trie: at each position only the
    branch of the next character is tried, so hundreds of prefixes cost about what one does."""
    if "" in words and len(words) == 1:
        return ""
    by_first: dict[str, list[str]] = {}
    for word in words:
        if word:
            by_first.setdefault(word[0], []).append(word[1:])
    branches = [re.escape(first) + _trie(rest) for first, rest in sorted(by_first.items())]
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in words else body


class _Tables:
    """~300 compiled expressions (~40 ms): made on the first scan (:func:`_tables`), not at
    import, so commands that never write (a briefing, a recall) do not pay for them."""

    def __init__(self) -> None:
        # Prefixed kinds: one pass finds every vendor prefix; the body is checked per prefix.
        bodies: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        for kind, prefix, body in PREFIXED:
            bodies.setdefault(prefix, []).append((kind, re.compile(f"(?:{body})(?![A-Za-z0-9_-])")))
        self.prefix_bodies = bodies
        self.prefix_lengths = sorted({len(p) for p in bodies}, reverse=True)
        self.prefix_scan = re.compile(r"(?<![A-Za-z0-9])" + _trie(sorted(bodies)))
        # Named kinds: a vendor's name, a short gap that says "key", "token"... or assigns,
        # a value.
        named: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        for kind, names, shape in NAMED:
            value = re.compile(
                r"(?P<gap>(?s:.{0,30}?))(?i:key|token|secret|pass(?:word)?|pwd|auth|credential"
                r"|pat)s?[\"'`]?\s{0,3}(?:[:=]|=>|is|to)?\s{0,3}[\"'`]?"
                r"(?<![A-Za-z0-9])(?P<value>" + f"(?:{shape}))(?![A-Za-z0-9])"
            )
            for name in names.split("|"):
                named.setdefault(name, []).append((kind, value))
        self.named_values = named
        self.named_scan = re.compile(r"(?<![a-z])" + _trie(sorted(named)) + r"(?![a-z])")
        self.rules = {kind: re.compile(pattern) for kind, pattern, _ in FORMATS}
        # Whether a text starts with a format's needle (one match, not a loop over needles).
        sensitive = sorted({n for n, _, insensitive in _NEEDLE_TABLE if not insensitive})
        folded = sorted({n.lower() for n, _, insensitive in _NEEDLE_TABLE if insensitive})
        self.needle_start = re.compile(_trie(sensitive))
        self.needle_start_folded = re.compile(_trie(folded))


@functools.cache
def _tables() -> _Tables:
    return _Tables()


# Flat (needle, kind, case-insensitive) triples: plain `in` tests, no per-rule generator.
_NEEDLE_TABLE = tuple(
    (needle, kind, "(?i" in pattern) for kind, pattern, needles in FORMATS for needle in needles
)
_PRIORITY = {kind: i for i, (kind, _, _) in enumerate(FORMATS)}
_PRIORITY["token named in the text"] = len(FORMATS)  # any format that names a vendor wins
_NAMED_PRIORITY = -500  # a vendor's name beats "token named in the text" at the same place
KINDS = frozenset(
    [k for k, _, _ in PREFIXED] + [k for k, _, _ in NAMED] + [k for k, _, _ in FORMATS]
)

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
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s<>\"')\]]+")
HIGH_ENTROPY = "high-entropy string"
NAMED_IN_TEXT = "token named in the text"


@dataclass(frozen=True)
class SecretFinding:
    """Where a secret starts and ends (offsets into the text), what kind it is, and how it was
    hidden, if it was (evasions.py). Never holds the secret itself."""

    kind: str
    start: int
    line: int
    column: int
    end: int
    hidden: str | None = None

    def describe(self) -> str:
        """``a GitHub token at line 1, column 12`` (``…, encoded in base64``)."""
        how = f", {self.hidden}" if self.hidden else ""
        return f"{_article(self.kind)} {self.kind}{how} at line {self.line}, column {self.column}"


def _article(kind: str) -> str:
    return "an" if kind[0].lower() in "aeiou" else "a"


def _finding(
    text: str, kind: str, start: int, end: int, hidden: str | None = None
) -> SecretFinding:
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return SecretFinding(kind, start, line, column, end, hidden)


LONG_RUN = 16  # every prefixed token and every named value is at least this long


def long_runs(text: str) -> list[tuple[int, int]]:
    """Where the runs of 16 or more non-space characters are: the only places a token can be.
    Ordinary chat has few (one in four turns has any), so most text is never looked at twice."""
    runs, cursor = [], 0
    for word in text.split():
        if len(word) >= LONG_RUN:
            start = text.find(word, cursor)
            cursor = start + len(word)
            runs.append((start, cursor))
    return runs


def _prefixed_matches(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, str, int]]:
    tables = _tables()
    spans = []
    for m in (m for a, b in runs for m in tables.prefix_scan.finditer(text, a, b)):
        start = m.start()
        for length in tables.prefix_lengths:  # the longest prefix that fits, then shorter ones
            for kind, body in tables.prefix_bodies.get(text[start : start + length], ()):
                found = body.match(text, start + length)
                if found is None:
                    continue
                value = found.group()
                # A vendor's prefix and a body of the right length is that vendor's token,
                # even ghp_xxxx... (REFERENCE blocks it); only words in the body's place are not.
                if stands_in(value.lower()) or (kind in WEAK_PREFIX_KINDS and made_of_words(value)):
                    continue
                spans.append((start, found.end(), kind, -1000 - length))
                break
            else:
                continue
            break
    return spans


def _named_matches(text: str, lowered: str) -> list[tuple[int, int, str, int]]:
    tables = _tables()
    spans = []
    for m in tables.named_scan.finditer(lowered):
        for kind, rule in tables.named_values[m.group()]:
            found = rule.match(text, m.end())
            if found is None:
                continue
            value = found.group("value")
            if (
                text.count("\n", m.end(), found.start("value")) > 1
                or is_placeholder(value)
                or made_of_words(value)
            ):
                continue
            spans.append((found.start("value"), found.end("value"), kind, _NAMED_PRIORITY))
            break
    return spans


def _format_matches(
    text: str, lowered: str, runs: list[tuple[int, int]]
) -> list[tuple[int, int, str, int]]:
    tables = _tables()
    kinds: set[str] = set()
    for needle, kind, insensitive in _NEEDLE_TABLE:
        if needle in (lowered if insensitive else text):
            kinds.add(kind)
    spans = _prefixed_matches(text, runs) + (_named_matches(text, lowered) if runs else [])
    for kind in kinds:
        for m in tables.rules[kind].finditer(text):
            value = m.groupdict().get("value")
            if value is not None and is_placeholder(value):
                continue
            if (
                kind == "password in connection string"
                and value is not None
                and is_code(text, value, m.end())
            ):
                continue  # password = request.form['password']: code, not a literal
            if kind == NAMED_IN_TEXT:  # the value is the secret: a named format inside it wins
                spans.append((m.start("value"), m.end("value"), kind, _PRIORITY[kind]))
            else:
                spans.append((m.start(), m.end(), kind, _PRIORITY[kind]))
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
            or is_code(text, value, m.end())
            or (len(value) >= 24 and decodes_to_data(value))  # base64 of text, not a key
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
    on the same line, so ``TOKEN=ghp_…`` is reported as a GitHub token. Secrets hidden by
    look-alike characters, spaces or an encoding are found too (evasions.py)."""
    runs = long_runs(text)
    spans = _spans(text, runs)
    found: list[tuple[int, int, str, str | None]] = [(a, b, kind, None) for a, b, kind in spans]
    for form, start, end, kind in _hidden(text, runs):
        if not any(a < end and start < b for a, b, _, _ in found):
            found.append((start, end, kind, form.how))
    return [_finding(text, kind, a, b, how) for a, b, kind, how in sorted(found)]


def _hidden(text: str, runs: list[tuple[int, int]]) -> Iterator[tuple[Form, int, int, str]]:
    """(form, start, end, kind) of each secret found in another form of ``text``, placed
    where it was written."""
    plain = folded(text)
    if plain is not None:
        for a, b, kind in _spans(plain.text, long_runs(plain.text)):
            if kind != HIGH_ENTROPY:  # text folded from other scripts is not random
                yield (plain, *plain.span(a, b), kind)
    for pieces in joined(text):
        for start in pieces.starts():
            if len(pieces.flat) - start < JOINED_MIN:
                break
            head = pieces.flat[start : start + 32]
            kinds = _starting_kinds(head)
            if kinds or _tables().prefix_scan.match(head) is not None:
                yield from _joined_token(pieces.form(start), kinds)
    for form in decoded(text, runs):
        for a, b, kind in _spans(form.text, long_runs(form.text)):
            yield (form, *form.span(a, b), kind)


def _joined_token(form: Form, kinds: list[str]) -> Iterator[tuple[Form, int, int, str]]:
    """The vendor token a joined form starts with, made of whole pieces, if any."""
    if form.cuts:
        for cut in reversed(form.cuts):  # a token is whole pieces: from this one to another
            if cut > form.cuts[0] and wordy(form.text[form.cuts[0] : cut]):
                continue  # words after a prefix ("GR1348941 are GitLab runner tokens")
            whole = _whole_token(form.text[:cut], kinds)
            if whole is not None:
                yield (form, *form.span(0, cut), whole)
                return


def _starting_kinds(text: str) -> list[str]:
    """The format kinds (secret_kinds.FORMATS) one of whose needles ``text`` starts with."""
    lowered = text[:32].lower()
    tables = _tables()
    if (
        tables.needle_start.match(text) is None
        and tables.needle_start_folded.match(lowered) is None
    ):
        return []
    return sorted(
        {
            kind
            for needle, kind, insensitive in _NEEDLE_TABLE
            if (lowered if insensitive else text).startswith(needle)
        }
    )


def _whole_token(part: str, kinds: list[str]) -> str | None:
    """The kind of vendor token ``part`` is, whole (a prefix and body, or one of ``kinds``'
    formats, from its first character to its last), or None."""
    for a, b, kind, _ in _prefixed_matches(part, [(0, len(part))]):
        if (a, b) == (0, len(part)):
            return kind
    rules = _tables().rules
    for kind in kinds:
        if (m := rules[kind].match(part)) is not None and m.end() == len(part):
            return kind
    return None


def _spans(text: str, runs: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every secret in ``text`` as written."""
    lowered = text.lower()
    public = (
        [(m.start(), m.end()) for m in _PUBLIC.finditer(text)]
        if any(needle in text for needle in _PUBLIC_NEEDLES)
        else []
    )
    spans: list[tuple[int, int, str]] = []
    for start, end, kind, _ in sorted(
        _format_matches(text, lowered, runs), key=lambda s: (s[0], s[3])
    ):
        if not any(a <= start < b for a, b, _ in spans) and not any(
            a <= start < b for a, b in public
        ):
            spans.append((start, end, kind))
    for start, end, kind in _assignment_matches(text, lowered):
        line_end = text.find("\n", start)
        limit = len(text) if line_end < 0 else line_end
        if not any(start <= a < limit or a <= start < b for a, b, _ in spans):
            spans.append((start, end, kind))
    if "://" in text:  # entropy alone never decides inside a URL (share links, ids in paths)
        public += [(m.start(), m.end()) for m in _URL.finditer(text)]
    for m in (m for a, b in runs for m in _TOKEN.finditer(text, a, b)):
        if any(a < m.end() and m.start() < b for a, b, _ in spans) or any(
            a <= m.start() < b for a, b in public
        ):
            continue
        token = m.group().rstrip("=")
        if "=" in token:  # NAME=value: only the value can be a secret
            token = token.rsplit("=", maxsplit=1)[1]
        if looks_random(token):
            spans.append((m.start(), m.end(), HIGH_ENTROPY))
    return sorted(spans)


def first_secret(text: str) -> SecretFinding | None:
    """The first secret in ``text``, or None."""
    findings = scan(text)
    return findings[0] if findings else None
