"""Embedders behind HTTP: an OpenAI-compatible ``/v1/embeddings`` endpoint and Ollama.

Only text that has passed redaction and the secret scanner is ever sent (the engine embeds
after the write gates). The API key goes in a header and never into a message or an error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from salience import net
from salience.embeddings.arrays import Matrix, normalise
from salience.errors import EmbedderError

BATCH = 64


def post_json(url: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    """POST to an embedder; failures are :class:`EmbedderError`."""
    return net.post_json(url, body, headers, error=EmbedderError)


class _HTTPEmbedder(ABC):
    kind = ""

    def __init__(self, url: str, model: str) -> None:
        self._url = url.rstrip("/")
        self._model = model
        self._dimensions: int | None = None

    @property
    def name(self) -> str:
        return self.kind

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self._dimensions = int(self.embed(["dimension probe"]).shape[1])
        return self._dimensions

    @property
    def identity(self) -> str:
        return f"{self.kind}:{self._model}"

    @abstractmethod
    def _request(self, texts: list[str]) -> list[list[float]]:
        """One batch of texts to one vector each; each endpoint speaks its own shape."""

    def embed(self, texts: Sequence[str]) -> Matrix:
        rows: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            chunk = list(texts[start : start + BATCH])
            got = self._request(chunk)
            if len(got) != len(chunk):
                raise EmbedderError(
                    f"{net.host(self._url)} returned {len(got)} vectors for {len(chunk)} texts"
                )
            rows.extend(got)
        if not rows:
            return np.zeros((0, self._dimensions or 0), dtype=np.float32)
        try:
            matrix = np.array(rows, dtype=np.float32)
        except ValueError:
            raise EmbedderError(
                f"{net.host(self._url)} returned vectors of unequal length"
            ) from None
        if matrix.ndim != 2 or (self._dimensions and matrix.shape[1] != self._dimensions):
            raise EmbedderError(f"{net.host(self._url)} changed its vector length")
        self._dimensions = int(matrix.shape[1])
        return normalise(matrix)


class OpenAIEmbedder(_HTTPEmbedder):
    """``POST {url}/embeddings`` with ``{"model", "input"}`` (url like ``.../v1``)."""

    kind = "openai"

    def __init__(self, url: str, model: str, *, api_key: str = "") -> None:
        super().__init__(url, model)
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({net.host(self._url)!r}, {self._model!r})"

    def _request(self, texts: list[str]) -> list[list[float]]:
        answer = post_json(
            f"{self._url}/embeddings", {"model": self._model, "input": texts}, self._headers
        )
        try:
            items = sorted(answer["data"], key=lambda item: item["index"])
            return [item["embedding"] for item in items]
        except (KeyError, TypeError):
            raise EmbedderError(f"{net.host(self._url)}: no 'data' list in the answer") from None


class OllamaEmbedder(_HTTPEmbedder):
    """``POST {url}/api/embed`` with ``{"model", "input"}``."""

    kind = "ollama"

    def _request(self, texts: list[str]) -> list[list[float]]:
        answer = post_json(f"{self._url}/api/embed", {"model": self._model, "input": texts}, {})
        try:
            return list(answer["embeddings"])
        except (KeyError, TypeError):
            raise EmbedderError(f"{net.host(self._url)}: no 'embeddings' in the answer") from None
