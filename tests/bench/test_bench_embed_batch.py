"""bench/bench_embed_batch.py: batches cover every text once, and run the shipped graph."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_embed_batch as bench
from salience.embeddings.minilm import MiniLMEmbedder


def test_batches_are_sorted_by_length_padded_and_masked() -> None:
    encoded = [SimpleNamespace(ids=[7] * n) for n in (3, 1, 5, 2, 4)]
    batches = bench.padded_batches(encoded, 2)
    assert [rows for rows, _, _ in batches] == [[1, 3], [0, 4], [2]]
    _, ids, mask = batches[1]
    assert ids.shape == mask.shape == (2, 4)  # padded to the longer of texts 0 and 4
    assert mask.tolist() == [[1, 1, 1, 0], [1, 1, 1, 1]]
    assert ids.tolist() == [[7, 7, 7, 0], [7, 7, 7, 7]]


def test_a_batch_of_one_is_the_shipped_vector() -> None:
    texts = ["Caroline went to the support group.", "The deploy reads DATABASE_URL.", "ok"]
    model = MiniLMEmbedder()
    shipped = model.embed(texts)
    alone = bench.batched_embed(bench.batch_session(model), model._tokenizer, texts, 1)
    assert bench.max_cosine_distance(alone, shipped) < 1e-6
    together = bench.batched_embed(bench.batch_session(model), model._tokenizer, texts, 3)
    assert together.shape == shipped.shape  # (a batch may move vectors: that is measured)


def test_cosine_distance_is_zero_for_equal_rows_and_one_for_orthogonal() -> None:
    a = np.array([[1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    assert bench.max_cosine_distance(a, a) < 1e-12
    assert abs(bench.max_cosine_distance(a, a[::-1]) - 1.0) < 1e-12
