"""The bundled embedder: checked at load, deterministic, and it captures meaning."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from salience import Config
from salience.embeddings import load_embedder
from salience.embeddings.minilm import MODEL_DIR, MiniLMEmbedder
from salience.errors import ConfigError

_shared: list[MiniLMEmbedder] = []


def model() -> MiniLMEmbedder:
    if not _shared:
        _shared.append(MiniLMEmbedder())
    return _shared[0]


def test_the_model_ships_small_with_its_licence() -> None:
    size = (MODEL_DIR / "model.onnx").stat().st_size
    assert size <= 30 * 1024 * 1024
    assert "Apache License" in (MODEL_DIR / "LICENSE").read_text(encoding="utf-8")


def test_vectors_are_unit_length_float32_and_deterministic() -> None:
    texts = ["the cat sat on the mat", "", "a much longer sentence " * 80]
    first = model().embed(texts)
    assert first.dtype == np.float32
    assert first.shape == (3, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, model().embed(texts))
    alone = model().embed([texts[0]])
    assert np.allclose(alone[0], first[0], atol=1e-5)  # batching and padding change nothing
    assert model().embed([]).shape == (0, 384)


def test_the_extended_graph_optimisations_give_the_vectors_of_all_of_them() -> None:
    """The session is built at onnxruntime's extended level, which is faster to build than
    "all": a stored vector must not depend on that choice."""
    texts = ["the cat sat on the mat", "When did Melanie paint a sunrise?", "ok", "a " * 300]
    everything = MiniLMEmbedder(workers=1)
    everything.optimization = "ALL"
    assert np.array_equal(model().embed(texts), everything.embed(texts))


def test_similar_meanings_are_closer_than_unrelated_ones() -> None:
    a, b, c = model().embed(
        [
            "My dog loves playing fetch in the park.",
            "The puppy enjoys chasing a ball outside.",
            "Quarterly tax filings are due in April.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.3


def test_identity_names_the_model_and_its_digest() -> None:
    identity = model().identity
    assert identity.startswith("minilm:all-MiniLM-L6-v2-int8:384:")
    assert load_embedder(Config(home=Path("/unused"))) is not None
    assert load_embedder(Config(home=Path("/unused"), embedder="none")) is None


def test_a_tampered_model_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "minilm"
    shutil.copytree(MODEL_DIR, copy)
    data = bytearray((copy / "model.onnx").read_bytes())
    data[-1] ^= 0xFF
    (copy / "model.onnx").write_bytes(bytes(data))
    embedder = MiniLMEmbedder(copy)
    for _ in range(2):  # the session built meanwhile is never kept: refused every time
        with pytest.raises(ConfigError, match="sha256"):
            embedder.embed(["hello"])


def test_a_tampered_tokenizer_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "minilm"
    shutil.copytree(MODEL_DIR, copy)
    (copy / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"tokenizer\.json does not match its sha256"):
        MiniLMEmbedder(copy).embed(["hello"])


def test_a_model_onnxruntime_cannot_read_is_a_clear_error(tmp_path: Path) -> None:
    """A model file that matches its manifest but is not a model (a bad build)."""
    copy = tmp_path / "minilm"
    shutil.copytree(MODEL_DIR, copy)
    (copy / "model.onnx").write_bytes(b"not a model")
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["sha256"]["model.onnx"] = hashlib.sha256(b"not a model").hexdigest()
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ConfigError, match="the bundled embedder could not be loaded"):
        MiniLMEmbedder(copy).embed(["hello"])


def test_a_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="build_embedder"):
        MiniLMEmbedder(tmp_path)


def test_unknown_embedders_are_refused_by_config() -> None:
    with pytest.raises(ConfigError, match="known: minilm, none, openai, ollama"):
        Config(home=Path("/unused"), embedder="word2vec")
    with pytest.raises(ConfigError, match="SALIENCE_EMBEDDER_MODEL"):
        load_embedder(Config(home=Path("/unused"), embedder="openai"))


def test_a_batch_spread_over_workers_gives_each_text_its_own_vector() -> None:
    texts = [f"note {i}: the {word} is on shelf {i}" for i, word in enumerate("abcdefghij")]
    texts += ["short", "a much longer sentence about the harbour and the ferries " * 5]
    two = MiniLMEmbedder(workers=2)
    batch = two.embed(texts)
    one_by_one = np.vstack([model().embed([text]) for text in texts])
    assert np.array_equal(batch, one_by_one)  # same bits, whatever the batch or the worker
    assert np.array_equal(two.embed(texts[::-1]), batch[::-1])  # rows stay in order
