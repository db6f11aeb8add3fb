"""A small deterministic embedder for tests: hashed bag of lower-cased words.

Texts that share words are similar, texts that share none are orthogonal (up to hash
collisions in 256 dimensions), and nothing needs the bundled model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from salience.embeddings.arrays import Matrix, normalise

WORD = re.compile(r"[a-z0-9]+")


class WordHashEmbedder:
    """Each word adds 1 to one of ``dimensions`` slots chosen by its hash."""

    def __init__(self, dimensions: int = 256, tag: str = "v1") -> None:
        self._dimensions = dimensions
        self._tag = tag
        self.calls: list[int] = []

    @property
    def name(self) -> str:
        return "wordhash"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def identity(self) -> str:
        return f"wordhash:{self._tag}:{self._dimensions}"

    def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self._dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                out[row, int.from_bytes(digest, "little") % self._dimensions] += 1.0
        return normalise(out)
