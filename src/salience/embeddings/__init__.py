"""Embedders: text in, unit-length float32 vectors out.

An embedder has a ``name``, its ``dimensions`` and an ``identity`` string stored with the
vectors it made, so that a store never mixes vectors of two models. :func:`load_embedder`
builds the one a :class:`~salience.config.Config` asks for:

* ``minilm`` (default): all-MiniLM-L6-v2, int8 ONNX, bundled with the package; offline.
* ``none``: no vectors; recall is full-text only.
* ``openai``: any OpenAI-compatible ``/v1/embeddings`` endpoint.
* ``ollama``: an Ollama server's ``/api/embed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from salience.config import EMBEDDERS
from salience.errors import ConfigError

if TYPE_CHECKING:
    from salience.config import Config
    from salience.embeddings.arrays import Matrix


class Embedder(Protocol):
    """Turns texts into unit-length float32 rows; the same text always gives the same row."""

    @property
    def name(self) -> str:
        """Short name, e.g. ``minilm``."""
        ...

    @property
    def dimensions(self) -> int:
        """Length of each vector."""
        ...

    @property
    def identity(self) -> str:
        """Stored beside the vectors: two embedders with one identity give the same vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One row per text, L2-normalised, dtype float32, shape (len(texts), dimensions)."""
        ...


def load_embedder(config: Config) -> Embedder | None:
    """The embedder the configuration names; None for ``none``."""
    kind = config.embedder
    if kind == "none":
        return None
    if kind == "minilm":
        from salience.embeddings.minilm import shared

        return shared()
    from salience.embeddings.http import OllamaEmbedder, OpenAIEmbedder

    if not config.embedder_model:
        raise ConfigError(f"embedder {kind!r} needs embedder_model (SALIENCE_EMBEDDER_MODEL)")
    if kind == "openai":
        return OpenAIEmbedder(
            config.embedder_url or "https://api.openai.com/v1",
            config.embedder_model,
            api_key=config.embedder_api_key,
        )
    if kind == "ollama":
        return OllamaEmbedder(
            config.embedder_url or "http://localhost:11434", config.embedder_model
        )
    raise ConfigError(f"unknown embedder {kind!r}; known: {', '.join(EMBEDDERS)}")
