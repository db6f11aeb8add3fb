"""Secrets written so that a scanner reading the text as written misses them.

The scanner (secrets.py) also reads three other forms of a text, each made only when the
text could hide something in it, and maps what it finds there back to where it was written:

* **folded**: NFKC (fullwidth letters, mathematical bold and script letters, ligatures),
  letters that only look Latin (Cyrillic, Greek, Armenian) folded to ASCII, and invisible
  characters (zero-width, bidi controls, tag characters, soft hyphens) dropped. Made only
  for text that is not ASCII.
* **joined**: a run of short pieces split by single spaces (``AKIA IOSF ODNN 7EXA MPLE``), read
  as one word from each piece on: only a vendor's prefix and body count there, never entropy
  or an assignment, so that ordinary words run together cannot look like a key.
* **decoded**: a base64 or hex run that decodes to printable text (a token pasted encoded),
  read once as text.

Each finding keeps the kind the scanner gives it, and says how it was hidden.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

# Letters of other scripts drawn like ASCII ones (from Unicode's confusables: those that pass
# for Latin letters and digits in ordinary fonts): each look-alike above its ASCII letter.
_LOOKALIKE_PAIRS = (
    # Cyrillic
    (
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0423"
        "\u0406\u0408\u0405\u0500\u050c\u04ae\u04c0\u051a\u051c\u0417\u0431\u0430"
        "\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u04bb\u0501\u051b"
        "\u051d\u04cf\u0475\u04af",
        "ABEKMHOPCTXYIJSDGYIQW36aeopcyxijshdqwlvy",
    ),
    # Greek
    (
        "\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4"
        "\u03a5\u03a7\u03bf\u03bd\u03b1\u03b9\u03ba\u03c1\u03c4\u03c5\u03c7\u03f2"
        "\u03f3",
        "ABEZHIKMNOPTYXovaikptuxcj",
    ),
    # Armenian
    (
        "\u0585\u057d\u0581\u0570\u0578\u0582\u054d\u0555",
        "oughnlUO",
    ),
    # Latin (IPA)
    (
        "\u0261",
        "g",
    ),
)
_LOOKALIKES = {k: v for src, dst in _LOOKALIKE_PAIRS for k, v in zip(src, dst, strict=True)}
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)
_PIECES = re.compile(r"(?<!\S)[A-Za-z0-9_+/=-]{1,12}(?: [A-Za-z0-9_+/=-]{1,12}){2,}(?!\S)")
_DIGIT = re.compile(r"[0-9]")
_CAPITAL = re.compile(r"[A-Z_-]")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_HEXRUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){16,}(?![0-9A-Fa-f])")
JOINED_MIN = 16  # no vendor's token is shorter
JOINED_MAX = 160  # nor this much longer


@dataclass(frozen=True)
class Form:
    """Another form of a text: its characters, where each came from in the text as written
    (``origin[i]`` for character ``i``), and how it was made. A decoded form came from one
    encoded run as a whole (``whole``)."""

    text: str
    origin: tuple[int, ...]
    how: str
    whole: tuple[int, int] | None = None
    cuts: tuple[int, ...] = ()
    """Of a joined form: where each piece ends in ``text`` (a token ends at one of them)."""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Where characters ``start:end`` of this form were written."""
        if self.whole is not None:
            return self.whole
        return self.origin[start], self.origin[max(start, end - 1)] + 1


def folded(text: str) -> Form | None:
    """``text`` with compatibility forms, look-alike letters and invisible characters folded
    to ASCII, or None when nothing would change (always for ASCII text)."""
    if text.isascii():
        return None
    if (
        unicodedata.is_normalized("NFKC", text)
        and not _INVISIBLE.search(text)
        and not any(c in _LOOKALIKES for c in text)
    ):
        return None
    chars: list[str] = []
    origin: list[int] = []
    for at, char in enumerate(text):
        if _INVISIBLE.match(char):
            continue
        for piece in unicodedata.normalize("NFKC", char):
            chars.append(_LOOKALIKES.get(piece, piece))
            origin.append(at)
    return Form("".join(chars), tuple(origin), "written with look-alike characters")


@dataclass(frozen=True)
class Pieces:
    """A run of short pieces split by single spaces, joined: ``flat`` is the run without its
    spaces, ``origin[i]`` where character ``i`` was written, ``ends`` where each piece ends in
    ``flat`` (a piece starts at 0 or at the end of the one before)."""

    flat: str
    origin: tuple[int, ...]
    ends: tuple[int, ...]

    def starts(self) -> Iterator[int]:
        """Where each piece starts in ``flat``."""
        yield 0
        yield from self.ends[:-1]

    def form(self, start: int) -> Form:
        """The run read as one word from the piece at ``start`` on (up to :data:`JOINED_MAX`
        characters), with the piece ends after it as its cuts."""
        cuts = tuple(e - start for e in self.ends if start < e <= start + JOINED_MAX)
        last = cuts[-1] if cuts else 0
        return Form(
            self.flat[start : start + last],
            self.origin[start : start + last],
            "split by spaces",
            cuts=cuts,
        )


def joined(text: str) -> Iterator[Pieces]:
    """Each run of short pieces split by single spaces that has a digit and a capital letter
    or ``_``/``-`` (what a token has and prose mostly lacks)."""
    if _DIGIT.search(text) is None:
        return
    for run in _PIECES.finditer(text):
        value = run.group()
        if _DIGIT.search(value) is None or _CAPITAL.search(value) is None:
            continue
        origin: list[int] = []
        ends: list[int] = []
        for at, char in enumerate(value, start=run.start()):
            if char == " ":
                ends.append(len(origin))
            else:
                origin.append(at)
        ends.append(len(origin))
        yield Pieces(value.replace(" ", ""), tuple(origin), tuple(ends))


def _printable(raw: bytes) -> str | None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    shown = sum(c.isprintable() or c in "\t\n\r" for c in decoded)
    return decoded if decoded and shown / len(decoded) >= 0.95 else None


def decoded(text: str, runs: list[tuple[int, int]]) -> Iterator[Form]:
    """Each base64 or hex run of ``runs`` (the long runs) that decodes to printable text."""
    for a, b in runs:
        for match in _BASE64.finditer(text, a, b):
            value = match.group().replace("-", "+").replace("_", "/").rstrip("=")
            try:
                raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
            except (binascii.Error, ValueError):
                continue
            plain = _printable(raw)
            if plain is not None:
                yield _whole(plain, match.start(), match.end(), "encoded in base64")
        for match in _HEXRUN.finditer(text, a, b):
            plain = _printable(bytes.fromhex(match.group()))
            if plain is not None:
                yield _whole(plain, match.start(), match.end(), "encoded in hex")


def _whole(plain: str, start: int, end: int, how: str) -> Form:
    """A decoded form: every character of it came from the whole encoded run."""
    return Form(plain, (), how, whole=(start, end))
