"""SQLite-specific behaviour: file checks, migrations, read-only homes, FTS consistency."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from salience import (
    Config,
    Memory,
    NotASalienceDatabaseError,
    SchemaTooNewError,
    StoreReadOnlyError,
)
from salience.stores.base import MemoryFilter
from salience.stores.migrations import MIGRATION_NAMES
from salience.stores.sqlite import PAGE_SIZE, SQLiteStore, fts_match_expression, fulltext
from tests.conftest import FakeClock
from tests.factory import NOW, record


def test_a_new_file_gets_wal_and_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    SQLiteStore(path).close()  # reopening runs nothing again
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
    assert names == list(MIGRATION_NAMES)


def test_a_store_from_before_the_row_counts_is_counted_when_it_upgrades(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    records = [record(f"memory {i}") for i in range(5)]
    for r in records:
        store.insert(r)
    store.set_vectors([(r.id, b"\0" * 16) for r in records[:3]])
    store.close()
    conn = sqlite3.connect(path)  # back to how an older salience left it
    for trigger in ("vectors_counted_in", "vectors_counted_out"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE row_counts")
    conn.execute("DELETE FROM schema_migrations WHERE name = '0013_row_counts'")
    conn.commit()
    conn.close()
    upgraded = SQLiteStore(path)
    assert upgraded.count_rows() == 5
    assert upgraded.vector_state()[0] == 3
    upgraded.delete(records[0].id)
    assert (upgraded.count_rows(), upgraded.vector_state()[0]) == (4, 2)
    upgraded.close()


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "salience.db"
    path.write_bytes(b"just some notes, not a database\n" * 4)
    before = path.read_bytes()
    with pytest.raises(NotASalienceDatabaseError, match="not an SQLite file"):
        SQLiteStore(path)
    assert path.read_bytes() == before


def test_a_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(NotASalienceDatabaseError, match="other tables"):
        SQLiteStore(path)
    tables = [r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")]
    assert tables == ["invoices"]


def test_a_directory_in_place_of_the_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(NotASalienceDatabaseError, match="directory"):
        SQLiteStore(tmp_path / "dir.db")


def test_a_database_from_a_newer_salience_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'x')")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaTooNewError, match="9999_from_the_future") as info:
        SQLiteStore(path)
    assert "upgrade salience" in str(info.value)


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory nobody can write to: chmod for a normal user, a read-only mount for root."""
    target = tmp_path / "ro"
    target.mkdir()
    if os.geteuid() != 0:
        target.chmod(0o555)
        yield target
        target.chmod(0o755)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(target)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"root without mount rights: {mounted.stderr.decode().strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=True)


def test_a_read_only_home_is_a_clear_error(read_only_dir: Path, clock: FakeClock) -> None:
    with pytest.raises(StoreReadOnlyError, match="read-only"):
        Memory.open(config=Config(home=read_only_dir / "home"), clock=clock)
    with pytest.raises(StoreReadOnlyError, match="read-only"):
        Memory.open(config=Config(home=read_only_dir), clock=clock)


def test_fts_expression_quotes_every_term() -> None:
    assert fts_match_expression('foo AND "bar', dated=True) == '"foo" OR "bar"'
    assert fts_match_expression("the a of", dated=True) == '"the" OR "a" OR "of"'
    assert fts_match_expression("🙂 *") is None


def test_fts_expression_leaves_the_date_column_out_unless_asked() -> None:
    assert fts_match_expression("foo") == '{content title tags entities} : ("foo")'


def test_dated_search_matches_the_creation_date_in_words(memory: Memory) -> None:
    memory.remember("lunch with the design team")  # created 2026-04-20, a Monday
    store = memory.store
    flt = MemoryFilter(as_of=memory.now())
    assert [r.content for r, _ in store.search("april monday", flt, 5, dated=True)] == [
        "lunch with the design team"
    ]
    assert store.search("april monday", flt, 5) == []


def test_the_full_text_index_follows_every_write(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("zebra crossing near the office").id or ""
    assert [h.record.id for h in memory.search("zebra")] == [memory_id]
    memory.update(memory_id, content="pelican crossing near the office")
    assert memory.search("zebra") == []
    assert [h.record.id for h in memory.search("pelican")] == [memory_id]
    memory.update(memory_id, tags=["project:ostrich"])
    assert [h.record.id for h in memory.search("ostrich")] == [memory_id]
    memory.purge(memory_id)
    assert memory.search("pelican") == []
    conn = sqlite3.connect(memory.store.location)
    assert conn.execute("SELECT count(*) FROM memory_fts").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM memory_tags").fetchone()[0] == 0


def test_a_failed_transaction_leaves_nothing_behind(memory: Memory) -> None:
    def write_then_fail() -> None:
        with memory.store.transaction():
            memory.remember("written inside a transaction that fails")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        write_then_fail()
    assert memory.stats().total == 0
    assert memory.search("transaction") == []


def test_the_duplicate_lookup_uses_the_hash_index(memory: Memory) -> None:
    """The exact-duplicate check must not scan the user's memories in date order."""
    for i in range(20):
        memory.remember(f"memory number {i} about the build")
    store = memory.store
    assert isinstance(store, SQLiteStore)
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    flt = MemoryFilter(as_of=memory.now(), user="default", content_hash="x" * 64)
    assert store.list(flt, 1) == []
    store._conn.set_trace_callback(None)
    query = next(s for s in seen if s.lstrip().startswith("SELECT"))
    plan = " ".join(row[3] for row in store._conn.execute("EXPLAIN QUERY PLAN " + query))
    assert "memories_hash" in plan


def test_fetching_hits_by_id_looks_each_up_and_reads_no_other_memory(memory: Memory) -> None:
    """Vector hits are read by id with the caller's user filter: each id is looked up by its
    index, never the user's memories scanned (SQLite chose that without table statistics)."""
    ids = [memory.remember(f"memory number {i} about the build").id for i in range(20)]
    store = memory.store
    assert isinstance(store, SQLiteStore)
    seen: list[str] = []
    store._conn.set_trace_callback(seen.append)
    flt = MemoryFilter(as_of=memory.now(), user="default")
    wanted = [ids[3], "missing", ids[0]]
    assert [r.id for r in store.get_many(wanted, flt)] == [ids[3], ids[0]]
    store._conn.set_trace_callback(None)
    query = next(s for s in seen if s.lstrip().startswith("SELECT"))
    plan = [row[3] for row in store._conn.execute("EXPLAIN QUERY PLAN " + query)]
    assert any("USING INDEX sqlite_autoindex_memories" in step for step in plan), plan
    assert not any("memories_hash" in step or "SCAN m" in step for step in plan), plan


def test_a_new_store_uses_small_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    new = SQLiteStore(tmp_path / "new.db")
    assert new._conn.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE
    new.close()
    old_path = tmp_path / "old.db"
    raw = sqlite3.connect(old_path)
    raw.execute("PRAGMA page_size = 4096")
    raw.execute("PRAGMA journal_mode = WAL")
    raw.execute("VACUUM")  # the file now exists with 4 KiB pages and no tables
    raw.close()
    old = SQLiteStore(old_path)
    assert old._conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    old.insert(record("still works with 4 KiB pages"))
    assert [r.content for r in old.list(MemoryFilter(as_of=NOW), None)] == [
        "still works with 4 KiB pages"
    ]
    old.close()


def test_the_wal_is_checkpointed_after_the_write_lock_is_let_go(tmp_path: Path) -> None:
    from salience.stores.rows import stage
    from salience.stores.sqlite.transaction import CHECKPOINT_CHANGES

    store = SQLiteStore(tmp_path / "s.db")
    holding: list[bool] = []
    checkpoint = store._checkpoint

    def watched() -> None:
        holding.append(store._lock._is_owned())  # type: ignore[attr-defined]
        checkpoint()

    store._checkpoint = watched  # type: ignore[method-assign]
    wal = tmp_path / "s.db-wal"
    try:
        assert store._writer.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        batch = max(1, CHECKPOINT_CHANGES // 4)  # a record changes at least 4 rows here
        store.insert_many([stage(record(f"note {i}", tags=("a", "b"))) for i in range(batch)])
        assert holding == [False]  # checkpointed once, by the writer's thread, lock let go
        size = wal.stat().st_size
        store.insert_many([stage(record(f"more {i}", tags=("a", "b"))) for i in range(batch)])
        assert holding == [False, False]
        # The checkpoint copied every page back, so the second batch reused the WAL's start.
        assert wal.stat().st_size <= size * 1.1
        store.insert(record("a small write"))
        assert len(holding) == 2  # small writes wait for enough changes
    finally:
        store.close()


@pytest.mark.parametrize("dated", [False, True])
def test_both_full_text_query_shapes_find_the_same_best_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dated: bool
) -> None:
    # A small store joins every match; a large one asks FTS5 for its best few first and
    # widens when the filter removed too many. Same memories, same order, same scores.
    store = SQLiteStore(tmp_path / "shapes.db")
    words = ["cache", "deploy", "cache deploy", "cache cache"]
    for i in range(300):
        store.insert(record(f"note {i}: {words[i % 4]}", user="ana" if i % 10 else "bo"))
    bo = MemoryFilter(as_of=NOW, user="bo")  # a tenth of the matches: the first pass is short
    ana = MemoryFilter(as_of=NOW, user="ana")
    asked = [(q, f, k) for q in ("cache", "deploy cache") for f in (ana, bo) for k in (3, 40)]
    small = [store.search_rows(q, f, k, dated=dated) for q, f, k in asked]
    monkeypatch.setattr(fulltext, "JOIN_ALL_UP_TO", 0)
    large = [store.search_rows(q, f, k, dated=dated) for q, f, k in asked]
    store.close()
    assert [[(i, round(s, 9)) for _, i, s in r] for r in small] == [
        [(i, round(s, 9)) for _, i, s in r] for r in large
    ]
    assert all(small)
    assert len(small[-1]) == 30  # every one of bo's memories: fewer than asked for


def test_a_file_copy_holds_the_store_as_it_was(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "a.db")
    first, second = record("the ledger keeps invoices"), record("deploys go through ops")
    store.insert(first)
    store.insert(second)
    store.set_vectors([(first.id, b"\x00" * 8)])
    with store.transaction():  # a write not yet checkpointed into the file: in the copy too
        store.replace(replace(first, title="ledger"))
    store.copy_file(tmp_path / "b.db")
    copy = SQLiteStore(tmp_path / "b.db")
    assert list(copy.iter_all()) == list(store.iter_all())
    assert copy.vector_rows(0) == store.vector_rows(0)
    flt = MemoryFilter(as_of=NOW)
    assert copy.search_rows("ledger", flt, 5) == store.search_rows("ledger", flt, 5)
    store.close()
    copy.close()


def test_a_full_text_index_that_lost_rows_is_found_and_repaired(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    kept, lost = record("the printer needs toner"), record("the scanner needs a driver")
    store.insert(kept)
    store.insert(lost)
    damage = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    seq = damage.execute("SELECT seq FROM memories WHERE id = ?", (lost.id,)).fetchone()[0]
    damage.execute("DELETE FROM memory_fts WHERE rowid = ?", (seq,))
    damage.execute("INSERT INTO memory_fts (rowid, content) VALUES (999, 'an orphan row')")
    current = MemoryFilter(as_of=NOW)
    assert store.search("scanner", current, 5) == []  # the damage: a memory full text misses
    assert store.indexed() == (2, 0)  # (one row lost, one of no memory)
    assert store.missing_text() == 1
    assert store.repair_text() == 1
    assert store.missing_text() == 0
    assert store.indexed() == (2, 0)
    assert [r.id for r, _ in store.search("scanner", current, 5)] == [lost.id]
    assert store.search("orphan", current, 5) == []
    assert damage.execute("SELECT count(*) FROM memory_fts WHERE rowid = 999").fetchone()[0] == 0
    damage.close()
    store.close()


def test_a_read_verb_asks_the_file_for_its_version_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recall asked ``PRAGMA data_version`` once per cache it read (ten times): one look per
    verb now; outside a verb, and after a write, the file is asked again."""
    from tests.embedder import WordHashEmbedder

    config = Config(home=tmp_path, signal_gate=False)
    with Memory.open(config=config, embedder=WordHashEmbedder()) as memory:
        for i in range(5):
            memory.remember(f"the crane on pier {i} was serviced")
        memory.search("crane pier")  # (copies loaded)
        store = memory.store
        assert isinstance(store, SQLiteStore)
        asked = []
        version = store.data_version

        def spy() -> int:
            asked.append(1)
            return version()

        monkeypatch.setattr(store, "data_version", spy)
        memory.search("crane pier", touch=False)
        memory.briefing("salience", record=False)
        assert len(asked) == 2
        first = store.change_marker()
        memory.remember("the ferry leaves at nine")
        assert store.change_marker() != first  # (outside a verb: asked each time)
        assert len(asked) >= 4
