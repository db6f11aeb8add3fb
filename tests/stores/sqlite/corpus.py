"""A generated store for the full-text copy's tests, and how they ask FTS5 itself."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest

from salience.models import MemoryRecord
from salience.stores.base import MemoryFilter
from salience.stores.sqlite import SQLiteStore
from salience.stores.sqlite.textindex import TextIndex
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


def corpus() -> list[MemoryRecord]:
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


def loaded(store: SQLiteStore) -> TextIndex:
    """Search twice in one state, wait for the copy, and return it."""
    for _ in range(2):
        store.search_rows("maria", MemoryFilter(as_of=NOW), 5)
    store._text_copy.wait()
    index = store._text_copy._index
    assert index is not None, store._text_copy.failure
    return index


def fts5(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> Any:
    """What FTS5 itself answers (the copies set aside: the store's, the tenants')."""

    def ask(query: str, flt: MemoryFilter, limit: int, dated: bool) -> Any:
        with monkeypatch.context() as m:
            m.setattr(store._text_copy, "current", lambda *args: None)
            m.setattr(store._owner_texts, "ranked", lambda *args: None)
            return store.search_rows(query, flt, limit, dated=dated)

    return ask


def asked(store: SQLiteStore) -> list[str]:
    """Record every statement the store's reading connection runs from now on."""
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    return statements
