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


def _altered(columns: Columns, rows: list[int], **values: object) -> Columns:
    """Those rows of ``columns`` as new columns, with some fields set (as a write changes a
    row: its whole row read again)."""
    other = columns.take(np.array(rows))
    for name, value in values.items():
        getattr(other, name)[:] = value
    return other


def test_a_change_in_place_is_assign_s_and_lent_columns_never_see_it() -> None:
    vocab = Vocabularies()
    room = Room()
    columns = room.appended(_columns(vocab, 0, 6), _columns(vocab, 6, 4))
    before = columns.take(np.arange(len(columns)))  # (what a lent view must keep reading)
    lent = columns.take(np.arange(3), lazy=True)  # (read lazily: after the changes below)
    room.lent()
    rows = np.array([1, 7])
    touched = _altered(columns, [1, 7], access_count=5, accessed=123)
    expected = columns.take(np.arange(len(columns)))
    expected.assign(rows, touched)
    after_touch = room.changed(columns, rows, touched)
    _same(after_touch, expected)
    assert np.shares_memory(after_touch.ids, columns.ids)  # (not altered: not copied)
    assert not np.shares_memory(after_touch.access_count, columns.access_count)
    # A later change to another column copies that one too: the lent columns share it.
    reweighed = _altered(after_touch, [2], importance=-0.0)
    expected.assign(np.array([2]), reweighed)
    after_weight = room.changed(after_touch, np.array([2]), reweighed)
    _same(after_weight, expected)
    assert after_weight.importance.tobytes() != before.importance.tobytes()  # (-0.0 is a change)
    _same(columns, before)
    _same(lent, before.take(np.arange(3)))
    # Once copied, a column is changed in place; the next rows are written past the end.
    again = room.changed(after_weight, np.array([3]), _altered(after_weight, [3], access_count=9))
    assert np.shares_memory(again.access_count, after_weight.access_count)
    grown = room.appended(again, _columns(vocab, 10, 1))
    assert np.shares_memory(grown.access_count, again.access_count)
    assert np.shares_memory(grown.ids, columns.ids)


def test_unlent_columns_are_changed_in_place_and_ids_widen_when_they_must() -> None:
    vocab = Vocabularies()
    room = Room()
    columns = room.appended(_columns(vocab, 0, 3), _columns(vocab, 3, 1))
    wider = _columns(vocab, 2, 1, width=40)
    expected = columns.take(np.arange(len(columns)))
    expected = expected.extended(wider).take(np.array([0, 1, 4, 3]))  # (ids as wide as 40)
    changed = room.changed(columns, np.array([2]), wider)
    assert np.shares_memory(changed.access_count, columns.access_count)
    assert changed.ids.dtype == np.dtype("<U40")
    _same(changed, expected)
