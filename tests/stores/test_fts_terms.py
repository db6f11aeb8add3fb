"""Words BM25 gives no weight are left out of the salience profile's full-text search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from salience import Config, Memory
from salience.stores import fts_terms
from salience.stores.base import MemoryFilter
from salience.stores.fts_terms import TermCounts, _varint, varints
from salience.stores.sqlite import SQLiteStore
from tests.conftest import FakeClock


def test_varints_decode_as_sqlite_writes_them() -> None:
    assert _varint(bytes([0x05])) == 5
    assert _varint(bytes([0x7F, 0xFF])) == 127
    assert _varint(bytes([0x81, 0x00])) == 128
    assert _varint(bytes([0x82, 0x80, 0x01])) == (2 << 14) | 1
    assert _varint(bytes([0xFF] * 8 + [0x01])) == (2**56 - 1) << 8 | 1
    assert _varint(bytes([0x81])) is None
    assert varints(bytes([0x05, 0x81, 0x00, 0xFF] + [0xFF] * 7 + [0x01, 0x81])) == [
        5,
        128,
        (2**56 - 1) << 8 | 1,
    ]  # one after another; the last, cut short, is left out


def _fill(memory: Memory, texts: list[str]) -> None:
    memory.import_([json.dumps({"content": text}) for text in texts])


def test_the_row_count_is_fts5s_own(memory: Memory) -> None:
    _fill(memory, [f"note {i} about the harbour" for i in range(300)])
    victim = memory.list(limit=1)[0].id
    memory.purge(victim)
    counts = TermCounts(memory.store._conn)
    with memory.store._lock:
        expected = memory.store._conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0]
        assert counts.total_rows() == expected == 299


@pytest.fixture
def low_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word needs 2 rows, not 10,000, to be left out: a store of a few rows shows it."""
    monkeypatch.setattr(fts_terms, "MIN_ROWS", 2)


def _texts() -> list[str]:
    return [
        *(f"harbour note {i}" for i in range(4)),
        "harbour and ferry timetable",
        "harbour ferry delayed by fog",
        *(f"garden note {i}" for i in range(4)),
    ]


@pytest.mark.usefixtures("low_floor")
def test_a_word_in_half_the_rows_is_left_out_and_scores_barely_move(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    found = memory.store.search("harbour ferry", flt, 20, dated=True)
    # "harbour" is in 6 of 10 rows: BM25's idf for it is clamped to 1e-6, so only the rows
    # that also have "ferry" were ever ranked by anything; they alone are found.
    assert sorted(r.content for r, _ in found) == [
        "harbour and ferry timetable",
        "harbour ferry delayed by fog",
    ]
    monkeypatch.setattr(TermCounts, "weightless", lambda self, words, total=None: set())
    every = {
        r.content: score for r, score in memory.store.search("harbour ferry", flt, 20, dated=True)
    }
    assert len(every) == 6
    for record, score in found:
        assert score == pytest.approx(every[record.content], abs=1e-5)
    # The words in fewer than half the rows are searched for as before.
    monkeypatch.undo()
    assert len(memory.store.search("garden ferry", flt, 20, dated=True)) == 6


@pytest.mark.usefixtures("low_floor")
def test_only_the_dated_search_leaves_words_out(memory: Memory) -> None:
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    assert len(memory.store.search("harbour ferry", flt, 20)) == 6


@pytest.mark.usefixtures("low_floor")
def test_a_year_every_memory_was_written_in_is_left_out(memory: Memory) -> None:
    """The case that made searches slow: the date column names the year of every memory."""
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    year = str(memory.now().year)
    found = memory.store.search(f"ferry in {year}", flt, 20, dated=True)
    assert len(found) == 2
    assert memory.store.search(year, flt, 20, dated=True) == []


def test_small_stores_search_for_every_word(memory: Memory) -> None:
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    assert len(memory.store.search("harbour ferry", flt, 20, dated=True)) == 6
    with memory.store._lock:
        assert TermCounts(memory.store._conn).weightless(["harbour"]) == set()


@pytest.mark.usefixtures("low_floor")
def test_counts_are_taken_again_as_the_store_grows(memory: Memory) -> None:
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    assert len(memory.store.search("garden", flt, 20, dated=True)) == 4
    _fill(memory, [f"garden bed {i}" for i in range(10)])  # now 14 of 20 rows
    assert memory.store.search("garden", flt, 20, dated=True) == []


@pytest.mark.usefixtures("low_floor")
def test_a_read_only_layer_searches_for_every_word(home: Path, clock: FakeClock) -> None:
    config = Config(home=home, embedder="none", signal_gate=False)
    with Memory.open(config=config, clock=clock) as memory:
        _fill(memory, _texts())
        flt = MemoryFilter(as_of=memory.now())
    layer = SQLiteStore(home / "salience.db", read_only=True)
    try:
        assert len(layer.search("harbour ferry", flt, 20, dated=True)) == 6
    finally:
        layer.close()


@pytest.mark.usefixtures("low_floor")
def test_a_rolled_back_transaction_does_not_break_later_searches(memory: Memory) -> None:
    """The TEMP tables behind the counts are made on first use; made inside a transaction
    that rolls back, they are gone with it and are made again."""
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    found_inside: list[int] = []

    def failing_write() -> None:
        with memory.store.transaction():
            found_inside.append(len(memory.store.search("harbour ferry", flt, 20, dated=True)))
            raise RuntimeError("the caller's write failed")

    with pytest.raises(RuntimeError):
        failing_write()
    assert found_inside == [2]
    assert len(memory.store.search("harbour ferry", flt, 20, dated=True)) == 2


@pytest.mark.usefixtures("low_floor")
def test_the_count_cache_stays_bounded(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-running process sees endless distinct query words: their counts do not pile up."""
    monkeypatch.setattr(fts_terms, "_CACHE_LIMIT", 5)
    _fill(memory, _texts())
    flt = MemoryFilter(as_of=memory.now())
    for i in range(12):
        memory.store.search(f"harbour word{i}", flt, 20, dated=True)
    assert len(memory.store._term_counts._counts) <= 5
    assert len(memory.store.search("harbour ferry", flt, 20, dated=True)) == 2


def test_rows_matching_is_what_fts5_counts_for_each_word(tmp_path: Path) -> None:
    """The n of a word's idf: its rows, in the text columns unless dated, whether found in
    the vocabulary (a word of one token not among the dates) or counted by FTS5."""
    from tests.factory import record

    store = SQLiteStore(tmp_path / "s.db")
    try:
        texts = [
            "maria went to the beach",
            "john's car; maria's car",
            "maria maria",
            "april showers",
            "a car in april",
            "nothing here",
        ]
        for i, text in enumerate(texts):
            entities = ("Maria",) if i % 2 else ()
            store.insert(
                record(text, age=i * 40, title="car trip" if i == 5 else None, entities=entities)
            )
        conn = store._conn
        terms = TermCounts(conn)
        words = ["maria", "car", "april", "john's", "maria's", "2026", "zebra", "trip"]
        phrases = terms.phrases(words)
        assert phrases is not None
        for word, tokens in zip(words, phrases, strict=True):
            for dated in (False, True):
                phrase = '"' + word + '"'
                expression = phrase if dated else f"{fts_terms.TEXT_COLUMNS} : {phrase}"
                want = conn.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)
                ).fetchone()[0]
                assert terms.rows_matching(word, tokens, dated) == want, (word, dated)
    finally:
        store.close()
