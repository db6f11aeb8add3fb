"""The words update detection reads by (write/update_words.py): stems, routines and
occasions, and how a sentence says what it says."""

from __future__ import annotations

import pytest

from salience.write.update_words import mood, occasion, stem


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.lower().replace(".", "").split())


@pytest.mark.parametrize(
    ("one", "other"),
    [("savings", "saving"), ("settings", "setting"), ("mornings", "morning"), ("run", "running")],
)
def test_the_forms_of_a_word_share_a_stem(one: str, other: str) -> None:
    assert stem(one) == stem(other)


def test_a_short_word_in_ings_keeps_its_stem() -> None:
    assert stem("things") == "thing"
    assert stem("kings") == "king"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I usually run in the morning", "habit"),
        ("I drink one coffee a day", "habit"),
        ("Practice is on Tuesdays", "habit"),
        ("I had three coffees today", "once"),
        ("I ran at lunch this morning", "once"),
        ("I went twice this week", "once"),
        ("I usually run but today I swam", ""),  # (both: neither)
        ("I run in the morning", ""),
        ("A day at the beach", ""),  # ("a" opening a sentence: no rate)
    ],
)
def test_a_routine_and_one_occasion_are_told_apart(text: str, said: str) -> None:
    assert occasion(_words(text)) == said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("The blog post says the limit is 500", "reported"),
        ("According to the docs the limit is 500", "reported"),
        ("Some reviews claim it lasts 12 hours", "reported"),
        ("I said the limit is 100", ""),  # (the speaker's own)
        ("I need 120 credits to graduate", "wanted"),
        ("My goal is 150 pounds", "wanted"),
        ("I'm taking 12 credits", ""),
        ("I need to finish the meeting before the gym at 6", ""),  # (no number it wants)
    ],
)
def test_what_another_says_and_what_is_wanted_are_no_fact_of_the_speaker(
    text: str, said: str
) -> None:
    assert mood(_words(text)) == said
