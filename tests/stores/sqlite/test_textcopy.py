"""A store's copy of its full-text index: loaded when wanted, caught up with writes."""

from __future__ import annotations

import itertools
import random
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from salience.briefing.columns import Vocabularies
from salience.briefing.snapshot import ColumnSnapshot
from salience.stores.base import MemoryFilter
from salience.stores.sqlite import SQLiteStore, textcopy, textindex
from salience.stores.sqlite.textcopy import TextCopy
from salience.stores.sqlite.textindex import TextIndex
from tests.factory import NOW, record
from tests.stores.sqlite.corpus import QUERIES, asked, fts5, loaded


def test_a_copy_loads_on_the_second_search_in_one_state(store: SQLiteStore) -> None:
    flt = MemoryFilter(as_of=NOW)
    store.search_rows("maria", flt, 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 0
    store.search_rows("beach", flt, 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 1
    assert store._text_copy._index is not None
    statements = asked(store)
    store.search_rows("sunset", flt, 5)
    assert not any("memory_fts MATCH" in s for s in statements)


def test_a_search_with_its_filter_from_columns_also_loads_on_the_second_search(
    store: SQLiteStore,
) -> None:
    columns = ColumnSnapshot(store, Vocabularies())
    flt = MemoryFilter(as_of=NOW)
    store.search_rows("maria", flt, 5, passing=columns.passing)
    store._text_copy.wait()
    assert store._text_copy.loads == 0  # (a one-shot process's search starts no load)
    store.search_rows("beach", flt, 5, passing=columns.passing)
    store._text_copy.wait()
    assert store._text_copy.loads == 1


def test_the_copy_takes_its_filter_from_the_callers_columns_when_they_can_say(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    columns = ColumnSnapshot(store, Vocabularies())
    loaded(store)
    for flt in (MemoryFilter(as_of=NOW), MemoryFilter(as_of=NOW, tags=("x",))):
        statements = asked(store)
        found = store.search_rows("maria dinner", flt, 50, passing=columns.passing)
        store._conn.set_trace_callback(None)
        assert not any("memory_fts MATCH" in s for s in statements)
        filtered = any("CROSS JOIN memories" in s for s in statements)
        assert filtered == bool(flt.tags)  # (the columns hold no tags: SQL filters then)
        assert found == fts5(store, monkeypatch)("maria dinner", flt, 50, False)


def test_a_store_written_between_every_search_loads_a_copy_at_the_second(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that writes, then recalls, never searches twice in one state: its process's
    second search loads a copy all the same, and the copy follows the writes after it."""
    flt = MemoryFilter(as_of=NOW)
    store.search_rows("maria", flt, 5)
    store.insert(record("maria wrote 0"))
    store._text_copy.wait()
    assert store._text_copy.loads == 0  # (one search: a command's, perhaps)
    store.search_rows("maria", flt, 5)
    store._text_copy.wait()
    assert store._text_copy.loads == 1
    ask = fts5(store, monkeypatch)
    for i in range(1, 4):
        store.insert(record(f"maria wrote {i}"))
        statements = asked(store)
        found = store.search_rows("maria", flt, 300)
        store._conn.set_trace_callback(None)
        assert not any("memory_fts MATCH" in s for s in statements)  # the copy, caught up
        assert found == ask("maria", flt, 300, False)
    assert (store._text_copy.loads, store._text_copy.catches) == (1, 3)


def test_a_catch_up_merges_about_what_it_adds(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rows written since the copy was read are kept in parts, each more than twice the
    size of the next (a binary counter's): a catch-up merges the new rows' tokens with the
    few parts about their size, not with every token added since, and the copy answers as
    FTS5 all along."""
    loaded(store)
    flt = MemoryFilter(as_of=NOW)
    ask = fts5(store, monkeypatch)
    per_row = 0
    for i in range(64):
        store.insert(record(f"zebra maria {i}"))
        assert store.search_rows("zebra maria", flt, 300) == ask("zebra maria", flt, 300, False)
        index = store._text_copy._index
        assert index is not None
        sizes = [len(part.docs) for part in index.parts[1:]]
        per_row = per_row or sizes[0]  # (a row's tokens, its date's too)
        assert sum(sizes) == per_row * (i + 1) == index.added_instances()
        assert all(a > 2 * b for a, b in itertools.pairwise(sizes)), (i, sizes)
    assert 2 < len(index.parts) <= 1 + 7  # (not one part merged again at every write)
    assert (store._text_copy.loads, store._text_copy.catches) == (1, 64)


@pytest.mark.parametrize("change", ["insert", "same length", "other process"])
def test_after_a_change_the_copy_is_caught_up_and_answers_as_fts5(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, change: str, tmp_path: Path
) -> None:
    loaded(store)
    flt = MemoryFilter(as_of=NOW)
    target = next(r for r, _ in store.search("maria", flt, 50) if not r.entities)
    averages = textindex.state(store._conn)[1]
    if change == "insert":
        store.insert(record("zebra crossing"))
    elif change == "same length":  # a word for a word: the row and token counts stay
        store.replace(replace(target, content=target.content.replace("maria", "zebra")))
        assert textindex.state(store._conn)[1] == averages
    else:
        other = SQLiteStore(tmp_path / "s.db")
        other.insert(record("zebra crossing"))
        other.close()
    statements = asked(store)
    zebra = [r.id for r, _ in store.search("zebra", flt, 5)]
    maria = [memory_id for _, memory_id, _ in store.search_rows("maria", flt, 300)]
    assert not any("memory_fts MATCH" in s for s in statements)  # the copy answered
    store._conn.set_trace_callback(None)
    assert (store._text_copy.loads, store._text_copy.catches) == (1, 1)
    assert (target.id in maria) == (change != "same length")
    assert (target.id in zebra) == (change == "same length")
    assert len(zebra) == 1
    ask = fts5(store, monkeypatch)
    for query in QUERIES:
        assert store.search_rows(query, flt, 300, dated=True) == ask(query, flt, 300, True)


def test_a_copy_follows_many_writes_as_fts5_would(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    loaded(store)
    ask = fts5(store, monkeypatch)
    flt = MemoryFilter(as_of=NOW)
    rng = random.Random(11)
    words = ["zebra", "maria", "dinner", "kettle", "john's", "sunset"]
    other = SQLiteStore(tmp_path / "s.db")
    try:
        for step in range(60):
            ids = [memory_id for _, memory_id, _ in store.search_rows("maria dinner", flt, 300)]
            kind = rng.choice(["insert", "replace", "touch", "other", "insert"])
            text = " ".join(rng.choices(words, k=rng.randint(1, 6)))
            if kind == "insert" or not ids:
                store.insert(record(text, title=rng.choice([None, "kettle notes"])))
            elif kind == "replace":
                old = store.get(rng.choice(ids))
                assert old is not None
                store.replace(replace(old, content=text))
            elif kind == "touch":
                store.touch(rng.sample(ids, min(3, len(ids))), NOW)
            else:
                other.insert(record(f"{text} from elsewhere"))
            for query in ("maria zebra", "kettle notes", "john's dinner", QUERIES[step % 9]):
                got = store.search_rows(query, flt, 300, dated=step % 2 == 0)
                assert got == ask(query, flt, 300, step % 2 == 0), (step, kind, query)
    finally:
        other.close()
    assert store._text_copy.loads == 1  # (caught up every time: never loaded again)
    assert store._text_copy.catches > 40


@pytest.mark.parametrize("why", ["pruned", "too many", "index alone", "read-only"])
def test_a_copy_that_cannot_follow_is_loaded_again(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, why: str, tmp_path: Path
) -> None:
    loaded(store)
    flt = MemoryFilter(as_of=NOW)
    raw = sqlite3.connect(tmp_path / "s.db")
    seq = raw.execute("SELECT max(seq) FROM memories").fetchone()[0]
    if why == "pruned":  # (the log keeps its newest 100,000 entries: as if it went past)
        store.touch([r.id for r, _ in store.search("maria", flt, 3)], NOW)
        store.insert(record("zebra crossing"))
        raw.execute(
            "DELETE FROM memory_changes WHERE cseq < (SELECT max(cseq) FROM memory_changes)"
        )
    elif why == "too many":
        monkeypatch.setattr(textcopy, "_MOST_CHANGED", 2)
        for i in range(3):
            store.insert(record(f"zebra {i}"))
    elif why == "index alone":  # (FTS5 changed with no memory written: totals differ)
        raw.execute("DELETE FROM memory_fts WHERE rowid = ?", (seq,))
    else:
        monkeypatch.setattr(textcopy, "tokens_of", _read_only)
        store.insert(record("zebra crossing"))
    raw.commit()
    raw.close()
    ask = fts5(store, monkeypatch)
    for _ in range(2):  # the first drops the copy, the second in that state loads one
        assert store.search_rows("maria zebra", flt, 300) == ask("maria zebra", flt, 300, False)
    store._text_copy.wait()
    assert (store._text_copy.loads, store._text_copy.catches) == (2, 0)
    assert store.search_rows("maria zebra", flt, 300) == ask("maria zebra", flt, 300, False)


def _read_only(*args: object) -> None:
    raise sqlite3.OperationalError("attempt to write a readonly database")


def test_a_copy_that_grew_a_quarter_is_loaded_again(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded(store)
    flt = MemoryFilter(as_of=NOW)
    ask = fts5(store, monkeypatch)
    for i in range(80):  # (the store held 240 rows of 1 to 9 words)
        store.insert(record(" ".join(["zebra maria dinner beach"] * 3) + f" {i}"))
        assert store.search_rows("zebra", flt, 300) == ask("zebra", flt, 300, False)
    assert store._text_copy._index is None  # (dropped once it grew by a quarter)
    catches = store._text_copy.catches
    assert catches > 10
    store.search_rows("zebra", flt, 300)  # the second search in this state loads a copy
    store._text_copy.wait()
    assert (store._text_copy.loads, store._text_copy.catches) == (2, catches)


def test_a_write_sees_its_own_rows(store: SQLiteStore) -> None:
    loaded(store)
    flt = MemoryFilter(as_of=NOW)
    with store.transaction():
        store.insert(record("zebra crossing"))
        assert [r.content for r, _ in store.search("zebra", flt, 5)] == ["zebra crossing"]


def test_a_larger_store_keeps_no_copy(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textindex, "KEPT_UP_TO", 100)
    monkeypatch.setattr("salience.stores.sqlite.fulltext.KEPT_UP_TO", 100)
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
    copy.current(b"state", sqlite3.connect(":memory:"), [])
    copy.current(b"state", sqlite3.connect(":memory:"), [])
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

    store._copies = (TextCopy(broken), store._owner_texts)
    flt = MemoryFilter(as_of=NOW)
    first = [store.search_rows("maria", flt, 5) for _ in range(3)]
    store._text_copy.wait()
    assert isinstance(store._text_copy.failure, sqlite3.OperationalError)
    assert first[0] == first[1] == first[2]
    assert first[0]


def test_searches_on_many_threads_while_another_writes(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded(store)
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
    assert min(counts) >= len(store.search_rows("maria", flt, 300))
    for _ in range(2):
        store.search_rows("maria zebra", flt, 300)
    store._text_copy.wait()
    assert store.search_rows("maria zebra", flt, 300) == fts5(store, monkeypatch)(
        "maria zebra", flt, 300, False
    )
    assert sum("zebra" in r.content for r, _ in store.search("zebra", flt, 50)) == 20


def test_a_row_changed_twice_then_another_still_follows(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The rows read first stay findable by binary search however many rows are added."""
    loaded(store)
    ask = fts5(store, monkeypatch)
    flt = MemoryFilter(as_of=NOW)
    raw = sqlite3.connect(tmp_path / "s.db")
    low, high = (
        raw.execute(f"SELECT id FROM memories ORDER BY seq {way} LIMIT 1").fetchone()[0]
        for way in ("", "DESC")
    )
    raw.close()
    for memory_id, text in ((low, "zebra one"), (low, "zebra two"), (high, "zebra three")):
        old = store.get(memory_id)
        assert old is not None
        store.replace(replace(old, content=text))
        assert store.search_rows("zebra maria", flt, 300) == ask("zebra maria", flt, 300, False)
    assert (store._text_copy.loads, store._text_copy.catches) == (1, 3)


@pytest.mark.parametrize("where", ["here", "erasure", "another process"])
def test_a_deletion_drops_the_copy_and_its_words(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch, where: str, tmp_path: Path
) -> None:
    """A purge or an erasure does not leave the deleted words masked in memory: the copy
    goes (here at once, elsewhere at the next search) and a new one is loaded."""
    loaded(store)
    ask = fts5(store, monkeypatch)
    flt = MemoryFilter(as_of=NOW)
    raw = sqlite3.connect(tmp_path / "s.db")
    newest, seq = raw.execute("SELECT id, seq FROM memories ORDER BY seq DESC LIMIT 1").fetchone()
    if where == "here":
        store.delete(newest)
        assert store._text_copy._index is None
    elif where == "erasure":
        user = raw.execute("SELECT user FROM memories WHERE id = ?", (newest,)).fetchone()[0]
        store.erase_user(user)
        assert store._text_copy._index is None
    else:
        other = SQLiteStore(tmp_path / "s.db")
        other.delete(newest)
        other.close()
    statements = asked(store)
    assert store.search_rows("maria zebra", flt, 300) == ask("maria zebra", flt, 300, False)
    assert store._text_copy._index is None
    store.search_rows("maria zebra", flt, 300)  # (the second search in this state)
    store._conn.set_trace_callback(None)
    assert any("memory_fts MATCH" in s for s in statements)
    store._text_copy.wait()
    assert (store._text_copy.loads, store._text_copy.catches) == (2, 0)
    store.insert(record("zebra in the newest row's place"))  # (its row number used again)
    assert raw.execute("SELECT max(seq) FROM memories").fetchone()[0] == seq
    raw.close()
    assert store.search_rows("maria zebra", flt, 300) == ask("maria zebra", flt, 300, False)
    assert (store._text_copy.loads, store._text_copy.catches) == (2, 1)
