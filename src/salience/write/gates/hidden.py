"""Characters that hide text from a reader: Unicode tag characters (which can spell a whole
hidden ASCII text), bidi overrides and isolates (which reorder what is shown), and runs of
zero-width characters. :func:`hidden_characters` counts them, :func:`strip_hidden` removes
them, and :func:`reveal` spells tag text out so that the instruction rules
(:mod:`salience.write.gates.instructions`) judge what a model would read."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

TAGS = re.compile("[\U000e0000-\U000e007f]")
FLAG_TAGS = re.compile("\U0001f3f4[\U000e0061-\U000e007a]{2,6}\U000e007f")
"""Subdivision flags (England, Scotland, Wales) are the one legitimate use of tag characters."""
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u180e\ufeff"
ZERO_RUN = re.compile(f"[{ZERO_WIDTH}]{{2,}}|[\u200b\u2060\u180e\ufeff]")
"""Zero-width characters in runs (one joiner alone shapes Indic, Persian and emoji text)."""
_ANY = re.compile(f"[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069{ZERO_WIDTH}]")
"""Any character of the kinds above: a text without one hides nothing (one search, where
counting each kind reads a long text four times: ~25 against ~140 µs for 4,000 characters)."""
_FLAG_OR_TAG = re.compile(f"({FLAG_TAGS.pattern})|{TAGS.pattern}")


@dataclass(frozen=True)
class Hidden:
    """What a text hides: how many tag characters, bidi controls and zero-width characters."""

    tags: int
    bidi: int
    zero_width: int

    def __bool__(self) -> bool:
        return bool(self.tags or self.bidi or self.zero_width)

    def describe(self) -> str:
        parts = [
            f"{count} {name}"
            for count, name in (
                (self.tags, "tag characters"),
                (self.bidi, "bidi controls"),
                (self.zero_width, "zero-width characters"),
            )
            if count
        ]
        return ", ".join(parts)


def hidden_characters(text: str) -> Hidden:
    """The characters of ``text`` that hide text (see the module)."""
    if text.isascii() or not _ANY.search(text):
        return Hidden(0, 0, 0)
    unflagged = FLAG_TAGS.sub("", text)
    zero = sum(len(m.group()) for m in ZERO_RUN.finditer(text))
    return Hidden(len(TAGS.findall(unflagged)), len(BIDI.findall(text)), zero)


def strip_hidden(text: str) -> str:
    """``text`` without its hiding characters (subdivision flags and lone joiners kept)."""
    if text.isascii() or not _ANY.search(text):
        return text
    unflagged = _FLAG_OR_TAG.sub(lambda m: m.group(1) or "", text)  # (a flag is kept whole)
    return ZERO_RUN.sub("", BIDI.sub("", unflagged))


def reveal(text: str) -> str:
    """``text`` as a reader should judge it: tag characters spelled out as the ASCII they
    encode, other hiding characters dropped, compatibility forms folded (NFKC)."""
    if text.isascii():
        return text
    if not _ANY.search(text):
        return unicodedata.normalize("NFKC", text)
    spelled = TAGS.sub(
        lambda m: chr(ord(m.group()) - 0xE0000) if 0x20 <= ord(m.group()) - 0xE0000 < 0x7F else "",
        text,
    )
    return unicodedata.normalize("NFKC", ZERO_RUN.sub("", BIDI.sub("", spelled)))
