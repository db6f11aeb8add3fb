"""A scratch copy of one user's memories under another embedder: an evaluation's alternative.

Vectors of another model cannot be compared with the store's, so an evaluation that asks how
recall would do with another embedder copies the user's memories (every version, with ids,
times, counters and importance bases: everything a score reads) into a new SQLite store in a
private temporary directory, embeds them all with that embedder, and asks the probes there.
The copy holds no trace, session, key or layer, records nothing, and is deleted when the run
ends. Embedding every memory again is the cost: about as long as ``salience reindex``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from salience.models import MemoryRecord
from salience.stores.base import Store

if TYPE_CHECKING:
    from salience.embeddings import Embedder
    from salience.engine.memory import Memory
    from salience.engine.recall import Recall

BATCH = 500


@contextmanager
def twin(
    engine: Recall, owner: str, embedder: Embedder, settings: dict[str, Any]
) -> Iterator[Memory]:
    """An engine over a copy of ``owner``'s memories with ``embedder`` (which ``settings``
    name), its vectors made; gone on exit."""
    from salience.engine.memory import Memory

    store = engine._store
    with tempfile.TemporaryDirectory(prefix="salience-eval-") as tmp:  # (owner only: 0700)
        config = replace(engine.config, home=Path(tmp), store_url="", record=False, **settings)
        with Memory.open(config=config, clock=engine._clock, embedder=embedder, llm=None) as other:
            target = other._store
            ids: list[str] = []
            batch: list[MemoryRecord] = []
            for record in store.iter_all():
                if record.user == owner:
                    batch.append(record)
                if len(batch) == BATCH:
                    ids += _insert(target, batch)
                    batch = []
            ids += _insert(target, batch)
            mine = set(ids)
            with target.transaction():
                for memory_id, (importance, set_at) in store.importance_bases().items():
                    if memory_id in mine:
                        target.set_importance_base(memory_id, importance, set_at)
            other.reindex()
            yield other


def _insert(target: Store, records: list[MemoryRecord]) -> list[str]:
    with target.transaction():
        for record in records:
            target.insert(record)
    return [r.id for r in records]
