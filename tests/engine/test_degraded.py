"""A recall that runs short says so: each cause, planted on purpose, and a healthy recall
that says nothing (engine/degraded.py, engine/recall.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from pathlib import Path

from salience import Memory
from salience.config import Config
from salience.embeddings.arrays import Matrix
from salience.engine.degraded import IndexWatch, listening
from salience.errors import EmbedderError
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

TEXTS = (
    "the printer on floor two needs toner",
    "the scanner in the lab needs a new driver",
    "the deploy script lives in ops/deploy.sh",
)


class FailingEmbedder(WordHashEmbedder):
    """Embeds the memories, then fails (an embedding service that went away)."""

    failing = False

    def embed(self, texts: Sequence[str]) -> Matrix:
        if self.failing:
            raise EmbedderError("cannot reach http://127.0.0.1:9 (connection refused)")
        return super().embed(texts)


def _filled(config: Config, clock: FakeClock, embedder: WordHashEmbedder | None) -> None:
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        for text in TEXTS:
            memory.remember(text)


def test_a_healthy_recall_says_nothing(config: Config, clock: FakeClock) -> None:
    _filled(config, clock, WordHashEmbedder())
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        found = memory.search("printer toner")
    assert found[0].record.content == TEXTS[0]
    assert found[0].vector is not None
    assert found.degraded == ()


def test_no_embedder_is_said_even_when_nothing_is_found(config: Config, clock: FakeClock) -> None:
    _filled(config, clock, None)
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        found = memory.search("an office machine out of ink")  # (meaning, no shared word)
    assert found == []
    assert [d.cause for d in found.degraded] == ["no_embedder"]
    assert found.degraded[0].line().startswith("degraded: no embedding model is configured")
    assert "SALIENCE_EMBEDDER=minilm" in found.degraded[0].fix


def test_a_failing_embedder_falls_back_to_full_text_and_says_why(
    config: Config, clock: FakeClock
) -> None:
    embedder = FailingEmbedder()
    _filled(config, clock, embedder)
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        embedder.failing = True
        found = memory.search("printer toner")
    assert [h.record.content for h in found] == [TEXTS[0]]  # found by its words
    assert found[0].vector is None
    assert [(d.cause, d.fix) for d in found.degraded] == [("embedder_failed", "salience doctor")]
    assert "cannot reach http://127.0.0.1:9" in found.degraded[0].detail


def test_memories_without_vectors_are_counted_and_reindex_clears_it(
    config: Config, clock: FakeClock
) -> None:
    _filled(config, clock, None)  # written while no model was configured
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        found = memory.search("printer toner")
        assert [h.record.content for h in found] == [TEXTS[0]]
        assert [(d.cause, d.detail) for d in found.degraded] == [
            ("vectors_missing", "3 memories without a vector: only full text finds them")
        ]
        memory.remember("the stapler is empty")  # (embedded: still three without)
        assert memory.search("stapler").degraded == found.degraded
        assert memory.reindex() == 3
        assert memory.search("printer toner").degraded == ()


def test_a_stale_full_text_index_is_said_and_repaired(home: Path, clock: FakeClock) -> None:
    config = Config(home=home, signal_gate=False)
    _filled(config, clock, WordHashEmbedder())
    damage = sqlite3.connect(home / "salience.db", isolation_level=None)
    damage.execute("DELETE FROM memory_fts")
    damage.close()
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        found = memory.search("printer toner")
        assert [d.cause for d in found.degraded] == ["full_text_stale"]
        assert "lacks 3 memories" in found.degraded[0].detail
        assert found[0].lexical == 0.0  # (found by meaning alone)
        by_words = memory.search("printer toner", profile="aide")  # (a full-text profile)
        assert by_words == []
        assert [d.cause for d in by_words.degraded] == ["full_text_stale"]
        assert memory.repair_text() == 3
        again = memory.search("printer toner")
    assert again.degraded == ()
    assert again[0].lexical > 0


def test_a_face_listening_hears_a_recall_made_on_a_worker(config: Config, clock: FakeClock) -> None:
    _filled(config, clock, None)
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        with listening() as heard, ThreadPoolExecutor(1) as pool:
            context = copy_context()  # (what a server's thread pool is given)
            pool.submit(context.run, lambda: memory.search("printer")).result()
            memory.search("scanner")  # (the same cause twice: said once)
        assert [d.cause for d in heard] == ["no_embedder"]
        memory.search("printer")  # no one listening: nothing kept
    assert len(heard) == 1


class _CountingStore:
    """What IndexWatch reads of a store, with the exact counts' reads counted."""

    def __init__(self) -> None:
        self.marker = (1, 0)
        self.counts = (3, 3)
        self.exact = (0, 0)
        self.counted = 0

    def change_marker(self) -> tuple[int, int]:
        return self.marker

    def indexed(self) -> tuple[int, int]:
        return self.counts

    def count_without_vectors(self) -> int:
        self.counted += 1
        return self.exact[0]

    def missing_text(self) -> int:
        return self.exact[1]


def test_the_rows_are_counted_only_when_the_indexes_drift_apart() -> None:
    store = _CountingStore()
    watch = IndexWatch(store)  # type: ignore[arg-type]
    assert watch.gaps() == (0, 0)
    assert store.counted == 0  # (equal counts: nothing read row by row)
    store.marker, store.counts, store.exact = (2, 0), (3, 1), (2, 0)
    assert watch.gaps() == (2, 0)
    assert store.counted == 1
    store.marker, store.counts = (3, 0), (4, 2)  # a new memory, embedded: still two apart
    assert watch.gaps() == (2, 0)
    assert store.counted == 1
    store.marker, store.counts, store.exact = (4, 0), (4, 3), (1, 0)  # one more embedded
    assert watch.gaps() == (1, 0)
    assert store.counted == 2
    assert watch.gaps() == (1, 0)  # (the store did not change: not even the counts read)
    store.marker, store.counts = (5, 0), (4, 4)
    assert watch.gaps() == (0, 0)
    assert store.counted == 2
