"""A scratch copy of the store for an evaluation: under another embedder, or with some
memories' titles and entities held out.

Vectors of another model cannot be compared with the store's, so an evaluation that asks how
recall would do with another embedder copies the store into a new SQLite store in a private
temporary directory, embeds the evaluated user's memories with that model, and asks the
probes there. A probe drawn from a memory's own title or entities asks with the memory's
title and entities held out (:func:`hold_out`), on a copy that keeps the store's vectors.

A copy of a SQLite store is its file, copied with SQLite's online backup (row numbers, index,
vectors and layers as they are); a PostgreSQL store is copied as ``salience migrate`` copies
it (:func:`~salience.stores.copy.copy_store`: every memory of every user, so full-text
statistics are the store's, with ids, times, counters, importance bases, vectors, layers). A
copy records nothing, and when the run ends its files are overwritten with zeros and
deleted.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from salience.briefing.snapshot import saved_columns
from salience.scratch import private, scratch
from salience.stores.base import Store
from salience.stores.copy import copy_store
from salience.stores.registry import FileCopy

if TYPE_CHECKING:
    from salience.embeddings import Embedder
    from salience.engine.memory import Memory
    from salience.engine.recall import Recall

BATCH = 500


@contextmanager
def twin(
    engine: Recall, owner: str, embedder: Embedder | None, settings: dict[str, Any]
) -> Iterator[Memory]:
    """An engine over a copy of the store configured with ``settings``: with ``embedder``,
    ``owner``'s memories embedded again by it; without, the store's own vectors and model.
    Gone on exit."""
    memory = cast("type[Memory]", type(engine))  # (the engine's own class: no import loop)
    store = engine._store
    model = engine._embedder if embedder is None else embedder
    with scratch("eval") as tmp:  # (owner only; zeroed on exit; swept if this process dies)
        config = replace(engine.config, home=tmp, store_url="", record=False, **settings)
        whole = isinstance(store, FileCopy)
        if isinstance(store, FileCopy):  # the file at once: row numbers, index, vectors
            store.copy_file(config.db_path)
            private(config.db_path)  # (its journal and WAL take the same mode)
            columns = saved_columns(store)  # and its saved briefing columns (no text): the
            if columns is not None and columns.is_file():  # copy resumes them, checked
                with contextlib.suppress(OSError):
                    shutil.copyfile(columns, f"{config.db_path}.columns")
        with memory.open(config=config, clock=engine._clock, embedder=model, llm=None) as other:
            target = other._store
            if not whole:
                with other._authority.copying():  # (as migrate copies: memories, vectors...)
                    copy_store(store, target)
            if embedder is not None:
                _clear_vectors(target)
                mine = [r for r in target.iter_all() if r.user == owner]
                for start in range(0, len(mine), BATCH):
                    part = mine[start : start + BATCH]
                    made = other.vectors.embed([r.content for r in part])
                    assert made is not None
                    with target.transaction():
                        other.vectors.put_many(list(zip((r.id for r in part), made, strict=True)))
            yield other


def hold_out(other: Memory, memory_ids: Sequence[str]) -> None:
    """Leave those memories' titles and entities out of the copy (their text and vectors
    stay): a probe asked with them finds the memory by what else it holds, or not at all."""
    target = other._store
    with target.transaction(), other._authority.copying():
        for memory_id in memory_ids:
            record = target.get(memory_id)
            if record is not None:
                target.replace(replace(record, title=None, entities=()))


def _clear_vectors(target: Store) -> None:
    """No vector of the copied model stays (the other model's go in)."""
    from salience.search.vectors import DIMENSIONS_KEY, IDENTITY_KEY  # (brings NumPy)

    with target.transaction():
        target.clear_vectors()
        target.set_meta(IDENTITY_KEY, None)
        target.set_meta(DIMENSIONS_KEY, None)
