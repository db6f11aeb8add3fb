"""Relative time in text, resolved to calendar words: "yesterday", "last Friday", "two weeks
ago", "last month" said on 2023-05-08 mean 7 May 2023, 5 May 2023, the week of 24 April, and
April 2023.

The words are those of :func:`salience.stores.rows.date_words` (``2023 May 7 Sunday``), so a
memory's resolved dates sit beside its creation date in the full-text index, and a question
that names a day or a month ("what did I do on 7 May?", "in April 2023") finds what was said
*about* that day, not only what was written on it. A question's own relative words are
resolved against the time it is asked. Pure and deterministic: English, no locale, no model.

Precision follows the phrase: a day ("yesterday", "last Friday", "3 days ago") gives the
year, month, day and weekday; a week or a month ("last week", "two weeks ago", "last month")
gives the year and month; a year ("last year") the year alone.
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime, timedelta

from salience.text import holds_text

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "a couple of": 2,
    "couple of": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
# Longest first, so that "a couple of" is not read as "a".
_NUMBER = "(" + "|".join([r"\d{1,2}", *sorted(_NUMBERS, key=len, reverse=True)]) + ")"
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_UNIT = r"(day|week|month|year)s?"

_DAY_WORDS = {
    "the day before yesterday": -2,
    "yesterday": -1,
    "last night": -1,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}
# (kind, pattern, words one of which a match must contain: most texts skip most patterns)
_PATTERNS = (
    (
        "fixed",
        re.compile(r"\b(" + "|".join(sorted(_DAY_WORDS, key=len, reverse=True)) + r")\b"),
        ("yesterday", "tomorrow", "last night"),
    ),
    ("ago", re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+ago\b"), (" ago",)),
    (
        "in",
        re.compile(rf"\bin\s+{_NUMBER}\s+{_UNIT}\b(?!\s+ago)"),
        ("day", "week", "month", "year"),
    ),
    ("weekend", re.compile(r"\b(last|this past|past|next|this coming)\s+weekend\b"), ("weekend",)),
    ("weekday", re.compile(rf"\b(last|this past|past|next|this coming)\s+{_WEEKDAY}\b"), ("day",)),
    (
        "span",
        re.compile(r"\b(last|next|this past|past)\s+(week|month|year)\b"),
        ("week", "month", "year"),
    ),
)


def day_words(day: date) -> str:
    """``2023 May 7 Sunday``."""
    return f"{day.year} {MONTHS[day.month - 1]} {day.day} {WEEKDAYS[day.weekday()]}"


def month_words(day: date) -> str:
    """``2023 May``."""
    return f"{day.year} {MONTHS[day.month - 1]}"


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _shift(anchor: date, count: int, unit: str) -> str:
    """The words of ``anchor`` moved by ``count`` units (negative: back)."""
    if unit == "day":
        return day_words(anchor + timedelta(days=count))
    if unit == "week":
        return month_words(anchor + timedelta(weeks=count))
    if unit == "month":
        return month_words(_add_months(anchor, count))
    return str(anchor.year + count)


def _weekday(anchor: date, name: str, forward: bool) -> date:
    """The nearest such weekday strictly before (or after) ``anchor``."""
    target = WEEKDAYS.index(name.capitalize())
    if forward:
        return anchor + timedelta(days=(target - anchor.weekday() - 1) % 7 + 1)
    return anchor - timedelta(days=(anchor.weekday() - target - 1) % 7 + 1)


def resolve(text: str, anchor: datetime | date) -> list[str]:
    """Calendar words for each relative time expression in ``text`` said at ``anchor``, in
    order of appearance, without repeats."""
    day = anchor.date() if isinstance(anchor, datetime) else anchor
    return list((_read if len(text) > CACHED_UP_TO else _resolved)(text, day))


CACHED_UP_TO = 1000
"""Texts up to this long (a recall's query: it asks twice, for its full-text search, then
for its learned fusion) are resolved once per day they are said on."""


def _read(text: str, day: date) -> tuple[str, ...]:
    lowered = text.lower()
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern, needles in _PATTERNS:
        if not any(needle in lowered for needle in needles):
            continue
        for match in pattern.finditer(lowered):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue  # "the day before yesterday" is not also "yesterday"
            words = _words(kind, match, day)
            if words:
                taken.append((start, end))
                found.append((start, words))
    return tuple(dict.fromkeys(words for _, words in sorted(found)))


@holds_text
@functools.lru_cache(maxsize=256)
def _resolved(text: str, day: date) -> tuple[str, ...]:
    return _read(text, day)


def _words(kind: str, match: re.Match[str], day: date) -> str | None:
    if kind == "fixed":
        return day_words(day + timedelta(days=_DAY_WORDS[match.group(1)]))
    if kind in ("ago", "in"):
        count = int(match.group(1)) if match.group(1).isdigit() else _NUMBERS[match.group(1)]
        return _shift(day, -count if kind == "ago" else count, match.group(2))
    forward = match.group(1) in ("next", "this coming")
    if kind == "weekend":
        saturday = _weekday(day, "saturday", forward)
        return f"{day_words(saturday)} {day_words(saturday + timedelta(days=1))}"
    if kind == "weekday":
        return day_words(_weekday(day, match.group(2), forward))
    return _shift(day, 1 if forward else -1, match.group(2))
