from datetime import UTC, date, datetime

import pytest

from salience.text_dates import day_words, month_words, resolve

# Monday 8 May 2023
MONDAY = date(2023, 5, 8)


def test_day_and_month_words() -> None:
    assert day_words(date(2023, 5, 7)) == "2023 May 7 Sunday"
    assert month_words(date(2023, 12, 31)) == "2023 December"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I went there yesterday.", ["2023 May 7 Sunday"]),
        ("We watched it LAST NIGHT", ["2023 May 7 Sunday"]),
        ("the day before yesterday was rough", ["2023 May 6 Saturday"]),
        ("see you tomorrow", ["2023 May 9 Tuesday"]),
        ("last Friday I ran", ["2023 May 5 Friday"]),
        ("this past Monday", ["2023 May 1 Monday"]),  # strictly before the anchor
        ("next Monday", ["2023 May 15 Monday"]),
        ("last weekend we camped", ["2023 May 6 Saturday 2023 May 7 Sunday"]),
        ("3 days ago", ["2023 May 5 Friday"]),
        ("a couple of days ago", ["2023 May 6 Saturday"]),
        ("two weeks ago", ["2023 April"]),
        ("a month ago", ["2023 April"]),
        ("last month", ["2023 April"]),
        ("next month", ["2023 June"]),
        ("last year", ["2022"]),
        ("five years ago", ["2018"]),
        ("in two weeks", ["2023 May"]),
        ("in 9 months", ["2024 February"]),
    ],
)
def test_each_kind_of_phrase_resolves_against_the_anchor(text: str, words: list[str]) -> None:
    assert resolve(text, MONDAY) == words


def test_month_arithmetic_crosses_years() -> None:
    assert resolve("last month", date(2023, 1, 15)) == ["2022 December"]
    assert resolve("3 months ago", date(2023, 2, 28)) == ["2022 November"]


def test_a_datetime_anchor_uses_its_date() -> None:
    assert resolve("yesterday", datetime(2023, 5, 8, 23, 59, tzinfo=UTC)) == ["2023 May 7 Sunday"]


def test_phrases_in_order_without_repeats_or_overlaps() -> None:
    text = "Yesterday and the day before yesterday, and yesterday again, then last Friday."
    assert resolve(text, MONDAY) == [
        "2023 May 7 Sunday",
        "2023 May 6 Saturday",
        "2023 May 5 Friday",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I love the last chapter",
        "in a while",
        "Friday is my favourite day",
        "yesterdays",  # not a word boundary
        "my weekend plans",
    ],
)
def test_text_without_relative_time_gives_nothing(text: str) -> None:
    assert resolve(text, MONDAY) == []


def test_a_short_text_is_read_once_a_day_and_an_erasure_forgets_it() -> None:
    from salience import text_dates
    from salience.text import forget_cached_texts

    said = "we met last friday and again yesterday"
    anchor = datetime(2024, 5, 8, 9, 30, tzinfo=UTC)
    first = resolve(said, anchor)
    assert first == ["2024 May 3 Friday", "2024 May 7 Tuesday"]
    first.append("changed by the caller")  # (each call gets a list of its own)
    assert resolve(said, anchor) == ["2024 May 3 Friday", "2024 May 7 Tuesday"]
    assert resolve(said, date(2024, 5, 9)) == ["2024 May 3 Friday", "2024 May 8 Wednesday"]
    assert text_dates._resolved.cache_info().currsize >= 2  # (one a day it was said on)
    forget_cached_texts()
    assert text_dates._resolved.cache_info().currsize == 0
    long = "note " * text_dates.CACHED_UP_TO + said  # (a long text: read, never kept)
    assert resolve(long, anchor) == ["2024 May 3 Friday", "2024 May 7 Tuesday"]
    assert text_dates._resolved.cache_info().currsize == 0
