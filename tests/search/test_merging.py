"""The pool's rows from row numbers (local hits, each once a list) are the rows by id."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.search import merging
from salience.search.pool import Found

# (source, row number) -> id: a mounted layer (source 1) may hold a local memory's id.
MEMORIES = [(0, seq, f"m{seq}") for seq in range(12)] + [(1, 3, "m3"), (1, 7, "x7")]


def _found(picks: list[int], scores: list[float]) -> Found:
    found = Found()
    for pick, score in zip(picks, scores, strict=False):
        source, seq, memory_id = MEMORIES[pick]
        found.add(source, [(seq, memory_id, score)])
    return found


def _plain(rows: Any) -> list[Any]:
    source, seqs, ids, at_l, at_v = rows
    return [source, seqs, ids, at_l.tolist(), at_v.tolist()]


hits = st.lists(st.integers(0, len(MEMORIES) - 1), max_size=16)


@settings(max_examples=400, deadline=None)
@given(lexical=hits, vector=hits)
def test_both_ways_give_the_same_rows(lexical: list[int], vector: list[int]) -> None:
    found_l, found_v = _found(lexical, [1.0] * 16), _found(vector, [0.5] * 16)
    by_ids = _plain(merging._by_ids(found_l, found_v))
    local_once = all(p < 12 for p in lexical + vector)
    local_once = (
        local_once and len(set(lexical)) == len(lexical) and len(set(vector)) == len(vector)
    )
    for dense in (merging.DENSE, 0):  # (an array over the row numbers, or sorting)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(merging, "DENSE", dense)
            assert _plain(merging.merged(found_l, found_v)) == by_ids
            fast = merging._by_row_numbers(found_l, found_v)
        assert (fast is not None) == local_once
        if fast is not None:
            assert _plain(fast) == by_ids


def test_rows_come_full_text_first_then_vectors_of_other_memories() -> None:
    found_l, found_v = _found([4, 1, 9], [3.0, 2.0, 1.0]), _found([9, 2, 4, 0], [0.9] * 4)
    source, seqs, ids, at_l, at_v = merging.merged(found_l, found_v)
    assert seqs == [4, 1, 9, 2, 0]
    assert ids == ["m4", "m1", "m9", "m2", "m0"]
    assert source == [0] * 5
    assert at_l.tolist() == [0, 1, 2, -1, -1]
    assert at_v.tolist() == [2, -1, 0, 1, 3]
    assert at_l.dtype == np.intp
    assert at_v.dtype == np.intp
