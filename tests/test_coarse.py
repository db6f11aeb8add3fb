"""The bfloat16 first pass: rounding, the error bound, and exact top-k through it."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from salience import Config, Memory, coarse
from salience.vectors import VectorIndex
from tests.conftest import FakeClock

DIMS = 384


def _decode(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def test_rounding_is_to_nearest_with_ties_to_even() -> None:
    ties = np.array([0x3F808000, 0x3F818000, 0xBF808000], dtype=np.uint32).view(np.float32)
    # 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to the even one (1); 1 + 3 * 2^-8 goes
    # up to 1 + 2^-6 (even); the sign does not matter.
    assert coarse.to_bfloat16(ties).tolist() == [0x3F80, 0x3F82, 0xBF80]
    rng = np.random.default_rng(3)
    values = (rng.standard_normal(50_000) * 10.0 ** rng.integers(-30, 30, 50_000)).astype(
        np.float32
    )
    decoded = _decode(coarse.to_bfloat16(values)).astype(np.float64)
    exact = values.astype(np.float64)
    assert np.all(np.abs(decoded - exact) <= 2.0**-8 * np.abs(exact))
    # Nearest: neither neighbour of the chosen bfloat16 value is closer.
    truncated = (values.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    for candidate in (truncated, truncated + np.uint16(1)):
        other = np.abs(_decode(candidate).astype(np.float64) - exact)
        assert np.all(np.abs(decoded - exact) <= other)


def test_rounding_keeps_the_shape_of_a_matrix() -> None:
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    rounded = coarse.to_bfloat16(matrix)
    assert rounded.shape == (3, 4)
    assert rounded.dtype == np.uint16
    assert rounded[1].tolist() == coarse.to_bfloat16(matrix[1]).tolist()


@pytest.mark.parametrize("positive", [False, True])
def test_first_pass_stays_within_the_bound(positive: bool) -> None:
    """All-positive coordinates are the worst case for rounding errors adding up."""
    rng = np.random.default_rng(11)
    rows = rng.standard_normal((5000, DIMS)).astype(np.float32)
    if positive:
        rows = np.abs(rows)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    query = rows[7] + 0.05 * rng.standard_normal(DIMS).astype(np.float32)
    query = np.abs(query) if positive else query
    query = (query / np.linalg.norm(query)).astype(np.float32)
    first = coarse.first_pass(coarse.to_bfloat16(query), coarse.to_bfloat16(rows))
    exact = rows.astype(np.float64) @ query.astype(np.float64)
    assert first.dtype == np.float32
    assert first.shape == (5000,)
    error = np.abs(first.astype(np.float64) - exact)
    assert error.max() <= coarse.relative_bound(DIMS)
    assert error.max() > 0  # it is an approximation: the bound is what makes it usable
    assert coarse.relative_bound(DIMS) < 0.008


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


def _check_top_k(index: VectorIndex, query: np.ndarray, weight: float, k: int) -> None:
    """The bounded search's top k is the top k of every row scored in float32: the same
    scores best first, and no row left out that scores above a row kept (ties aside: two
    float32 sums of the same products may differ in the last bit)."""
    rows, scores = index.ranked(query, weight)(k)
    every = index._rescore(np.arange(len(index.ids())), query, weight)
    want = np.sort(every)[::-1][:k]
    assert len(rows) == len(want) == len(set(rows.tolist()))
    np.testing.assert_allclose(scores, want, atol=1e-6)
    np.testing.assert_allclose(every[rows], scores, atol=1e-6)
    if k < len(every):
        left_out = np.setdiff1d(np.arange(len(every)), rows)
        assert every[left_out].max() <= scores.min() + 1e-6
    assert all(a >= b for a, b in itertools.pairwise(scores))


@pytest.mark.parametrize("weight", [0.0, 0.5])
@pytest.mark.parametrize("k", [1, 10, 50, 299, 300, 1000])
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
        _check_top_k(bounded, query, weight, k)
        assert bounded._coarse is not None  # the first pass was used
        _, plain_scores = plain.ranked(query, weight)(k)
        assert plain._coarse is None
        _, scores = bounded.ranked(query, weight)(k)
        np.testing.assert_allclose(scores, plain_scores, atol=1e-6)


def test_bounded_search_follows_writes(clustered: Memory) -> None:
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    query = index.stored([index.ids()[0]])[index.ids()[0]]
    index.ranked(query, 0.5)(10)  # the bfloat16 copy exists before the writes
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
            vector = vector / np.linalg.norm(vector) * 0.5 + query * 0.5
            vector /= np.linalg.norm(vector)
            clustered.store.set_vector(memory_id, vector.astype(np.float32).tobytes())
    _check_top_k(index, query, 0.5, 40)
    n = len(index.ids())
    assert n == 500
    assert index._coarse is not None
    assert np.array_equal(index._coarse[:n], coarse.to_bfloat16(index._matrix[:n]))


def test_vectors_not_of_unit_length_skip_the_first_pass(clustered: Memory) -> None:
    memory_id = clustered.list(limit=1)[0].id
    with clustered.store.transaction():
        clustered.store.set_vector(memory_id, np.full(DIMS, 0.5, np.float32).tobytes())
    index = VectorIndex(clustered.store)
    index.coarse_from = 0
    query = np.full(DIMS, DIMS**-0.5, dtype=np.float32)
    rows, scores = index.ranked(query, 0.0)(5)
    assert index._coarse is None  # the bound assumes unit rows: plain float32 instead
    assert index.ids()[rows[0]] == memory_id
    assert scores[0] == pytest.approx(0.5 * DIMS**0.5, rel=1e-6)


@pytest.mark.parametrize(("first", "works"), [("simsimd", True), ("usearch.index", False)])
def test_a_clash_with_usearch_is_detected_not_suffered(first: str, works: bool) -> None:
    """usearch loaded before simsimd breaks simsimd in that process (it refuses every
    input): the first pass is then switched off, and search stays exact on float32 alone."""
    if first.startswith("usearch"):
        pytest.importorskip("usearch")
    script = f"""
import numpy as np
import {first}
from salience import coarse
from salience.vectors import top_rows
print(coarse.available())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == [str(works)]


def test_the_ann_extra_loads_simsimd_before_usearch() -> None:
    pytest.importorskip("usearch")
    script = """
from salience.ann import _usearch
_usearch()
from salience import coarse
print(coarse.available())
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["True"]
