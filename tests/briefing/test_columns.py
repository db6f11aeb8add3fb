"""Vocabularies: strings as codes, and saved names adopted at once."""

from __future__ import annotations

import numpy as np

from salience.briefing.columns import NONE, UNKNOWN, Columns, Vocabulary
from tests.factory import record


def test_codes_follow_first_appearance() -> None:
    vocab = Vocabulary()
    assert [vocab.code(n) for n in ("b", "a", "b", None, "")] == [0, 1, 0, NONE, NONE]
    assert vocab.names == ["b", "a"]
    assert vocab.lookup("a") == 1
    assert vocab.lookup("zz") == UNKNOWN


def test_saved_names_are_adopted_as_the_codes_they_had() -> None:
    vocab = Vocabulary()
    assert vocab.adopt(["s2", "s1", "s3"])
    assert [vocab.lookup(n) for n in ("s1", "s2", "s3")] == [1, 0, 2]
    assert vocab.code("s4") == 3  # new names follow
    assert vocab.adopt(["s2", "s1", "s3", "s4"])  # (the same names: nothing to do)
    assert not vocab.adopt(["s1", "s2", "s3", "s4"])  # codes already given out otherwise


def test_names_no_save_would_write_are_refused() -> None:
    assert not Vocabulary().adopt(["a", "b", "a"])
    assert not Vocabulary().adopt(["a", ""])
    empty = Vocabulary()
    assert empty.adopt([])
    assert empty.names == []


def test_a_derived_value_is_made_once_and_taken_rows_take_theirs() -> None:
    columns = Columns.from_records([record(f"memory {n}", importance=n / 10) for n in range(8)])
    made: list[int] = []

    def doubled(c: Columns) -> np.ndarray:
        made.append(len(c))
        return c.importance * 2

    first = columns.derived("doubled", doubled)
    assert columns.derived("doubled", doubled) is first
    assert made == [8]
    rows = np.array([5, 1, 6])
    taken = columns.take(rows, lazy=True)
    assert taken.derived("doubled", doubled).tolist() == first[rows].tolist()
    assert made == [8]  # (taken from the pool's, not made again)
    again = taken.take(np.array([2, 0]), lazy=True)
    assert again.derived("doubled", doubled).tolist() == first[[6, 5]].tolist()
    source = Columns.from_records([record("x", importance=0.3), record("y", importance=0.1)])
    other = source.take(np.array([1]), lazy=True)
    assert other.derived("doubled", doubled).tolist() == [0.2]  # (made for all its source's)
    assert made == [8, 2]
    assert source.derived("doubled", doubled).tolist() == [0.6, 0.2]
    assert made == [8, 2]
    copied = columns.take(rows)  # (a copy made now: makes its own, once)
    assert copied.derived("doubled", doubled).tolist() == first[rows].tolist()
    assert made == [8, 2, 3]
