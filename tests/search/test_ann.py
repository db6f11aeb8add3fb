"""The approximate index: close to exact, persisted, rebuilt when stale, used by recall."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from salience import Config, Memory
from salience.search import ann
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


def test_every_row_of_a_small_build_is_found_by_its_own_vector(tmp_path: Path) -> None:
    # Added on several threads at once, ~3 of 1,000 rows were left unreachable per build.
    matrix = unit_rows(1000, 16)
    index = UsearchIndex(None)
    index.open(matrix, (1000, 1000))
    found = [index.search(row, 1).tolist() for row in matrix]
    assert found == [[i] for i in range(len(matrix))]


def test_small_builds_are_identical_run_to_run() -> None:
    matrix, queries = unit_rows(2000, 32), unit_rows(40, 32, seed=5)

    def answers() -> list[list[int]]:
        index = UsearchIndex(None)
        index.open(matrix, (2000, 2000))
        return [index.search(query, 10).tolist() for query in queries]

    assert answers() == answers() == answers()


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


def test_a_saved_index_is_mapped_and_copied_on_its_first_write(tmp_path: Path) -> None:
    path = tmp_path / "v.usearch"
    matrix = unit_rows(300, 16)
    UsearchIndex(path).open(matrix, (300, 300, "order"))
    saved = path.read_bytes()
    index = UsearchIndex(path)
    index.open(matrix, (300, 300, "order"))
    assert index._viewed  # mapped, not read
    assert index.search(matrix[9], 1).tolist() == [9]
    more = unit_rows(4, 16, seed=8)
    index.upsert(np.arange(300, 304), more)  # a copy in memory takes the write
    index.upsert(np.array([9]), more[:1])  # a row replaced
    assert not index._viewed
    assert path.read_bytes() == saved  # the file is unchanged until a save
    assert index.search(more[2], 1).tolist() == [302]
    assert sorted(index.search(more[0], 2).tolist()) == [9, 300]  # (the same vector twice)
    index.mark((304, 305, "order"))
    index.close()
    again = UsearchIndex(path)
    again.open(np.vstack([matrix, more]), (304, 305, "order"))
    assert again._viewed
    assert again.search(more[3], 1).tolist() == [303]
    other_order = UsearchIndex(path)
    other_order.open(np.vstack([matrix, more]), (304, 305, "another"))
    assert not other_order._viewed  # the same counts in another row order: rebuilt


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


class Gate:
    """Holds background builds until opened (``UsearchIndex._fill`` patched)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> None:
        self.open = threading.Event()
        self.entered = threading.Event()
        fill = UsearchIndex._fill

        def held(index: Any, matrix: np.ndarray, threads: int, first: int = 0) -> None:
            if threading.current_thread() is not threading.main_thread():
                self.entered.set()
                assert self.open.wait(30)
                if fail:
                    raise MemoryError("no room for the index")
            fill(index, matrix, threads, first)

        monkeypatch.setattr(UsearchIndex, "_fill", staticmethod(held))
        monkeypatch.setattr(UsearchIndex, "background_from", 100)


def test_a_large_rebuild_runs_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    path = tmp_path / "v.usearch"
    matrix = unit_rows(400, 16)
    index = UsearchIndex(path)
    index.open(matrix, (400, 400))  # returns at once
    assert index.building
    assert not index.usable(400)  # recall searches exactly meanwhile
    added = unit_rows(3, 16, seed=5)
    index.upsert(np.array([400, 401, 402]), added)  # written during the build: queued
    index.upsert(np.array([7]), added[:1])  # a re-embedded row, queued too
    index.mark((403, 404))
    index.save()
    assert not path.exists()  # nothing to save before it is built
    gate.open.set()
    assert index.wait(30)
    assert index.usable(403)
    assert index.search(added[1], 1).tolist() == [401]
    assert set(index.search(added[0], 2).tolist()) == {7, 400}
    assert json.loads(path.with_name("v.usearch.json").read_text())["state"] == [403, 404]
    reopened = UsearchIndex(path)
    reopened.open(np.vstack([matrix, added]), (403, 404))
    assert not reopened.building  # the saved index is this state's: loaded


def test_a_failed_background_build_leaves_recall_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch, fail=True)
    index = UsearchIndex(tmp_path / "v.usearch")
    index.open(unit_rows(300, 16), (300, 300))
    gate.open.set()
    assert index.wait(30)
    assert not index.usable(300)
    index.upsert(np.array([300]), unit_rows(1, 16, seed=8))  # ignored, no error
    index.save()
    assert not (tmp_path / "v.usearch").exists()


def test_no_recall_waits_for_a_build(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(  # (a write that looks for updates searches the vectors too: not here)
        home=tmp_path / "home", signal_gate=False, vector_index="usearch", updates="off"
    )
    embedder = WordHashEmbedder()
    texts = [f"harbour note {i} about boats and tides" for i in range(150)]
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        memory.import_([json.dumps({"content": t}) for t in texts])
        target = memory.remember("the lighthouse keeper logs the storms").id
    assert not (tmp_path / "home" / "salience.db.usearch").exists()  # (no recall yet)
    gate = Gate(monkeypatch)
    with Memory.open(config=config, clock=clock, embedder=embedder) as memory:
        hits = memory.search("lighthouse storms", touch=False)  # exact, while it builds
        assert hits[0].record.id == target
        ann = memory.vectors._index._ann
        assert isinstance(ann, UsearchIndex)
        assert ann.building
        later = memory.remember("a second lighthouse on the cape").id
        gate.open.set()
        assert ann.wait(30)
        found = [h.record.id for h in memory.search("lighthouse cape", touch=False)]
        assert later in found
        assert ann.usable(152)


def test_closing_stops_a_build_after_its_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(monkeypatch)
    monkeypatch.setattr(ann, "BUILD_CHUNK", 50)
    index = UsearchIndex(tmp_path / "v.usearch")
    index.open(unit_rows(400, 16), (400, 400))
    assert gate.entered.wait(30)
    builder = index._builder
    assert builder is not None
    gate.open.set()  # the chunk under way finishes; no other starts
    index.close()
    assert not builder.is_alive()
    assert not index.building
    assert not (tmp_path / "v.usearch").exists()  # nothing built, nothing saved


@pytest.mark.process
def test_a_process_exiting_during_a_build_exits_cleanly() -> None:
    # Without stopping the build at exit, the interpreter shut down under usearch's thread:
    # "terminate called without an active exception", SIGABRT (seen at 1M in bench/scale.py).
    script = """
import threading
import numpy as np
from salience.search import ann
ann.UsearchIndex.background_from = 100
started = threading.Event()
fill = ann.UsearchIndex._fill
def entering(*args, **kwargs):
    started.set()  # the build thread goes into usearch's native code now
    return fill(*args, **kwargs)
ann.UsearchIndex._fill = staticmethod(entering)
rows = np.random.default_rng(1).standard_normal((30000, 384)).astype(np.float32)
rows /= np.linalg.norm(rows, axis=1, keepdims=True)
index = ann.UsearchIndex(None)
index.open(rows, (30000, 30000))
assert started.wait(120), "the build never started"
assert index.building
print("exiting while it builds")
"""
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-500:]
    assert "exiting while it builds" in done.stdout


@pytest.mark.process
def test_the_embedder_runtime_can_load_after_the_index() -> None:
    """A new process whose first recall opens the index, then embeds the query: importing
    onnxruntime after usearch crashed the process (SIGSEGV)."""
    script = """
from salience.search.ann import _usearch
_usearch()
import onnxruntime
from salience.embeddings.minilm import MiniLMEmbedder
print(MiniLMEmbedder().embed(["which port does the api use"]).shape)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "(1, 384)"
