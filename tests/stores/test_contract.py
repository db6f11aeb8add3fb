"""The Store contract: the same assertions on the SQLite file and on PostgreSQL + pgvector."""

from __future__ import annotations

import struct
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from salience.errors import StoreError
from salience.models import ApiKey, AuditEntry, LayerMount, Session
from salience.stores.base import MemoryFilter, Store
from salience.stores.grant import granted
from salience.stores.migrations import MIGRATION_NAMES
from salience.stores.postgres.schema import MIGRATIONS as POSTGRES_MIGRATIONS
from salience.stores.rows import stage
from tests.factory import NOW, record

ALL = MemoryFilter(as_of=NOW, include_forgotten=True, include_superseded=True)
CURRENT = MemoryFilter(as_of=NOW)


def _open(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Store:
    if backend == "sqlite":
        from salience.stores.sqlite import SQLiteStore

        return SQLiteStore(tmp_path / "contract.db")
    from salience.stores.postgres import open_postgres

    return open_postgres(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    opened = _open(backend, tmp_path, request)
    yield opened
    opened.close()


@pytest.fixture
def other(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest, store: Store
) -> Iterator[Store]:
    """A second handle on the same store, as another process would have."""
    opened = _open(backend, tmp_path, request)
    yield opened
    opened.close()


def vector(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def test_both_stores_record_the_same_migrations() -> None:
    assert tuple(name for name, _ in POSTGRES_MIGRATIONS) == MIGRATION_NAMES


def test_insert_get_replace_and_delete(store: Store) -> None:
    first = record("The staging server listens on port 8080", tags=("infra", "staging"))
    store.insert(first)
    assert store.get(first.id) == first
    changed = replace(first, content="The staging server listens on port 9090", tags=("infra",))
    store.replace(changed)
    assert store.get(first.id) == changed
    assert [r.id for r in store.list(MemoryFilter(as_of=NOW, tags=("staging",)), None)] == []
    assert store.delete(first.id) is True
    assert store.get(first.id) is None
    assert store.delete(first.id) is False
    with pytest.raises(StoreError):
        store.replace(changed)


def test_insert_many_writes_rows_indexes_tags_and_entities_at_once(store: Store) -> None:
    store.insert(record("written first, one at a time"))
    many = [
        record(
            f"Bulk note {i} about the staging cluster",
            tags=("infra", f"batch:{i % 2}"),
            entities=("Staging", "staging", f"Host{i}"),  # one key per casefolded name
            age=i,
        )
        for i in range(5)
    ]
    before = store.row_changes(2**62, 2**62)
    assert before is not None
    store.insert_many([stage(r) for r in many])
    store.insert_many([])  # nothing: no error
    assert [store.get(r.id) for r in many] == many
    assert {r.id for r in store.list(MemoryFilter(as_of=NOW, tags=("batch:1",)), None)} == {
        many[1].id,
        many[3].id,
    }
    assert [r.id for r, _ in store.search("cluster", CURRENT, 10)] != []
    assert {r.id for r, _ in store.search("cluster", CURRENT, 10)} == {r.id for r in many}
    assert dict(store.entity_counts(CURRENT, None))["Staging"] == 5
    changes = store.row_changes(before.last_seq, before.last_change)
    assert changes is not None
    assert [r.id for _, r in sorted(changes.rows, key=lambda row: row[0])] == [r.id for r in many]
    with pytest.raises(StoreError):  # an id that exists refuses the whole batch
        store.insert_many([stage(record("new")), stage(many[0])])
    assert store.stats(NOW).total == 6


def test_list_filters_and_orders_newest_first(store: Store) -> None:
    old = record("an old note about the build", age=3, project="api", user="ana")
    new = record("a new note about the build", age=1, project="api", user="ana")
    other = record("someone else's note", age=2, project="web", user="bo")
    gone = record("a forgotten note", age=1, user="ana", forget_reason="wrong")
    for r in (old, new, other, gone):
        store.insert(r)
    mine = MemoryFilter(as_of=NOW, user="ana")
    assert [r.id for r in store.list(mine, None)] == [new.id, old.id]
    assert [r.id for r in store.list(mine, 1, offset=1)] == [old.id]
    assert [r.id for r in store.list(MemoryFilter(as_of=NOW, project="web"), None)] == [other.id]
    with_gone = MemoryFilter(as_of=NOW, user="ana", include_forgotten=True)
    assert {r.id for r in store.list(with_gone, None)} == {old.id, new.id, gone.id}


def test_superseded_records_leave_current_lists(store: Store) -> None:
    first = record("the deploy takes five minutes", age=2)
    store.insert(replace(first, valid_until=NOW - timedelta(days=1)))
    successor = record("the deploy takes two minutes", age=1, parent_id=first.id)
    store.insert(successor)
    assert [r.id for r in store.list(CURRENT, None)] == [successor.id]
    assert [r.id for r in store.successors(first.id)] == [successor.id]
    assert len(store.list(ALL, None)) == 2


def test_full_text_search_ranks_the_matching_memory_first(store: Store) -> None:
    texts = [
        "The staging server listens on port 8080 behind nginx",
        "Deploys go out every Tuesday from the release branch",
        "The database backups run nightly at two",
        "Staging deploys need a feature flag",
    ]
    records = [record(t) for t in texts]
    for r in records:
        store.insert(r)
    hits = store.search("which port does the staging server use", CURRENT, 10)
    assert hits[0][0].id == records[0].id
    assert all(score > 0 for _, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert {r.id for r, _ in hits} == {records[0].id, records[3].id}
    assert store.search("zebra", CURRENT, 10) == []
    assert store.search("", CURRENT, 10) == []
    assert store.search("port", CURRENT, 0) == []


def test_search_treats_operators_as_text(store: Store) -> None:
    store.insert(record("quoting rules: 'single' and \"double\" NEAR(a b) OR x:y"))
    for query in ["'", '"', "NEAR(", "a OR", "x:y*", "\\", "&|!()"]:
        store.search(query, CURRENT, 5)  # never an error


def test_a_title_weighs_twice_the_content(store: Store) -> None:
    in_title = record("notes from the meeting", title="postgres upgrade")
    in_content = record("we discussed the postgres upgrade today")
    filler = [record(f"unrelated memory {i} about lunch") for i in range(6)]
    for r in (in_title, in_content, *filler):
        store.insert(r)
    hits = store.search("postgres upgrade", CURRENT, 5)
    assert [r.id for r, _ in hits][:2] == [in_title.id, in_content.id]


def test_dated_search_matches_the_creation_date_in_words(store: Store) -> None:
    may = record("we shipped the mobile app", age=0)
    store.insert(may)
    weekday = may.created_at.strftime("%A")
    assert store.search(weekday, CURRENT, 5) == []
    assert [r.id for r, _ in store.search(weekday, CURRENT, 5, dated=True)] == [may.id]


def test_dated_search_matches_the_dates_a_memory_speaks_of(store: Store) -> None:
    said = record("we shipped the mobile app yesterday", age=0)
    other = record("we shipped the web app", age=0)
    store.insert(said)
    store.insert(other)
    day_before = said.created_at - timedelta(days=1)
    words = f"{day_before.day} {day_before.strftime('%A')}"
    assert [r.id for r, _ in store.search(words, CURRENT, 5, dated=True)] == [said.id]
    store.replace(replace(said, content="we shipped the mobile app"))  # reindexed: gone
    assert store.search(words, CURRENT, 5, dated=True) == []


def test_search_applies_the_filter(store: Store) -> None:
    ana = record("the cache is redis", user="ana")
    bo = record("the cache is memcached", user="bo")
    store.insert(ana)
    store.insert(bo)
    hits = store.search("cache", MemoryFilter(as_of=NOW, user="bo"), 5)
    assert [r.id for r, _ in hits] == [bo.id]


def test_search_and_get_many_by_row_number_agree_with_the_records(store: Store) -> None:
    # Recall reads candidates as (row number, id, score) and builds records for its hits only:
    # the same memories, order and scores as the record-building reads, the row numbers
    # those of all_rows (which the briefing's columns are keyed by).
    for i in range(30):
        store.insert(record(f"the cache note {i} says redis {'cache ' * (i % 4)}", user="ana"))
    store.insert(record("the cache belongs to bo", user="bo"))
    seq_of = {r.id: seq for seq, r in store.all_rows().rows}
    ana = MemoryFilter(as_of=NOW, user="ana")
    for dated in (False, True):
        for limit in (3, 50):
            found = store.search("redis cache", ana, limit, dated=dated)
            rows = store.search_rows("redis cache", ana, limit, dated=dated)
            assert rows == [(seq_of[r.id], r.id, score) for r, score in found]
    assert store.search_rows("zebra", ana, 5) == []
    assert store.search_rows("cache", ana, 0) == []
    wanted = [*reversed(seq_of), "missing"]
    matched = store.matching(wanted, ana)
    assert matched == [(seq_of[r.id], r.id) for r in store.get_many(wanted, ana)]
    assert len(matched) == 30  # bo's memory and the missing id are left out
    assert store.matching([], ana) == []
    texts = store.texts(wanted, ana)  # (a write's look for its updates reads these)
    assert texts == [(r.content, r.id) for r in store.get_many(wanted, ana)]
    assert len(texts) == 30
    assert store.texts([], ana) == []


def test_substring_get_many_entities_and_iteration(store: Store) -> None:
    a = record("Postgres runs on port 5432", entities=("Postgres",))
    b = record("Redis and postgres share a host", entities=("postgres", "Redis"))
    store.insert(a)
    store.insert(b)
    assert {r.id for r in store.substring("POSTGRES", CURRENT, 5)} == {a.id, b.id}
    assert [r.id for r in store.get_many([b.id, "missing", a.id], CURRENT)] == [b.id, a.id]
    counts = dict(store.entity_counts(CURRENT, None))
    assert counts["Postgres"] == 2
    assert counts["Redis"] == 1
    assert [r.id for r in store.iter_all()] == sorted([a.id, b.id])


@pytest.mark.parametrize(
    "flt",
    [
        CURRENT,
        ALL,
        MemoryFilter(as_of=NOW, user="u1"),
        MemoryFilter(as_of=NOW, tags=("infra",), project="p"),
        MemoryFilter(as_of=NOW, type="insight", include_superseded=True),
    ],
)
def test_iteration_pages_through_what_a_filter_lists(
    store: Store, flt: MemoryFilter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In id order, pages of 2: the same records the filter lists."""
    from salience.stores.postgres import memories as postgres_memories
    from salience.stores.sqlite import memories as sqlite_memories

    for module in (sqlite_memories, postgres_memories):
        monkeypatch.setattr(module, "PAGE", 2)
    for i in range(9):
        store.insert(
            record(
                f"memory {i}",
                user="u1" if i % 3 else "u2",
                type="insight" if i % 2 else "observation",
                tags=("infra",) if i % 4 else (),
                project="p" if i > 2 else None,
            )
        )
    first = store.list(ALL, 1)[0]
    store.replace(replace(first, valid_until=NOW - timedelta(days=1)))
    listed = sorted(r.id for r in store.list(flt, None))
    assert [r.id for r in store.iter_all(flt)] == listed
    assert [r.id for r in store.iter_all()] == sorted(r.id for r in store.list(ALL, None))


def test_vectors_round_trip_exactly(store: Store) -> None:
    a, b = record("first", session_id="s1"), record("second", session_id="s1")
    store.insert(a)
    store.insert(b)
    assert store.vector_state() == (0, 0)
    exact = vector(0.1, -0.2, 1 / 3, 1e-8)
    store.set_vector(a.id, exact)
    store.set_vector(b.id, vector(1, 0, 0, 0))
    store.set_vector(a.id, exact)  # replaced: a new, higher vseq
    rows = store.vector_rows(0)
    assert [(r[1], r[2]) for r in rows] == [(b.id, "s1"), (a.id, "s1")]
    assert rows[1][3] == exact
    assert store.vector_state()[0] == 2
    assert [r[1] for r in store.vector_rows(rows[0][0])] == [a.id]
    assert store.vectors_of([a.id, "missing", b.id]) == {a.id: exact, b.id: vector(1, 0, 0, 0)}
    assert store.vectors_of([]) == {}
    assert store.count_without_vectors() == 0
    store.delete(b.id)
    assert store.vector_state()[0] == 1
    store.clear_vectors()
    assert store.vector_state()[0] == 0
    assert [r.id for r in store.without_vectors(5)] == [a.id]


def test_many_vectors_at_once_and_a_bulk_load(store: Store) -> None:
    records = [record(f"memory {i}", session_id="s1") for i in range(5)]
    for r in records:
        store.insert(r)
    store.set_vector(records[0].id, vector(1, 0, 0, 0))
    before = store.change_marker()
    exact = [vector(0.1 * i, -0.2, 1 / 3, 1e-8 * i) for i in range(5)]
    store.set_vectors([(r.id, v) for r, v in zip(records, exact, strict=True)])
    assert store.change_marker() != before
    rows = store.vector_rows(0)
    assert [r[1] for r in rows] == [r.id for r in records]  # in order; the first replaced
    assert [r[3] for r in rows] == exact
    assert store.vector_state()[0] == 5
    store.set_vectors([])  # nothing: no error
    with store.bulk_load():
        store.set_vectors([(records[2].id, vector(0, 0, 1, 0))])
    assert store.vector_rows(rows[-1][0])[0][1:] == (records[2].id, "s1", vector(0, 0, 1, 0))
    pages, after = [], 0
    while page := store.vector_rows(after, 2):  # a page at a time, by vseq
        pages.append([r[1] for r in page])
        after = page[-1][0]
    ids = [r.id for r in records]
    assert pages == [ids[:2], [ids[3], ids[4]], [ids[2]]]
    store.set_vectors([(ids[1], vector(9, 9, 9, 9)), (ids[1], exact[1])])  # the last one wins
    assert store.vector_rows(after)[0][1:] == (ids[1], "s1", exact[1])


def _counted(store: Store) -> tuple[int, int]:
    """count(*) of memories and vectors, read the slow way."""
    if hasattr(store, "_rows"):  # PostgreSQL
        rows = store._rows(
            "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_vectors)"
        )
    else:
        rows = store._conn.execute(  # type: ignore[attr-defined]
            "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM memory_vectors)"
        ).fetchall()
    return int(rows[0][0]), int(rows[0][1])


def test_counts_are_kept_through_every_kind_of_write(store: Store) -> None:
    """Vectors are counted by triggers (count(*) reads every row): inserts, replaced vectors,
    bulk writes, deletes of memories that take vectors with them, erasure, clearing."""

    def check() -> None:
        memories, vectors = _counted(store)
        assert store.count_rows() == memories
        assert store.vector_state()[0] == vectors

    check()
    records = [record(f"memory {i}", user="u1" if i % 2 else "u2") for i in range(8)]
    for r in records[:3]:
        store.insert(r)
    store.insert_many([stage(r) for r in records[3:]])
    check()
    store.set_vector(records[0].id, vector(1, 0, 0, 0))
    store.set_vector(records[0].id, vector(0, 1, 0, 0))  # replaced
    store.set_vectors([(r.id, vector(0, 0, 1, 0)) for r in records[1:6]])
    with store.bulk_load():
        store.set_vectors([(r.id, vector(0, 0, 0, 1)) for r in records[4:]])
    check()
    assert store.vector_state()[0] == 8
    with store.transaction():
        store.delete(records[0].id)  # its vector goes with it
        store.replace(replace(records[1], content="changed"))
    check()
    assert store.vector_state()[0] == 7
    store.erase_user("u1")
    check()
    store.clear_vectors()
    check()
    assert store.vector_state()[0] == 0
    assert store.count_rows() == 3

    def rolled_back() -> None:
        with store.transaction():
            store.insert(record("lost"))
            raise RuntimeError

    with pytest.raises(RuntimeError):  # rolled back: the counts too
        rolled_back()
    check()


def test_the_change_marker_moves_with_another_writer_and_with_vectors(
    store: Store, other: Store
) -> None:
    before = store.change_marker()
    assert store.change_marker() == before  # reading changes nothing
    written = record("written elsewhere")
    other.insert(written)
    after = store.change_marker()
    assert after != before
    assert store.get(written.id) == written
    store.set_vector(written.id, vector(1, 0))
    assert store.change_marker() != after


def test_row_changes_report_updates_and_deletes(store: Store) -> None:
    a, b = record("first row"), record("second row")
    store.insert(a)
    store.insert(b)
    everything = store.all_rows()
    assert {r.id for _, r in everything.rows} == {a.id, b.id}
    seq_of = {r.id: seq for seq, r in everything.rows}
    store.touch([a.id], NOW)
    c = record("third row")
    store.insert(c)  # (before the delete: SQLite may give a deleted row's number again)
    store.delete(b.id)
    changes = store.row_changes(everything.last_seq, everything.last_change)
    assert changes is not None
    assert {r.id for _, r in changes.rows} == {a.id, c.id}
    assert changes.deleted == [seq_of[b.id]]
    assert changes.last_change > everything.last_change


def test_transactions_are_atomic(store: Store) -> None:
    kept = record("kept")
    store.insert(kept)
    inside: list[bool] = []

    def fail() -> None:
        with store.transaction():
            store.insert(record("rolled back"))
            inside.append(store.in_transaction())
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail()
    assert inside == [True]
    assert not store.in_transaction()
    assert [r.id for r in store.list(ALL, None)] == [kept.id]


def test_writers_on_threads_never_lose_an_increment(store: Store) -> None:
    counter = record("a counter")
    store.insert(counter)

    def bump() -> None:  # (a thread starts with no grant: it takes its own)
        for _ in range(10):
            with granted("store test"), store.transaction():
                current = store.get(counter.id)
                assert current is not None
                store.replace(replace(current, echo_count=current.echo_count + 1))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = store.get(counter.id)
    assert final is not None
    assert final.echo_count == 40


def test_touch_counts_accesses(store: Store) -> None:
    a = record("touched")
    store.insert(a)
    store.touch([a.id, a.id], NOW)
    got = store.get(a.id)
    assert got is not None
    assert got.access_count == 1
    assert got.last_accessed_at == NOW


def test_sessions(store: Store) -> None:
    assert store.open_session("ana") is None
    session = Session("S1", "ana", NOW, NOW)
    store.save_session(session)
    assert store.open_session("ana") == session
    store.touch_session("S1", NOW + timedelta(hours=1))
    found = store.open_session("ana")
    assert found is not None
    assert found.last_active_at == NOW + timedelta(hours=1)
    store.save_session(Session("S1", "ana", NOW, NOW, NOW + timedelta(hours=2)))
    assert store.open_session("ana") is None


def test_importance_bases_and_orphans(store: Store) -> None:
    a = record("based")
    store.insert(a)
    store.set_importance_base(a.id, 0.8, NOW)
    store.set_importance_base(a.id, 0.7, NOW)
    assert store.importance_bases() == {a.id: (0.7, NOW)}
    assert store.orphans(delete=False) == {}


def test_audit_keys_meta_and_layers(store: Store) -> None:
    store.append_audit(
        [
            AuditEntry(NOW, "m1", "create", "agent", {"type": "note"}, user="ana"),
            AuditEntry(NOW, "m2", "create", "agent", {}, user="bo"),
        ]
    )
    newest_first = store.audit_entries(None, None)
    assert [e.memory_id for e in newest_first] == ["m2", "m1"]
    assert [e.memory_id for e in store.audit_entries(None, None, user="ana")] == ["m1"]
    assert store.audit_entries("m1", 1)[0].detail == {"type": "note"}
    key = ApiKey("k1", "hash", "ana", False, True, NOW)
    store.save_key(key)
    store.save_key(key.__class__("k1", "hash", "ana", False, True, NOW, NOW, "old"))
    assert store.api_key("k1") == ApiKey("k1", "hash", "ana", False, True, NOW, NOW, "old")
    assert [k.id for k in store.api_keys()] == ["k1"]
    assert store.get_meta("embedder") is None
    store.set_meta("embedder", "minilm")
    store.set_meta("embedder", "other")
    assert store.get_meta("embedder") == "other"
    store.set_meta("embedder", None)
    assert store.get_meta("embedder") is None
    store.mount_layer(LayerMount("team", "shared", "/srv/team.db", NOW))
    assert [m.name for m in store.layers()] == ["team"]
    assert store.unmount_layer("team") is True
    assert store.unmount_layer("team") is False


def test_stats_count_by_status_type_and_user(store: Store) -> None:
    store.insert(record("a current note", user="ana", project="api"))
    store.insert(record("a forgotten note", user="ana", forget_reason="wrong"))
    store.insert(record("another user's note", user="bo", type="insight"))
    stats = store.stats(NOW)
    assert stats.total == 3
    assert stats.by_status == {"current": 2, "superseded": 0, "forgotten": 1}
    assert stats.by_user == {"ana": 1, "bo": 1}
    assert stats.by_project == {"api": 1}
    assert store.stats(NOW, user="bo").total == 1
    assert stats.size_bytes > 0


def _prune_change_log(store: Store) -> None:
    """Drop the change log's older entries, as its pruning trigger does past 100,000."""
    sql = "DELETE FROM memory_changes WHERE cseq < (SELECT max(cseq) FROM memory_changes)"
    with store.transaction():
        if hasattr(store, "_exec"):
            store._exec(sql)
        else:
            store._conn.execute(sql)  # type: ignore[attr-defined]


def test_a_reader_behind_a_pruned_change_log_is_told_to_read_everything(store: Store) -> None:
    a = record("a row that changes")
    store.insert(a)
    everything = store.all_rows()
    for _ in range(3):
        store.touch([a.id], NOW)
    _prune_change_log(store)
    assert store.row_changes(everything.last_seq, everything.last_change) is None
    caught_up = store.all_rows()
    assert store.row_changes(caught_up.last_seq, caught_up.last_change) is not None


def test_indexed_counts_the_full_text_rows_and_the_vectors(store: Store) -> None:
    a, b = record("the printer needs toner"), record("the scanner needs a driver")
    store.insert(a)
    store.insert(b)
    assert store.indexed() == (2, 0)
    store.set_vector(a.id, vector(1, 0, 0, 0))
    assert store.indexed() == (2, 1)
    assert (store.count_without_vectors(), store.missing_text()) == (1, 0)
    store.delete(a.id)
    assert store.indexed() == (1, 0)
    assert store.repair_text() == 0  # (nothing lacking: nothing added)
    assert [r.id for r, _ in store.search("scanner", CURRENT, 5)] == [b.id]


def test_grants_and_layers_are_kept_until_the_store_changes(store: Store, other: Store) -> None:
    """A recall asks for its caller's grants and for the mounted layers each time: they are
    answered from what was read while the store's change marker holds, and read again after
    any commit, this process's or another's (``other``)."""
    from salience.models.store_records import Grant, Space

    store.add_space(Space("space:team", NOW, "ana"))
    store.set_grant(Grant("space:team", "bo", "read", NOW, "ana"))
    first = store.grants(user="bo")
    assert [(g.space, g.right) for g in first] == [("space:team", "read")]
    assert store.layers() == []
    asked: list[str] = []
    read = store._trace_rows
    store._trace_rows = lambda sql, params: asked.append(sql) or read(sql, params)  # type: ignore[method-assign]
    assert store.grants(user="bo") == first
    assert store.layers() == []
    assert asked == []  # (nothing committed since: kept)
    other.set_grant(Grant("space:team", "bo", "write", NOW, "ana"))  # (another process)
    assert [g.right for g in store.grants(user="bo")] == ["write"]
    other.mount_layer(LayerMount("team", "shared", "/srv/team.db", NOW))
    assert [m.name for m in store.layers()] == ["team"]
    store.drop_grant("space:team", "bo")  # (this process)
    assert store.grants(user="bo") == []
    assert store.grants(space="space:team") == []
    with store.transaction():  # (inside a write: its own writes are read)
        store.set_grant(Grant("space:team", "cy", "read", NOW, "ana"))
        assert [g.user for g in store.grants(space="space:team")] == ["cy"]
    assert [g.user for g in store.grants(space="space:team")] == ["cy"]
