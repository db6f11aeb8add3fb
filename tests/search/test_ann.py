"""The approximate index: close to exact, persisted, rebuilt when stale, used by recall."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from salience import Config, Memory
from salience.search.ann import UsearchIndex
from salience.search.index import top_rows
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


def unit_rows(n: int, dims: int, seed: int = 3) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dims)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_recall_at_10_against_exact_search(tmp_path: Path) -> None:
    matrix = unit_rows(3000, 48)
    index = UsearchIndex(tmp_path / "v.usearch")
    index.open(matrix, (3000, 3000))
    queries = unit_rows(50, 48, seed=9)
    found = 0
    for query in queries:
        exact = set(top_rows(matrix @ query, 10).tolist())
        found += len(exact & set(index.search(query, 10).tolist()))
    assert found / (10 * len(queries)) >= 0.9


def test_saved_index_is_loaded_only_for_the_same_state(tmp_path: Path) -> None:
    path = tmp_path / "v.usearch"
    matrix = unit_rows(200, 16)
    UsearchIndex(path).open(matrix, (200, 200))
    sidecar = json.loads(path.with_name("v.usearch.json").read_text())
    assert sidecar == {"state": [200, 200], "dims": 16, "size": 200}
    assert not path.with_name("v.usearch.tmp").exists()  # written aside, then renamed

    same = UsearchIndex(path)
    same.open(matrix, (200, 200))
    assert same._dirty is False  # loaded, not rebuilt

    grown = np.vstack([matrix, unit_rows(5, 16, seed=1)])
    stale = UsearchIndex(path)
    stale.open(grown, (205, 205))
    assert json.loads(path.with_name("v.usearch.json").read_text())["size"] == 205


def test_a_damaged_index_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "v.usearch"
    matrix = unit_rows(100, 16)
    UsearchIndex(path).open(matrix, (100, 100))
    path.write_bytes(b"garbage")
    index = UsearchIndex(path)
    index.open(matrix, (100, 100))
    assert index.search(matrix[7], 1).tolist() == [7]


def test_recall_uses_the_approximate_index_and_follows_writes(
    tmp_path: Path, clock: FakeClock
) -> None:
    config = Config(home=tmp_path / "home", signal_gate=False, vector_index="usearch")
    embedder = WordHashEmbedder()
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        target = memory.remember("the lighthouse keeper logs the storms").id or ""
        for i in range(30):
            memory.remember(f"unrelated harbour note {i}")
        hits = memory.search("lighthouse storms", touch=False)
        assert hits[0].record.id == target
        assert hits[0].vector is not None
        memory.update(target, content="the lighthouse keeper logs the fog")
        assert memory.search("fog lighthouse", touch=False)[0].record.id == target
        later = memory.remember("a second lighthouse on the cape").id
        assert later in [h.record.id for h in memory.search("lighthouse cape", touch=False)]
    assert (tmp_path / "home" / "salience.db.usearch").exists()
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        assert memory.search("fog", touch=False)[0].record.id == target
