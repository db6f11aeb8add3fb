"""Copying a store: SQLite to PostgreSQL and back, everything kept, verified by exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from salience import ALL_USERS, Config, ConflictError, Memory
from salience.models import ApiKey, LayerMount
from salience.stores.copy import copy_store
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


def _fill(memory: Memory, clock: FakeClock) -> None:
    kept = memory.remember("the staging server listens on port 8080", tags=["infra"]).id or ""
    memory.remember("Ana prefers tea", user="ana", session_id="s1")
    memory.remember("Ana moved to Lisbon", user="ana", session_id="s1")
    clock.advance(hours=2)
    memory.supersede(kept, "the staging server listens on port 9090")
    wrong = memory.remember("the office closes at noon").id or ""
    memory.forget(wrong, "wrong")
    memory.feedback(memory.remember("deploys run on Tuesdays").id or "", used=True)
    memory.remember("the office printer sits on floor 2")
    clock.advance(hours=1)
    found = memory.remember("the office printer sits on floor 4 now")  # (an update)
    assert found.updates
    memory.store.save_key(ApiKey("k1", "hash", "ana", False, False, clock.now))
    memory.store.mount_layer(LayerMount("team", "shared", "/srv/team.db", clock.now))
    memory.create_space("payments", user="ana", keep_contributions=True)
    memory.grant("payments", "bo", "write", user="ana")
    memory.remember("refunds need a second reviewer", user="bo", space="payments", agent="ci")


def _everything(memory: Memory) -> tuple[object, ...]:
    store = memory.store
    return (
        list(memory.export_lines(user=ALL_USERS)),
        {row[1]: row[3] for row in store.vector_rows(0)},
        [
            (e.at, e.memory_id, e.action, e.actor, e.detail, e.user)
            for e in store.audit_entries(None, None)
        ],
        store.sessions(),
        store.importance_bases(),
        store.all_meta(),
        store.api_keys(),
        store.layers(),
        store.update_links(None, ("open", "confirmed", "dismissed")),
        store.spaces(),
        store.grants(),
    )


def test_a_round_trip_through_postgresql_keeps_everything(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    config = Config(home=tmp_path / "a", signal_gate=False)
    embedder = WordHashEmbedder()
    with Memory.open(config=config, clock=clock, embedder=embedder) as original:
        _fill(original, clock)
        before = _everything(original)
        with Memory.open(postgres_url, clock=clock, embedder=None) as middle:
            report = copy_store(original.store, middle.store)
            assert _everything(middle) == before
        assert report.memories == len(before[0])  # type: ignore[arg-type]
        assert report.vectors == len(before[1]) == 9  # type: ignore[arg-type]
        assert report.spaces == 1
    with (
        Memory.open(postgres_url, clock=clock, embedder=None) as middle,
        Memory.open(tmp_path / "b", clock=clock, embedder=None) as back,
    ):
        copy_store(middle.store, back.store)
        assert _everything(back) == before
    # The copy works as a store: recall finds the superseding version.
    with Memory.open(postgres_url, config=config, clock=clock, embedder=embedder) as middle:
        hits = middle.search("which port does staging use", touch=False)
        assert hits[0].record.content == "the staging server listens on port 9090"


def test_a_copy_never_merges_into_a_store_with_memories(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    with Memory.open(tmp_path / "a", clock=clock, embedder=None) as source:
        source.remember("a memory to copy")
        with Memory.open(postgres_url, clock=clock, embedder=None) as target:
            target.remember("a memory already there")
            with pytest.raises(ConflictError, match="already holds memories"):
                copy_store(source.store, target.store)
            assert len(target.list()) == 1


def test_progress_counts_memories_then_vectors(tmp_path: Path, clock: FakeClock) -> None:
    seen: list[tuple[int, int]] = []
    config = Config(home=tmp_path / "a", signal_gate=False)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as source:
        for i in range(3):
            source.remember(f"memory number {i}")
            clock.advance(minutes=1)
        with Memory.open(tmp_path / "b", clock=clock, embedder=None) as target:
            copy_store(source.store, target.store, lambda done, total: seen.append((done, total)))
    assert seen == [(3, 6), (6, 6), (6, 6)]


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of 2 rows and batches of 3: every read that goes through a store pages."""
    from salience.stores import copy
    from salience.stores.postgres import memories as postgres_memories
    from salience.stores.sqlite import memories as sqlite_memories

    for module in (copy, sqlite_memories, postgres_memories):
        monkeypatch.setattr(module, "PAGE", 2)
    monkeypatch.setattr(copy, "BATCH", 3)


@pytest.mark.usefixtures("small_pages")
def test_a_copy_read_a_page_at_a_time_keeps_everything(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    config = Config(home=tmp_path / "a", signal_gate=False)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as original:
        _fill(original, clock)
        for i in range(7):
            original.remember(f"one more memory, number {i}", user="bo" if i % 2 else "ana")
        before = _everything(original)
        assert [r.id for r in original.store.iter_all()] == sorted(
            r.id for r in original.store.iter_all()
        )
        with Memory.open(postgres_url, clock=clock, embedder=None) as middle:
            report = copy_store(original.store, middle.store)
            assert _everything(middle) == before
            back = Config(home=tmp_path / "b", signal_gate=False)
            with Memory.open(config=back, clock=clock, embedder=None) as again:
                copy_store(middle.store, again.store)
                assert _everything(again) == before
    assert report.memories == len(before[0]) > 10  # type: ignore[arg-type]
    assert report.audit_entries == len(before[2])  # type: ignore[arg-type]
