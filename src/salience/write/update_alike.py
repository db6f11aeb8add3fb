"""Look-alikes of an update (:mod:`salience.write.updates`): two sentences that share a
subject's words but speak of two things, two occasions or two moods. Each reads sentences as
:mod:`salience.write.update_sentences` reads them, and the stems two share (``strong``: the
shared stems that are not light verbs)."""

from __future__ import annotations

from salience.write.update_sentences import Sentence
from salience.write.update_words import DETERMINERS, mood, occasion

__all__ = ["another", "heads", "held", "modified", "people_held", "two_heads", "unalike"]


def people_held(s: Sentence, shared: frozenset[str]) -> frozenset[str]:
    """The people ``s`` names in the clauses that hold a shared word ("kid" of "We have
    three kids now, our son was born in May": the son is another clause's)."""
    if not s.people:
        return s.people
    return s.people.intersection(held(s, shared, s.stems))


def held(s: Sentence, shared: frozenset[str], items: tuple[str, ...]) -> tuple[str, ...]:
    """``items`` (its words, or their stems) in the clauses of ``s`` that hold a shared word
    (all of them, in a sentence of one clause)."""
    if not any(s.clauses):
        return items
    holding = {c for c, t in zip(s.clauses, s.stems, strict=True) if t in shared}
    return tuple(x for c, x in zip(s.clauses, items, strict=True) if c in holding)


_BE = frozenset("is are was were".split())


def heads(s: Sentence) -> frozenset[str]:
    """The stems of what a sentence is about, where it opens by naming it before a "to be"
    ("top", "three", "movi" of "My top three movies are Alien, Heat and Jaws"), else none."""
    at = next((i for i, w in enumerate(s.words[:7]) if w in _BE), 0)
    return frozenset(s.stems[:at]) - {""}


def two_heads(one: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two sentences name two things alike ("top three movies", "top three books"):
    each has a word of what it is about the other has not, beside a word both have."""
    return bool(one & other) and bool(one - other) and bool(other - one)


def modified(s: Sentence, strong: frozenset[str]) -> bool:
    """Whether the word it opens with is its own, before a shared one, which it qualifies
    ("prod" of "The prod cluster has 12 nodes", "work" of "My work laptop", "team" of "Our
    team standup"); never where it opens by speaking of the speaker ("I'm a junior
    developer": what the speaker is, not a thing's name)."""
    at = s.opener
    if at < 0 or at > 2 or s.stems[at] in strong:
        return False
    return any(t in strong for t in s.stems[at + 1 : at + 3])


def unalike(n: Sentence, o: Sentence, strong: frozenset[str]) -> bool:
    """Whether the clauses of their shared words say two occasions or two moods: one day's
    instance of a routine ("I had three coffees today" beside "I drink two a day"), or what
    another says or one wants ("The blog post says 500", "I need 120 credits")."""
    said_n, said_o = held(n, strong, n.words), held(o, strong, o.words)
    return {occasion(said_n), occasion(said_o)} == {"habit", "once"} or (
        mood(said_n) != mood(said_o)
    )


_OTHER = frozenset("other different still".split())


def another(n: Sentence, o: Sentence, strong: frozenset[str]) -> bool:
    """Whether the new one speaks of another of the older one's thing ("The other venue we
    looked at", "a different plan"), or says what stays as it is ("The analytics cluster is
    still on version 13": not what changed); or names a narrower one of it than the older
    does ("The test cluster" after "The cluster")."""
    words = n.words
    if not _OTHER.isdisjoint(words) and _OTHER.isdisjoint(o.words):
        for i, w in enumerate(words):
            if w == "still" and n.in_clause(i, strong):
                return True
            if w in _OTHER and not strong.isdisjoint(n.stems[i + 1 : i + 3]):
                return True
    at, own = o.opener, n.opener
    return (
        own > 0
        and n.words[own - 1] in DETERMINERS  # ("the test cluster", not "Run the tests")
        and modified(n, strong)
        and at >= 0
        and o.stems[at] in strong
        and not modified(o, strong)
    )
