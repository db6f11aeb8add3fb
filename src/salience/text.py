"""Text helpers shared by every store: query terms and the normalised content hash; and text
as a terminal shows it."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

# Common English function words: they match everything and rank nothing.
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    did does doing i'm it's what's who's don't didn't can't won't isn't aren't wasn't weren't
    """.split()
)

_WORD = re.compile(r"\w+(?:'\w+)?", re.UNICODE)
_SPACE = re.compile(r"\s+", re.UNICODE)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal would act on or that reorder text (C0 and C1 controls but newline
and tab, bidirectional marks and overrides): never printed as they are."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` with every :data:`CONTROL` character shown as an escape (as the CLI prints
    memories: a memory's text never moves a person's cursor or reorders a line)."""
    return CONTROL.sub(_escape, text)


def query_terms(query: str) -> list[str]:
    """The searchable words of a natural-language query, lower-cased, stopwords dropped.

    If every word is a stopword, they are all kept (a query of only stopwords still means
    something). Order is kept; repeats are dropped. Punctuation and operator syntax of any
    search engine are not words, so they never reach the engine as syntax.
    """
    words = [w.lower() for w in _WORD.findall(query)]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(w for w in kept if w))


def normalize(content: str) -> str:
    """Unicode NFKC, case-folded, whitespace runs collapsed to one space and trimmed."""
    folded = unicodedata.normalize("NFKC", content).casefold()
    return _SPACE.sub(" ", folded).strip()


@functools.lru_cache(maxsize=32)  # a write hashes its text for dedup and again to store it
def content_hash(content: str) -> str:
    """SHA-256 of :func:`normalize`'d content: equal for texts differing only in case/spacing."""
    return hashlib.sha256(normalize(content).encode("utf-8", errors="surrogatepass")).hexdigest()
