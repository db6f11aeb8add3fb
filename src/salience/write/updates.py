"""Updates: a new memory that speaks of the same subject as an older one and says something
different about it, found without a language model.

Two memories are compared sentence by sentence. A pair of sentences speaks of the same
subject when they share at least :data:`MIN_SHARED` content words (stopwords, chat filler and
the values themselves aside; :data:`LONG_SHARED` for two long sentences, unless both are the
speaker's own and what changed is a measure: a number, an amount, a time, a day). It says
something different when:

- a **value** differs: a number, an amount, a time or a date, a weekday, a named thing (a
  capitalised word inside a sentence) or a place (the words after *in*, *under*, *at*, ...),
  with a value of the old sentence gone from the new one and a new one in its place;
- one says **no** where the other does not (*not*, *no longer*, *never*, *n't*);
- or the new one has **words of change** (*now*, *moved*, *switched to*, *instead*, ...)
  beside a value of its own, or says what it replaced (*tea instead of coffee*).

Two guards keep look-alikes out: a new sentence that *adds* (*also*, *another*, *too*, *as
well*) without a word of change, and two sentences about different people (*my sister* and
*my brother*). Every decision is explained: the shared words, the values that differ, the
words of change. :func:`compare` is pure; the engine chooses the candidates (the memories
nearest the new one) and what to do with a found update (a policy: link, supersede, off).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from salience.text import STOPWORDS
from salience.write.statements import statements
from salience.write.update_words import (
    ADDING,
    CALENDAR,
    CHANGE,
    DETERMINERS,
    DIGITS,
    JOINING,
    LIGHT,
    MINE,
    NEGATIONS,
    NUMBER_WORDS,
    PEOPLE,
    PLACE_AFTER,
    PLACE_IF_NAMED,
    SKIPPED,
    STRONG_CHANGE,
)

MIN_SHARED = 2
"""Content words two sentences must share to speak of the same subject..."""
LONG_SHARED = 3
"""... (two long sentences: this many) ..."""
SHORT_OVERLAP = 0.5
"""... or this share of the shorter one's content words (one at the least) ..."""
ANCHOR = 4
"""How near a shared word (in words) a differing value or a "no" must stand to count."""
DOCUMENT_WORDS = 120
"""Past this many words (of the sentences read) a memory is a document: an answer, a page, a
list. A fact that changes is said in a sentence or two; of two documents on one subject, the
values one names and the other does not are more often two topics than an update (on
LongMemEval's dev turns, 95 % of the user's evidence turns hold at most 87 words)."""
SHORT_WORDS = 12
"""... or one, in two sentences this short, when the new one says it moved or switched."""

_MEASURES = frozenset(("number", "time", "when", "amount"))
"""The sorts of value a person's own routine or count changes by (a place or a name may be a
second topic as easily)."""
_CLOCK = re.compile(r"(\d{1,2})(?::([0-5]\d))?(am|pm)?")
"""A time of day as written: "7", "7:00", "7pm", "7:00pm"."""
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
"""An ordinal in digits ("5th"): the same value as "fifth" and "5"."""
_TOKEN = re.compile(r"\$?\d[\d,.:/%-]*\w*|[A-Za-z][A-Za-z'\u2019-]*")


@dataclass(frozen=True)
class Update:
    """A found update: the older memory, how sure (0..1), and why in words."""

    old_id: str
    confidence: float
    why: str


@dataclass(frozen=True)
class _Sentence:
    """A sentence read for comparison. What only a pair on the same subject needs is read
    when first asked for (most candidates share too few words: a write compares twelve)."""

    raw: tuple[str, ...]  # the words as written
    words: tuple[str, ...]  # lower-cased, in order
    stems: tuple[str, ...]  # each word's stem ("" for a word that says nothing of the subject)
    subject: frozenset[str]  # the stems that say what it is about
    speaker: str  # the label its line opened with ("melanie" of "Melanie: ..."), or ""

    @functools.cached_property
    def values(self) -> dict[str, int]:
        """Each value, at its position."""
        return _values(self.raw, self.words)

    @functools.cached_property
    def personal(self) -> bool:
        """Whether it speaks of the speaker (I, my, we)."""
        return any(w in MINE for w in self.words)

    @functools.cached_property
    def people(self) -> frozenset[str]:
        return PEOPLE.intersection(map(_stem, self.words))

    @functools.cached_property
    def negations(self) -> tuple[int, ...]:
        """The positions of the words that say no."""
        words = self.words
        return tuple(
            i for i, w in enumerate(words) if w in NEGATIONS or w.endswith(("n't", "n\u2019t"))
        ) + tuple(i for i, w in enumerate(words) if w == "longer" and i and words[i - 1] == "no")

    @functools.cached_property
    def replacing(self) -> frozenset[str]:
        """What it says it replaced: the words after "instead of" (up to three, to the next
        joining word), as stems and as values."""
        words = self.words
        found: set[str] = set()
        for i in range(len(words) - 2):
            if words[i] == "instead" and words[i + 1] == "of":
                for word in [w for w in words[i + 2 : i + 6] if w not in DETERMINERS][:3]:
                    if word in JOINING:
                        break
                    found |= {_stem(word), word.rstrip(".,:/-"), DIGITS.get(word, word)}
        return frozenset(found)

    @functools.cached_property
    def change(self) -> tuple[str, ...]:
        """Its words of change."""
        return tuple(c for c in CHANGE if f" {c} " in self._joined)

    @functools.cached_property
    def adding(self) -> bool:
        return any(f" {a} " in self._joined for a in ADDING)

    @functools.cached_property
    def _joined(self) -> str:
        return " " + " ".join(self.words) + " "

    def shown(self, key: str) -> str:
        """A stem or a value as the sentence wrote it (lower-cased)."""
        key = key.lstrip("@")
        for word, stem in zip(self.words, self.stems, strict=True):
            if key in (stem, word, _stem(word)):
                return word
        at = self.values.get(key) if ":" in key else None  # ("19:00" of "7 pm": "7")
        return key if at is None else self.words[at]

    def says(self, value: str) -> bool:
        """Whether a value (of another sentence) is among this one's words too."""
        word = value.lstrip("@")
        return word in self.stems or word in self.words

    def near(self, position: int, shared: frozenset[str]) -> bool:
        """Whether a shared word stands within :data:`ANCHOR` words of ``position``."""
        low, high = max(0, position - ANCHOR), position + ANCHOR + 1
        return any(s in shared for s in self.stems[low:high])


_KEEP_S = ("ss", "us", "is")
"""Endings whose final s is no plural (class, bus, this)."""
_ES_AFTER = ("ss", "x", "z", "ch", "sh")
"""What a plural's -es follows ("classes", "boxes", "watches"); after anything else (an e:
"issues", "shoes", "houses") the plural adds an s only."""


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A word without its plural, possessive, -ing or -ed ending ("finishing", "finished":
    "finish"; cached: a write reads its candidates' words again and again)."""
    word = word.replace("\u2019", "'").removesuffix("'s")
    size = len(word)
    if (size > 5 and word.endswith(("ing", "ied"))) or (size > 4 and word.endswith("ies")):
        return word[:-3] + ("" if word[-1] == "g" else "y")  # ("studied", "studies": "study")
    if size > 5 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if size > 4 and word.endswith("es") and word[:-2].endswith(_ES_AFTER):
        return word[:-2]  # ("boxes", "watches"; "issues", "houses" lose their s only)
    if size > 3 and word.endswith("s") and not word.endswith(_KEEP_S):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=65536)
def _subject_stem(word: str) -> str:
    """A word's stem if it may name what a sentence is about, else "" (lower-cased)."""
    return _stem(word) if len(word) > 2 and word[0].isalpha() and word not in SKIPPED else ""


def _kind(value: str) -> str:
    """What sort of value it is: one replaces another of its sort (a time a time, a place a
    place), never a number a name."""
    if value.startswith("@"):
        return "place"
    if value.startswith("$"):
        return "amount"
    if value[0].isdigit():
        return "time" if ":" in value or value.endswith(("am", "pm")) else "number"
    if value in CALENDAR or value + "s" in CALENDAR:
        return "when"
    if value in NUMBER_WORDS or value in ("1x", "2x", "3x"):
        return "number"
    return "name"


def _clock(value: str, after: str) -> str:
    """A time of day in one form, with its half of the day in it or in the next word ("7pm",
    "7 pm", "7:00 pm" are "19:00"; "6:30am" is "6:30"); any other value as it was."""
    found = _CLOCK.fullmatch(value)
    half = None if found is None else found[3] or (after if after in ("am", "pm") else None)
    if found is None or half is None or not 1 <= int(found[1]) <= 12:
        return value
    return f"{int(found[1]) % 12 + (12 if half == 'pm' else 0)}:{found[2] or '00'}"


def _values(raw: tuple[str, ...], words: tuple[str, ...]) -> dict[str, int]:
    found: dict[str, int] = {}
    for i, (token, word) in enumerate(zip(raw, words, strict=True)):
        if token[0].isdigit() or token[0] == "$":
            value = _ORDINAL.sub(r"\1", word.rstrip(".,:/-"))
            found[_clock(value, words[i + 1] if i + 1 < len(words) else "")] = i
        elif word in NUMBER_WORDS:
            found[DIGITS.get(word, word)] = i
        elif word in CALENDAR:
            found[word.removesuffix("s")] = i
        elif token[0].isupper() and i > 0 and word not in STOPWORDS and not word.startswith("i'"):
            found[_stem(word)] = i
        elif word in PLACE_AFTER and i + 1 < len(words):
            if word in PLACE_IF_NAMED and words[i + 1] not in DETERMINERS:
                continue  # ("to take", "on Wednesday": not a place)
            rest = [w for w in words[i + 1 : i + 4] if w not in DETERMINERS]
            if rest and rest[0].isalpha() and rest[0] not in SKIPPED:
                found.setdefault("@" + _stem(rest[0]), i + 1 + words[i + 1 :].index(rest[0]))
    return found


def _sentence(text: str, speaker: str) -> _Sentence:
    raw = tuple(_TOKEN.findall(text))
    words = tuple(t.lower() for t in raw)
    stems = tuple(map(_subject_stem, words))
    return _Sentence(raw, words, stems, frozenset(stems) - {""}, speaker)


@functools.lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[_Sentence, ...]:
    """The sentences of a memory, read for comparison (cached: a write compares itself with
    its nearest memories, and the next write on that subject with many of the same)."""
    return tuple(_sentence(said, speaker) for speaker, said in statements(text))


@dataclass(frozen=True)
class Names:
    """The names a memory says (capitalised words inside its sentences, as stems)."""

    stems: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.stems)

    def said(self, text: str) -> bool:
        """Whether another memory's text names one of them too, in any of its sentences (a
        question's too: "Can you fill in the National Geographic section?"); read word by
        word only when one of them is among its letters."""
        lowered = text.lower()
        if not any(name in lowered for name in self.stems):
            return False
        return not self.stems.isdisjoint(map(_stem, _TOKEN.findall(lowered)))


def names(read: Sequence[_Sentence]) -> Names:
    """The names the memory read as ``read`` says."""
    return Names(frozenset(v for s in read for v in s.values if _kind(v) == "name"))


def compare(new: Sequence[_Sentence], old: Sequence[_Sentence], old_id: str) -> Update | None:
    """Whether the memory read as ``new`` updates the one read as ``old`` (its id): the best
    explained pair of their sentences, or None. Two documents (both over
    :data:`DOCUMENT_WORDS`) never update one another."""
    if min(sum(len(s.words) for s in new), sum(len(s.words) for s in old)) > DOCUMENT_WORDS:
        return None
    best: Update | None = None
    for n in new:
        for o in old:
            found = _pair(n, o, old_id)
            if found is not None and (best is None or found.confidence > best.confidence):
                best = found
    return best


def _subject(n: _Sentence, o: _Sentence, strong: frozenset[str]) -> str:
    """Whether two sentences speak of one subject: "same", "own" (long, sharing two words,
    both the speaker's: only a measure of one's own may change), or "" (too little in common,
    two people's facts or two speakers' words)."""
    smaller = min(len(n.subject - LIGHT), len(o.subject - LIGHT)) or 1
    short = len(n.words) <= SHORT_WORDS and len(o.words) <= SHORT_WORDS
    moved = any(c in STRONG_CHANGE for c in n.change)
    needed = MIN_SHARED if short or min(len(n.words), len(o.words)) <= SHORT_WORDS else LONG_SHARED
    found = "same"
    if not (
        len(strong) >= needed
        or (strong and short and (len(strong) / smaller >= SHORT_OVERLAP or moved))
    ):
        found = "own" if len(strong) >= MIN_SHARED and n.personal and o.personal else ""
    if not found:
        return ""
    if n.people != o.people and (n.people and o.people):
        return ""
    if n.speaker != o.speaker and n.speaker and o.speaker:
        return ""
    return found


def _happened(n: _Sentence, shared: frozenset[str]) -> bool:
    """Whether the shared words say something happened (a verb in the past: "failed")."""
    return any(
        w.endswith("ed") and not w.endswith("eed") and len(w) > 4 and s in shared
        for w, s in zip(n.words, n.stems, strict=True)
    )


def _pair(n: _Sentence, o: _Sentence, old_id: str) -> Update | None:
    replaced = {w for w in n.replacing if o.says(w)}  # ("tea instead of coffee": the old's)
    shared = (n.subject & o.subject) - replaced
    strong = shared - LIGHT
    short = len(n.words) <= SHORT_WORDS and len(o.words) <= SHORT_WORDS
    subject = _subject(n, o, strong)
    if not subject:
        return None
    if n.adding and not n.change:
        return None  # ("I also bought ...": one more, not another value)
    named_o = dict(o.values) | {w: o.words.index(w) for w in n.values if w in o.words}
    named_n = dict(n.values) | {w: n.words.index(w) for w in o.values if w in n.words}
    named_n = {v: i for v, i in named_n.items() if v not in replaced}
    gone = sorted(
        v for v, i in named_o.items() if v not in named_n and o.near(i, shared) and not n.says(v)
    )
    came = sorted(
        v for v, i in named_n.items() if v not in named_o and n.near(i, shared) and not o.says(v)
    )
    kinds = {_kind(v) for v in gone} & {_kind(v) for v in came}
    if replaced:  # (said outright: what it replaced, and what it says in its place)
        gone = sorted(set(gone) | {w for w in replaced if w in o.values or w in o.subject})
        came = came or sorted(n.subject - o.subject - replaced)[:3]
        kinds = {"said"} if came else kinds
    if subject == "own" and not kinds & _MEASURES and not replaced:
        return None
    if kinds and kinds <= {"when"} and not n.change and _happened(n, shared):
        return None  # (one kind of event on two days: "the deploy on Monday failed")
    changed = bool(kinds)  # (a value for one of its sort)
    said_no = [i for i in n.negations if n.near(i, shared)]
    was_no = [i for i in o.negations if o.near(i, shared)]
    flipped = bool(said_no) != bool(was_no) and (short or len(strong) >= LONG_SHARED)
    swapped = bool(n.change) and bool(n.subject - o.subject) and bool(o.subject - n.subject)
    if not (changed or flipped or (n.change and (came or (swapped and short)))):
        return None
    confidence = 0.3 + 0.08 * min(len(strong), 5)
    reasons = [f"same subject ({', '.join(sorted(n.shown(w) for w in strong)[:5])})"]
    if changed:
        confidence += 0.3
        before, after = (o.shown(v) for v in gone[:3]), (n.shown(v) for v in came[:3])
        reasons.append(f"{', '.join(before)} -> {', '.join(after)}")
    elif swapped and not flipped:
        said = sorted(n.shown(w) for w in n.subject - o.subject)[:3]
        reasons.append(f"now says {', '.join(said)}")
    if flipped:
        confidence += 0.15
        reasons.append("one says no")
    if n.change:
        confidence += 0.15
        reasons.append(f"words of change: {', '.join(n.change)}")
    return Update(old_id, round(min(confidence, 1.0), 3), "; ".join(reasons))
