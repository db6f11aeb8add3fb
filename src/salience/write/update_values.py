"""The values a sentence holds, for update detection (:mod:`salience.write.updates`): a number,
an amount, a time, a date, a day, a named thing, a place, which item of a series; and what
sort each is (one replaces another of its sort, never a number a name)."""

from __future__ import annotations

import re

from salience.text import STOPWORDS
from salience.write.update_words import (
    CALENDAR,
    DETERMINERS,
    DIGITS,
    JOINING,
    MONTHS,
    NUMBER_WORDS,
    ORDINALS,
    PLACE_AFTER,
    PLACE_IF_NAMED,
    PROGRESS,
    SERIES,
    SKIPPED,
    stem,
)

_CLOCK = re.compile(r"(\d{1,2})(?::([0-5]\d))?(am|pm)?")
"""A time of day as written: "7", "7:00", "7pm", "7:00pm"."""
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
"""An ordinal in digits ("5th"): the same value as "fifth" and "5"."""
_YEAR = re.compile(r"(?:19|20)\d\d")

_MARKED = {"@": "place", "$": "amount", "#": "index"}
"""The sorts of value marked by their first character (see :func:`values_of`)."""


def kind_of(value: str) -> str:
    """What sort of value it is: one replaces another of its sort (a time a time, a place a
    place), never a number a name."""
    if value[0] in _MARKED:
        return _MARKED[value[0]]
    if value[0].isdigit():
        if _YEAR.fullmatch(value):
            return "year"
        return "time" if ":" in value or value.endswith(("am", "pm")) else "number"
    opens = value.split("-", maxsplit=1)[0]
    if value in CALENDAR or value + "s" in CALENDAR or opens in MONTHS or is_period(value):
        return "when"
    return "number" if value in NUMBER_WORDS or value in ("1x", "2x", "3x") else "name"


def _clock(value: str, after: str) -> str:
    """A time of day in one form, with its half of the day in it or in the next word ("7pm",
    "7 pm", "7:00 pm" are "19:00"; "6:30am" is "6:30"); any other value as it was."""
    found = _CLOCK.fullmatch(value)
    half = None if found is None else found[3] or (after if after in ("am", "pm") else None)
    if found is None or half is None or not 1 <= int(found[1]) <= 12:
        return value
    return f"{int(found[1]) % 12 + (12 if half == 'pm' else 0)}:{found[2] or '00'}"


def _month(raw: tuple[str, ...], words: tuple[str, ...], i: int) -> str:
    """The month a date's day at ``i`` is of ("October 16th", "16 Oct"), or ""."""
    for j in (i - 1, i + 1):
        if 0 <= j < len(words) and words[j] in MONTHS and (raw[j][0].isupper() or j > i):
            return words[j][:3]
    return ""


_JOINED_UNIT = re.compile(r"^[\d.,]+-([a-z]{3,})$")
"""A number with its unit written onto it by a hyphen ("2-bedroom")."""
PERIODS = frozenset(
    "year week month weekend semester quarter season summer winter spring fall autumn".split()
)
"""Words of a period that *last*, *this* or *next* before them name ("last year", "this
week"): a when, as a month is ("Last year I read 24 books", "So far this year I've read 9":
a count of another period, not one that changed)."""
_RELATIVE = frozenset(("last", "this", "next"))


def is_period(value: str) -> bool:
    """Whether a value is a period named by *last*, *this* or *next* ("last-year"): one that
    stands against another such period, or, said on one side only, only says when."""
    return value.split("-", 1)[0] in _RELATIVE


def number_sort(
    raw: tuple[str, ...], stems: tuple[str, ...], at: int
) -> tuple[bool, frozenset[str]]:
    """The sort of the number at ``at``: whether it is an ordinal ("4th floor", "third") and
    its unit, the stems of up to three words after it, past a name, to the first that names
    nothing ("82 kilos": kilo; "my first video game tournament": video, game, tournament; "15
    Crash Course videos": video; "3 times a week": time, though a word of chat). A count
    replaces a count of its unit ("3 kilos", "5 kilos"), not of another ("650 square feet",
    "the 4th floor")."""
    word = raw[at].lower()
    is_ordinal = word in ORDINALS or _ORDINAL.match(word.rstrip(".,:/-")) is not None
    joined = _JOINED_UNIT.search(word)  # ("2-bedroom flat": the unit written onto it too)
    unit: set[str] = set() if joined is None else {stem(joined[1])}
    for j in range(at + 1, min(at + 6, len(raw))):
        if raw[j][0].isupper() and not unit:
            continue  # (a name before the unit: "15 Crash Course videos")
        said = stems[j] or ("time" if raw[j].lower() in ("time", "times") else "")
        if not said or len(unit) == 3:
            break
        unit.add(said)
    return is_ordinal, frozenset(unit)


def same_sort(one: tuple[bool, frozenset[str]], other: tuple[bool, frozenset[str]]) -> bool:
    """Whether two numbers' sorts (:func:`number_sort`) may be one measure: of one unit (a
    word in common: "three issues", "my fifth issue", how far someone got), or, one said
    without its unit ("down to 77"), both ordinals or both counts ("7 years old", "in 2nd
    grade": no)."""
    if one[1] and other[1]:
        return not one[1].isdisjoint(other[1])
    return one[0] == other[0]


def ordinal(word: str) -> str:
    """An ordinal in digits as its number ("14th": "14"), any other word as it is."""
    return _ORDINAL.sub(r"\1", word.rstrip(".,:/-"))


def _number(raw: tuple[str, ...], words: tuple[str, ...], i: int) -> str:
    """The value of the number (or amount) at ``i``: a day of a date ("oct-16"), an item of a
    series ("#lecture-3"), a time of day ("19:00"), or the number as written."""
    word = words[i]
    value = ordinal(word)
    month = _month(raw, words, i) if raw[i][0] != "$" else ""
    series = words[i - 1] if i and words[i - 1] in SERIES else ""
    if month:
        value = f"{month}-{value}"  # (a day of a date, not a count)
    elif series and (i < 2 or words[i - 2] not in PROGRESS):
        value = f"#{series}-{value}"  # (which item: "lecture 3")
    return _clock(value, words[i + 1] if i + 1 < len(words) else "")


def values_of(raw: tuple[str, ...], words: tuple[str, ...]) -> dict[str, int]:
    found: dict[str, int] = {}
    for i, (token, word) in enumerate(zip(raw, words, strict=True)):
        if token[0].islower() and word not in _NOTED:
            continue  # (most words: none of the branches below)
        if token[0].isdigit() or token[0] == "$":
            found.setdefault(_number(raw, words, i), i)
        elif word in NUMBER_WORDS:
            found.setdefault(DIGITS.get(word, word), i)
        elif word in _RELATIVE:
            if i + 1 < len(words) and words[i + 1] in PERIODS:
                found[f"{word}-{words[i + 1]}"] = i + 1
        elif word in CALENDAR or (token == "May" and i):
            if not _dated(raw, i):  # (else the date beside it is the value)
                found[word.removesuffix("s")] = i
        elif token[0].isupper() and i > 0 and word not in STOPWORDS and not word.startswith("i'"):
            found[stem(word)] = i
        elif word in PLACE_AFTER and i + 1 < len(words):
            if word in PLACE_IF_NAMED and words[i + 1] not in DETERMINERS:
                continue  # ("to take", "on Wednesday": not a place)
            rest = [w for w in words[i + 1 : i + 4] if w not in DETERMINERS]
            if rest and rest[0].isalpha() and rest[0] not in SKIPPED:
                found.setdefault("@" + stem(rest[0]), i + 1 + words[i + 1 :].index(rest[0]))
    return found


_NOTED = NUMBER_WORDS | CALENDAR | PLACE_AFTER | _RELATIVE
"""The lower-case words :func:`values_of` reads (any other is no value, nor says where one is)."""


def _dated(raw: tuple[str, ...], i: int) -> bool:
    """Whether the month at ``i`` has its day beside it (the date is the value then)."""
    return raw[i].lower() in MONTHS and any(
        0 <= j < len(raw) and raw[j][0].isdigit() for j in (i - 1, i + 1)
    )


def opens_name(token: str) -> bool:
    """Whether a word after a clause's "not" opens what it names: a determiner, a number or a
    capitalised word ("not the 14th", "not 5 pm", "not Vienna"; not "not knowing")."""
    return token[0].isupper() or token[0].isdigit() or token.lower() in DETERMINERS


def named_by(words: tuple[str, ...]) -> set[str]:
    """What the first words of ``words`` name, up to three and to the next joining word (the
    determiners passed over), each as its stem, as written and as a value ("14th": "14")."""
    found: set[str] = set()
    for word in [w for w in words if w not in DETERMINERS][:3]:
        if word in JOINING:
            break
        found |= {stem(word), word.rstrip(".,:/-"), DIGITS.get(word, word), ordinal(word)}
    return found
