"""A small tenant's own copy of its rows' full text: FTS5's scores over the store's
statistics, at the cost of the tenant's rows, following every write."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from salience.stores import tenancy
from salience.stores.base import MemoryFilter
from salience.stores.sqlite import SQLiteStore, fulltext, ownertext
from tests.factory import NOW, record
from tests.stores.sqlite.corpus import QUERIES, TITLES, WORDS, asked, fts5

USERS = [f"user-{i}" for i in range(8)]
TENANT = "user-0"
DATES = [0, 1, 2, 5, 40, 400]  # (days before NOW: some rows share a month, a year)
MORE_QUERIES = [
    *QUERIES,
    "what happened in April 2026",  # words of the dates' column (searched without dates too)
    "maria's painting",  # a phrase of two tokens
    "donate donate car",
    "sunset",
]


def _row(rng: random.Random, user: str, i: int) -> Any:
    words = rng.choices(WORDS, k=rng.randint(1, 9))
    if i % 17 == 0:
        words = ["maria", "maria", "dinner"]  # equal rows: ties by row number
    return record(
        " ".join(words),
        age=rng.choice(DATES),
        title=rng.choice(TITLES),
        tags=("trip",) if i % 3 == 0 else (),
        entities=("Maria",) if i % 5 == 0 else (),
        user=user,
        type="fact" if i % 4 == 0 else "observation",
        forget_reason="wrong" if i % 11 == 0 else None,
    )


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLiteStore]:
    """320 rows of 8 users (the tenant a small part), searched as a large store is: no copy
    of the whole index, tenants served by their own rows."""
    monkeypatch.setattr(fulltext, "KEPT_UP_TO", 10)
    monkeypatch.setattr(ownertext, "FROM", 10)
    store = SQLiteStore(tmp_path / "s.db")
    rng = random.Random(11)
    for i in range(320):
        store.insert(_row(rng, USERS[i % len(USERS)], i))
    yield store
    store.close()


def _loaded(store: SQLiteStore, owners: tuple[str, ...] = (TENANT,)) -> None:
    flt = MemoryFilter(as_of=NOW, user=owners[0], spaces=owners[1:])
    for _ in range(2):
        store.search_rows("maria", flt, 5)
    store._owner_texts.wait()
    assert store._owner_texts.kept(owners) is not None, store._owner_texts.failure


def _same_as_fts5(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, flt: MemoryFilter, limit: int = 50
) -> None:
    ask = fts5(store, monkeypatch)
    served = 0
    ranked = store._owner_texts.ranked

    def counted(*args: Any) -> Any:
        nonlocal served
        found = ranked(*args)
        served += found is not None
        return found

    for dated in (False, True):
        for query in MORE_QUERIES:
            with monkeypatch.context() as m:
                m.setattr(store._owner_texts, "ranked", counted)
                found = store.search_rows(query, flt, limit, dated=dated)
            assert found == ask(query, flt, limit, dated), (query, dated)
    assert served == 2 * len(MORE_QUERIES)  # (every search above was the copy's)


@pytest.mark.parametrize("join_all", [True, False])
def test_a_tenants_copy_gives_fts5s_hits_and_scores(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, join_all: bool
) -> None:
    if not join_all:  # (a large store's FTS5 query: the best matches first, then the join)
        monkeypatch.setattr(fulltext, "JOIN_ALL_UP_TO", 0)
    _loaded(store)
    for flt in (
        MemoryFilter(as_of=NOW, user=TENANT),
        MemoryFilter(as_of=NOW, user=TENANT, type="fact"),
        MemoryFilter(as_of=NOW, user=TENANT, include_forgotten=True),
    ):
        _same_as_fts5(store, monkeypatch, flt)
    statements = asked(store)
    store.search_rows("maria dinner", MemoryFilter(as_of=NOW, user=TENANT), 5)
    assert not any("memory_fts MATCH" in s for s in statements)  # (one word of one token)


def test_a_user_and_a_space_they_read_are_one_tenant(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(store, (TENANT, "user-3"))
    assert store._owner_texts.kept((TENANT,)) is None
    _same_as_fts5(store, monkeypatch, MemoryFilter(as_of=NOW, user=TENANT, spaces=("user-3",)))


def test_the_copy_loads_at_the_second_search_and_not_for_a_large_tenant(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    flt = MemoryFilter(as_of=NOW, user=TENANT)
    store.search_rows("maria", flt, 5)
    store._owner_texts.wait()
    assert store._owner_texts.loads == 0  # (a command that searches once loads nothing)
    store.search_rows("beach", flt, 5)
    store._owner_texts.wait()
    assert store._owner_texts.loads == 1
    big = SQLiteStore(store.location)  # (a second process: the tenant is half the store)
    monkeypatch.setattr(tenancy, "RECHECK", 3)  # (counted again every third search)
    counted = asked(big)
    try:
        for i in range(400):
            big.insert(record(f"maria number {i}", user="user-big"))
        for _ in range(8):
            big.search_rows("maria", MemoryFilter(as_of=NOW, user="user-big"), 5)
            big._owner_texts.wait()
        assert big._owner_texts.loads == 0
        assert sum("SELECT 1 FROM memories WHERE user IN" in s for s in counted) == 3  # (1, 4, 7)
        assert big._owner_texts.kept(("user-big",)) is None
    finally:
        big.close()


def test_the_copy_follows_writes_of_this_process_and_others(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(store)
    other = SQLiteStore(store.location)
    flt = MemoryFilter(as_of=NOW, user=TENANT)
    rng = random.Random(5)
    try:
        mine = store.list(flt, limit=100)
        for step in range(12):
            writer = store if step % 2 else other
            writer.insert(_row(rng, USERS[step % 3], 1000 + step))  # (the tenant's, others')
            if step % 4 == 3:  # (a tenant's row whose text changes)
                changed = mine[step]
                writer.replace(replace(changed, content="donate the painting on the beach"))
            _same_as_fts5(store, monkeypatch, flt)
        assert store._owner_texts.loads == 1  # (caught up, never read again)
        assert store._owner_texts.catches > 0
    finally:
        other.close()


@pytest.mark.parametrize("how", ["delete", "erase", "another process"])
def test_a_deleted_row_drops_the_copy_and_its_words_with_it(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    _loaded(store)
    flt = MemoryFilter(as_of=NOW, user=TENANT)
    store.insert(record("zanzibar quokka", user=TENANT))
    store.insert(record("zanzibar", user="user-5"))
    assert [hit[1] for hit in store.search_rows("quokka", flt, 5)]
    assert any(part.of("quokka") for part in store._owner_texts.kept((TENANT,)).parts)  # type: ignore[union-attr]
    gone = store.list(MemoryFilter(as_of=NOW, user=TENANT), limit=1000)
    gone = [r for r in gone if "quokka" in r.content]
    if how == "delete":
        store.delete(gone[0].id)
    elif how == "erase":
        store.erase_user("user-5")  # (any erasure: every copy goes)
        store.delete(gone[0].id)
    else:
        other = SQLiteStore(store.location)
        try:
            other.delete(gone[0].id)
        finally:
            other.close()
    assert store.search_rows("quokka", flt, 5) == []
    copy = store._owner_texts.kept((TENANT,))
    assert copy is None or not any(part.of("quokka") for part in copy.parts)
    _loaded(store)  # (loaded again; the same answers as FTS5)
    _same_as_fts5(store, monkeypatch, flt)
