"""A small store's full-text index in memory: FTS5's own answers, only sooner."""

from __future__ import annotations

from pathlib import Path

import pytest

from salience.stores.base import MemoryFilter
from salience.stores.fts_terms import TermCounts
from salience.stores.sqlite import SQLiteStore
from tests.factory import NOW
from tests.stores.sqlite.corpus import FILTERS, QUERIES, asked, fts5, loaded


def test_the_copy_answers_as_fts5_does_scores_order_and_filters(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded(store)
    ask_fts5 = fts5(store, monkeypatch)
    statements = asked(store)
    compared = 0
    for query in QUERIES:
        for flt in FILTERS:
            for dated in (False, True):
                for limit in (3, 10, 200):
                    kept = store.search_rows(query, flt, limit, dated=dated)
                    assert kept == ask_fts5(query, flt, limit, dated), (query, flt, limit, dated)
                    compared += bool(kept)
    assert compared > 150  # (most of them find something)
    store._conn.set_trace_callback(None)
    own = [s for s in statements if "memory_fts MATCH" in s]
    assert len(own) == len(QUERIES) * len(FILTERS) * 2 * 3  # FTS5's, from the comparison alone


def test_title_words_weigh_double_and_dates_match_only_when_dated(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = loaded(store)
    flt = MemoryFilter(as_of=NOW)
    phrases = TermCounts(store._conn).phrases(["april"])
    assert phrases == [("april",)]
    assert len(index.ranked(phrases, dated=False)[0]) == 0  # (only the dated column has it)
    assert len(index.ranked(phrases, dated=True)[0]) > 0
    titled = store.search_rows("plans", flt, 5)  # a title word alone
    assert titled
    assert titled == fts5(store, monkeypatch)("plans", flt, 5, False)


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


def test_a_word_of_no_token_is_left_tofts5(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded(store)
    statements = asked(store)
    flt = MemoryFilter(as_of=NOW)
    found = store.search_rows("maria ___", flt, 10)
    assert any("memory_fts MATCH" in s for s in statements)
    store._conn.set_trace_callback(None)
    assert found == fts5(store, monkeypatch)("maria ___", flt, 10, False)
