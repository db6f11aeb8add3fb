"""Vector rows mapped from the file beside the store: the same answers as rows read from the
store, kept current with writes, and never trusted past what the store's counters say."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from salience import Config, Memory
from salience.search import coarse, mapped, saved
from salience.search.index import VectorIndex
from salience.search.saved import saved_vectors
from salience.stores.base import COLUMNS_KEY, Store
from tests.conftest import FakeClock

DIMS = 48


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Save from 100 rows, after 20 more (and int8 blocks of 64 rows): small stores exercise
    what large ones do."""
    monkeypatch.setattr(saved, "SAVE_FROM", 100)
    monkeypatch.setattr(saved, "SAVE_AFTER", 20)
    monkeypatch.setattr(coarse, "BLOCK_ROWS", 64)


@pytest.fixture
def memory(tmp_path: Path, clock: FakeClock) -> Iterator[Memory]:
    """400 memories in 20 sessions with random unit vectors (SQLite)."""
    config = Config(home=tmp_path, embedder="none", signal_gate=False)
    with Memory.open(config=config, clock=clock) as engine:
        engine.import_(
            json.dumps({"content": f"memory number {i}", "session_id": f"s{i // 20}"})
            for i in range(400)
        )
        _embed(engine.store, sorted(r.id for r in engine.list(limit=None)), seed=1)
        yield engine


def _embed(store: Store, ids: list[str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((len(ids), DIMS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.set_vectors([(i, v.tobytes()) for i, v in zip(ids, vectors, strict=True)])


def _index(store: Store, *, kept: bool = True, int8: bool = True) -> VectorIndex:
    index = VectorIndex(store, None, saved_vectors(store.location) if kept else None)
    index.coarse_from = 0 if int8 else 10**9
    return index


def _answers(index: VectorIndex, seed: int = 3) -> list[tuple[list[str], list[float]]]:
    """Best 10 ids and scores for a few queries, plain and mixed with session neighbours."""
    rng = np.random.default_rng(seed)
    out = []
    for weight in (0.0, 0.5):
        for _ in range(3):
            query = rng.standard_normal(DIMS).astype(np.float32)
            query /= np.linalg.norm(query)
            rows, scores = index.ranked(query, weight)(10)
            ids = index.loaded_ids()
            out.append(([ids[r] for r in rows.tolist()], scores.tolist()))
    return out


def _saved_once(store: Store) -> Path:
    """Read the store, search (int8 rows, neighbours, mixed norms made), close: saved."""
    index = _index(store)
    _answers(index)
    index.close()
    path = saved_vectors(store.location)
    assert path is not None
    assert path.is_file()
    return path


@pytest.mark.parametrize("int8", [True, False])
def test_a_new_index_maps_the_saved_rows_and_answers_the_same(memory: Memory, int8: bool) -> None:
    path = _saved_once(memory.store)
    assert path.stat().st_mode & 0o777 == 0o600
    reference = _answers(_index(memory.store, kept=False, int8=int8))
    resumed = _index(memory.store, int8=int8)
    assert _answers(resumed) == reference
    assert resumed.mapped
    assert resumed._int8 is not None if int8 else True


def test_the_saved_rows_hold_no_text(memory: Memory) -> None:
    memory.remember("the marker text zanzibar-quokka is never in the vectors file")
    path = _saved_once(memory.store)
    assert b"zanzibar" not in path.read_bytes()


def test_writes_after_the_save_are_caught_up(memory: Memory) -> None:
    _saved_once(memory.store)
    memory.import_(
        json.dumps({"content": f"later {i}", "session_id": f"s{i % 3}"}) for i in range(30)
    )
    fresh = [r.id for r in memory.store.without_vectors(100)]
    _embed(memory.store, fresh, seed=7)
    again = sorted(r.id for r in memory.list(limit=None))[:5]
    _embed(memory.store, again, seed=8)  # re-embedded: new vseqs, rows changed in place
    resumed = _index(memory.store)
    answers = _answers(resumed)
    assert resumed.mapped
    assert answers == _answers(_index(memory.store, kept=False))
    for weight in (0.0, 0.5):  # a re-embedded memory is found by its new vector
        vector = resumed.stored([again[0]])[again[0]]
        rows, _ = resumed.ranked(vector, weight)(1)
        assert resumed.loaded_ids()[int(rows[0])] == again[0]


def test_a_deletion_makes_the_next_process_read_the_store(memory: Memory) -> None:
    _saved_once(memory.store)
    gone = memory.list(limit=1)[0].id
    memory.purge(gone)
    resumed = _index(memory.store)
    answers = _answers(resumed)
    assert not resumed.mapped  # fewer vectors than the file explains: read whole
    assert gone not in resumed.loaded_ids()
    assert answers == _answers(_index(memory.store, kept=False))


def test_a_store_that_went_back_is_read_whole(memory: Memory, tmp_path: Path) -> None:
    """A backup restored over the store (same key, older state) with a newer file beside it:
    the rows written after the backup must not be used."""
    location = memory.store.location
    _saved_once(memory.store)
    backup = tmp_path / "backup.db"
    memory.store.copy_file(backup)  # type: ignore[attr-defined]
    extra = [r.id for r in memory.list(limit=None)][:40]
    _embed(memory.store, extra, seed=9)
    _saved_once(memory.store)
    memory.close()
    shutil.copyfile(backup, location)
    for suffix in ("-wal", "-shm"):
        Path(location + suffix).unlink(missing_ok=True)
    with Memory.open(config=Config(home=tmp_path, embedder="none", signal_gate=False)) as back:
        resumed = _index(back.store)
        answers = _answers(resumed)
        assert not resumed.mapped
        assert answers == _answers(_index(back.store, kept=False))


def test_a_file_of_another_store_or_damaged_is_not_used(memory: Memory) -> None:
    path = _saved_once(memory.store)
    good = path.read_bytes()
    reference = _answers(_index(memory.store, kept=False))
    with memory.store.transaction():
        memory.store.set_meta(COLUMNS_KEY, "another-copy")
    resumed = _index(memory.store)
    assert _answers(resumed) == reference
    assert not resumed.mapped
    resumed.close()  # read whole: written again, for this key
    again = _index(memory.store)
    again.refresh()
    assert again.mapped
    for damaged in (good[: len(good) // 2], b"SALVECS1" + b"\xff" * 64, b""):
        path.write_bytes(damaged)
        resumed = _index(memory.store)
        assert _answers(resumed) == reference
        assert not resumed.mapped
        resumed.close()  # (its save, on a thread, replaces the damaged file: wait for it)


def test_saving_runs_beside_searches_and_follows_a_server(memory: Memory) -> None:
    """A long-running index saves again after enough rows were read (on its own thread),
    and a new process resumes from what it saved."""
    index = _index(memory.store)
    _answers(index)
    index.keep(wait=True)
    path = saved_vectors(memory.store.location)
    assert path is not None
    first = path.stat().st_mtime_ns
    memory.import_(json.dumps({"content": f"more {i}", "session_id": "s1"}) for i in range(25))
    _embed(memory.store, [r.id for r in memory.store.without_vectors(100)], seed=4)
    _answers(index)  # 25 rows read: due (20), saved on a thread
    assert index._saving is not None
    index._saving.join()
    assert path.stat().st_mtime_ns != first
    resumed = _index(memory.store)
    assert _answers(resumed) == _answers(index)
    assert resumed.mapped
    assert len(resumed.loaded_ids()) == 425


def test_small_stores_and_read_only_ones_save_nothing(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(saved, "SAVE_FROM", 1000)
    index = _index(memory.store)
    _answers(index)
    index.close()
    path = saved_vectors(memory.store.location)
    assert path is not None
    assert not path.exists()


def test_erasure_zeroes_and_deletes_the_file(memory: Memory, tmp_path: Path) -> None:
    memory.remember("erase me", user="leaver")
    _embed(memory.store, [r.id for r in memory.store.without_vectors(10)], seed=5)
    _answers(memory.vectors._index)  # the engine's own index reads the store and saves
    memory.vectors._index.keep(wait=True)
    path = saved_vectors(memory.store.location)
    assert path is not None
    assert path.is_file()
    witness = tmp_path / "witness"
    os.link(path, witness)  # the same blocks, still reachable after the unlink
    memory.erase_user("leaver")
    assert not path.exists()
    assert not witness.read_bytes().strip(b"\0")  # overwritten with zeros first
    index = memory.vectors._index
    _answers(index)
    index.keep(wait=True)  # read whole again: saved again, without the leaver's vector
    assert path.is_file()


def test_unpacked_blocks_score_as_packed_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(6)
    rows = rng.standard_normal((1000, DIMS)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    query = coarse.Query.of(rows[3])
    built = coarse.Int8Rows(DIMS)
    built.update(rows, np.arange(1000))
    packed = built.first_pass(query, rows, 1000)  # (8 blocks packed per thread per pass)
    again = built.first_pass(query, rows, 1000)
    restored = coarse.Int8Rows.restored(*(a.copy() for a in built.arrays()))
    monkeypatch.setattr(coarse, "PACKS_PER_PASS", 0)
    unpacked = restored.first_pass(query, rows, 1000)
    assert not any(p is not None for p in restored._packed)
    assert np.array_equal(packed, unpacked)
    assert np.array_equal(again, unpacked)


def test_rows_mapped_from_disk_are_private_to_the_process(memory: Memory) -> None:
    """Catching up writes into the mapping's private pages: the file is not changed."""
    path = _saved_once(memory.store)
    before = path.read_bytes()
    resumed = _index(memory.store)
    _answers(resumed)
    _embed(memory.store, sorted(r.id for r in memory.list(limit=None))[:3], seed=12)
    _answers(resumed)
    assert resumed.mapped
    assert path.read_bytes() == before
    assert isinstance(resumed, mapped.MappedRows)


def test_an_approximate_index_is_used_only_with_its_row_order(memory: Memory) -> None:
    """A process that followed a re-embedding keeps the memory at its old row; a process
    that reads the store whole puts it last. A saved index keys rows by number, so one saved
    for the first order must not be used with the second (the vector state alone is the
    same): the re-embedded memory is still found by its new vector."""
    from salience.search.ann import UsearchIndex

    location = memory.store.location

    def index() -> VectorIndex:
        return VectorIndex(memory.store, UsearchIndex(Path(location + ".usearch")), None)

    following = index()
    _answers(following)
    moved = sorted(r.id for r in memory.list(limit=None))[0]
    _embed(memory.store, [moved], seed=11)
    _answers(following)  # caught up: the memory keeps its row
    vector = following.stored([moved])[moved]
    following.close()  # the approximate index saved, for that order
    fresh = index()
    rows, _ = fresh.ranked(vector)(1)
    assert fresh.loaded_ids()[int(rows[0])] == moved
    assert fresh.loaded_ids()[-1] == moved  # (read whole: last, by its vseq)
