"""A memory read for update detection (:mod:`salience.write.updates`), sentence by
sentence: its words, their stems, the words that say what it is about, and its values (a
number, an amount, a time, a date, a day, a named thing, a place, which item of a series),
with what only a pair on one subject needs read when first asked for."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from salience.lazy import once
from salience.text import STOPWORDS, holds_text
from salience.write.statements import statements
from salience.write.update_values import kind_of, named_by, number_sort, opens_name, values_of
from salience.write.update_words import (
    ADDING,
    BEFORE_ING,
    CHANGE,
    ENDING,
    ENDING_PAIRS,
    IDIOMS,
    LIGHT,
    MINE,
    NEGATIONS,
    NUMBER_WORDS,
    PENDING,
    PEOPLE,
    REPLACING,
    SETTLED,
    SKIPPED,
    STRONG_CHANGE,
    SWAPPING,
    stem,
    stops,
    subject_stem,
)

_SPEAKER_FIRST = frozenset("i i'm i've i'd i'll we we've we're".split())
"""The words a sentence about the speaker opens with."""
ANCHOR = 4
"""How near a shared word (in words) a differing value or a "no" must stand to count."""

TOKEN = re.compile(r"\$?\d[\d,.:/%-]*\w*|[A-Za-z]+(?:\d\w*|[A-Za-z'\u2019-]*)")
"""A number (with what is written onto it: "5th", "7pm", "4B"), a code of letters and digits
("d5", "Nf6", "Q3": one name, not a count), or a word. (A word's letters are read once: as
two alternatives, letters then a digit, else a word, each letter was read again and again.)"""
_CLAUSES = re.compile(
    r"[,;:()]\s+|\s+(?=(?:but|although|though|whereas|while)\b)|\s[-\u2013\u2014]\s"
)
"""Where a sentence's clauses meet: a "no" speaks of its own clause ("I couldn't find
parking, but dinner at Nopa was great" says nothing against the dinner)."""
_CAPITALS = re.compile(r"[A-Z][A-Z]")
"""Two capitals side by side: what a word of two capitals needs (most sentences have none)."""
_HALVES = frozenset(("am", "pm"))
"""Two capitals that say the half of a day ("7 PM"), not what a sentence is about."""


@dataclass(frozen=True)
class Sentence:
    """A sentence read for comparison. What only a pair on the same subject needs is read
    when first asked for (most candidates share too few words: a write compares twelve)."""

    raw: tuple[str, ...]  # the words as written
    words: tuple[str, ...]  # lower-cased, in order
    stems: tuple[str, ...]  # each word's stem ("" for a word that says nothing of the subject)
    subject: frozenset[str]  # the stems that say what it is about
    speaker: str  # the label its line opened with ("melanie" of "Melanie: ..."), or ""
    text: str  # the sentence as written

    @once
    def values(self) -> dict[str, int]:
        """Each value, where it is first said."""
        return values_of(self.raw, self.words)

    @once
    def topic(self) -> str:
        """What it is about, by its first word that says: the first stem that is no light
        verb, no value and no word of something open or settled ("gym" of "The gym opens at 6
        am"; none of "I'm deciding between UCLA and Berkeley"), or ""."""
        skipped = {*self.values.values(), *self.pending, *(i for _, i in self.settled)}
        return next(
            (
                s
                for i, s in enumerate(self.stems)
                if s and s not in LIGHT_STEMS and i not in skipped
            ),
            "",
        )

    @property
    def opened(self) -> str:
        """The stem at :attr:`opener` ("" for none)."""
        return self.stems[self.opener] if self.opener >= 0 else ""

    @once
    def opener(self) -> int:
        """Where its first word of a subject is, light or not ("work" of "My work laptop"), or
        -1 (none, or it opens by speaking of the speaker: "I'm a junior developer")."""
        if self.words[0] in _SPEAKER_FIRST:
            return -1
        return next((i for i, s in enumerate(self.stems) if s), -1)

    @once
    def units(self) -> frozenset[str]:
        """The units of its numbers (:func:`~salience.write.update_values.number_sort`: "kilo"
        of "I'm down to 77 kilos")."""
        return frozenset().union(
            *(
                number_sort(self.raw, self.stems, i)[1]
                for v, i in self.values.items()
                if kind_of(v) == "number"
            )
        )

    def sort(self, value: str) -> tuple[str, tuple[bool, frozenset[str]]]:
        """What sort of value ``value`` (of its values) is, with a number's ordinal and unit
        (:func:`~salience.write.update_values.number_sort`)."""
        kind = kind_of(value)
        at = self.values.get(value, -1)
        if kind != "number" or at < 0:
            return kind, (False, frozenset())
        return kind, number_sort(self.raw, self.stems, at)

    @once
    def holder(self) -> str:
        """Whose fact it is, by how it opens: "i" (the speaker's: *I*, *my*, *we*), a person
        after *my* or *our* ("my wife": her stem), someone named (a capitalised word before a
        verb in -s, and no word of the speaker's: "ben" of "Ben thinks ..."), or "" (not
        told)."""
        words = self.words
        if len(words) < 2:
            return ""
        if words[0] in ("my", "our"):
            person = stem(words[1])
            return person if person in _PEOPLE else "i"
        if words[0] in MINE:
            return "i"
        verb = words[1]
        if (
            self.raw[0][:1].isupper()
            and words[0] not in STOPWORDS
            and words[0] not in NUMBER_WORDS
            and self.stems[1]  # (a verb of a subject: "thinks"; not "times" of "Three times")
            and len(verb) > 3
            and verb.endswith("s")
            and not verb.endswith(("ss", "'s"))
            and not self.personal
        ):
            return self.stems[0] or ""
        return ""

    def of_another(self, other: Sentence) -> bool:
        """Whether it is another one's fact than ``other`` is (:attr:`holder`), whom ``other``
        does not speak of ("I get up at 7", "My wife gets up at 5:30"; but "My friend Rachel
        moved back" is of whom "I'm visiting my friend Rachel" speaks)."""
        mine, theirs = self.holder, other.holder
        if not mine or not theirs or mine == theirs:
            return False
        return (mine == "i" or mine not in other.stems) and (
            theirs == "i" or theirs not in self.stems
        )

    @once
    def personal(self) -> bool:
        """Whether it speaks of the speaker (I, my, we)."""
        return not MINE.isdisjoint(self.words)

    @once
    def people(self) -> frozenset[str]:
        """The people it names ("my sister", "our landlord"), as stems: those among its
        subject's stems, and the stem of any word no subject holds that is one
        (:data:`_PEOPLE_UNSAID`: none today). Every other word's stem is no person's: too
        short, or opening with a digit."""
        found = self.subject & _PEOPLE
        if _PEOPLE_UNSAID and not _PEOPLE_UNSAID.isdisjoint(self.words):
            found |= _PEOPLE.intersection(map(stem, self.words))
        return found

    @once
    def negations(self) -> tuple[int, ...]:
        """The positions of the words that say no (not in a saying that denies nothing: "I had
        no idea", "I'm not sure", "I can't wait")."""
        words, joined = self.words, self._joined
        if _SAYS_NO.isdisjoint(words) and "n't" not in joined and "n\u2019t" not in joined:
            return ()  # (most sentences: no word says no)
        after = (*words[1:], "")
        return (
            tuple(
                i
                for i, w in enumerate(words)
                if (w in NEGATIONS or w.endswith(("n't", "n\u2019t")))
                and after[i] not in IDIOMS.get(w if w in NEGATIONS else "n't", ())
            )
            + tuple(
                i for i, w in enumerate(words) if (w == "longer" and i and words[i - 1] == "no")
            )
            + self.ends
        )

    @property
    def ended(self) -> tuple[str, ...]:
        """The words at :attr:`ends` ("quit"; "gave" of "gave up")."""
        return tuple(self.words[i] for i in self.ends)

    @once
    def ends(self) -> tuple[int, ...]:
        """Where it says a thing ended, as a "no" does (:data:`ENDING`, "gave up", "I stopped
        doing"), not after a "no" ("I won't quit")."""
        words = self.words
        if _ENDS_FIRST.isdisjoint(words):
            return ()
        after = (*words[1:], "")
        return tuple(
            i
            for i, w in enumerate(words)
            if (w in ENDING or ENDING_PAIRS.get(w) == after[i] or stops(words, i))
            and not (i and (words[i - 1] in NEGATIONS or words[i - 1].endswith("n't")))
        )

    @once
    def replacing(self) -> frozenset[str]:
        """What it says it replaced, as stems and as values: the words after "instead of" or
        "rather than" (up to three, to the next joining word), after a "not" that opens a
        clause and names something ("on the 15th, not the 14th"; not "not knowing", "not
        just"), between "from" and a "to" said with a word that something moved or switched
        ("moved my accounts from Chase to a credit union"), and between a word of swapping
        and "for" ("I traded in the Accord for a Model 3")."""
        words = self.words
        if _REPLACING_FIRST.isdisjoint(words):
            return frozenset()  # (most sentences)
        found: set[str] = set()
        for phrase, i in self._placed(REPLACING, _REPLACING_FIRST, every=True):
            found |= named_by(words[i + phrase.count(" ") + 1 : i + phrase.count(" ") + 5])
        clauses = self.clauses if "not" in words else ()
        moved = any(c in STRONG_CHANGE for c in self.change)
        for i in range(1, len(words) - 1):
            if words[i] == "not" and clauses[i] != clauses[i - 1] and opens_name(self.raw[i + 1]):
                found |= named_by(words[i + 1 : i + 5])
            elif words[i - 1] == "from" and moved and "to" in words[i : i + 5]:
                found |= named_by(words[i : words.index("to", i)])
            elif words[i - 1] in SWAPPING and "for" in words[i : i + 5]:  # ("traded in X for")
                found |= named_by(words[i + (words[i] in ("in", "out")) : words.index("for", i)])
        return frozenset(found)

    @once
    def change(self) -> tuple[str, ...]:
        """Its words of change ("now" opening an order or a turn to another part is none:
        "Now combine the two lists")."""
        joined, words = self._joined, self.words
        if _CHANGE_FIRST.isdisjoint(words):
            return ()  # (no phrase of change opens with any of its words)
        if words[:1] == ("now",) and words[1:2] and words[1] not in MINE:
            joined = joined[4:]
        return tuple(
            c
            for c in CHANGE
            if f" {c} " in joined
            and (c not in BEFORE_ING or any(stops(words, i) for i, w in enumerate(words) if w == c))
        )

    @once
    def pending(self) -> tuple[int, ...]:
        """Where it says something is not settled yet ("in progress", "deciding")."""
        return tuple(i for _, i in self._placed(PENDING, _PENDING_FIRST))

    @once
    def settled(self) -> tuple[tuple[str, int], ...]:
        """Its words that say something was settled ("finished", "ended up"), and where."""
        return self._placed(SETTLED, _SETTLED_FIRST)

    def _placed(
        self, phrases: tuple[str, ...], firsts: frozenset[str], every: bool = False
    ) -> tuple[tuple[str, int], ...]:
        """Each of ``phrases`` (``firsts``: their first words) it says, at the position of its
        first word (``every``: at each place it is said, else the first)."""
        if firsts.isdisjoint(self.words):
            return ()  # (none can be said: most sentences)
        out = []
        for phrase in phrases:
            if f" {phrase} " in self._joined:
                first, size = phrase.split(" ", 1)[0], phrase.count(" ") + 1
                for i, word in enumerate(self.words):
                    if word == first and " ".join(self.words[i : i + size]) == phrase:
                        out.append((phrase, i))
                        if not every:
                            break
        return tuple(out)

    @once
    def clauses(self) -> tuple[int, ...]:
        """Which clause each word is in (see :data:`_CLAUSES`)."""
        out: list[int] = []
        for at, part in enumerate(_CLAUSES.split(self.text)):
            out += [at] * len(TOKEN.findall(part))
        return tuple(out) if len(out) == len(self.words) else (0,) * len(self.words)

    def repeats(self, shared: frozenset[str]) -> bool:
        """Whether it says "again" right after a word of ``shared`` (within two words: "I
        went to the dentist again", "the server crashed again"): one more time, not another
        value ("I checked again and my passport expires in 2026" is no repeat)."""
        if "again" not in self.words:
            return False
        at = self.words.index("again")
        return any(s in shared for s in self.stems[max(0, at - 2) : at])

    @once
    def adding(self) -> bool:
        if _ADDING_FIRST.isdisjoint(self.words):
            return False
        return any(f" {a} " in self._joined for a in ADDING)

    @once
    def _joined(self) -> str:
        return " " + " ".join(self.words) + " "

    def shown(self, key: str) -> str:
        """A stem or a value as the sentence wrote it (lower-cased)."""
        if key.startswith("#"):
            return key[1:].replace("-", " ")  # ("#lecture-3": "lecture 3")
        key = key.lstrip("@")
        for word, own in zip(self.words, self.stems, strict=True):
            if key in (own, word, stem(word)):
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

    def in_clause(self, position: int, shared: frozenset[str]) -> bool:
        """Whether a shared word stands in the clause of ``position``."""
        clause = self.clauses[position]
        return any(
            s in shared and c == clause for s, c in zip(self.stems, self.clauses, strict=True)
        )

    def near_in_clause(self, position: int, shared: frozenset[str]) -> bool:
        """:meth:`near`, in the clause of ``position`` only."""
        if not self.near(position, shared):
            return False  # (most are not: the clauses are read only for those that are)
        clause, clauses = self.clauses[position], self.clauses
        low = max(0, position - ANCHOR)
        return any(
            s in shared and clauses[j] == clause
            for j, s in enumerate(self.stems[low : position + ANCHOR + 1], low)
        )


def _sentence(text: str, speaker: str) -> Sentence:
    raw = tuple(TOKEN.findall(text))
    words = tuple(map(str.lower, raw))
    stems = tuple(map(subject_stem, words))
    if _CAPITALS.search(text):  # ("CI", "UI", "TV": a name, not "is")
        stems = tuple(
            w if len(t) == 2 and t.isupper() and t.isalpha() and w not in _HALVES else s
            for t, w, s in zip(raw, words, stems, strict=True)
        )
    return Sentence(raw, words, stems, frozenset(stems) - {""}, speaker, text)


@holds_text
@functools.lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[Sentence, ...]:
    """The sentences of a memory, read for comparison (cached: a write compares itself with
    its nearest memories, and the next write on that subject with many of the same)."""
    return tuple(_sentence(said, speaker) for speaker, said in statements(text))


LIGHT_STEMS = frozenset(map(stem, LIGHT))
"""The light verbs (:data:`~salience.write.update_words.LIGHT`) as :func:`stem` gives them."""
_PEOPLE = frozenset(map(stem, PEOPLE))
_PEOPLE_UNSAID = frozenset(w for w in SKIPPED if stem(w) in _PEOPLE)
"""Words that never name a subject whose stem is a person's (none today): a sentence that
holds one reads every word's stem for :attr:`Sentence.people`."""


def _firsts(phrases: tuple[str, ...]) -> frozenset[str]:
    """The first word of each phrase: a sentence holding none of them says none of them (a
    phrase is found between spaces in its words joined by spaces)."""
    return frozenset(phrase.split(" ", 1)[0] for phrase in phrases)


_CHANGE_FIRST = _firsts(CHANGE)
_ENDS_FIRST = ENDING | BEFORE_ING | frozenset(ENDING_PAIRS)
_SAYS_NO = NEGATIONS | _ENDS_FIRST | {"longer"}
_REPLACING_FIRST = _firsts(REPLACING) | {"not", "from"} | SWAPPING
_ADDING_FIRST = _firsts(ADDING)
_PENDING_FIRST = _firsts(PENDING)
_SETTLED_FIRST = _firsts(SETTLED)
