"""Columns kept current: after any write, here or in another process, a snapshot that caught
up incrementally holds exactly what a fresh read of the store gives."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from salience import Config, Memory
from salience.briefing.columns import ARRAY_FIELDS, Columns, Vocabularies
from salience.briefing.policies import BriefingRequest, Candidates
from salience.briefing.snapshot import ColumnSnapshot
from salience.briefing.source import Vanished
from salience.engine.updating import ACT_AT, without_older
from salience.profiles import PROFILES, ProfileSettings
from salience.stores.base import MemoryFilter
from salience.stores.grant import granted
from salience.stores.sqlite import SQLiteStore
from tests.conftest import FakeClock
from tests.factory import record

CODED = {
    "user": "users",
    "type": "types",
    "project": "projects",
    "project_field": "projects",
    "session": "sessions",
}


def decoded(columns: Columns) -> dict[str, list[Any]]:
    """Every column as plain values, strings for codes (codes depend on the vocabulary)."""
    out: dict[str, list[Any]] = {}
    for name in ARRAY_FIELDS:
        values = getattr(columns, name).tolist()
        vocabulary = CODED.get(name) or {"topic": "topics", "layer": "layers"}.get(name)
        if vocabulary:
            names = getattr(columns.vocab, vocabulary).names
            values = [names[v] if v >= 0 else v for v in values]
        out[name] = values
    out["several"] = sorted(columns.several.items())
    return out


def fresh(store: SQLiteStore, user: str = "default") -> dict[str, list[Any]]:
    return decoded(ColumnSnapshot(store, Vocabularies()).view(user))


class Spy:
    """Counts whole reads and catch-ups of a store."""

    def __init__(self, store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.whole = self.catch_up = 0
        all_rows, row_changes = store.all_rows, store.row_changes

        def whole() -> Any:
            self.whole += 1
            return all_rows()

        def catch_up(after_seq: int, after_change: int) -> Any:
            self.catch_up += 1
            return row_changes(after_seq, after_change)

        monkeypatch.setattr(store, "all_rows", whole)
        monkeypatch.setattr(store, "row_changes", catch_up)


@pytest.fixture
def engine(config: Config, clock: FakeClock) -> Any:
    with Memory.open(config=config, clock=clock, embedder=None) as m:
        yield m


def test_every_kind_of_write_is_caught_up_without_a_whole_read(
    engine: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = [
        engine.remember(f"fact number {i} about the deploy", tags=[f"project:p{i % 2}"]).id
        for i in range(6)
    ]
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.view("default")
    spy = Spy(engine.store, monkeypatch)  # type: ignore[arg-type]
    clock.advance(hours=1)
    engine.update(ids[0], content="fact number 0, rewritten", importance=0.9)
    engine.forget(ids[1], "wrong")
    engine.supersede(ids[2], "fact number 2, superseded")
    engine.purge(ids[3])
    engine.feedback(ids[4], used=True)
    engine.store.touch([ids[5]], clock.now)
    engine.remember("a new memory of another user", user="bob", tags=["scope:global"])
    engine.remember("a memory in two projects", tags=["project:a", "project:b"])
    mine, bobs = decoded(snapshot.view("default")), decoded(snapshot.view("bob"))
    # One catch-up for both looks (the second finds nothing committed since), no whole read.
    assert (spy.whole, spy.catch_up) == (0, 1)
    assert mine == fresh(engine.store)  # type: ignore[arg-type]
    assert bobs == fresh(engine.store, "bob")  # type: ignore[arg-type]


def test_another_process_writes_are_caught_up(config: Config, engine: Memory) -> None:
    first = engine.remember("written here first").id
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    assert len(snapshot.view("default")) == 1
    with Memory.open(config=config, embedder=None) as other:
        other.remember("written by another process")
        other.update(first, importance=0.1)
    view = snapshot.view("default")
    assert len(view) == 2
    assert decoded(view) == fresh(engine.store)  # type: ignore[arg-type]


def test_a_reused_row_number_is_read_as_the_new_row(engine: Memory) -> None:
    engine.remember("the first")
    last = engine.remember("the last, about to go").id
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.view("default")
    engine.purge(last)
    engine.remember("the newcomer, which takes the freed row number")
    assert decoded(snapshot.view("default")) == fresh(engine.store)  # type: ignore[arg-type]
    assert "the newcomer" not in str(decoded(snapshot.view("default")))  # ids, not texts
    assert len(snapshot.view("default")) == 2


@pytest.mark.sqlite_only
def test_a_pruned_change_log_means_a_whole_read(
    engine: Memory, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = engine.remember("one memory").id
    store: SQLiteStore = engine.store  # type: ignore[assignment]
    snapshot = ColumnSnapshot(store, Vocabularies())
    snapshot.view("default")
    for _ in range(3):
        engine.update(memory_id, importance=0.3)
        engine.update(memory_id, importance=0.7)
    with sqlite3.connect(home / "salience.db") as conn:  # as the pruning trigger would
        conn.execute(
            "DELETE FROM memory_changes WHERE cseq < (SELECT max(cseq) FROM memory_changes)"
        )
    assert store.row_changes(0, 1) is None
    spy = Spy(store, monkeypatch)
    view = snapshot.view("default")
    assert spy.whole == 1
    assert view.importance.tolist() == [0.7]


def test_the_engine_briefing_equals_the_policy_over_listed_records(
    engine: Memory, clock: FakeClock
) -> None:
    for i in range(40):
        engine.remember(
            f"memory {i} on topic {i % 7}",
            type=["decision", "insight", "preference", "procedure", "fact"][i % 5],
            tags=[f"project:p{i % 3}"] + (["scope:global"] if i % 9 == 0 else []),
            topic_key=f"t{i % 4}" if i % 5 == 0 else None,
            importance=(i % 10) / 10,
        )
        clock.advance(minutes=7)
    engine.briefing("salience")  # the columns are read here, then caught up below
    some = engine.list(limit=12)
    engine.forget(some[0].id, "stale")
    engine.update(some[1].id, importance=1.0)
    engine.supersede(some[2].id, "memory replaced by a better one")
    flt = MemoryFilter(as_of=clock.now, user="default", include_superseded=True)
    records = engine.store.list(flt, None)
    links = [x for x in engine.updates() if x.confidence >= ACT_AT]  # (the salience profile
    # briefs the newer of each sure pair only)
    for name, profile in PROFILES.items():
        given = without_older(Candidates.of(records), links) if name == "salience" else records
        for project in (None, "p1"):
            got = engine.briefing(name, project=project)
            request = BriefingRequest(clock.now, "default", project)
            want = profile.briefing(given, request, ProfileSettings())
            assert (got.text, got.sections) == (want.text, want.sections), name
            assert tuple(got.manifest) == tuple(want.manifest), name


def test_a_memory_deleted_mid_briefing_is_retried(
    engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.remember("a memory that stays")
    source = engine._briefings
    real = source.candidates
    calls = []

    def flaky(*args: Any) -> Candidates:
        candidates = real(*args)
        calls.append(1)
        if len(calls) == 1:

            def gone(rows: list[int]) -> list[Any]:
                raise Vanished("deleted during the briefing")

            return Candidates(candidates.columns, gone)
        return candidates

    monkeypatch.setattr(source, "candidates", flaky)
    assert "a memory that stays" in engine.briefing("talome").text
    assert len(calls) == 2


def test_a_memory_purged_while_a_briefing_reads_is_left_out_of_its_retry(
    engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The briefing looks at the store once (``stores.reads.LOOK``); when a memory it saw
    is erased meanwhile, its retry looks again and briefs the store as it is now."""
    engine.remember("a memory that stays", importance=0.9)
    going = engine.remember("a memory about to be erased", importance=0.9).id
    source = engine._briefings
    real = source.candidates
    calls = []

    def erased_meanwhile(*args: Any) -> Candidates:
        candidates = real(*args)  # (its view still holds the memory)
        calls.append(1)
        if len(calls) == 1:
            engine.purge(going)  # (as another process would, while this briefing reads)
        return candidates

    monkeypatch.setattr(source, "candidates", erased_meanwhile)
    text = engine.briefing("talome").text
    assert "a memory that stays" in text
    assert "about to be erased" not in text
    assert len(calls) == 2


def test_an_old_layer_without_a_change_log_is_read_whole_only_when_it_changed(
    tmp_path: Path, engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    with Memory.open(config=Config(home=tmp_path / "old", signal_gate=False), embedder=None) as m:
        m.remember("a fact from the older layer", tags=["scope:global"])
    (tmp_path / "old" / "salience.db").rename(path)
    with sqlite3.connect(path) as conn:  # as a store written before migration 0007
        conn.executescript(
            "DROP TRIGGER memories_updated; DROP TRIGGER memories_deleted;"
            "DROP TRIGGER memory_changes_pruned; DROP TABLE memory_changes;"
            "DELETE FROM schema_migrations WHERE name = '0007_memory_changes';"
        )
    engine.mount(path, kind="shared", name="old")
    assert "a fact from the older layer" in engine.briefing("talome").text
    layer_store = engine._open_layers["old"].store
    spy = Spy(layer_store, monkeypatch)  # type: ignore[arg-type]
    engine.briefing("talome")
    assert (spy.whole, spy.catch_up) == (0, 0)
    assert np.all(engine._briefings._layers["old"].view("default").layer >= 0)


def test_a_view_in_use_never_sees_a_later_change(engine: Memory) -> None:
    first = engine.remember("the deploy runs at noon", importance=0.2).id
    engine.remember("the deploy runs on friday", importance=0.3)
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    before = snapshot.view("default")  # nothing read from it yet: its arrays are taken lazily
    expected = decoded(ColumnSnapshot(engine.store, Vocabularies()).view("default"))
    engine.update(first, importance=0.9)
    after = snapshot.view("default")  # caught up: the row changed in place, in a copy
    assert decoded(before) == expected
    assert 0.9 in after.importance.tolist()
    assert 0.9 not in before.importance.tolist()


def test_rows_added_one_by_one_grow_the_columns_and_views_in_use_stay_as_they_were(
    engine: Memory,
) -> None:
    engine.remember("the first fact about the deploy")
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    views = []
    for i in range(150):  # (the columns' room fills and is made again, twice)
        views.append((snapshot.view("default"), fresh(engine.store)))  # type: ignore[arg-type]
        engine.remember(f"fact number {i} about the deploy", importance=(i % 10) / 10)
        if i % 40 == 0:
            engine.forget(views[-1][0].ids[0].item(), "wrong")  # (a change in place too)
    assert decoded(snapshot.view("default")) == fresh(engine.store)  # type: ignore[arg-type]
    for view, then in views:
        assert decoded(view) == then


@pytest.mark.parametrize("lazy", [5000, 0])
def test_rows_lent_to_a_recall_stay_as_they_were_while_the_store_changes(
    engine: Memory, lazy: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small store's rows are taken column by column as a recall reads them (``lazy``: up
    to that many rows; 0: copied at once): whatever changes in place meanwhile (a memory
    forgotten, its importance or access count changed, rows added), they read as they were."""
    monkeypatch.setattr("salience.briefing.snapshot.LAZY_ROWS", lazy)
    ids = [engine.remember(f"fact {i} about the deploy").id for i in range(30)]
    seqs = ColumnSnapshot(engine.store, Vocabularies()).view("default").seqs[::3].tolist()
    snapshot = ColumnSnapshot(engine.store, Vocabularies())  # (nothing lent before)
    lent, at = snapshot.rows(seqs)
    then = decoded(ColumnSnapshot(engine.store, Vocabularies()).rows(seqs)[0])
    for i in (0, 3, 9, 12):
        engine.forget(ids[i], "wrong")
    engine.update(ids[6], importance=0.9)
    engine.search("deploy", touch=True)  # (access counts of the hits, in place)
    for i in range(5):
        engine.remember(f"new fact {i}")
    assert decoded(snapshot.rows(seqs)[0]) != then  # (the snapshot caught up, in place)
    assert decoded(lent) == then
    assert at.tolist() == list(range(len(seqs)))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_memory_a_mounted_pack_holds_too_is_briefed_once(
    engine: Memory, tmp_path: Path, profile: str
) -> None:
    """A pack exported from this store and mounted beside it holds the same memories: the
    briefing shows each once, the local copy."""
    engine.remember("Deploys go through ops/deploy.sh, never by hand", tags=["ops"])
    engine.remember("The billing service retries three times", tags=["ops"])
    engine.export_pack(tmp_path / "ops.pack", tags=["ops"])
    engine.import_pack(tmp_path / "ops.pack", mount_as="shared", name="ops")
    briefing = engine.briefing(profile)
    named = [e.id for e in briefing.manifest]
    assert len(named) == len(set(named)) == 2  # each memory one candidate
    shown = [i for section in briefing.sections for i in section.ids]
    assert len(shown) == len(set(shown))
    assert briefing.text.count("ops/deploy.sh") <= 1


@pytest.mark.parametrize("profile", ["aide", "salience", "ilab", "rae"])
def test_a_titled_decision_is_briefed_with_what_was_decided(engine: Memory, profile: str) -> None:
    engine.remember(
        "We chose Redis for the queue because it is simple",
        type="decision",
        title="Queue choice",
        topic_key="queue",
    )
    engine.remember(
        "Deploys go through ops/deploy.sh", type="decision", title="Deploys go", topic_key="ops"
    )
    text = engine.briefing(profile).text
    assert "Queue choice: We chose Redis for the queue because it is simple" in text
    assert "Deploys go: Deploys go" not in text  # a title the content starts with: once
    assert "Deploys go through ops/deploy.sh" in text


def test_a_look_reads_nothing_when_nothing_was_committed_but_sees_its_own_transaction(
    engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.remember("the first memory")
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.refresh()
    spy = Spy(engine.store, monkeypatch)  # type: ignore[arg-type]
    assert len(snapshot.refresh()) == 1
    assert (spy.whole, spy.catch_up) == (0, 0)  # recall looks on every call: a marker read
    with engine.store.transaction(), granted("test"):  # not committed: the marker stays
        engine.store.insert(record("written inside the open transaction"))
        assert len(snapshot.refresh()) == 2
    assert (spy.whole, spy.catch_up) == (0, 1)


@pytest.mark.parametrize(
    "ages",
    [
        [5.0, 4.0, 3.0, 1.0],  # written in time order: the rows reversed, as views
        [5.0, 4.0, 4.0, 4.0, 1.0],  # the same moment thrice: by id
        [1.0, 5.0, 3.0, 4.0],  # an older memory imported later: sorted
    ],
    ids=str,
)
def test_a_view_is_newest_first_however_the_rows_were_written(
    engine: Memory, ages: list[float]
) -> None:
    store = engine.store
    records = [record(f"fact {i}", age=age) for i, age in enumerate(ages)]
    with granted("test"):
        for written in records:
            store.insert(written)
    expected = [r.id for r in sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)]
    assert ColumnSnapshot(store, Vocabularies()).view("default").ids.tolist() == expected
    other = record("another user's fact", age=2.0, user="bo")
    with granted("test"):
        store.insert(other)  # (two users now: the rows picked out, then sorted)
    assert ColumnSnapshot(store, Vocabularies()).view("default").ids.tolist() == expected
    assert ColumnSnapshot(store, Vocabularies()).view("bo").ids.tolist() == [other.id]


def _reads(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the store's reads of records (one entry, the ids asked, per read)."""
    asked: list[int] = []
    get_many = store.get_many

    def counted(memory_ids: Any, flt: MemoryFilter) -> Any:
        asked.append(len(memory_ids))
        return get_many(memory_ids, flt)

    monkeypatch.setattr(store, "get_many", counted)
    return asked


def test_the_records_kept_are_the_store_s_after_every_kind_of_write(
    config: Config, engine: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.briefing.test_passing import filters

    ids = [engine.remember(f"fact number {i} about the deploy").id for i in range(8)]
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.refresh()
    store: SQLiteStore = engine.store  # type: ignore[assignment]
    asked = _reads(store, monkeypatch)
    current = MemoryFilter(as_of=clock.now)
    assert snapshot.records(ids, current) == store.get_many(ids, current)  # (read: kept)
    asked.clear()
    assert snapshot.records(ids[::-1], current) == store.get_many(ids[::-1], current)
    assert asked == [8]  # the store's read is the comparison's alone
    clock.advance(hours=1)
    engine.update(ids[0], content="fact number 0, rewritten", importance=0.9)
    engine.forget(ids[1], "wrong")
    engine.supersede(ids[2], "fact number 2, superseded")
    engine.feedback(ids[4], used=True)
    store.touch([ids[5]], clock.now)
    with Memory.open(config=config, embedder=None) as other:
        other.update(ids[6], content="fact number 6, rewritten by another process")
    every = MemoryFilter(as_of=clock.now, include_forgotten=True, include_superseded=True)
    for flt in [current, every, *filters()[::7]]:
        asked.clear()
        assert snapshot.records(ids, flt) == store.get_many(ids, flt), flt
        assert asked == [8]  # (kept, changed as the store was: the comparison's read alone)
    contents = {r.id: r.content for r in snapshot.records(ids, every)}
    assert contents[ids[0]] == "fact number 0, rewritten"
    assert contents[ids[6]] == "fact number 6, rewritten by another process"
    engine.purge(ids[3])  # (a deletion: every record kept is forgotten, words included)
    assert [r.id for r in snapshot.records(ids, every)] == [i for i in ids if i != ids[3]]


@pytest.mark.sqlite_only
def test_records_inside_a_transaction_are_the_store_s_and_none_of_them_is_kept(
    engine: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = engine.remember("the first memory").id
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.refresh()
    current = MemoryFilter(as_of=clock.now)
    store: SQLiteStore = engine.store  # type: ignore[assignment]
    assert [r.content for r in snapshot.records([first], current)] == ["the first memory"]

    def rolled_back() -> None:
        with store.transaction(), granted("test"):
            store.replace(replace(store.get(first), content="never committed"))  # type: ignore[type-var]
            snapshot.refresh()  # (the open transaction's change is read)
            assert snapshot.records([first], current) == store.get_many([first], current)
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        rolled_back()
    assert [r.content for r in snapshot.records([first], current)] == ["the first memory"]


def test_a_store_with_a_read_replica_has_its_records_read_each_time(
    engine: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = engine.remember("the first memory").id
    store: SQLiteStore = engine.store  # type: ignore[assignment]
    monkeypatch.setattr(store, "read_replica", object)
    snapshot = ColumnSnapshot(store, Vocabularies())
    snapshot.refresh()
    asked = _reads(store, monkeypatch)
    current = MemoryFilter(as_of=clock.now)
    for _ in range(2):
        assert [r.id for r in snapshot.records([first], current)] == [first]
    assert asked == [1, 1]  # (a replica may be behind the change log read from the primary)


def test_a_whole_read_keeps_the_newest_records_it_read(
    engine: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from salience.briefing import records

    monkeypatch.setattr(records.Records.__init__, "__defaults__", (3,))  # (keeps three)
    ids = [engine.remember(f"fact number {i} about the deploy").id for i in range(5)]
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    snapshot.refresh()  # (the first look reads every row)
    store: SQLiteStore = engine.store  # type: ignore[assignment]
    asked = _reads(store, monkeypatch)
    current = MemoryFilter(as_of=clock.now)
    assert [r.id for r in snapshot.records(ids[2:], current)] == ids[2:]
    assert asked == []  # (the newest three: kept from the whole read)
    assert [r.id for r in snapshot.records(ids[:2], current)] == ids[:2]
    assert asked == [2]


def test_a_prior_made_of_lent_rows_follows_each_change(engine: Memory) -> None:
    """The salience profile's recall prior is made once for the columns a small store lends
    a recall (``Columns.derived``): after a change, the next recall's rows have the new
    one, and the rows lent before keep theirs."""
    from salience.profiles.salience import recall_priors

    ids = [engine.remember(f"fact {i} about the deploy", importance=0.5).id for i in range(6)]
    snapshot = ColumnSnapshot(engine.store, Vocabularies())
    seqs = sorted(ColumnSnapshot(engine.store, Vocabularies()).view("default").seqs.tolist())
    before, _ = snapshot.rows(seqs)  # (in the order written)
    then = before.derived("salience.recall_prior", recall_priors).tolist()
    engine.update(ids[2], importance=1.0)
    after, _ = snapshot.rows(seqs)
    now = after.derived("salience.recall_prior", recall_priors).tolist()
    fresh_prior = recall_priors(ColumnSnapshot(engine.store, Vocabularies()).rows(seqs)[0])
    assert now == fresh_prior.tolist()
    assert now[2] > then[2]
    assert [n for i, n in enumerate(now) if i != 2] == [t for i, t in enumerate(then) if i != 2]
    assert before.derived("salience.recall_prior", recall_priors).tolist() == then
