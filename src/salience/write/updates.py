"""Updates: a new memory that speaks of the same subject as an older one and says something
different about it, found without a language model.

Two memories are compared sentence by sentence. A pair of sentences speaks of the same
subject when they share at least :data:`MIN_SHARED` content words (stopwords, chat filler and
the values themselves aside; :data:`LONG_SHARED` for two long sentences, unless both are the
speaker's own and what changed is a measure: a number, an amount, a time, a day; two short
ones that share only a light word, such as *work* or *meet*, when they say nothing else but
their values and the new one's words of change; a short one said again but for its topic,
with a word of change). It says something different when:

- a **value** differs: a number, an amount, a time or a date, a weekday, a named thing (a
  capitalised word inside a sentence) or a place (the words after *in*, *under*, *at*, ...),
  with a value of the old sentence gone from the new one and a new one in its place;
- one says **no** where the other does not (*not*, *no longer*, *never*, *n't*), in the
  clause of the shared words;
- the new one has **words of change** (*now*, *moved*, *switched to*, *instead*, ...) beside
  a value of its own, or says what it replaced (*tea instead of coffee*);
- or what the older said was **open** (*deciding*, *in progress*) the new one says is settled.

Guards keep look-alikes out: a new sentence that *adds* (*also*, *another*, *too*, *as well*)
without a word of change; two sentences about different people (*my sister* and *my
brother*); two short ones sharing a word but not what the older is about (*The gym opens at 6*
/ *The pool opens at 7*); another item of a series (*lecture 3* / *lecture 4*); a count of
another day or year; and a document on either side (:func:`is_document`). How a sentence is
read (its stems, values, clauses, topic) is :mod:`salience.write.update_sentences`. Every
decision is explained: the shared words, the values that differ, the words of change.
:func:`compare` is pure; the engine chooses the candidates (the memories nearest the new one)
and what to do with a found update (a policy: link, supersede, off).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from salience.write.update_alike import another, heads, modified, people_held, two_heads, unalike
from salience.write.update_sentences import LIGHT_STEMS, TOKEN, Sentence, sentences
from salience.write.update_values import is_period, kind_of, same_sort
from salience.write.update_words import STRONG_CHANGE, stem

__all__ = [
    "DOCUMENT_WORDS",
    "Names",
    "Update",
    "compare",
    "is_document",
    "names",
    "sentences",
    "stating",
]

MIN_SHARED = 2
"""Content words two sentences must share to speak of the same subject..."""
LONG_SHARED = 3
"""... (two long sentences: this many) ..."""
SHORT_OVERLAP = 0.5
"""... or this share of the shorter one's content words (one at the least) ..."""
SAYS_NOW = 0.15
"""What a sentence that says other words in place of the older one's, with a word of change,
adds to the confidence (a changed value adds 0.3)."""
CHANGE_WORDS = 0.15
"""What words of change add to the confidence ..."""
CHANGE_WORDS_BESIDE_A_VALUE = 0.25
"""... and beside a changed value (one of its sort gone, another come) in two short sentences
(:data:`SHORT_WORDS`): the new one says what changed and that it changed (*"I moved my
sneakers to the shoe rack"* after *"I keep my sneakers under the bed"*: 0.93, sure, though
they share a single word). Of the labelled sets' dev pairs below 0.9, the 41 with a changed
value and words of change were all updates; the 35 of them in short sentences are now sure
(held out: 13, all updates). On LongMemEval's dev chat, where such pairs in long sentences
were mostly two subjects, 2 more links not between evidence turns are sure (16.86 -> 16.98 per
1,000 turns; an assistant's running list whose total changed), on LoCoMo none."""
DOCUMENT_WORDS = 120
"""Past this many words a memory is a document: an answer, a page, a list (as written, for a
write's look: :func:`is_document`; :func:`compare` counts the words of the sentences read).
A fact that changes is said in a sentence or two. A document holds many: linked as updated,
it would leave the briefing for one sentence; linked as the update, a long answer would hide
a person's own fact. Measured on LongMemEval's dev conversations, 82 % of the
links not between evidence turns had a document on one side, and no link between evidence
turns did (95 % of the user's evidence turns hold at most 87 words)."""
SHORT_WORDS = 12
"""... or one, in two sentences this short, when the new one says it moved or switched."""

_MEASURES = frozenset(("number", "time", "when", "amount"))
"""The sorts of value a person's own routine or count changes by (a place or a name may be a
second topic as easily)."""


@dataclass(frozen=True)
class Update:
    """A found update: the older memory, how sure (0..1), and why in words."""

    old_id: str
    confidence: float
    why: str


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
        if not any(name[:-1] in lowered for name in self.stems):  # ("lili": "Lily")
            return False
        return not self.stems.isdisjoint(map(stem, TOKEN.findall(lowered)))


def names(read: Sequence[Sentence]) -> Names:
    """The names the memory read as ``read`` says."""
    return Names(frozenset(v for s in read for v in s.values if kind_of(v) == "name"))


def is_document(text: str) -> bool:
    """Whether a memory's text is a document: over :data:`DOCUMENT_WORDS` words as written
    (counted no further: a long answer costs no more than a short one). Neither side of an
    update is ever one, so a write's look reads no document, and a document looks for none."""
    return len(text.split(maxsplit=DOCUMENT_WORDS)) > DOCUMENT_WORDS


def stating(read: Sequence[Sentence]) -> bool:
    """Whether a memory read as ``read`` states anything an update needs: a sentence with a
    word of a subject. One that states nothing (a question as a whole: *"What are some
    festivals to attend in Munich?"*) shares no subject with any memory, so it updates
    nothing, and its write looks for nothing."""
    return any(s.subject for s in read)


def compare(new: Sequence[Sentence], old: Sequence[Sentence], old_id: str) -> Update | None:
    """Whether the memory read as ``new`` updates the one read as ``old`` (its id): the best
    explained pair of their sentences, or None. A document (over :data:`DOCUMENT_WORDS`)
    never updates a memory nor is updated by one."""
    if max(sum(len(s.words) for s in new), sum(len(s.words) for s in old)) > DOCUMENT_WORDS:
        return None
    best: Update | None = None
    for n in new:
        for o in old:
            found = _pair(n, o, old_id)
            if found is not None and (best is None or found.confidence > best.confidence):
                best = found
    return best


def _subject(
    n: Sentence, o: Sentence, strong: frozenset[str], named: bool = False, light: bool = False
) -> str:
    """Whether two sentences speak of one subject: "same", "own" (long, sharing two words,
    both the speaker's: only a measure of one's own may change), or "" (too little in common,
    two people's facts or two speakers' words). ``named``: the new one names what it
    replaced, in the old one's words, and they share a word besides; ``light``: they share
    only a light word, and say nothing else but their values and the new one's words of
    change (:func:`_only_the_value`)."""
    smaller = min(len(n.subject - LIGHT_STEMS), len(o.subject - LIGHT_STEMS)) or 1
    short = _short(n, o)
    moved = any(c in STRONG_CHANGE for c in n.change) or bool(n.ends)
    needed = MIN_SHARED if short or min(len(n.words), len(o.words)) <= SHORT_WORDS else LONG_SHARED
    units = bool(strong) and bool(n.change) and strong <= n.units & o.units  # ("77 kilos")
    topical = bool(n.change) and n.topic == o.topic and n.topic in strong  # ("The service")
    found = "same"
    if not (
        len(strong) >= needed
        or (strong and short and (len(strong) / smaller >= SHORT_OVERLAP or moved or units))
        or named
    ):
        found = "own" if len(strong) >= MIN_SHARED and n.personal and o.personal else ""
        found = found or ("topic" if short and (topical or (light and bool(n.change))) else "")
    if (
        not found
        or (people_held(n, strong) != people_held(o, strong) and n.people and o.people)
        or (n.speaker != o.speaker and n.speaker and o.speaker)
        or n.of_another(o)  # ("I think ...", "Ben thinks ...")
        or (
            found == "same"
            and len(strong) < needed
            and not named
            and not units
            and o.topic not in strong | {""}
            and not (n.topic in strong and modified(o, strong))  # ("Our team standup")
            and not any(kind_of(v) == "name" for v in strong & o.values.keys())  # ("Netflix")
        )  # (or a word or two shared, but not what the older is about: "The gym opens at 6")
        or (modified(n, strong) and modified(o, strong) and n.opened != o.opened)
        or (not n.change and two_heads(heads(n), heads(o)))
    ):  # (or one thing said of two: "the prod cluster", "the dev cluster"; two things said
        # the same of: "My top three movies are ...", "My top three books are ...")
        return ""
    return found


def _happened(n: Sentence, shared: frozenset[str]) -> bool:
    """Whether the shared words say something happened (a verb in the past: "failed")."""
    return any(
        w.endswith("ed") and not w.endswith("eed") and len(w) > 4 and s in shared
        for w, s in zip(n.words, n.stems, strict=True)
    )


def _differing(
    n: Sentence, o: Sentence, shared: frozenset[str], replaced: set[str], subject: str
) -> tuple[list[str], list[str], set[str]] | None:
    """The values of ``o`` gone from ``n``, those come in their place, and the sorts both
    have (a value for one of its sort: changed); None when what differs shows two things,
    not one that changed: another item of a series, a count of another day or year, facts
    of two periods ("last year", "this year"), one kind of event on two days, or a long
    sentence of one's own whose measure is the same. A period alone changes nothing."""
    named_o = dict(o.values) | {w: o.words.index(w) for w in n.values if w in o.words}
    named_n = dict(n.values) | {w: n.words.index(w) for w in o.values if w in n.words}
    named_n = {v: i for v, i in named_n.items() if v not in replaced}
    anchors = shared | frozenset(replaced)  # (what it says in place of the old words: near them)
    gone = sorted(
        v for v, i in named_o.items() if v not in named_n and o.near(i, shared) and not n.says(v)
    )
    came = sorted(
        v
        for v, i in named_n.items()
        if v not in named_o and (n.near(i, anchors) or _after_change(n, i)) and not o.says(v)
    )
    if not gone and _short(n, o) and any(_after_change(n, named_n[v]) for v in came):
        gone = sorted(v for v in named_o if v not in named_n and not n.says(v))  # (far back)
    if not n.change and any(map(is_period, gone)) and any(map(is_period, came)):
        return None  # ("Last year I read 24 books", "This year I've read 9": two periods)
    gone, came = [v for v in gone if not is_period(v)], [v for v in came if not is_period(v)]
    sorts = [n.sort(v) if v in n.values else o.sort(v) for v in came]
    kinds = {
        kind
        for kind, sort in (o.sort(v) if v in o.values else n.sort(v) for v in gone)
        if any(kind == other and same_sort(sort, of) for other, of in sorts)
    }  # (a value for one of its sort: a count of one unit for another, not an ordinal)
    if not n.change and (
        "index" in kinds  # (another item of a series: "lecture 3", "lecture 4")
        or (kinds & {"when", "year"} and kinds & {"number", "amount"})  # ("6 h on Monday")
        or ("place" in kinds and kinds & {"number", "amount"} and _short(n, o))
        or (kinds and kinds <= {"when"} and _happened(n, shared))
    ):  # (a count of another day, or place: "12 people on my team", "40 in the department";
        # one kind of event on two days: "the deploy on Monday failed")
        return None
    kinds.discard("index")
    if replaced:  # (said outright: what it replaced, and what it says in its place)
        gone = sorted(set(gone) | {w for w in replaced if w in o.values or w in o.subject})
        came = came or sorted(n.subject - o.subject - replaced)[:3]
        kinds = {"said"} if came else kinds
    if subject == "own" and not kinds & _MEASURES and not replaced:
        return None
    return gone, came, kinds


def _after_change(s: Sentence, position: int) -> bool:
    """Whether a word of change and a "to" stand within three words before ``position``
    ("dropped to about 58", "moved it to Porto"): what it changed to, however far its
    subject."""
    if not s.change or "to" not in s.words[max(0, position - 2) : position]:
        return False
    before = s.words[max(0, position - 4) : position]
    return any(c.rsplit(" ", 1)[-1] in before for c in s.change if c not in _NOT_TO)


_NOT_TO = frozenset(("actually", "no longer", "now", "currently", "down to"))
"""Words of change that say nothing of what follows a "to" ("I'm actually going to")."""


def _short(n: Sentence, o: Sentence) -> bool:
    """Whether both are short (:data:`SHORT_WORDS`): a place read in a long sentence is as
    often a time ("in the past month")."""
    return len(n.words) <= SHORT_WORDS and len(o.words) <= SHORT_WORDS


def _settled(n: Sentence, o: Sentence, shared: frozenset[str]) -> list[str]:
    """The words by which ``n`` settles what ``o`` said was open, each in a clause of their
    shared subject ("We're still deciding on a venue" and "We booked a venue")."""
    if not any(o.in_clause(i, shared) for i in o.pending):
        return []
    if any(n.in_clause(i, shared) for i in n.pending):
        return []
    return [word for word, i in n.settled if n.in_clause(i, shared)]


def _change_stems(n: Sentence) -> set[str]:
    """The stems of a sentence's words of change (of each, its last word: *"moved to"*)."""
    return {stem(w.rsplit(" ", 1)[-1]) for w in n.change}


def _only_the_value(n: Sentence, o: Sentence, shared: frozenset[str]) -> bool:
    """Whether two sentences say nothing but the words they share, their values and the new
    one's words of change (*"The meeting is on Tuesday"*, *"The meeting was rescheduled to
    Thursday"*; not *"The client call on Tuesday went well"*, *"The vendor call on Wednesday
    was cancelled"*: a client and a vendor)."""
    said = _change_stems(n)
    return not (o.subject - shared - o.values.keys()) and not (
        n.subject - shared - n.values.keys() - said
    )


def _one_swapped(n: Sentence, o: Sentence, shared: frozenset[str], short: bool) -> bool:
    """Whether a short new sentence with words of change says the older one again but for
    its topic, one word in place of one, :data:`MIN_SHARED` words or more said again (*"I
    drink coffee in the morning"*, *"I drink tea in the morning now"*): what it swapped is
    named by leaving it out. (Not another word: *"I apologize for that mistake"*, *"I see the
    mistake now"*.)"""
    if not (short and n.change) or len(shared) < MIN_SHARED or o.subject - n.subject != {o.topic}:
        return False
    said = _change_stems(n)
    return n.subject - o.subject - said == {n.topic}


def _pair(n: Sentence, o: Sentence, old_id: str) -> Update | None:
    if n.subject.isdisjoint(o.subject):
        return None  # (no word in common: no subject, and nothing more to read)
    replaced = {  # (the old's words, but not what the old said it replaced too)
        w for w in n.replacing - o.replacing if w in o.subject or w in o.values
    }
    shared = (n.subject & o.subject) - replaced
    strong = shared - LIGHT_STEMS
    short = _short(n, o)
    named = bool(replaced) and (  # (what it replaced, in the old's words: its subject too)
        bool(shared) or (short and bool(n.change) and not replaced.isdisjoint(o.values))
    )
    light = bool(shared) and not strong and _only_the_value(n, o, shared)
    subject = _subject(n, o, strong, named or _one_swapped(n, o, shared, short), light)
    if (
        not subject
        or ((n.adding or n.repeats(shared)) and not n.change)  # ("I also bought": one more)
        or (not n.change and unalike(n, o, strong))
        or (not n.change and another(n, o, strong))
    ):
        return None
    differing = _differing(n, o, shared, replaced, subject)
    if differing is None:
        return None
    gone, came, kinds = differing
    changed = bool(kinds)  # (a value for one of its sort)
    if subject == "topic" and not changed:
        return None  # (one word shared, what both are about: a value must have changed)
    flipped = (short or len(strong) >= LONG_SHARED) and (  # (the "no"s read only then)
        any(n.near_in_clause(i, shared) for i in n.negations)
        != any(o.near_in_clause(i, shared) for i in o.negations)
    )
    swapped = bool(n.change) and bool(n.subject - o.subject) and bool(o.subject - n.subject)
    settled = _settled(n, o, shared)
    if not (changed or flipped or settled or (n.change and (came or (swapped and short)))):
        return None
    confidence = 0.3 + 0.08 * min(len(strong), 5)
    said = (
        sorted(n.shown(w) for w in strong)
        or sorted(o.shown(w) for w in replaced & set(o.values))
        or sorted(n.shown(w) for w in shared)  # (a light word: only the value differs)
    )
    reasons = [f"same subject ({', '.join(said[:5])})"]  # (or what it named of the old's)
    if changed:
        confidence += 0.3
        before = list(dict.fromkeys(o.shown(v) for v in gone))[:3]  # (each shown once:
        after = list(dict.fromkeys(n.shown(v) for v in came))[:3]  # "@googl", "googl")
        reasons.append(f"{', '.join(before)} -> {', '.join(after)}")
    elif swapped and not flipped:
        confidence += SAYS_NOW
        says = sorted(n.shown(w) for w in n.subject - o.subject)[:3]
        reasons.append(f"now says {', '.join(says)}")
    opening = {c.split(" ", 1)[0] for c in n.change}  # ("stepped down": not "stepped" again)
    changes = (*n.change, *(w for w in n.ended if w not in opening))  # ("I quit smoking")
    for found, weight, reason in (
        (flipped, 0.15, "one says no"),
        (settled, 0.2, f"settles what was open: {', '.join(settled)}"),
        (
            changes,
            CHANGE_WORDS_BESIDE_A_VALUE if changed and short else CHANGE_WORDS,
            f"words of change: {', '.join(changes)}",
        ),
    ):
        if found:
            confidence += weight
            reasons.append(reason)
    return Update(old_id, round(min(confidence, 1.0), 3), "; ".join(reasons))
