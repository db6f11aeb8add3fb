"""What a sentence's values are and what sort each is (write/update_values.py): a count
replaces a count of its unit, an ordinal an ordinal."""

from __future__ import annotations

import pytest

from salience.write.update_sentences import sentences
from salience.write.update_values import is_period, kind_of, number_sort, ordinal, same_sort


@pytest.mark.parametrize(
    ("value", "sort"),
    [
        ("2022", "year"),
        ("1999", "year"),
        ("2500", "number"),
        ("125", "number"),
        ("7:30", "time"),
        ("$1,800", "amount"),
        ("@garage", "place"),
        ("#chapter-7", "index"),
        ("oct-16", "when"),
        ("friday", "when"),
        ("spring", "when"),
        ("2x", "number"),
        ("jenkins", "name"),
    ],
)
def test_each_value_has_its_sort(value: str, sort: str) -> None:
    assert kind_of(value) == sort


def _sort(text: str, value: str) -> tuple[bool, frozenset[str]]:
    (read,) = sentences(text)
    return number_sort(read.raw, read.stems, read.values[value])


@pytest.mark.parametrize(
    ("text", "value", "ordinal", "unit"),
    [
        ("I weigh 82 kilos.", "82", False, {"kilo"}),
        ("My office is on the 4th floor.", "4", True, {"floor"}),
        ("I finished my fifth issue.", "5", True, {"issu"}),
        ("I won my first video game tournament.", "1", True, {"video", "gam", "tournament"}),
        ("I watched 15 Crash Course videos.", "15", False, {"video"}),  # (past the name)
        ("I swim 3 times a week.", "3", False, {"time"}),
        ("The port is 8080.", "8080", False, set()),
    ],
)
def test_a_number_s_sort_is_its_unit_and_whether_it_is_an_ordinal(
    text: str, value: str, ordinal: bool, unit: set[str]
) -> None:
    assert _sort(text, value) == (ordinal, frozenset(unit))


def test_numbers_of_one_sort_may_be_one_measure() -> None:
    kilo, issue, none = frozenset({"kilo"}), frozenset({"issu"}), frozenset[str]()
    assert same_sort((False, kilo), (False, kilo))
    assert same_sort((False, issue), (True, issue))  # ("three issues", "my fifth issue")
    assert same_sort((True, frozenset({"gam", "tournament"})), (True, frozenset({"tournament"})))
    assert same_sort((False, kilo), (False, none))  # ("down to 77")
    assert not same_sort((False, frozenset({"year"})), (True, frozenset({"grade"})))
    assert not same_sort((False, none), (True, none))  # ("my daughter is 7", "she is 2nd")
    assert not same_sort((False, frozenset({"lap"})), (False, frozenset({"time"})))


def test_an_ordinal_in_digits_is_its_number() -> None:
    assert ordinal("14th") == "14"
    assert ordinal("22nd,") == "22"
    assert ordinal("fourteen") == "fourteen"


def test_a_unit_written_onto_its_number_is_its_unit() -> None:
    assert _sort("We rent a 2-bedroom flat.", "2-bedroom") == (
        False,
        frozenset({"bedroom", "flat"}),
    )
    assert _sort("I ran 30-minute laps.", "30-minute") == (False, frozenset({"minut", "lap"}))


def test_a_period_named_by_last_this_or_next_is_a_when() -> None:
    (read,) = sentences("So far this year I've read 9 books, and next week I start another.")
    assert {v for v in read.values if is_period(v)} == {"this-year", "next-week"}
    assert kind_of("last-summer") == "when"
    assert not is_period("non-dairy")
