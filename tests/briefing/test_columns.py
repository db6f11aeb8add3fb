"""Vocabularies: strings as codes, and saved names adopted at once."""

from __future__ import annotations

from salience.briefing.columns import NONE, UNKNOWN, Vocabulary


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
