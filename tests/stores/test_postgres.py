"""PostgreSQL itself: several processes on one database, migrations racing, its own limits."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from salience import Config, InvalidInputError, Memory, NotASalienceDatabaseError
from salience.net import redact
from salience.stores.postgres import open_postgres
from salience.stores.postgres.schema import MIGRATIONS
from salience.stores.postgres.vectors import vector_bytes, vector_text
from tests.postgres import Server

WRITERS, WRITES = 4, 500

# One writer: WRITES writes, a fifth of them texts that other writers also write (duplicates)
# and a fifth topic upserts on keys every writer shares (ilab's rules: topic upsert, then
# exact duplicate). Prints each write's outcome.
WRITER = """
import json, sys, time
from salience import Config, Memory
url, me, writes, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
config = Config(home="/nonexistent", signal_gate=False, store_url=url, profile="ilab")
outcomes = []
with Memory.open(config=config, embedder=None, llm=None) as memory:
    time.sleep(max(0.0, start - time.time()))  # every writer starts at the same moment
    for i in range(writes):
        if i % 5 == 0:
            result = memory.remember(f"shared fact number {i} about the deploy")
        elif i % 5 == 1:
            result = memory.remember(
                f"topic {i % 7} now says writer {me} step {i}", topic_key=f"topic-{i % 7}"
            )
        else:
            result = memory.remember(f"writer {me} fact number {i} about the build")
        outcomes.append(result.outcome.value)
print(json.dumps(outcomes))
"""


def _run_writers(url: str, count: int, tmp_path: Path) -> list[list[str]]:
    start = time.time() + 3  # (a process takes about a second to start)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, str(me), str(WRITES), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
        )
        for me in range(count)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        results.append(json.loads(out))
    return results


def _state(url: str) -> tuple[list[str], Counter[str], int]:
    with Memory.open(url, embedder=None, llm=None) as memory:
        current = memory.list()
        topics = Counter(r.topic_key for r in current if r.topic_key)
        return sorted(r.content for r in current if not r.topic_key), topics, len(current)


def test_four_processes_writing_at_once_lose_nothing_and_double_nothing(
    postgres_server: Server, tmp_path: Path
) -> None:
    with postgres_server.schema() as parallel, postgres_server.schema() as serial:
        concurrent = _run_writers(parallel, WRITERS, tmp_path)
        # The same writes one process at a time: the reference for every dedup decision.
        one_by_one = []
        for me in range(WRITERS):
            one_by_one += [
                json.loads(
                    subprocess.run(
                        [sys.executable, "-c", WRITER, serial, str(me), str(WRITES), "0"],
                        capture_output=True,
                        text=True,
                        check=True,
                        cwd=tmp_path,
                    ).stdout
                )
            ]
        outcomes = Counter(o for run in concurrent for o in run)
        assert sum(outcomes.values()) == WRITERS * WRITES  # every write has an outcome
        assert outcomes == Counter(o for run in one_by_one for o in run)
        contents, topics, total = _state(parallel)
        assert len(contents) == len(set(contents))  # no duplicate rows
        assert topics == Counter({f"topic-{k}": 1 for k in range(7)})  # one current per topic
        assert (contents, topics) == _state(serial)[:2]
        assert total == outcomes["created"]  # every created row is current; nothing more


def test_two_processes_opening_a_new_database_at_once_migrate_it_once(
    postgres_url: str,
) -> None:
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: open_postgres(postgres_url), range(4)))
    for store in stores:
        store.close()
    store = open_postgres(postgres_url)
    try:
        names = [r[0] for r in store._rows("SELECT name FROM schema_migrations ORDER BY name")]
        assert names == sorted(name for name, _ in MIGRATIONS)  # each once
    finally:
        store.close()


def test_a_schema_with_other_tables_is_refused(postgres_url: str) -> None:
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id integer)")
    with pytest.raises(NotASalienceDatabaseError, match="other tables"):
        open_postgres(postgres_url)


def test_text_postgresql_cannot_hold_is_a_clear_error(postgres_url: str, tmp_path: Path) -> None:
    config = Config(home=tmp_path, signal_gate=False, store_url=postgres_url)
    with Memory.open(config=config, embedder=None) as memory:
        with pytest.raises(InvalidInputError, match="NUL"):
            memory.remember("a note with a \x00 in it")
        assert memory.list() == []


def test_vectors_convert_exactly_both_ways() -> None:
    values = (0.1, -2.5, 1 / 3, 3.4e38, -1e-40)
    raw = struct.pack("<5f", *values)
    text = vector_text(raw)
    floats = [float(v) for v in text.strip("[]").split(",")]
    assert struct.pack("<5f", *floats) == raw
    sent = struct.pack(">HH5f", 5, 0, *struct.unpack("<5f", raw))
    assert vector_bytes(sent) == raw


def test_a_password_never_shows_in_the_location() -> None:
    assert redact("postgresql://app:s3cret@db:5432/mem") == "postgresql://app@db:5432/mem"
    assert "s3cret" not in redact("postgresql://app@db/mem?password=s3cret&sslmode=require")


def test_a_writer_waiting_past_the_busy_timeout_is_told_so(postgres_url: str) -> None:
    from salience import StoreBusyError
    from salience.stores.postgres import open_postgres as open_store
    from tests.factory import record

    holder = open_store(postgres_url)
    waiter = open_store(postgres_url, busy_timeout_ms=200)
    try:
        with holder.transaction():
            holder.insert(record("held by the first writer"))
            with pytest.raises(StoreBusyError, match="busy timeout"):
                waiter.insert(record("the second writer waits"))
        waiter.insert(record("after the first commits"))
        assert len(list(waiter.iter_all())) == 2
    finally:
        holder.close()
        waiter.close()


def test_folding_pending_counts_changes_no_score(postgres_url: str) -> None:
    from salience.stores.base import MemoryFilter
    from tests.factory import NOW, record

    store = open_postgres(postgres_url)
    try:
        texts = ["postgres runs the staging database", "the staging server", "lunch at noon"]
        for text in texts:
            store.insert(record(text))
        gone = record("a postgres note that goes away")
        store.insert(gone)
        store.delete(gone.id)
        flt = MemoryFilter(as_of=NOW)
        before = store.search("staging postgres", flt, 5)
        with store.transaction():
            store._exec("SELECT salience_fold_counts()")
        assert store._rows("SELECT count(*) FROM fts_term_deltas")[0][0] == 0
        assert store.search("staging postgres", flt, 5) == before
        counted = dict(store._rows("SELECT lexeme, text_rows FROM fts_terms"))
        assert counted["postgr"] == 1  # the deleted row's count went with it
        assert store._rows("SELECT rows FROM fts_totals")[0][0] == 3
    finally:
        store.close()


def test_a_bulk_load_builds_the_hnsw_index_once_at_its_end(postgres_url: str) -> None:
    from tests.factory import record

    store = open_postgres(postgres_url)
    index = "SELECT count(*) FROM pg_class WHERE relname = 'memory_vectors_hnsw'"
    try:
        records = [record(f"memory {i}") for i in range(40)]
        for r in records:
            store.insert(r)
        store.set_vectors([(records[0].id, struct.pack("<4f", 1, 0, 0, 0))])
        assert store._rows(index)[0][0] == 1  # a write outside a bulk load makes the index
        with store.bulk_load():
            assert store._rows(index)[0][0] == 0  # dropped meanwhile
            store.set_vectors(
                [(r.id, struct.pack("<4f", 1, i, 0.5, -i)) for i, r in enumerate(records)]
            )
            assert store._rows(index)[0][0] == 0
        assert store._rows(index)[0][0] == 1
        nearest = store.nearest(struct.pack("<4f", 1, 7, 0.5, -7), 1)
        assert nearest == [records[7].id]
    finally:
        store.close()


def test_each_vector_keeps_its_memory_s_session(postgres_url: str) -> None:
    """Each vector's session (0014) follows its memory: written with it (one by one and by
    COPY), moved with it, gone with it, and filled in for a store from before."""
    from tests.factory import record

    sessions = ["s1", None, "s2", "s1"]
    records = [record(f"memory {i}", session_id=s) for i, s in enumerate(sessions)]
    vector = struct.pack("<4f", 1, 0, 0, 0)
    beside = "SELECT memory_id, session_id FROM vector_sessions ORDER BY memory_id"
    store = open_postgres(postgres_url)
    try:
        for r in records:
            store.insert(r)
        store.set_vector(records[0].id, vector)
        store.set_vectors([(r.id, vector) for r in records[1:]])
        expected = sorted((r.id, r.session_id) for r in records if r.session_id)
        assert [tuple(row) for row in store._rows(beside)] == expected
        with store.transaction():
            store._exec("UPDATE memories SET session_id = 's3' WHERE id = %s", (records[1].id,))
        with store.transaction():
            store._exec("UPDATE memories SET session_id = NULL WHERE id = %s", (records[2].id,))
        store.set_vector(records[3].id, struct.pack("<4f", 0, 1, 0, 0))  # (a new vseq)
        moved = {records[1].id: "s3", records[2].id: None}
        expected = sorted(
            (r.id, moved.get(r.id, r.session_id)) for r in records if moved.get(r.id, r.session_id)
        )
        assert [tuple(row) for row in store._rows(beside)] == expected
        assert store.vector_version()[2] == 2  # (two sessions moved)
        with store.transaction():  # as a store from before 0014 was
            store._exec("DROP TABLE vector_sessions")
            store._exec("DROP TRIGGER session_moved ON memories")
            store._exec("DROP TRIGGER vector_sessions_in ON memory_vectors")
            store._exec("DROP FUNCTION salience_vector_sessions, salience_session_moved")
            store._exec("DELETE FROM row_counts WHERE name = 'sessions_moved'")
            store._exec("DELETE FROM schema_migrations WHERE name = '0014_vector_sessions'")
    finally:
        store.close()
    store = open_postgres(postgres_url)
    try:
        assert [tuple(row) for row in store._rows(beside)] == expected
    finally:
        store.close()


def test_a_read_verb_asks_the_server_for_its_change_marker_once(
    postgres_url: str, tmp_path: Path
) -> None:
    """A recall read the store's version up to seven times (every copy checks it): one look
    per verb now; outside a verb, and after a write, the server is asked again."""
    from tests.embedder import WordHashEmbedder

    config = Config(home=tmp_path, signal_gate=False, store_url=postgres_url)
    with Memory.open(config=config, embedder=WordHashEmbedder()) as memory:
        for i in range(5):
            memory.remember(f"the crane on pier {i} was serviced")
        memory.search("crane pier")  # (copies loaded)
        asked: list[str] = []
        store = memory.store
        rows = store._rows  # type: ignore[attr-defined]

        def spy(sql: str, *args: object, **kwargs: object) -> object:
            asked.append(sql)
            return rows(sql, *args, **kwargs)

        store._rows = spy  # type: ignore[attr-defined]
        memory.search("crane pier", touch=False)
        assert sum("FROM store_version" in sql for sql in asked) == 1
        first = store.change_marker()
        memory.remember("the ferry leaves at nine")
        assert store.change_marker() != first  # (outside a verb: asked each time)
        assert sum("FROM store_version" in sql for sql in asked) >= 3


def test_a_large_import_leaves_no_pending_full_text(postgres_url: str, tmp_path: Path) -> None:
    """GIN keeps rows written in a pending list that every full-text search reads whole
    until autovacuum merges it; an import of SETTLE_AFTER rows or more merges it itself."""
    from salience.engine.importing import SETTLE_AFTER

    config = Config(home=tmp_path, signal_gate=False, store_url=postgres_url)
    pending = "SELECT gin_clean_pending_list('memories_fts'::regclass)"
    with Memory.open(config=config, embedder=None, llm=None) as memory:
        few = [json.dumps({"content": f"note {i} on deploys and builds"}) for i in range(20)]
        memory.import_(few)
        assert memory.store._rows(pending)[0][0] > 0  # (a small import leaves it to GIN)
        many = [
            json.dumps({"content": f"fact {i} about the staging cluster"})
            for i in range(SETTLE_AFTER)
        ]
        assert memory.import_(many).created == SETTLE_AFTER
        assert memory.store._rows(pending)[0][0] == 0  # merged by the import already
        assert [h.record.content for h in memory.search("fact 7 staging", 1)] == [
            "fact 7 about the staging cluster"
        ]
