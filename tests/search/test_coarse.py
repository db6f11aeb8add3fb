"""The int8 first pass: quantisation, the error bound, and exact top-k through it."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

from salience import Config, Memory
from salience.search import coarse
from salience.search.index import VectorIndex
from tests.conftest import FakeClock
from tests.search.spies import rescoring

DIMS = 384


def _unit_rows(count: int, seed: int, *, positive: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((count, DIMS)).astype(np.float32)
    if positive:
        rows = np.abs(rows)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def test_quantise_bounds_what_rounding_left_out() -> None:
    rng = np.random.default_rng(4)
    rows = _unit_rows(3000, seed=4)
    rows[0] = 0.0  # nothing to scale
    rows[1] = 0.0
    rows[1, 17] = -3.5  # one coordinate
    rows[2] *= 10.0 ** rng.integers(-20, 20, DIMS)  # very different magnitudes in one row
    rows[3] = rows[4] * np.float32(1e-30)  # tiny values (subnormal after scaling)
    values, scale, residual = coarse.quantise(rows)
    assert values.dtype == np.int8
    assert scale.dtype == residual.dtype == np.float32
    assert int(np.abs(values.astype(np.int16)).max()) <= coarse.LEVELS  # never -128
    assert np.all(scale > 0)
    left = rows.astype(np.float64) - scale.astype(np.float64)[:, None] * values
    exact = np.linalg.norm(left, axis=1)
    assert np.all(residual.astype(np.float64) >= exact)
    # Not much above it: the float32 arithmetic costs a few units of 2^-24 of |e| (bounded
    # by sqrt(d) max|e_j|).
    largest = np.abs(rows.astype(np.float64)).max(axis=1)
    assert np.all(residual <= exact * (1 + 1e-4) + 1e-6 * DIMS**0.5 * largest + 1e-18)
    assert values[1, 17] == -coarse.LEVELS
    assert residual[0] == pytest.approx(0.0, abs=1e-18)
    # Rounding to nearest: each coordinate is within half a step.
    assert np.all(np.abs(left[4:]) <= scale[4:, None].astype(np.float64) * 0.5001)


def test_the_query_is_split_into_two_int8_rows() -> None:
    query = _unit_rows(1, seed=9)[0]
    split = coarse.Query.of(query)
    assert split.rows.shape == (2, DIMS)
    assert split.rows.dtype == np.int8
    s1, s2 = (float(s) for s in split.scales)
    together = s1 * split.rows[0].astype(np.float64) + s2 * split.rows[1].astype(np.float64)
    rest = np.linalg.norm(query.astype(np.float64) - together)
    assert rest <= split.left
    assert split.left < 1e-4  # ~1/127 of what one int8 row leaves (~0.009 here)
    assert split.split_norm >= np.linalg.norm(together)
    assert split.norm == pytest.approx(1.0, rel=1e-6)
    zero = coarse.Query.of(np.zeros(DIMS, dtype=np.float32))
    assert zero.left == zero.split_norm == 0.0
    assert not zero.rows.any()


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> int:
    """Blocks of 64 rows: several blocks, a helper thread and a float32 tail on few rows."""
    monkeypatch.setattr(coarse, "BLOCK_ROWS", 64)
    return 64


@pytest.mark.parametrize("positive", [False, True])
@pytest.mark.parametrize("count", [63, 64, 1000, 5000])
@pytest.mark.usefixtures("small_blocks")
def test_first_pass_stays_within_the_bound(positive: bool, count: int) -> None:
    """All-positive coordinates are the worst case for errors adding up; 63 rows are all
    tail (float32), 1000 = 15 blocks and a tail."""
    rows = _unit_rows(count, seed=11, positive=positive)
    rng = np.random.default_rng(12)
    query = rows[7] + 0.05 * rng.standard_normal(DIMS).astype(np.float32)
    query = np.abs(query) if positive else query
    query = (query / np.linalg.norm(query)).astype(np.float32)
    int8 = coarse.Int8Rows(DIMS)
    int8.update(rows, np.arange(count))
    split = coarse.Query.of(query)
    first = int8.first_pass(split, rows, count)
    assert first.dtype == np.float32
    assert first.shape == (count,)
    float32 = np.einsum("ij,j->i", rows, query)  # what re-scoring computes
    exact = rows.astype(np.float64) @ query.astype(np.float64)
    bound = int8.residuals[:count] * split.split_norm + split.constant(DIMS)
    for reference in (float32, exact):
        assert np.all(np.abs(first - reference) <= bound)
    if count >= 64:
        assert np.abs(first[:64] - exact[:64]).max() > 1e-6  # an approximation
        assert bound.max() < 0.02


def test_integer_sums_are_exact_at_the_extremes() -> None:
    """Rows of +-127: a kernel summing in 16 bits would saturate; 389 fills no register."""
    numkong = coarse._numkong()
    assert numkong is not None
    rng = np.random.default_rng(2)
    rows = rng.choice(np.array([-127, 127, 0, 1], dtype=np.int8), size=(300, 389))
    rows[:10] = 127
    queries = rng.integers(-127, 128, size=(2, 389)).astype(np.int8)
    queries[0] = 127
    found = np.asarray(numkong.dots_packed(queries, numkong.dots_pack(rows)))
    want = queries.astype(np.int64) @ rows.astype(np.int64).T
    assert np.array_equal(found, want)
    assert int(found[0, 0]) == 389 * 127 * 127


# -- exact top-k through the first pass ------------------------------------------------------


@pytest.fixture
def clustered(tmp_path: object, clock: FakeClock) -> Iterator[Memory]:
    """300 memories in 15 sessions whose vectors come in tight clusters, with exact copies:
    many near-ties, the hard case for a bound."""
    config = Config(home=tmp_path, embedder="none", signal_gate=False)  # type: ignore[arg-type]
    with Memory.open(config=config, clock=clock) as memory:
        lines = [
            json.dumps({"content": f"memory number {i}", "session_id": f"s{i // 20}"})
            for i in range(300)
        ]
        memory.import_(lines)
        _store_vectors(memory, seed=5)
        yield memory


def _store_vectors(memory: Memory, seed: int) -> None:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((12, DIMS)).astype(np.float32)
    store = memory.store
    ids = sorted(r.id for r in memory.list(limit=None))
    vectors = centres[np.arange(len(ids)) % 12]
    vectors += 0.02 * rng.standard_normal(vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    copies = np.arange(3, len(ids), 10)
    vectors[copies] = vectors[copies - 1]  # exact copies of the row before: true ties
    with store.transaction():
        for memory_id, vector in zip(ids, vectors, strict=True):
            store.set_vector(memory_id, vector.tobytes())


def _check_top_k(
    index: VectorIndex, query: np.ndarray, weight: float, k: int, *, pruned: bool = False
) -> None:
    """The bounded search's top k is the top k of every row scored in float32: the same
    scores best first, and no row left out that scores above a row kept (ties aside: two
    float32 sums of the same products may differ in the last bit). ``pruned``: the search
    must have scored only some rows in float32 (not fallen back to all of them)."""
    with rescoring(index) as rescored:
        rows, scores = index.ranked(query, weight)(k)
    if pruned:
        assert 0 < sum(rescored) < len(index.ids()) // 4
    every = index._rescore(np.arange(len(index.ids())), query, weight)
    want = np.sort(every)[::-1][:k]
    assert len(rows) == len(want) == len(set(rows.tolist()))
    np.testing.assert_allclose(scores, want, atol=1e-6)
    np.testing.assert_allclose(every[rows], scores, atol=1e-6)
    if k < len(every):
        left_out = np.setdiff1d(np.arange(len(every)), rows)
        assert every[left_out].max() <= scores.min() + 1e-6
    assert all(a >= b for a, b in itertools.pairwise(scores))


@pytest.mark.parametrize("spread", [4, 1000])  # 4: ties everywhere
def test_refine_finds_the_top_k_whatever_the_ceilings(spread: int) -> None:
    """Rows scored in order of their ceilings, stopping early, still give the top k of the
    true scores (ties to the lower row), for any ceilings at or above the true scores:
    lengths up to 400 so that the scoring runs to several batches."""
    rng = np.random.default_rng(spread)
    index = VectorIndex.__new__(VectorIndex)
    for _ in range(400):
        count, k = int(rng.integers(1, 400)), int(rng.integers(1, 90))
        true = rng.integers(0, spread, count).astype(np.float32)
        ceilings = true + rng.integers(0, spread, count).astype(np.float32)
        rows = np.sort(rng.choice(10 * count, size=count, replace=False)).astype(np.intp)
        by_row = dict(zip(rows.tolist(), true.tolist(), strict=True))
        rescored: list[int] = []

        def rescore(
            which: np.ndarray,
            query: object,
            weight: float,
            by_row: dict[int, float] = by_row,
            rescored: list[int] = rescored,
        ) -> np.ndarray:
            assert which.tolist() == sorted(which.tolist())
            rescored.extend(which.tolist())
            return np.array([by_row[r] for r in which.tolist()], dtype=np.float32)

        index._rescore = rescore  # type: ignore[method-assign]
        found, values = index._refine(rows, ceilings, k, np.zeros(1, np.float32), 0.0)
        want = np.lexsort((rows, -true))[:k]
        assert found.tolist() == rows[want].tolist()
        assert values.tolist() == true[want].tolist()
        assert len(rescored) == len(set(rescored))  # no row scored twice


@pytest.mark.parametrize("weight", [0.0, 0.5])
@pytest.mark.parametrize("k", [1, 10, 50, 299, 300, 1000])
@pytest.mark.usefixtures("small_blocks")
def test_bounded_search_returns_the_exact_top_k(clustered: Memory, weight: float, k: int) -> None:
    """Including exact copies of a vector and near-ties; the plain float32 search agrees."""
    rng = np.random.default_rng(k)
    plain = VectorIndex(clustered.store)
    plain.coarse_from = 10**9
    for centre in range(3):
        query = plain.stored([plain.ids()[centre]])[plain.ids()[centre]]
        query = query + 0.01 * rng.standard_normal(DIMS).astype(np.float32)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        bounded = VectorIndex(clustered.store)
        bounded.coarse_from = 0
        _check_top_k(bounded, query, weight, k, pruned=k <= 10)
        assert bounded._int8 is not None  # the first pass was used
        _, plain_scores = plain.ranked(query, weight)(k)
        assert plain._int8 is None
        _, scores = bounded.ranked(query, weight)(k)
        np.testing.assert_allclose(scores, plain_scores, atol=1e-6)


@pytest.mark.parametrize("weight", [0.0, 0.5])
@pytest.mark.parametrize("k", [10, 300])
@pytest.mark.usefixtures("small_blocks")
def test_a_floor_leaves_out_only_rows_below_it(clustered: Memory, weight: float, k: int) -> None:
    """The rows at or above the floor are the exact search's, with its scores; the rows that
    cannot reach it are not scored in float32 (and one no row reaches scores none)."""
    plain = VectorIndex(clustered.store)
    plain.coarse_from = 10**9
    bounded = VectorIndex(clustered.store)
    bounded.coarse_from = 0
    query = plain.stored([plain.ids()[0]])[plain.ids()[0]]
    every = plain._rescore(np.arange(len(plain.ids())), query, weight)
    # about 30 rows above the floor (one cluster's part), in a gap between two scores: the
    # plain search's float32 sums may differ from the bounded one's in the last bit
    ordered = np.sort(every)[::-1]
    at = next(i for i in range(30, 60) if ordered[i - 1] - ordered[i] > 1e-4)
    floor = float(ordered[at - 1] + ordered[at]) / 2
    with rescoring(bounded) as rescored:
        rows, scores = bounded.ranked(query, weight, floor)(k)
    above = scores >= np.float32(floor)
    want_rows, want = plain.ranked(query, weight)(k)
    kept = want >= np.float32(floor)
    assert rows[above].tolist() == want_rows[kept].tolist()
    np.testing.assert_allclose(scores[above], want[kept], atol=1e-6)
    assert 0 < sum(rescored) < len(plain.ids()) // 4
    with rescoring(bounded) as unbounded:
        bounded.ranked(query, weight)(k)
    assert sum(rescored) <= sum(unbounded)
    if k > at:  # (deeper than the rows above the floor: the floor, not the k-th, cuts)
        assert sum(rescored) < sum(unbounded)
    with rescoring(bounded) as none:
        rows, scores = bounded.ranked(query, weight, 1.5)(k)  # (no cosine reaches 1.5)
    assert len(rows) == len(scores) == 0
    assert sum(none) == 0


@pytest.mark.usefixtures("small_blocks")
def test_bounded_search_follows_writes(clustered: Memory) -> None:
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    query = index.stored([index.ids()[0]])[index.ids()[0]]
    index.ranked(query, 0.5)(10)  # the int8 copy exists (and is packed) before the writes
    more = [json.dumps({"content": f"later {i}", "session_id": "s3"}) for i in range(200)]
    old = set(index.ids())
    clustered.import_(more)  # the matrix grows past its capacity
    ids = sorted(r.id for r in clustered.list(limit=None))
    rng = np.random.default_rng(8)
    with clustered.store.transaction():
        for i, memory_id in enumerate(ids):  # new rows, and some re-embedded ones
            if memory_id in old and i % 7:
                continue
            vector = rng.standard_normal(DIMS).astype(np.float32)
            vector = vector / np.linalg.norm(vector) + query * rng.uniform(0, 3)
            vector /= np.linalg.norm(vector)
            clustered.store.set_vector(memory_id, vector.astype(np.float32).tobytes())
    _check_top_k(index, query, 0.5, 40, pruned=True)
    n = len(index.ids())
    assert n == 500
    int8 = index._int8
    assert int8 is not None
    values, scale, residual = coarse.quantise(index._matrix[:n])
    assert np.array_equal(int8._values[:n], values)
    assert np.array_equal(int8._scale[:n], scale)
    assert np.array_equal(int8.residuals[:n], residual)
    assert all(block is not None for block in int8._packed)  # packed again after the writes
    assert len(int8._packed) == n // 64


class BuildGate:
    """Holds a background int8 build inside its first chunk until opened."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.opened = threading.Event()
        self.chunks = 0
        real = coarse.Int8Rows.update

        def update(rows: coarse.Int8Rows, matrix: np.ndarray, which: np.ndarray) -> None:
            if threading.current_thread().name == "salience-int8-build":
                self.chunks += 1
                assert self.opened.wait(30)
            real(rows, matrix, which)

        monkeypatch.setattr(coarse.Int8Rows, "update", update)


@pytest.mark.usefixtures("small_blocks")
def test_a_large_store_builds_its_int8_copy_in_the_background(
    clustered: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Searches made while it is built score float32 (the same answers); rows written
    meanwhile are quantised again before the copy is used."""
    gate = BuildGate(monkeypatch)
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    index.int8_background_from = 0
    query = index.stored([index.ids()[0]])[index.ids()[0]]
    _check_top_k(index, query, 0.5, 40)  # while it is built
    build = index._int8_build
    assert build is not None
    assert index._int8 is None
    clustered.import_(
        [json.dumps({"content": f"later {i}", "session_id": "s3"}) for i in range(90)]
    )
    ids = sorted(r.id for r in clustered.list(limit=None))
    rng = np.random.default_rng(5)
    with clustered.store.transaction():
        for memory_id in ids[::9] + ids[-90:]:  # some re-embedded, the new ones
            vector = rng.standard_normal(DIMS).astype(np.float32)
            vector = vector / np.linalg.norm(vector) + query * rng.uniform(0, 3)
            clustered.store.set_vector(memory_id, (vector / np.linalg.norm(vector)).tobytes())
    _check_top_k(index, query, 0.5, 40)  # still building: float32
    assert index._int8 is None
    gate.opened.set()
    assert build.wait(30)
    _check_top_k(index, query, 0.5, 40, pruned=True)  # the first pass, from here
    int8 = index._int8
    assert int8 is build.rows
    n = len(index.ids())
    values, scale, residual = coarse.quantise(index._matrix[:n])
    assert np.array_equal(int8._values[:n], values)
    assert np.array_equal(int8._scale[:n], scale)
    assert np.array_equal(int8.residuals[:n], residual)


def test_a_background_int8_build_stops_when_the_index_closes(
    clustered: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coarse, "BUILD_CHUNK", 16)
    gate = BuildGate(monkeypatch)
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    index.int8_background_from = 0
    query = index.stored([index.ids()[0]])[index.ids()[0]]
    index.ranked(query, 0.0)(5)
    build = index._int8_build
    assert build is not None
    threading.Timer(0.2, gate.opened.set).start()
    index.close()  # waits for the chunk under way, then the thread ends
    assert build.done()
    assert gate.chunks == 1
    assert index._int8_build is None


def test_vectors_not_of_unit_length_skip_the_first_pass(clustered: Memory) -> None:
    memory_id = clustered.list(limit=1)[0].id
    with clustered.store.transaction():
        clustered.store.set_vector(memory_id, np.full(DIMS, 0.5, np.float32).tobytes())
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    query = np.full(DIMS, DIMS**-0.5, dtype=np.float32)
    rows, scores = index.ranked(query, 0.0)(5)
    assert index._int8 is None  # the bound assumes unit rows: plain float32 instead
    assert index.ids()[rows[0]] == memory_id
    assert scores[0] == pytest.approx(0.5 * DIMS**0.5, rel=1e-6)


def test_a_broken_kernel_is_detected_and_search_stays_exact(
    clustered: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If numkong's int8 product is wrong on some machine, the self-check says so and exact
    search scores every row in float32 instead."""
    numkong = pytest.importorskip("numkong")
    real = numkong.dots_packed

    def off_by_one(a: object, b: object, **kwargs: object) -> np.ndarray:
        return np.asarray(real(a, b, **kwargs)) + 1

    coarse._numkong.cache_clear()
    monkeypatch.setattr(numkong, "dots_packed", off_by_one)
    try:
        assert not coarse.available()
        index = VectorIndex(clustered.store)
        index.coarse_from = 0
        query = index.stored([index.ids()[4]])[index.ids()[4]]
        _check_top_k(index, query, 0.5, 10)
        assert index._int8 is None
    finally:
        monkeypatch.undo()
        coarse._numkong.cache_clear()
    assert coarse.available()


@pytest.mark.process
@pytest.mark.parametrize("first", ["numkong", "usearch.index"])
def test_usearch_and_the_first_pass_load_in_either_order(first: str) -> None:
    """usearch (the ann extra) is built on numkong too: loading it first changes nothing."""
    if first.startswith("usearch") and importlib.util.find_spec("usearch") is None:
        # (Not importorskip: usearch imported in this process would make a later import of
        # onnxruntime here crash it: see salience.search.ann._usearch.)
        pytest.skip("usearch is not installed")
    script = f"""
import numpy as np
import {first}
from salience.search import coarse
print(coarse.available())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["True"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
@pytest.mark.usefixtures("small_blocks")
def test_the_first_pass_works_in_a_forked_child() -> None:
    """The helper thread does not survive a fork: the child must get its own, not wait on
    the parent's forever."""
    rows = _unit_rows(1000, seed=3)
    int8 = coarse.Int8Rows(DIMS)
    int8.update(rows, np.arange(len(rows)))
    split = coarse.Query.of(rows[0])
    want = int8.first_pass(split, rows, len(rows))  # the parent's helper thread exists now
    assert coarse._helper() is not None
    with warnings.catch_warnings():  # Python 3.12+ warns about forking a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            same = np.array_equal(int8.first_pass(split, rows, len(rows)), want)
            os._exit(0 if same else 1)
        finally:
            os._exit(2)
    for _ in range(200):
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    pytest.fail("the first pass hung in a forked child")


@pytest.mark.parametrize("weight", [0.0, 0.4])
def test_scores_of_many_rows_are_the_gathered_products_to_the_bit(
    clustered: Memory, weight: float
) -> None:
    # From a third of the rows on, every row is scored once and the rows' scores taken.
    index = VectorIndex(clustered.store)
    index.refresh()
    rng = np.random.default_rng(3)
    query = rng.standard_normal(DIMS).astype(np.float32)
    for count in (1, 50, 99, 100, 250, 300):
        rows = rng.choice(300, size=count, replace=False).astype(np.intp)
        gathered = index._rescore(rows, query, weight)
        assert index.scores_of(rows, query, weight).tobytes() == gathered.tobytes()
