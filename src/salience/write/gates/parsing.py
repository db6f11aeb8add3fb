"""How the learned half of the instruction detector (:mod:`salience.write.gates.learned`)
reads a text: cut into segments (lines, sentences, the fields of a JSON record, cells, short
tags), each segment's tokens (words in lower case, marks, and values an attacker changes at
will folded into their kind: ``<url>``, ``<email>``, ``<iban>``, ``<ip>``, ``<path>``,
``<num>``), the kinds of its words (:mod:`salience.write.gates.kinds`) and the features the
model weighs (:meth:`Parsed.features`). Every reading here that may hold a text's words is a
cache registered with :func:`~salience.text.holds_text` (an erasure empties it)."""

from __future__ import annotations

import re
from functools import cache, lru_cache
from itertools import chain, pairwise
from typing import NamedTuple

from salience.text import holds_text
from salience.write.gates.kinds import LEADS, VERBS, kinds_of

MAX_SEGMENT = 400
"""Characters of one segment; a longer one is cut at words (a segment is one order)."""

_TOKEN = re.compile(
    r"(?P<url>\bhttps?://\S+|\bwww\.\S+)"
    r"|(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|(?P<iban>\b[A-Z]{2}\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\b)"
    r"|(?P<ip>\b\d{1,3}(?:\.\d{1,3}){3}\b)"
    r"|(?P<path>(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]+)*/?)"
    r"|(?P<num>\d[\d,.]*)"
    r"|(?P<word>[^\W\d_][\w']*)"
    r"|(?P<mark>[^\w\s]{1,3})"
)
_SPLITS = (r"\n+", r"(?<=[.!?;])\s+(?=\S)")
_SPLITS_IF = (('"', r"\"\s*[,:]\s*\""), ("|", r"\s*\|\s*"), ("<", r"<[^<>]{1,20}>"))
"""Where a text is cut into segments: lines, sentences, and where a text holds the character
each needs, the fields of a JSON record, cells of a table, short tags (as written: the
pattern :func:`_splitter` makes finds the same cuts)."""
_FROM_FIRST = (r"(?<=\n)\n*", r"(?<=[.!?;]\s)\s*(?=\S)")
_FROM_FIRST_IF = (r"(?<=\")\s*[,:]\s*\"", r"(?<=\s)\s*\|\s*|(?<=\|)\s*", r"(?<=<)[^<>]{1,20}>")
"""The same cuts, each read past its first character (whitespace, or the character of its
:data:`_SPLITS_IF`), which a lookbehind checks is the one the cut as written starts with."""


@cache
def _splitter(holds: tuple[bool, ...]) -> re.Pattern[str]:
    """The cuts for a text holding the characters of :data:`_SPLITS_IF` as ``holds`` says: a
    cut whose character is not in the text is never tried at each of its characters.

    Every cut starts with whitespace or with its character, so the pattern opens with the
    class of those characters and reads the rest of each cut (:data:`_FROM_FIRST`, in the
    order of :data:`_SPLITS`): SRE searches for a pattern's opening class in C and tries the
    cuts only where it finds one, not at every character (a 3,000-character chat turn cut in
    49 µs, not 120). The same cuts, from the same places, as :func:`_cuts_as_written`."""
    kept = [
        (c, cut) for (c, _), cut, on in zip(_SPLITS_IF, _FROM_FIRST_IF, holds, strict=True) if on
    ]
    first = re.escape("".join(c for c, _ in kept))
    cuts = "|".join((*_FROM_FIRST, *(cut for _, cut in kept)))
    return re.compile(f"[\\s{first}](?:{cuts})")


def _cuts_as_written(holds: tuple[bool, ...]) -> re.Pattern[str]:
    """:func:`_splitter` as the cuts are written (what a test holds it to)."""
    kept = (cut for (_, cut), on in zip(_SPLITS_IF, holds, strict=True) if on)
    return re.compile("|".join((*_SPLITS, *kept)))


_PATH_WORDS = re.compile(r"[a-z][a-z0-9]+")


_PLAIN = re.compile(r"[^\W\d_][\w']*|[^\w\s]{1,3}")
_PLAIN_LOWER = re.compile(r"[a-z][a-z0-9_']+|[ai](?![a-z0-9_'])|[^a-z0-9_\s]{1,3}")
"""The tokens :data:`_PLAIN` finds in a lower-cased ASCII text, a lone letter but *a* and *i*
passed over by the pattern itself (its letter classes spelt out: faster than Unicode's)."""
_VALUE_HINT = re.compile(r"[@/\d]")
"""Without these characters (and *www.*) no value can be in a segment: only words and marks.
(One class: SRE searches for it in C; with *www.* beside it, it was tried at each character.)"""


def tokens(segment: str) -> list[str]:
    """The tokens of one segment: words (lower case), marks, and the kind of each value."""
    if not _VALUE_HINT.search(segment) and "www." not in segment:
        if segment.isascii():  # (lower-cased first: the same words, its marks have no case)
            return _PLAIN_LOWER.findall(segment.lower())
        return [
            t.lower() if t[0].isalpha() else t
            for t in _PLAIN.findall(segment)
            if len(t) > 1 or t in "aAiI" or not t[0].isalpha()
        ]
    out: list[str] = []
    for url, email, iban, _ip, path, num, word, mark in _TOKEN.findall(segment):
        if word:
            if len(word) > 1 or word in "aAiI":  # (a lone letter is a flag or an initial)
                out.append(word.lower())
        elif mark:
            out.append(mark)
        elif num:
            out.append("<num>")
        elif path:  # (which file: ".ssh", "credentials" say what is taken)
            out.append("<path>")
            out.extend(_PATH_WORDS.findall(path.lower()))
        else:
            out.append("<url>" if url else "<email>" if email else "<iban>" if iban else "<ip>")
    return out


def segments(text: str) -> list[str]:
    """``text`` cut into lines, sentences and fields, each at most :data:`MAX_SEGMENT`."""
    out: list[str] = []
    for part in _splitter(tuple(c in text for c, _ in _SPLITS_IF)).split(text):
        part = part.strip()
        while len(part) > MAX_SEGMENT:
            cut = part.rfind(" ", 0, MAX_SEGMENT)
            cut = cut if cut > MAX_SEGMENT // 2 else MAX_SEGMENT
            out.append(part[:cut])
            part = part[cut:].strip()
        if part:
            out.append(part)
    return out


class Parsed(NamedTuple):
    """One segment as the model reads it: its distinct words and marks (in order), every
    token in order (its pairs of neighbours are made from them when asked for), its other
    features, and the kinds of its words."""

    tokens: tuple[str, ...]
    found: tuple[str, ...]
    rest: tuple[str, ...]
    kinds: frozenset[str]

    @property
    def pairs(self) -> tuple[str, ...]:
        """The ``b:`` features: each distinct pair of neighbouring tokens (``<s>`` first)."""
        return tuple(dict.fromkeys([f"b:{a} {b}" for a, b in pairwise(("<s>", *self.found))]))

    def features(self, before: frozenset[str] = frozenset()) -> list[str]:
        """Every feature, as the fit counts them: ``w:`` each distinct word, ``c:`` letter
        groups of four of each distinct longer word (a group shared by two words counts
        twice), ``b:`` each distinct pair of neighbouring tokens (``<s>`` starts the
        segment), ``f:`` the kind of its first word, ``k:`` the kinds of its words, ``x:``
        each pair of kinds present together, ``p:`` the kinds of the segment ``before`` it
        ("Forget your task. Instead, ..." is one order in two)."""
        out = [f"w:{t}" for t in self.tokens]
        for token in self.tokens:
            out.extend(letter_groups(token))
        out.extend(self.pairs)
        out.extend(self.rest)
        out.extend(prior(before))
        return out


def features(segment: str, before: frozenset[str] = frozenset()) -> list[str]:
    """The features of one segment (see :meth:`Parsed.features`)."""
    return parse(segment).features(before)


@holds_text
@lru_cache(maxsize=1 << 16)
def letter_groups(token: str) -> tuple[str, ...]:
    """The ``c:`` features of a token: its letter groups of four if it is a longer word."""
    if len(token) < 5 or not token[0].isalpha():
        return ()
    padded = f"^{token}$"
    return tuple(f"c:{padded[i : i + 4]}" for i in range(len(padded) - 3))


@holds_text
@lru_cache(maxsize=1 << 12)
def parse(segment: str) -> Parsed:
    """``segment`` read (see :class:`Parsed`)."""
    found = tokens(segment)
    distinct = tuple(dict.fromkeys(found))
    present = set(chain.from_iterable(map(kinds_of, distinct)))
    first: tuple[str, ...] = ()
    for token in found:  # (the first word that is not a lead-in)
        kinds = kinds_of(token)
        if (kinds or token[0].isalpha()) and token not in LEADS:
            first = _first_features(kinds)
            if token in VERBS:
                present.add("imperative")
            break
    every = frozenset(present)
    return Parsed(distinct, tuple(found), (*first, *kind_features(every)), every)


@lru_cache(maxsize=1 << 8)
def _first_features(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The ``f:`` features of a segment's first word of these kinds."""
    return tuple(f"f:{k}" for k in kinds or ("other",))


@lru_cache(maxsize=1 << 12)
def prior(kinds: frozenset[str]) -> tuple[str, ...]:
    """The ``p:`` features of the kinds before, sorted: summed in one order in every process."""
    return tuple(f"p:{k}" for k in sorted(kinds))


@lru_cache(maxsize=1 << 12)
def kind_features(kinds: frozenset[str]) -> tuple[str, ...]:
    """The ``k:`` features of a segment's kinds and the ``x:`` features of each pair of them,
    sorted: summed in one order in every process."""
    ordered = sorted(kinds)
    pairs = (f"x:{a}+{b}" for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    return (*(f"k:{k}" for k in ordered), *pairs)


def read(text: str) -> list[tuple[str, Parsed, frozenset[str]]]:
    """Each segment of ``text``, read, with the kinds of the segment before it."""
    out: list[tuple[str, Parsed, frozenset[str]]] = []
    before: frozenset[str] = frozenset()
    for segment in segments(text):
        parsed = parse(segment)
        out.append((segment, parsed, before))
        before = parsed.kinds
    return out
