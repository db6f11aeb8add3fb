"""A small store's full-text index in memory: FTS5's own answers, only sooner."""

from __future__ import annotations

import random
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from salience.models import MemoryRecord
from salience.stores.base import MemoryFilter
from salience.stores.fts_terms import TermCounts
from salience.stores.sqlite import SQLiteStore, textindex
from salience.stores.sqlite.textindex import TextCopy, TextIndex
from tests.factory import NOW, record

WORDS = "john's maria dinner beach car donate sunset painting group support run running".split()
TITLES = ["dinner plans", "beach trip", None, None, "john's car"]
FILTERS = [
    MemoryFilter(as_of=NOW),
    MemoryFilter(as_of=NOW, user="u1"),
    MemoryFilter(as_of=NOW, type="fact"),
    MemoryFilter(as_of=NOW, tags=("trip",)),
    MemoryFilter(as_of=NOW - timedelta(days=3), include_forgotten=True),
]
QUERIES = [
    "Who had dinner with Maria?",
    "John's car",
    "When did they go running on the beach? May 2026",
    "painting sunset sunset",
    "support group April",
    "run",  # and running: two words, one token, two phrases
    "dinner dinner maria maria",
    "nothing matches this",
    "maria's beach",
]


def _corpus() -> list[MemoryRecord]:
    rng = random.Random(7)
    records = []
    for i in range(240):
        words = rng.choices(WORDS, k=rng.randint(1, 9))
        if i % 17 == 0:
            words = ["maria", "maria", "dinner"]  # equal rows: ties by row number
        records.append(
            record(
                " ".join(words),
                age=rng.choice([0, 1, 2, 5, 40]),
                title=rng.choice(TITLES),
                tags=("trip",) if i % 3 == 0 else (),
                entities=("Maria",) if i % 5 == 0 else (),
                user="u1" if i % 2 else "u2",
                type="fact" if i % 4 == 0 else "observation",
                forget_reason="wrong" if i % 11 == 0 else None,
                valid_until=NOW - timedelta(days=1) if i % 13 == 0 else None,
            )
        )
    return records


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "s.db")
    for r in _corpus():
        store.insert(r)
    yield store
    store.close()


def _loaded(store: SQLiteStore) -> TextIndex:
    """Search twice in one state, wait for the copy, and return it."""
    for _ in range(2):
        store.search_rows("maria", MemoryFilter(as_of=NOW), 5)
    store._text_copy.wait()
    index = store._text_copy._index
    assert index is not None, store._text_copy.failure
    return index


def _fts5(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What FTS5 itself answers (the copy set aside)."""

    def ask(query: str, flt: MemoryFilter, limit: int, dated: bool) -> Any:
        with monkeypatch.context() as m:
            m.setattr(store._text_copy, "current", lambda marker: None)
            return store.search_rows(query, flt, limit, dated=dated)

    return ask


def _asked(store: SQLiteStore) -> list[str]:
    """Record every statement the store's reading connection runs from now on."""
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    return statements


def test_the_copy_answers_as_fts5_does_scores_order_and_filters(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(store)
    fts5 = _fts5(store, monkeypatch)
    statements = _asked(store)
    compared = 0
    for query in QUERIES:
        for flt in FILTERS:
            for dated in (False, True):
                for limit in (3, 10, 200):
                    kept = store.search_rows(query, flt, limit, dated=dated)
                    assert kept == fts5(query, flt, limit, dated), (query, flt, limit, dated)
                    compared += bool(kept)
    assert compared > 150  # (most of them find something)
    store._conn.set_trace_callback(None)
    own = [s for s in statements if "memory_fts MATCH" in s]
    assert len(own) == len(QUERIES) * len(FILTERS) * 2 * 3  # FTS5's, from the comparison alone


def test_title_words_weigh_double_and_dates_match_only_when_dated(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _loaded(store)
    flt = MemoryFilter(as_of=NOW)
    phrases = TermCounts(store._conn).phrases(["april"])
    assert phrases == [("april",)]
    assert len(index.ranked(phrases, dated=False)[0]) == 0  # (only the dated column has it)
    assert len(index.ranked(phrases, dated=True)[0]) > 0
    titled = store.search_rows("plans", flt, 5)  # a title word alone
    assert titled
    assert titled == _fts5(store, monkeypatch)("plans", flt, 5, False)


def test_phrases_are_the_index_tokens(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    terms = TermCounts(store._conn)
    assert terms.phrases(["john's", "volunteering", "maria", "___"]) == [
        ("john", "s"),
        ("volunt",),
        ("maria",),
        (),
    ]
    store.close()


def test_a_word_of_no_token_is_left_to_fts5(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(store)
    statements = _asked(store)
    flt = MemoryFilter(as_of=NOW)
    found = store.search_rows("maria ___", flt, 10)
    assert any("memory_fts MATCH" in s for s in statements)
    store._conn.set_trace_callback(None)
    assert found == _fts5(store, monkeypatch)("maria ___", flt, 10, False)


def test_a_copy_loads_on_the_second_search_in_one_state(store: SQLiteStore) -> None:
    flt = MemoryFilter(as_of=NOW)
    store.search_rows("maria", flt, 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 0
    store.search_rows("beach", flt, 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 1
    assert store._text_copy._index is not None
    statements = _asked(store)
    store.search_rows("sunset", flt, 5)
    assert not any("memory_fts MATCH" in s for s in statements)


def test_a_search_beside_other_work_asks_fts5_and_loads_nothing(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    flt = MemoryFilter(as_of=NOW)
    for _ in range(3):
        store.search_rows("maria", flt, 5, beside=True)
    store._text_copy.wait()
    assert store._text_copy.loads == 0
    _loaded(store)
    statements = _asked(store)
    beside = store.search_rows("maria dinner", flt, 50, beside=True)
    assert any("memory_fts MATCH" in s for s in statements)
    store._conn.set_trace_callback(None)
    assert beside == store.search_rows("maria dinner", flt, 50)


def test_beside_other_work_a_larger_store_answers_from_its_copy(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("salience.stores.sqlite.memories.BESIDE_UP_TO", 100)  # (240 rows)
    flt = MemoryFilter(as_of=NOW)
    for _ in range(2):
        store.search_rows("maria", flt, 5, beside=True)
    store._text_copy.wait()
    assert store._text_copy.loads == 1
    statements = _asked(store)
    beside = store.search_rows("maria dinner", flt, 50, beside=True)
    assert not any("memory_fts MATCH" in s for s in statements)
    store._conn.set_trace_callback(None)
    assert beside == _fts5(store, monkeypatch)("maria dinner", flt, 50, False)


def test_a_store_written_between_every_search_loads_no_copy(store: SQLiteStore) -> None:
    flt = MemoryFilter(as_of=NOW)
    for i in range(4):
        store.search_rows("maria", flt, 5)
        store.insert(record(f"maria wrote {i}"))
    store._text_copy.wait()
    assert store._text_copy.loads == 0


@pytest.mark.parametrize("change", ["insert", "same length", "delete", "other process"])
def test_after_any_change_fts5_answers_until_a_new_copy_loads(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, change: str, tmp_path: Path
) -> None:
    _loaded(store)
    flt = MemoryFilter(as_of=NOW)
    target = next(r for r, _ in store.search("maria", flt, 50) if not r.entities)
    averages = textindex.state(store._conn)[1]
    if change == "insert":
        store.insert(record("zebra crossing"))
    elif change == "same length":  # a word for a word: the row and token counts stay
        store.replace(replace(target, content=target.content.replace("maria", "zebra")))
        assert textindex.state(store._conn)[1] == averages
    elif change == "delete":
        store.delete(target.id)
    else:
        other = SQLiteStore(tmp_path / "s.db")
        other.insert(record("zebra crossing"))
        other.close()
    statements = _asked(store)
    zebra = [r.id for r, _ in store.search("zebra", flt, 5)]
    maria = [memory_id for _, memory_id, _ in store.search_rows("maria", flt, 200)]
    assert sum("memory_fts MATCH" in s for s in statements) == 2  # FTS5 answered both
    store._conn.set_trace_callback(None)
    assert (target.id in maria) == (change in ("insert", "other process"))
    assert (target.id in zebra) == (change == "same length")
    assert len(zebra) == (0 if change == "delete" else 1)
    store._text_copy.wait()
    assert store._text_copy.loads == 2  # (the second search in this state started it)
    assert store.search_rows("zebra maria", flt, 200) == _fts5(store, monkeypatch)(
        "zebra maria", flt, 200, False
    )


def test_a_write_sees_its_own_rows(store: SQLiteStore) -> None:
    _loaded(store)
    flt = MemoryFilter(as_of=NOW)
    with store.transaction():
        store.insert(record("zebra crossing"))
        assert [r.content for r, _ in store.search("zebra", flt, 5)] == ["zebra crossing"]


def test_a_larger_store_keeps_no_copy(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textindex, "KEPT_UP_TO", 100)
    monkeypatch.setattr("salience.stores.sqlite.memories.KEPT_UP_TO", 100)
    for _ in range(3):
        store.search_rows("maria", MemoryFilter(as_of=NOW), 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 0


def test_a_read_only_store_answers_the_same(tmp_path: Path, store: SQLiteStore) -> None:
    flt = MemoryFilter(as_of=NOW)
    before = [store.search_rows(q, flt, 20, dated=True) for q in QUERIES]
    readonly = SQLiteStore(tmp_path / "s.db", read_only=True)
    try:
        for _ in range(2):
            readonly.search_rows("maria", flt, 5)
        readonly._text_copy.wait()
        assert [readonly.search_rows(q, flt, 20, dated=True) for q in QUERIES] == before
    finally:
        readonly.close()


def test_a_load_stops_when_told_and_close_waits_for_it(store: SQLiteStore) -> None:
    conn = sqlite3.connect(store._path)
    assert TextIndex.load(conn, lambda: True) is None
    index = TextIndex.load(conn, lambda: False)
    assert index is not None
    assert len(index.rows) == 240
    assert index.nbytes > 0
    conn.close()
    started, release = threading.Event(), threading.Event()

    def slow() -> sqlite3.Connection:
        started.set()
        release.wait(5)
        return sqlite3.connect(store._path)

    copy = TextCopy(slow)
    copy.current(b"state")
    copy.current(b"state")
    assert started.wait(5)
    closing = threading.Thread(target=copy.close)
    closing.start()
    release.set()
    closing.join(5)
    assert not closing.is_alive()
    assert copy._index is None
    assert copy._thread is None


def test_a_failed_load_leaves_fts5_answering(store: SQLiteStore) -> None:
    def broken() -> sqlite3.Connection:
        raise sqlite3.OperationalError("disk I/O error")

    store._text_copy = TextCopy(broken)
    flt = MemoryFilter(as_of=NOW)
    first = [store.search_rows("maria", flt, 5) for _ in range(3)]
    store._text_copy.wait()
    assert isinstance(store._text_copy.failure, sqlite3.OperationalError)
    assert first[0] == first[1] == first[2]
    assert first[0]


def test_searches_on_many_threads_while_another_writes(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _loaded(store)
    flt = MemoryFilter(as_of=NOW)
    errors: list[BaseException] = []
    counts: list[int] = []

    def search() -> None:
        try:
            for _ in range(40):
                counts.append(len(store.search_rows("maria zebra", flt, 300)))
        except BaseException as exc:  # (reported below)
            errors.append(exc)

    readers = [threading.Thread(target=search) for _ in range(4)]
    for thread in readers:
        thread.start()
    for i in range(20):
        store.insert(record(f"zebra number {i}"))
    for thread in readers:
        thread.join(30)
    assert not errors
    assert min(counts) >= len(store.search_rows("maria", flt, 300, beside=True))
    for _ in range(2):
        store.search_rows("maria zebra", flt, 300)
    store._text_copy.wait()
    assert store.search_rows("maria zebra", flt, 300) == _fts5(store, monkeypatch)(
        "maria zebra", flt, 300, False
    )
    assert sum("zebra" in r.content for r, _ in store.search("zebra", flt, 50)) == 20
