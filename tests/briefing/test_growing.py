"""Columns grown in place: the same columns as joining new arrays, without touching any
columns handed out before."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from salience.briefing.columns import ARRAY_FIELDS, Columns, Vocabularies
from salience.briefing.growing import Room
from tests.factory import record


def _columns(vocab: Vocabularies, first: int, count: int, width: int = 26) -> Columns:
    records = [
        replace(
            record(
                f"memory {i} about the deploy", tags=[f"project:p{i % 3}", "project:b"][: i % 2 + 1]
            ),
            id=f"{i:0{width}d}",
            type=["note", "decision"][i % 2],
        )
        for i in range(first, first + count)
    ]
    return Columns.from_records(records, vocab, list(range(first, first + count)))


def _same(a: Columns, b: Columns) -> None:
    for name in ARRAY_FIELDS:
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype, name
        assert left.tolist() == right.tolist(), name
    assert a.several == b.several


def test_rows_appended_one_by_one_are_the_joined_columns_and_earlier_ones_stay() -> None:
    vocab = Vocabularies()
    room = Room()
    columns = _columns(vocab, 0, 5)
    joined = columns
    handed_out: list[tuple[Columns, Columns]] = []
    for i in range(5, 300):  # (past several fills of the room)
        more = _columns(vocab, i, 1 + i % 3)
        handed_out.append((columns, columns.take(np.arange(len(columns)))))
        columns = room.appended(columns, more)
        joined = joined.extended(more)
        _same(columns, joined)
    for view, copy in handed_out:
        _same(view, copy)  # (rows past a view's end were written, never its own)


def test_columns_that_are_not_the_room_s_own_views_are_copied_not_written_over() -> None:
    vocab = Vocabularies()
    room = Room()
    first = room.appended(_columns(vocab, 0, 4), _columns(vocab, 4, 1))
    changed = first.take(np.arange(len(first)))  # (a copy, as before an in-place change)
    changed.assign(np.array([0]), _columns(vocab, 90, 1))
    grown = room.appended(changed, _columns(vocab, 5, 2))
    _same(grown, changed.extended(_columns(vocab, 5, 2)))
    assert first.seqs.tolist() == [0, 1, 2, 3, 4]


def test_a_longer_id_widens_the_ids() -> None:
    vocab = Vocabularies()
    room = Room()
    columns = room.appended(_columns(vocab, 0, 3), _columns(vocab, 3, 1))
    longer = _columns(vocab, 4, 1, width=40)
    grown = room.appended(columns, longer)
    assert grown.ids.dtype == np.dtype("<U40")
    assert grown.ids.tolist()[-1] == f"{4:040d}"
    _same(grown, columns.extended(longer))


def test_columns_of_two_vocabularies_are_refused() -> None:
    with pytest.raises(ValueError, match="different vocabularies"):
        Room().appended(_columns(Vocabularies(), 0, 2), _columns(Vocabularies(), 2, 1))
