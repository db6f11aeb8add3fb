"""A recall's vector filter answered by row of the index (made while the query embeds) gives
the answers the same filter gives by id, and leaves to the ids whatever changed since."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from salience import Memory
from salience.briefing.passing import Ahead
from salience.search import ahead_rows
from salience.search.ahead_rows import RowsAhead
from salience.search.fetched import Fetched
from salience.search.rowids import RowIds, SavedIds
from salience.stores.base import MemoryFilter

WORDS = "garden tomato water rose ferry harbour pier gull noon dawn".split()
QUERIES = ("garden tomato water", "ferry harbour", "rose at noon", "gull pier dawn water")


def _fill(memory: Memory, count: int = 120, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    for i in range(count):
        memory.remember(
            " ".join(rng.choice(WORDS, size=4)) + f" note {i}",
            user=str(rng.choice(["ann", "bob", "cy"], p=[0.7, 0.2, 0.1])),
            type=str(rng.choice(["observation", "decision"])),
        )


def _query(memory: Memory, text: str) -> np.ndarray:
    vector = memory.vectors.query_vector(text)
    assert vector is not None
    return vector


def _ahead(memory: Memory, flt: MemoryFilter) -> Ahead:
    made = memory._briefings.ahead(flt)
    assert made is not None
    return made


def _search(
    memory: Memory, text: str, flt: MemoryFilter, k: int, by_rows: RowsAhead | None, ahead: Ahead
) -> list[tuple[int, str, float]]:
    return memory.vectors.search_rows(
        _query(memory, text),
        flt,
        k,
        min_similarity=0.1,
        neighbour_weight=0.3,
        matching=partial(memory._matching, ahead=ahead),
        by_rows=by_rows,
    )


def _asked_by_id(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a search asks its filter by id (once a round)."""
    calls: list[int] = []
    call = Fetched.__call__

    def counted(self: Fetched[object], ids: list[str]) -> object:
        calls.append(len(ids))
        return call(self, ids)

    monkeypatch.setattr(Fetched, "__call__", counted)
    return calls


@pytest.mark.parametrize("seed", [1, 2])
def test_the_rows_answer_as_the_ids_do(
    memory: Memory, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory, seed=seed)
    asked = _asked_by_id(monkeypatch)
    for user in (None, "ann", "bob", "cy"):
        for kind in ({}, {"type": "decision"}):
            flt = MemoryFilter(as_of=memory.now(), user=user, **kind)  # type: ignore[arg-type]
            ahead = _ahead(memory, flt)
            by_rows = memory.vectors.rows_ahead(ahead, flt)
            assert by_rows is not None
            for text in QUERIES:
                for k in (1, 5, 40, 200):  # (a filter that leaves few: the search looks deeper)
                    asked.clear()
                    by_id = _search(memory, text, flt, k, None, ahead)
                    assert asked  # (by id: asked)
                    asked.clear()
                    assert _search(memory, text, flt, k, by_rows, ahead) == by_id
                    assert not asked  # (by row: never asked by id)


def test_a_row_written_since_is_answered_by_id(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory)
    flt = MemoryFilter(as_of=memory.now(), user="ann")
    ahead = _ahead(memory, flt)
    by_rows = memory.vectors.rows_ahead(ahead, flt)
    assert by_rows is not None
    new = memory.remember("garden tomato water tomato water", user="ann").id
    asked = _asked_by_id(monkeypatch)
    hits = _search(memory, "garden tomato water", flt, 5, by_rows, ahead)
    assert asked  # (its row is past those the rows ahead hold)
    assert new in [memory_id for _, memory_id, _ in hits]
    assert hits == _search(memory, "garden tomato water", flt, 5, None, ahead)


def test_a_memory_the_columns_did_not_hold_is_answered_by_id(memory: Memory) -> None:
    """Written after the filter's answers were read from the columns, but before the rows
    were: its row holds an id the answers do not know."""
    _fill(memory)
    flt = MemoryFilter(as_of=memory.now(), user="ann")
    ahead = _ahead(memory, flt)
    new = memory.remember("ferry harbour ferry harbour", user="ann").id
    memory.vectors.count()  # (the rows read: the new one is among them)
    by_rows = memory.vectors.rows_ahead(ahead, flt)
    assert by_rows is not None
    hits = _search(memory, "ferry harbour", flt, 5, by_rows, ahead)
    assert new in [memory_id for _, memory_id, _ in hits]
    assert hits == _search(memory, "ferry harbour", flt, 5, None, ahead)


def test_rows_read_again_or_another_filter_are_answered_by_id(memory: Memory) -> None:
    _fill(memory)
    flt = MemoryFilter(as_of=memory.now(), user="ann")
    by_rows = memory.vectors.rows_ahead(_ahead(memory, flt), flt)
    assert by_rows is not None
    index = memory.vectors._local
    rows = np.arange(5, dtype=np.intp)
    assert by_rows.seqs(index, rows, flt) is not None
    assert by_rows.seqs(index, rows, MemoryFilter(as_of=memory.now(), user="bob")) is None
    assert by_rows.seqs(object(), rows, flt) is None  # (another index: a tenant's own)
    first = memory.list(user="ann", limit=1)[0]
    memory.update(first.id, user="ann", content="rose rose rose")  # (embedded again: in place)
    memory.vectors.count()
    assert by_rows.seqs(index, rows, flt) is not None  # (each row holds the same memory)
    memory.purge(first.id, user="ann")  # (a row gone: the rows are read whole again)
    memory.vectors.count()
    assert by_rows.seqs(index, rows, flt) is None


def test_recall_finds_the_same_hits_by_row_as_by_id(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory, count=200)
    answered: list[bool] = []
    seqs = RowsAhead.seqs

    def spied(self: RowsAhead, *args: object) -> object:
        found = seqs(self, *args)  # type: ignore[arg-type]
        answered.append(found is not None)
        return found

    monkeypatch.setattr(RowsAhead, "seqs", spied)
    searches = [(text, user) for text in QUERIES for user in (None, "ann", "cy")]
    by_row = [memory.search(t, 10, user=u, touch=False) for t, u in searches]
    assert any(answered)
    monkeypatch.setattr(memory.vectors, "rows_ahead", lambda *_: None)
    by_id = [memory.search(t, 10, user=u, touch=False) for t, u in searches]
    for a, b in zip(by_row, by_id, strict=True):
        assert [(h.record.id, h.score) for h in a] == [(h.record.id, h.score) for h in b]


def test_the_rows_of_a_filter_list_each_rows_number_or_why_not(memory: Memory) -> None:
    _fill(memory, count=30)
    flt = MemoryFilter(as_of=memory.now(), user="bob")
    by_rows = memory.vectors.rows_ahead(_ahead(memory, flt), flt)
    assert by_rows is not None
    index = memory.vectors._local
    ids = index.ids()
    rows = np.arange(len(ids), dtype=np.intp)
    seqs = by_rows.seqs(index, rows, flt)
    assert seqs is not None
    owner = {r.id: r.user for r in memory.list(user="bob", limit=None)}
    assert [int(s) != ahead_rows.FAILED for s in seqs] == [i in owner for i in ids]
    assert (seqs != ahead_rows.UNKNOWN).all()


def test_rows_read_from_the_saved_file_are_answered_by_id(memory: Memory) -> None:
    """An index resumed from the file beside the store holds its ids as bytes: reading every
    one to answer by row would cost the worker more than it saves."""
    _fill(memory, count=10)
    flt = MemoryFilter(as_of=memory.now(), user="ann")
    ahead = _ahead(memory, flt)

    class Resumed:
        def row_ids(self) -> RowIds:
            fixed = np.array([b"a", b"b"], dtype="S1")
            return RowIds(SavedIds(fixed, np.argsort(fixed, kind="stable")))

    assert ahead_rows.rows_ahead(Resumed(), ahead, flt) is None  # type: ignore[arg-type]
    assert ahead_rows.rows_ahead(memory.vectors._local, ahead, flt) is not None
