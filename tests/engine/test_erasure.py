"""Erasure: a purged memory, and every memory derived from it, leave no copy of their text in
the store's files, and the audit log keeps a receipt (on SQLite and on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from salience import ALL_USERS, Config, Memory, NotFoundError
from salience.briefing import snapshot
from salience.stores.registry import is_local
from salience.write.update_sentences import sentences
from tests.both_stores import stored_bytes
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder
from tests.test_text import words_held

MARKER = "qzvmarkerxj"
TEXTS = [
    f"the pallet scanner {MARKER} misread a wet label at dock 3",
    f"dock 4's pallet scanner {MARKER} failed on a damp label",
    f"wet labels confuse the pallet scanner {MARKER} again",
]


def _consolidated(memory: Memory) -> tuple[list[str], str]:
    made = [memory.remember(t, type="observation", tags=["scanner"], force=True).id for t in TEXTS]
    assert all(made)
    assert memory.search(MARKER)  # recalled: access counts rewrite the rows
    memory.briefing()  # the saved briefing columns
    report = memory.consolidate()
    insights = memory.list(type="insight")
    assert len(insights) == 1, report
    assert set(insights[0].derived_from) == set(made)
    return [m for m in made if m is not None], insights[0].id


def test_a_purge_erases_what_was_derived_from_it_and_leaves_a_receipt(memory: Memory) -> None:
    members, insight = _consolidated(memory)
    first = memory.purge(members[0])
    assert first.notes == ("1 memories derived from it were erased too",)
    assert [r.id for r in memory.list(type="insight")] == []
    receipt = next(e for e in memory.log(members[0]) if e.action == "erase")
    assert receipt.detail["memories"] == 2
    assert MARKER not in repr(receipt.detail)
    assert next(e.action for e in memory.log(insight)) == "purge"
    for member in members[1:]:
        memory.purge(member)
    assert MARKER.encode() not in stored_bytes(memory)


@pytest.mark.sqlite_only
def test_no_byte_of_a_purged_memory_stays_in_any_file_of_the_home(
    memory: Memory, home: Path
) -> None:
    members, _ = _consolidated(memory)
    assert any(MARKER.encode() in p.read_bytes() for p in home.rglob("*") if p.is_file())
    for member in members:
        memory.purge(member)
    found = [p.name for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]
    assert found == []
    memory.close()
    found = [p.name for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]
    assert found == []


def test_a_purge_leaves_no_word_of_it_in_the_process_caches(memory: Memory) -> None:
    first = memory.remember(f"the pallet scanner {MARKER} sits at dock 3", force=True).id
    later = memory.remember("the pallet scanner sits at dock 4 now", force=True)  # (reads it)
    assert first is not None
    assert later.id is not None
    assert MARKER in words_held()
    memory.purge(first)
    assert MARKER not in words_held()
    assert memory.get(later.id) is not None  # (what was not purged is still there)


def _briefs(memory: Memory) -> None:
    memory.briefing()  # (its columns read the store, and catch up with it)


def _writes(memory: Memory) -> None:
    memory.remember("the pallet scanner sits at dock 4 now", force=True)  # (its look reads)


@pytest.mark.parametrize("reads", [_briefs, _writes], ids=["briefs", "only writes"])
def test_a_process_that_learns_of_another_purge_forgets_the_words_too(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder, reads: Callable[[Memory], None]
) -> None:
    """A server that briefs learns of it from its columns; a worker that only writes, from
    its vector rows (its look catches them up)."""
    text = f"the pallet scanner {MARKER} sits at dock 3"
    with Memory.open(config=config, clock=clock, embedder=embedder) as server:
        made = server.remember(text, force=True).id or ""
        reads(server)
        with Memory.open(config=config, clock=clock, embedder=embedder) as other:
            other.purge(made)  # (here one process: the server's caches are filled again below)
        sentences(text)
        assert MARKER in words_held()
        reads(server)
        assert MARKER not in words_held()


@pytest.mark.sqlite_only
def test_no_name_only_a_purged_memory_had_stays_in_the_saved_columns(
    memory: Memory, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "SAVE_FROM", 2)  # (saved from thousands of rows otherwise)
    monkeypatch.setattr(snapshot, "SAVE_AFTER", 1)
    for i in range(3):
        memory.remember(f"note {i} on the loading dock", force=True)
    named = {"topic_key": f"{MARKER}-t", "session_id": f"{MARKER}-s", "project": f"{MARKER}p"}
    gone = memory.remember("the dock plan", force=True, **named).id
    assert gone is not None
    memory.briefing()
    (columns,) = home.rglob("*.columns")
    assert MARKER.encode() in columns.read_bytes()
    memory.purge(gone)
    memory.briefing()  # (the columns saved again, as they are now)
    assert columns.exists()
    found = [p.name for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]
    assert found == []


def test_postgres_keeps_no_dead_tuple_of_it(memory: Memory) -> None:
    if is_local(memory.store.location):
        pytest.skip("PostgreSQL's dead tuples")
    members, _ = _consolidated(memory)
    for member in members:
        memory.purge(member)
    dead = memory.store._rows(  # type: ignore[attr-defined]
        "SELECT relname, n_dead_tup FROM pg_stat_user_tables "
        "WHERE schemaname = current_schema() AND n_dead_tup > 0 "
        "AND relname IN ('memories', 'memory_vectors', 'memory_tags', 'memory_entities')"
    )
    assert dead == []


def test_erasing_a_user_takes_everything_they_stored_and_nothing_else(
    memory: Memory, home: Path
) -> None:
    for text in TEXTS:
        memory.remember(text, user="alice", force=True)
    memory.session_start(user="alice")
    kept = memory.remember("bob keeps the forklift keys in drawer 2", user="bob", force=True)
    receipt = memory.erase_user("alice")
    assert receipt["memories"] == 3
    assert receipt["sessions"] == 1
    assert receipt["audit_log"] >= 3
    assert memory.list(user="alice", include_superseded=True, include_forgotten=True) == []
    assert memory.search(MARKER, user="alice") == []
    assert [r.id for r in memory.list(user="bob")] == [kept.id]
    assert [e.action for e in memory.log(user="alice")] == ["erase_user"]  # the receipt
    assert MARKER.encode() not in stored_bytes(memory)
    if is_local(memory.store.location):
        assert not [p for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]


@pytest.mark.parametrize("which", [0, 2])
def test_a_purge_erases_every_version_of_its_chain(memory: Memory, which: int) -> None:
    """Purging the current version (or an old one) erases the whole chain: no version's text
    stays, and the receipt counts the versions."""
    first = memory.remember(f"the loading bay code is {MARKER} one", force=True).id or ""
    second = memory.supersede(first, f"the loading bay code is {MARKER} two").id or ""
    third = memory.supersede(second, f"the loading bay code is {MARKER} three").id or ""
    summary = memory.remember("bay code summary", derived_from=[first], force=True).id or ""
    kept = memory.remember("the dock closes at six", force=True).id or ""
    chain = [first, second, third]
    done = memory.purge(chain[which])
    assert "2 other versions of it were erased too" in done.notes
    for gone in [*chain, summary]:
        with pytest.raises(NotFoundError):
            memory.get(gone)
    assert memory.get(kept).content == "the dock closes at six"
    receipt = next(e for e in memory.log(chain[which]) if e.action == "erase")
    assert (receipt.detail["versions"], receipt.detail["memories"]) == (3, 4)
    assert MARKER.encode() not in stored_bytes(memory)


def _purge(memory: Memory, made: str) -> None:
    memory.purge(made, user="alice")


def _erase_user(memory: Memory, made: str) -> None:
    memory.erase_user("alice")


@pytest.mark.parametrize("erase", [_purge, _erase_user], ids=["purge", "user erasure"])
def test_an_idle_process_forgets_the_words_of_another_s_erasure(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder, erase: Callable[..., None]
) -> None:
    """A server that neither briefs, recalls nor writes learns of another process's erasure
    from the store's count of erasures (what its upkeep reads every few seconds), once, and
    forgets nothing for a write that erased nothing."""
    text = f"the pallet scanner {MARKER} sits at dock 3"
    with Memory.open(config=config, clock=clock, embedder=embedder) as server:
        made = server.remember(text, user="alice", force=True).id or ""
        assert not server.follow_erasures()  # (the first look notes the count)
        with Memory.open(config=config, clock=clock, embedder=embedder) as other:
            other.remember("the dock closes at six tonight", user="bob", force=True)
        sentences(text)
        assert not server.follow_erasures()
        assert MARKER in words_held()
        with Memory.open(config=config, clock=clock, embedder=embedder) as other:
            erase(other, made)  # (here one process: the server's caches are filled again)
        sentences(text)
        assert MARKER in words_held()
        assert server.follow_erasures()
        assert MARKER not in words_held()
        sentences(text)
        assert not server.follow_erasures()  # (that erasure is followed already)
        assert MARKER in words_held()


def test_a_server_s_upkeep_follows_erasures_until_it_closes(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``long_running`` starts a thread that follows other processes' erasures (and finishes
    pending ones); closing the engine stops it."""
    import threading

    from salience.engine import scrubbing

    monkeypatch.setattr(scrubbing, "UPKEEP_EVERY_S", 0.01)
    forgotten = threading.Event()
    real = scrubbing.forget_cached_texts

    def forget() -> int:
        if threading.current_thread().name == "salience-upkeep":
            forgotten.set()
        return real()

    monkeypatch.setattr(scrubbing, "forget_cached_texts", forget)
    server = Memory.open(config=config, clock=clock, embedder=embedder)
    try:
        made = server.remember(f"the pallet scanner {MARKER} sits at dock 3", force=True).id
        server.long_running()
        upkeep = server._upkeep
        assert upkeep is not None
        assert upkeep.is_alive()
        with Memory.open(config=config, clock=clock, embedder=embedder) as other:
            other.purge(made or "")
        assert forgotten.wait(60), "the upkeep did not follow the erasure"
    finally:
        server.close()
    assert not upkeep.is_alive()


def test_a_recall_queued_in_another_process_is_not_recorded_after_the_purge(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server answering a recall while another process purges: its queued record lands
    after the delete, and must not bring the purged id (or its query) back."""
    monkeypatch.setattr("salience.engine.core.RECORD_EVERY_S", 3600.0)  # (queued until flushed)
    with Memory.open(config=config, clock=clock, embedder=embedder) as server:
        made = server.remember(f"the loading bay code is {MARKER}", force=True).id or ""
        server.search(f"loading bay {MARKER}")  # recorded: queued, not yet written
        with Memory.open(config=config, clock=clock, embedder=embedder) as other:
            other.purge(made)
        server._records.flush()  # (what the server's writer thread does a second later)
        assert server.store.traces(None) == []
    assert MARKER.encode() not in _bytes(config, clock, embedder)


def _bytes(config: Config, clock: FakeClock, embedder: WordHashEmbedder) -> bytes:
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        return stored_bytes(memory)


def _reader(memory: Memory) -> Any:
    """Another process's read of the store, held open (a long export, a backup, a shell)."""
    location = memory.store.location
    if not is_local(location):
        import psycopg

        conn: Any = psycopg.connect(location)
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    else:
        import sqlite3

        conn = sqlite3.connect(location, isolation_level=None)
        conn.execute("BEGIN")
    conn.execute("SELECT count(*) FROM memories").fetchone()
    return conn


def test_an_erasure_a_reader_holds_back_is_pending_then_completes(
    memory: Memory, home: Path
) -> None:
    made = memory.remember(f"the loading bay code is {MARKER}", force=True).id or ""
    memory.remember("the dock closes at six tonight", force=True)
    reader = _reader(memory)
    try:
        done = memory.purge(made)
        assert any(n.startswith("erasure pending") for n in done.notes)
        assert memory.stats().erasure_pending is not None
        receipt = next(e for e in memory.log(made) if e.action == "erase")
        assert receipt.detail["pending"] == 1
        assert not memory.settle_erasure()  # (still held)
        if is_local(memory.store.location):  # the text is really still there
            assert any(MARKER.encode() in p.read_bytes() for p in home.rglob("*-wal"))
    finally:
        reader.close()
    memory.remember("the gate opens at seven tomorrow", force=True)  # the next write retries
    assert memory.stats().erasure_pending is None
    assert any(e.action == "erase_completed" for e in memory.log(user=ALL_USERS))
    if is_local(memory.store.location):  # every file as it is, not checkpointed
        found = [
            p.name for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()
        ]
        assert found == []
    assert MARKER.encode() not in stored_bytes(memory)
