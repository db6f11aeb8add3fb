"""Text helpers shared by every store: query terms and the normalised content hash; text as
a terminal shows it; and the process's caches that may hold a memory's words, in one list
that an erasure empties.

A cache keyed by text keeps the words of a memory after the memory is purged, for as long as
the process runs: a write's reading of its nearest memories
(:mod:`salience.write.update_sentences`), the instruction detector's segments and tokens, the
input of a content hash. Each such cache is registered (:func:`holds_text`), and
:func:`forget_cached_texts` empties every one: in the process that purges or erases
(``Scrubbing._scrubbed``), and in every other process when its briefing columns or vector rows
learn that rows were deleted (``ColumnSnapshot``, ``VectorRows``: a server that recalls or
briefs, a worker that writes, after another process's purge). ``tests/test_text.py`` finds
every cache in the package and fails on one that is neither registered nor listed there as
holding no text.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
import weakref
import zlib
from collections.abc import Collection
from typing import Any, NamedTuple, Protocol, TypeVar


class Cached(Protocol):
    """A ``functools`` cache: what :func:`forget_cached_texts` needs of it."""

    def cache_clear(self) -> None: ...

    def cache_info(self) -> Any: ...


C = TypeVar("C", bound=Cached)

_HOLDING: list[Cached] = []
_HOLDING_LOCK = threading.Lock()


def holds_text(cached: C) -> C:
    """Register ``cached`` (a ``functools.lru_cache`` or ``cache``) as holding text; returns
    it unchanged, so that it stacks above the cache's own decorator."""
    with _HOLDING_LOCK:
        _HOLDING.append(cached)
    return cached


K = TypeVar("K")
V = TypeVar("V")


class HeldTexts(dict[K, V]):
    """A dict whose keys or values may hold a memory's words (a cache an object keeps, not a
    decorated function's): emptied with every registered cache (:func:`forget_cached_texts`,
    an erasure), and holding at most ``most`` entries (:meth:`keep` starts it again when
    full), so that a long-running process neither keeps a purged memory's words nor grows
    without end."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most = most
        with _HELD_LOCK:
            _HELD[:] = [ref for ref in _HELD if ref() is not None]
            _HELD.append(weakref.ref(self))

    def keep(self, key: K, value: V) -> V:
        """``value`` kept under ``key`` (the others dropped first if ``most`` are kept)."""
        if len(self) >= self.most and key not in self:
            self.clear()
        self[key] = value
        return value


_HELD: list[weakref.ref[HeldTexts[Any, Any]]] = []
_HELD_LOCK = threading.Lock()


class _Size(NamedTuple):
    currsize: int


class _EveryHeldTexts:
    """Every live :class:`HeldTexts`, as one registered cache."""

    def _live(self) -> list[HeldTexts[Any, Any]]:
        with _HELD_LOCK:
            return [held for ref in _HELD if (held := ref()) is not None]

    def cache_info(self) -> _Size:
        return _Size(sum(map(len, self._live())))

    def cache_clear(self) -> None:
        for held in self._live():
            held.clear()


holds_text(_EveryHeldTexts())


def text_caches() -> tuple[Cached, ...]:
    """The caches registered so far (those of the modules imported)."""
    with _HOLDING_LOCK:
        return tuple(_HOLDING)


def forget_cached_texts() -> int:
    """Empty every registered cache; returns how many entries they held."""
    count = 0
    for cached in text_caches():
        count += int(cached.cache_info().currsize)
        cached.cache_clear()
    return count


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


@holds_text
@functools.lru_cache(maxsize=32)  # a write hashes its text for dedup and again to store it
def content_hash(content: str) -> str:
    """SHA-256 of :func:`normalize`'d content: equal for texts differing only in case/spacing."""
    import hashlib  # (writes only: a cold briefing never hashes, and OpenSSL costs it ~2 ms)

    return hashlib.sha256(normalize(content).encode("utf-8", errors="surrogatepass")).hexdigest()


_LABEL = re.compile(r"\s*([A-Z][\w'\u2019.-]*(?: [A-Z][\w'\u2019.-]*){0,2}):\s+")
"""A line's label: one to three capitalised words and a colon ("Melanie: ", "Update: ")."""
NOT_SPEAKERS = frozenset(
    """
    note notes update updated correction edit todo fyi ps nb decision fact facts summary
    important warning caution tip reminder context status result results answer question
    re subject title topic preference goal plan issue problem fix solution
    """.split()
)
"""Labels that say what a line is, not who says it."""
_NAME = re.compile(r"[a-z0-9]+")
NAME_WORDS = 3
"""A speaker's name has at most this many words (a label's)."""


def label(line: str) -> tuple[str, int]:
    """Who says ``line`` (its label, lower-cased: "" when it has none, or one that says what a
    line is) and where what is said starts."""
    found = _LABEL.match(line)
    if found is None:
        return "", 0
    said = found.group(1).lower()
    return ("" if said in NOT_SPEAKERS else said), found.end()


def name_key(name: str) -> int:
    """A name as a number, the same in every process (a column holds it, never the name): its
    words, lower-cased, by :func:`_key`; 0 for a name of no words."""
    words = _NAME.findall(name.lower())
    return _key(" ".join(words).encode("utf-8")) if words else 0


def _key(words: bytes) -> int:
    """The CRC-32 of the words, and their length above it (never 0): two names share a key
    one time in four billion, and then a question only seems to name someone it does not."""
    return zlib.crc32(words) | (len(words) << 32)


def named_keys(text: str, among: Collection[int] | None = None) -> frozenset[int]:
    """The :func:`name_key` of every run of one to :data:`NAME_WORDS` words of ``text``:
    whether it names someone is whether their key is among these. ``among``: only the keys
    that may be one of these (a run of another length in bytes, which a key holds, is
    passed over unhashed)."""
    words = [w.encode("utf-8") for w in _NAME.findall(text.lower())]
    if among is None:
        return frozenset(
            _key(b" ".join(words[i : i + n]))
            for n in range(1, NAME_WORDS + 1)
            for i in range(len(words) - n + 1)
        )
    lengths = {key >> 32 for key in among}
    found = set()
    for i in range(len(words)):
        size = -1  # (the run's length once joined: a space between two words)
        for n, word in enumerate(words[i : i + NAME_WORDS], 1):
            size += len(word) + 1
            if size in lengths:
                found.add(_key(b" ".join(words[i : i + n])))
    return frozenset(found)
