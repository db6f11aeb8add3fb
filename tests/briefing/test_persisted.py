"""Columns saved beside a SQLite file: a new process resumes from them, exactly, and never
from columns that are not this store's as it is now."""

from __future__ import annotations

import shutil
import stat
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from salience import Config, Memory
from salience.briefing import persisted, snapshot
from salience.briefing.columns import Columns, Vocabularies
from salience.briefing.snapshot import ColumnSnapshot
from salience.stores.base import COLUMNS_KEY
from salience.stores.sqlite import SQLiteStore
from salience.text import name_key
from tests.briefing.test_snapshot import Spy, decoded, fresh
from tests.conftest import FakeClock
from tests.factory import record

pytestmark = pytest.mark.sqlite_only


@pytest.fixture(autouse=True)
def small_stores_saved(monkeypatch: pytest.MonkeyPatch) -> None:
    """Save from 5 rows and after every read (the defaults are thousands)."""
    monkeypatch.setattr(snapshot, "SAVE_FROM", 5)
    monkeypatch.setattr(snapshot, "SAVE_AFTER", 1)


def fill(memory: Memory, count: int, start: int = 0) -> list[str]:
    return [
        memory.remember(
            f"memory {i}: the deploy runs on host {i}",
            tags=[f"project:p{i % 2}"] + (["project:q"] if i % 5 == 0 else []),
            type=["fact", "decision", "preference"][i % 3],
            user=["default", "bob"][i % 2],
        ).id
        for i in range(start, start + count)
    ]


def briefings(memory: Memory) -> list[str]:
    return [
        memory.briefing(name, project="p1").text
        for name in ("aide", "eidet", "ilab", "rae", "salience", "talome")
    ]


def test_round_trip_keeps_every_column(tmp_path: Path) -> None:
    records = [
        record("Caroline: one", tags=("project:a", "project:b", "session:s1"), user="ann"),
        record("two", project="p", topic_key="t", type="decision"),
        record("three", forget_reason="wrong", enabled=False),
    ]
    columns = Columns.from_records(records, Vocabularies(), [4, 7, 9])
    path = tmp_path / "columns"
    persisted.save(path, columns, 9, 12, "key")
    vocab = Vocabularies()
    loaded = persisted.load(path, "key", vocab)
    assert loaded is not None
    assert (loaded.last_seq, loaded.last_change) == (9, 12)
    assert loaded.columns.vocab is vocab
    assert decoded(loaded.columns) == decoded(columns)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert b"one" not in path.read_bytes().replace(b"SALCOLS1", b"")  # no content on disk
    assert b"aroline" not in path.read_bytes()  # (nor who speaks: a number made from it)
    assert loaded.columns.speaker.tolist() == [name_key("Caroline"), 0, 0]
    loaded.columns.importance[0] = 0.5  # writable: catch-up assigns in place


def test_unusable_files_are_refused(tmp_path: Path) -> None:
    columns = Columns.from_records([record("one"), record("two")])
    path = tmp_path / "columns"
    assert persisted.load(path, "key", Vocabularies()) is None  # missing
    persisted.save(path, columns, 2, 2, "key")
    assert persisted.load(path, "another store", Vocabularies()) is None
    data = path.read_bytes()
    path.write_bytes(data[:-8])
    assert persisted.load(path, "key", Vocabularies()) is None  # truncated
    path.write_bytes(b"SALCOLS2" + data[8:])
    assert persisted.load(path, "key", Vocabularies()) is None  # another format
    path.write_bytes(data[:20] + b"{not json" + data[29:])
    assert persisted.load(path, "key", Vocabularies()) is None  # damaged


def test_a_new_process_resumes_and_briefs_exactly(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(home=tmp_path)
    with Memory.open(config=config, clock=clock, embedder=None) as first:
        ids = fill(first, 12)
        expected = briefings(first)
    saved = tmp_path / "salience.db.columns"
    assert saved.exists()
    with Memory.open(config=config, clock=clock, embedder=None) as other:
        spy = Spy(other.store, monkeypatch)  # type: ignore[arg-type]
        assert briefings(other) == expected
        assert spy.whole == 0  # resumed from the file, not read whole
        # Writes after the save are caught up from the change log, in the next process too.
        clock.advance(hours=2)
        other.update(ids[1], importance=0.95, user="bob")
        other.forget(ids[2], "wrong")
        other.purge(ids[5], user="bob")
        fill(other, 3, start=100)
        after = briefings(other)
        ranked = [(r.id, s.value) for r, s in other.rank("salience", user="bob")]
    with Memory.open(config=config, clock=clock, embedder=None) as third:
        spy = Spy(third.store, monkeypatch)  # type: ignore[arg-type]
        assert briefings(third) == after
        assert [(r.id, s.value) for r, s in third.rank("salience", user="bob")] == ranked
        assert spy.whole == 0
    saved.unlink()  # and the same without the file
    with Memory.open(config=config, clock=clock, embedder=None) as fourth:
        assert briefings(fourth) == after


def test_columns_of_another_store_or_an_older_copy_are_not_used(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    with Memory.open(config=Config(home=one), clock=clock, embedder=None) as memory:
        fill(memory, 8)
        memory.briefing("salience")
    with Memory.open(config=Config(home=two), clock=clock, embedder=None) as memory:
        fill(memory, 6, start=50)
        memory.briefing("salience")
    # Another store's columns beside this file: its key differs, the store is read whole.
    shutil.copy(one / "salience.db.columns", two / "salience.db.columns")
    with Memory.open(config=Config(home=two), clock=clock, embedder=None) as memory:
        spy = Spy(memory.store, monkeypatch)  # type: ignore[arg-type]
        view = memory._briefings.local("default")
        assert spy.whole == 1
        assert decoded(view) == fresh(memory.store)  # type: ignore[arg-type]
    # This store restored from an older copy of itself (same key, fewer changes): refused.
    backup = tmp_path / "backup.db"
    shutil.copy(one / "salience.db", backup)
    with Memory.open(config=Config(home=one), clock=clock, embedder=None) as memory:
        fill(memory, 4, start=200)
        memory.briefing("salience")
    shutil.copy(backup, one / "salience.db")
    with Memory.open(config=Config(home=one), clock=clock, embedder=None) as memory:
        spy = Spy(memory.store, monkeypatch)  # type: ignore[arg-type]
        view = memory._briefings.local("default")
        assert spy.whole == 1
        assert decoded(view) == fresh(memory.store)  # type: ignore[arg-type]


def test_a_count_that_disagrees_means_a_whole_read(tmp_path: Path, clock: FakeClock) -> None:
    with Memory.open(config=Config(home=tmp_path), clock=clock, embedder=None) as memory:
        fill(memory, 8)
        memory.briefing("salience")
    store = SQLiteStore(tmp_path / "salience.db")
    try:
        saved = persisted.load(
            tmp_path / "salience.db.columns", str(store.get_meta(COLUMNS_KEY)), Vocabularies()
        )
        assert saved is not None
        # A file claiming one row fewer than there are, at the store's own position.
        shorter = saved.columns.take(np.arange(len(saved.columns) - 1))
        key = str(store.get_meta(COLUMNS_KEY))
        persisted.save(
            tmp_path / "salience.db.columns", shorter, saved.last_seq, saved.last_change, key
        )
        columns = ColumnSnapshot(store, Vocabularies(), saved=tmp_path / "salience.db.columns")
        assert decoded(columns.view("default")) == fresh(store)
    finally:
        store.close()


def test_the_key_is_not_copied_by_migrate(tmp_path: Path, clock: FakeClock) -> None:
    with Memory.open(config=Config(home=tmp_path / "a"), clock=clock, embedder=None) as memory:
        fill(memory, 6)
        memory.briefing("salience")
        source_key = memory.store.get_meta(COLUMNS_KEY)
    assert source_key is not None
    with (
        Memory.open(tmp_path / "a", clock=clock, embedder=None) as source,
        Memory.open(tmp_path / "b.db", clock=clock, embedder=None) as target,
    ):
        source.copy_into(target)  # (what migrate calls)
        assert target.store.get_meta(COLUMNS_KEY) is None


def test_small_stores_save_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot, "SAVE_FROM", 2000)
    with Memory.open(config=Config(home=tmp_path), embedder=None) as memory:
        fill(memory, 6)
        memory.briefing("salience")
        assert memory.store.get_meta(COLUMNS_KEY) is None
    assert not (tmp_path / "salience.db.columns").exists()


def test_a_name_no_row_uses_is_not_saved(tmp_path: Path) -> None:
    vocab = Vocabularies()
    vocab.topics.code("zqxtopic")  # (a memory erased since had it: the vocabulary keeps it)
    columns = Columns.from_records([record("one", topic_key="kept")], vocab, [1])
    path = tmp_path / "columns"
    persisted.save(path, columns, 1, 1, "key")
    assert b"zqxtopic" not in path.read_bytes()
    loaded = persisted.load(path, "key", Vocabularies())
    assert loaded is not None
    assert decoded(loaded.columns) == decoded(columns)
    assert set(persisted._CODED) == {f.name for f in fields(Vocabularies)}


def test_the_count_aside_is_the_stores_and_inside_a_transaction_sees_its_writes(
    tmp_path: Path, clock: FakeClock
) -> None:
    from salience.stores.grant import granted

    with Memory.open(config=Config(home=tmp_path), clock=clock, embedder=None) as memory:
        fill(memory, 6)
        store = memory.store
        assert persisted.CountAside(store).result() == 6
        with store.transaction(), granted("test"):
            store.insert(record("one more, not committed yet"))
            assert persisted.CountAside(store).result() == 7  # (asked on this thread)
        assert persisted.CountAside(store).result() == 7


def test_a_count_that_fails_aside_raises_for_the_caller(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from salience.errors import StoreError

    with Memory.open(config=Config(home=tmp_path), clock=clock, embedder=None) as memory:
        fill(memory, 6)

        def broken() -> int:
            raise StoreError("the disk went away")

        monkeypatch.setattr(memory.store, "count_rows", broken)
        counting = persisted.CountAside(memory.store)
        counting.wait()  # (waits, says nothing)
        with pytest.raises(StoreError, match="disk went away"):
            counting.result()
