"""bench/windows.py: a long text cut into overlapping windows of the model's width."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from tokenizers import Tokenizer

import windows
from salience.embeddings.minilm import MODEL_DIR


def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def test_a_short_text_is_one_window() -> None:
    assert windows.windows(_tokenizer(), "a short note about the beach", 190) == [
        "a short note about the beach"
    ]


def test_a_long_text_is_cut_into_overlapping_windows_that_cover_it() -> None:
    tokenizer = _tokenizer()
    text = " ".join(f"word{i}" for i in range(400))
    parts = windows.windows(tokenizer, text, 190)
    assert len(parts) > 1
    assert parts[0].startswith("word0 ")
    assert parts[-1].endswith("word399")
    for part in parts:
        assert len(tokenizer.encode(part, add_special_tokens=False).ids) <= windows.WINDOW
    assert parts[1].split()[0] in parts[0]  # they overlap


def test_metrics_of_an_order() -> None:
    found = windows.metrics([2, 0, 1], [False, False, True], [0, 0, 1], {1})
    assert found["turn any@10"] == 1.0
    assert found["turn nDCG@10"] == 1.0
    assert found["session any@5"] == 1.0
    assert np.isclose(found["session all@10"], 1.0)
