"""A small store's full-text index in memory: FTS5's own answers, only sooner."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from salience.stores.base import MemoryFilter
from salience.stores.fts_terms import TermCounts
from salience.stores.sqlite import SQLiteStore, textindex
from salience.stores.sqlite.textindex import TextIndex
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


def test_a_load_in_runs_of_terms_reads_every_instance_fts5vocab_lists(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is read a run of terms at a time, each run's instances as one text of
    numbers: however short the runs, every instance is read once, as ``fts5vocab`` lists it,
    and a stop between runs ends the load."""
    loaded(store)
    conn = sqlite3.connect(store._path)
    try:
        whole = TextIndex.load(conn, lambda: False)
        monkeypatch.setattr(textindex, "_FETCH", 7)
        asked_stop = []
        runs = TextIndex.load(conn, lambda: bool(asked_stop.append(1)))
        assert whole is not None
        assert runs is not None
        assert len(asked_stop) > 10  # (asked between runs: many runs of 7 instances or so)
        questions = iter([False, False, True])
        assert TextIndex.load(conn, lambda: next(questions)) is None  # (stopped at the third)
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.listed "
            "USING fts5vocab(main, memory_fts, 'instance')"
        )
        listed = sorted(
            conn.execute(f"SELECT term, doc, {textindex.COLUMN_NUMBER}, offset FROM temp.listed")
        )
    finally:
        conn.close()
    for index in (whole, runs):
        part = index.parts[0]
        read = []
        for term in part.terms:
            found = part.of(term)
            assert found is not None
            docs, columns, offsets = found
            rows = index.rows[docs].tolist()
            read += zip([term] * len(rows), rows, columns.tolist(), offsets.tolist(), strict=True)
        assert sorted(read) == listed
    assert whole.parts[0].terms == runs.parts[0].terms
