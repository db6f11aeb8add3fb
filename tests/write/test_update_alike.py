"""Look-alikes of an update (write/update_alike.py): two things, two occasions, two moods."""

from __future__ import annotations

import pytest

from salience.write.update_alike import (
    another,
    heads,
    held,
    modified,
    people_held,
    two_heads,
    unalike,
)
from salience.write.update_sentences import LIGHT_STEMS, Sentence, sentences
from salience.write.update_words import stem


def _read(old: str, new: str) -> tuple[Sentence, Sentence, frozenset[str]]:
    (o,), (n,) = sentences(old), sentences(new)
    return n, o, frozenset(n.subject & o.subject) - LIGHT_STEMS


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("The venue holds 120 people.", "The other venue we saw holds 200.", True),
        ("Our plan costs $20.", "A different plan costs $35.", True),
        ("Bug 12 is fixed.", "The login bug is still open.", True),
        ("The cluster runs 4 nodes.", "The test cluster runs 2 nodes.", True),
        ("The venue holds 120 people.", "The venue holds 150 people now.", False),
        ("The other venue holds 120.", "The other venue holds 150.", False),  # (both say it)
        ("Tests run with pytest -n 4.", "Run the tests with pytest -n 2.", False),  # (a verb)
        ("The team offsite is in Lisbon.", "The offsite is in Porto.", False),  # (older narrower)
    ],
)
def test_another_reads_another_thing_what_stays_and_a_narrower_name(
    old: str, new: str, expected: bool
) -> None:
    n, o, strong = _read(old, new)
    assert another(n, o, strong) is expected


def test_still_counts_only_in_a_clause_of_the_shared_words() -> None:
    n, o, strong = _read(
        "I live in Boston.", "I live in Denver now; my brother is still in Ohio, sadly."
    )
    assert another(n, o, strong) is False


def test_heads_are_what_a_sentence_names_before_its_verb_and_two_differ() -> None:
    (movies,), (books,) = (
        sentences("My top three movies are Alien and Heat."),
        sentences("My top three books are Dune and Emma."),
    )
    assert {stem("top"), stem("movies")} <= heads(movies)
    assert two_heads(heads(movies), heads(books))
    assert not two_heads(heads(movies), heads(movies))
    (bare,) = sentences("I watched Alien twice last week.")  # (no "is" to name it before)
    assert heads(bare) == frozenset()


def test_modified_is_an_opening_word_of_its_own_before_a_shared_one() -> None:
    n, o, strong = _read("The cluster has 12 nodes.", "The prod cluster has 16 nodes.")
    assert modified(n, strong)
    assert not modified(o, strong)


def test_held_and_people_held_keep_the_clauses_of_the_shared_words() -> None:
    n, o, strong = _read("We have two kids.", "We have three kids now, our son was born in May.")
    assert "son" not in held(n, strong, n.words)
    assert "kid" in held(n, strong, n.stems)
    assert people_held(n, strong) == people_held(o, strong)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("I drink two coffees a day.", "I had four coffees today.", True),  # (routine, once)
        ("The API allows 100 requests.", "A blog post says the API allows 500 requests.", True),
        ("I drink two coffees a day.", "I drink three coffees a day.", False),
    ],
)
def test_unalike_reads_two_occasions_or_two_moods(old: str, new: str, expected: bool) -> None:
    n, o, strong = _read(old, new)
    assert unalike(n, o, strong) is expected
