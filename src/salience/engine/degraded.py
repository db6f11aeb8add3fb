"""How a recall says it ran short: :class:`~salience.hits.Degraded` notes, each with its fix,
and :class:`IndexWatch`, which tells whether the store's indexes still agree with its rows.

A recall that cannot embed its query, or searches an index that lacks memories, still answers
with what it found, and says so: an empty list is never silent about a broken index.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from salience.stores.base import Store

if TYPE_CHECKING:
    from salience.models import Degraded

_HEARD: ContextVar[list[Degraded] | None] = ContextVar("salience_degraded", default=None)


@contextmanager
def listening() -> Iterator[list[Degraded]]:
    """``with listening() as heard:`` every recall made inside (on this thread, or a worker
    given its context) adds how it ran short to ``heard``: a face that answers in a shape of
    its own (an original's tool, a route) says so beside it."""
    heard: list[Degraded] = []
    token = _HEARD.set(heard)
    try:
        yield heard
    finally:
        _HEARD.reset(token)


def tell(notes: Sequence[Degraded]) -> None:
    """Let whoever is :func:`listening` hear ``notes`` (once each)."""
    heard = _HEARD.get()
    if heard is not None:
        heard.extend(n for n in notes if n not in heard)


def _memories(n: int) -> str:
    return "1 memory" if n == 1 else f"{n} memories"


def no_embedder() -> Degraded:
    from salience.models.hits import Degraded

    return Degraded(
        "no_embedder",
        "no embedding model is configured (SALIENCE_EMBEDDER=none): recall is full text only",
        "SALIENCE_EMBEDDER=minilm (bundled, offline), then salience reindex",
    )


def embedder_failed(why: str) -> Degraded:
    from salience.models.hits import Degraded

    return Degraded(
        "embedder_failed",
        f"the query could not be embedded ({why}): this recall is full text only",
        "salience reindex" if "salience reindex" in why else "salience doctor",
    )


def unavailable(layers: Mapping[str, str]) -> list[Degraded]:
    from salience.models.hits import Degraded

    return [
        Degraded(
            "layer_unavailable",
            f"layer {name!r} is unavailable and was left out: {why}",
            f"salience layer unmount {name}, or make its file readable again",
        )
        for name, why in sorted(layers.items())
    ]


def layer_full_text(name: str) -> Degraded:
    from salience.models.hits import Degraded

    return Degraded(
        "layer_full_text",
        f"layer {name!r} has no vectors of this embedding model: it is searched by full text",
        "salience reindex in the layer's own store, with this model",
    )


def gaps(without_vectors: int, without_text: int) -> list[Degraded]:
    """The notes for memories the vector or the full-text index lacks."""
    from salience.models.hits import Degraded

    notes = []
    if without_vectors:
        notes.append(
            Degraded(
                "vectors_missing",
                f"{_memories(without_vectors)} without a vector: only full text finds them",
                "salience reindex",
            )
        )
    if without_text:
        notes.append(
            Degraded(
                "full_text_stale",
                f"the full-text index lacks {_memories(without_text)}: "
                "only vector search finds them",
                "salience reindex",
            )
        )
    return notes


class IndexWatch:
    """Whether a store's full-text index and vectors hold every memory, read cheaply: the
    store counts both as it writes, and with an embedder they are equal when all is well.
    When they differ the rows are counted, and again only when the difference changes (each
    new memory adds one to both counts): a store that stays short pays once, not per write."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None  # the change marker last looked at
        self._apart = 0  # rows in the full-text index less vectors, when last counted
        self._gaps = (0, 0)

    def gaps(self) -> tuple[int, int]:
        """(memories without a vector, memories the full-text index lacks)."""
        marker = self._store.change_marker()
        with self._lock:
            if self._seen == marker:
                return self._gaps
            apart, found = self._apart, self._gaps
        text_rows, vectors = self._store.indexed()
        if text_rows - vectors != apart:
            apart = text_rows - vectors
            found = (0, 0) if not apart else self._count()
        with self._lock:
            self._seen, self._apart, self._gaps = marker, apart, found
        return found

    def _count(self) -> tuple[int, int]:
        return self._store.count_without_vectors(), self._store.missing_text()
