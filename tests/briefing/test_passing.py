"""A filter answered from the columns (or from a record at hand) gives the store's answers:
every filter the columns can answer, on a store of varied memories, before and after it
changes; the others are left to the store."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from salience.briefing import passing, snapshot
from salience.briefing.columns import Columns, Vocabularies
from salience.briefing.passing import answerable, passes
from salience.briefing.snapshot import ColumnSnapshot
from salience.stores.base import MemoryFilter
from salience.stores.grant import granted
from salience.stores.sqlite import SQLiteStore
from tests.factory import NOW, record

OWNERS = ["ana", "bo", "space:team"]
TYPES = ["observation", "decision", "preference"]
AGENTS = [None, "claude", "cursor"]
PROJECTS = [None, "alpha", "beta"]


def _fill(store: SQLiteStore, count: int, offset: int = 0) -> None:
    with granted("test"):
        _add(store, count, offset)


def _add(store: SQLiteStore, count: int, offset: int) -> None:
    for n in range(offset, offset + count):
        ended = [None, NOW - timedelta(days=1), NOW + timedelta(days=1)][n % 3]
        store.insert(
            record(
                f"memory {n} about the cache",
                age=n % 7,
                user=OWNERS[n % 3],
                type=TYPES[n % 4 % 3],
                agent=AGENTS[n % 5 % 3],
                project=PROJECTS[n % 2 + (n % 7 == 0)],
                valid_until=ended,
                forget_reason="asked" if n % 11 == 0 else None,
                enabled=n % 13 != 0,
            )
        )


def filters() -> list[MemoryFilter]:
    """Every combination of what the columns answer (and a moment before and after NOW)."""
    out = []
    for user, spaces, agent, project, kind, flags, moment in itertools.product(
        [None, "ana", "bo", "nobody"],
        [(), ("space:team",)],
        [None, "claude", "nobody"],
        [None, "alpha"],
        [{}, {"type": "decision"}, {"types": ("decision", "preference")}],
        [(False, False, False), (True, False, True), (False, True, False), (True, True, False)],
        [NOW, NOW + timedelta(days=2)],
    ):
        if spaces and user is None:
            continue
        out.append(
            MemoryFilter(
                as_of=moment,
                user=user,
                spaces=spaces,
                agent=agent,
                project=project,
                include_forgotten=flags[0],
                include_superseded=flags[1],
                enabled_only=flags[2],
                **kind,  # type: ignore[arg-type]
            )
        )
    out.append(MemoryFilter(as_of=NOW, types_exclude=("decision",)))
    return out


@pytest.fixture
def store(tmp_path: Path) -> SQLiteStore:
    opened = SQLiteStore(tmp_path / "passing.db")
    _fill(opened, 60)
    return opened


def _check(store: SQLiteStore, snapshot: ColumnSnapshot, every: int = 1) -> None:
    held = {r.id: r for _, r in store.all_rows().rows}
    seq_of = {r.id: seq for seq, r in store.all_rows().rows}
    ids = list(reversed(seq_of))
    seqs = np.array([seq_of[i] for i in ids], dtype=np.int64)
    answered, asked = 0, filters()[::every]
    for flt in asked:
        expected = store.matching(ids, flt)
        assert snapshot.matching(ids, flt) == expected, flt
        ahead = snapshot.ahead(flt)
        assert ahead is not None
        assert ahead(ids, flt) == expected, flt
        assert ahead(ids[::-2], replace(flt)) == [p for p in expected if p[1] in ids[::-2]][::-1]
        assert [i for i in ids if passes(held[i], flt)] == [i for _, i in expected], flt
        answered += bool(expected)
        for limit in (1, 100):
            answer = snapshot.passing(seqs, flt, limit)
            assert answer is not None
            chosen, found = answer
            assert [(int(seqs[c]), i) for c, i in zip(chosen, found, strict=True)] == (
                expected[:limit]
            )
    assert answered > len(asked) // 3  # (most filters keep some memories: not all empty)


def test_every_filter_the_columns_answer_matches_the_store(store: SQLiteStore) -> None:
    _check(store, ColumnSnapshot(store, Vocabularies()))


def test_the_answers_follow_the_store_as_it_changes(store: SQLiteStore) -> None:
    snapshot = ColumnSnapshot(store, Vocabularies())
    _check(store, snapshot, 5)  # (its index of ids made: then kept up to date change by change)
    rows = store.all_rows().rows
    superseded = rows[1][1]
    with granted("test"):
        for _, gone in rows[::9]:
            store.delete(gone.id)
        _add(store, 25, offset=100)
        store.insert(record("a memory of a new owner", user="carla", type="lesson"))
        store.replace(replace(superseded, valid_until=NOW))
    _check(store, snapshot, 3)
    assert snapshot.matching([superseded.id], MemoryFilter(as_of=NOW)) == []


def test_what_the_columns_do_not_hold_is_left_to_the_store(store: SQLiteStore) -> None:
    snapshot = ColumnSnapshot(store, Vocabularies())
    ids = [r.id for _, r in store.all_rows().rows]
    seqs = np.array([seq for seq, _ in store.all_rows().rows], dtype=np.int64)
    for flt in (
        MemoryFilter(as_of=NOW, tags=("x",)),
        MemoryFilter(as_of=NOW, entity="Redis"),
        MemoryFilter(as_of=NOW, session_id="s1"),
        MemoryFilter(as_of=NOW, topic_key="t"),
        MemoryFilter(as_of=NOW, content_hash="h"),
        MemoryFilter(as_of=NOW, depends_on="01X"),
        MemoryFilter(as_of=NOW, agent=""),  # (no column codes an empty string)
        MemoryFilter(as_of=NOW, types_exclude=("",)),
    ):
        assert not answerable(flt)
        assert snapshot.matching(ids, flt) is None
        assert snapshot.passing(seqs, flt, 10) is None
        assert snapshot.ahead(flt) is None
    current = MemoryFilter(as_of=NOW)
    assert snapshot.matching([*ids, "01UNKNOWN"], current) is None  # (written since: ask)
    ahead = snapshot.ahead(current)
    assert ahead is not None
    assert ahead([*ids, "01UNKNOWN"], current) is None
    assert ahead(ids, MemoryFilter(as_of=NOW, user="ana")) is None  # (made for another filter)
    assert snapshot.passing(np.array([10**9], dtype=np.int64), current, 10) is None


def test_a_store_over_the_bound_keeps_no_index_of_ids_and_leaves_matching_to_it(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "SEQ_INDEX_UP_TO", 59)  # (the store holds 60)
    columns = ColumnSnapshot(store, Vocabularies())
    ids = [r.id for _, r in store.all_rows().rows]
    assert columns.matching(ids, MemoryFilter(as_of=NOW)) is None  # (its first look too)
    assert columns._seq_for is None
    assert not columns._seq_of
    monkeypatch.setattr(snapshot, "SEQ_INDEX_UP_TO", 60)
    assert columns.matching(ids, MemoryFilter(as_of=NOW)) == store.matching(
        ids, MemoryFilter(as_of=NOW)
    )


def test_what_passed_a_moment_ago_leaves_what_was_written_since_to_the_store(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    columns = ColumnSnapshot(store, Vocabularies())
    flt = MemoryFilter(as_of=NOW, user="ana")
    ahead = columns.ahead(flt)
    assert ahead is not None
    new = record("written after the look", user="ana")
    with granted("test"):
        store.insert(new)
    ids = [r.id for _, r in store.all_rows().rows]
    assert new.id in ids
    assert store.matching([new.id], flt)  # (it passes the filter)
    assert ahead(ids, flt) is None  # (not held then: the columns or the store answer)
    held = [i for i in ids if i != new.id]
    assert ahead(held, flt) == store.matching(held, flt)
    monkeypatch.setattr(passing, "AHEAD_UP_TO", 60)  # (the store now holds 61)
    monkeypatch.setattr(snapshot, "AHEAD_UP_TO", 60)
    assert columns.ahead(flt) is None


@pytest.mark.parametrize("dense", [passing.DENSE_POSITIONS, 0])
@pytest.mark.parametrize("seed", range(12))
def test_positions_find_each_row_number_held(
    seed: int, dense: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each row number's place among the columns' ascending ones, found by an array over
    them (``dense``) or by binary search: the same places; one not held (deleted, never
    written, -1 from records, past the last) is not found, its place 0."""
    monkeypatch.setattr(passing, "DENSE_POSITIONS", dense)
    rng = np.random.default_rng(seed)
    gaps = [1, 1, 2, 50][seed % 4]  # (a store with rows deleted, or most of them)
    held = np.unique(rng.integers(1, 60 * gaps, size=rng.integers(0, 60)))
    columns = Columns.from_records([record(f"m{n}") for n in range(len(held))], seqs=held)
    wanted = rng.integers(-3, 60 * gaps + 5, size=rng.integers(0, 80))
    where = {int(seq): at for at, seq in enumerate(held.tolist())}
    at, found = passing.positions(columns, wanted)
    assert found.tolist() == [int(w) in where for w in wanted]
    assert at.tolist() == [where.get(int(w), 0) for w in wanted]
