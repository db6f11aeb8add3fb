"""A scratch copy of the store for an evaluation: under another embedder, or with some
memories' titles and entities held out.

Vectors of another model cannot be compared with the store's, so an evaluation that asks how
recall would do with another embedder copies the store into a new SQLite store in a private
temporary directory, embeds the evaluated user's memories with that model, and asks the
probes there. A probe drawn from a memory's own title or entities asks with the memory's
title and entities held out (``Memory.hold_out``), on a copy that keeps the store's vectors.

A copy of a SQLite store is its file, copied with SQLite's online backup (row numbers, index,
vectors and layers as they are); a PostgreSQL store is copied as ``salience migrate`` copies
it (``Memory.copy_into``: every memory of every user, so full-text
statistics are the store's, with ids, times, counters, importance bases, vectors, layers). A
copy records nothing, and when the run ends its files are overwritten with zeros and
deleted.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from salience.briefing.source import saved_columns
from salience.engine.memory import Memory
from salience.scratch import private, scratch
from salience.stores.base import Store
from salience.stores.registry import FileCopy

if TYPE_CHECKING:
    from salience.embeddings import Embedder

BATCH = 500


@contextmanager
def twin(
    memory: Memory, owner: str, embedder: Embedder | None, settings: dict[str, Any]
) -> Iterator[Memory]:
    """An engine over a copy of ``memory``'s store configured with ``settings``: with
    ``embedder``, ``owner``'s memories embedded again by it; without, the store's own vectors
    and model. Gone on exit."""
    store = memory.store
    model = memory.vectors.embedder if embedder is None else embedder
    with scratch("eval") as tmp:  # (owner only; zeroed on exit; swept if this process dies)
        config = replace(memory.config, home=tmp, store_url="", record=False, **settings)
        whole = isinstance(store, FileCopy)
        if isinstance(store, FileCopy):  # the file at once: row numbers, index, vectors
            store.copy_file(config.db_path)
            private(config.db_path)  # (its journal and WAL take the same mode)
            columns = saved_columns(store)  # and its saved briefing columns (no text): the
            if columns is not None and columns.is_file():  # copy resumes them, checked
                with contextlib.suppress(OSError):
                    shutil.copyfile(columns, f"{config.db_path}.columns")
        with Memory.open(config=config, clock=memory.clock, embedder=model, llm=None) as other:
            if not whole:
                memory.copy_into(other)  # (as migrate copies: memories, vectors...)
            if embedder is not None:
                target = other.store
                _clear_vectors(target)
                mine = [r for r in target.iter_all() if r.user == owner]
                for start in range(0, len(mine), BATCH):
                    part = mine[start : start + BATCH]
                    made = other.vectors.embed([r.content for r in part])
                    assert made is not None
                    with target.transaction():
                        other.vectors.put_many(list(zip((r.id for r in part), made, strict=True)))
            yield other


def _clear_vectors(target: Store) -> None:
    """No vector of the copied model stays (the other model's go in)."""
    from salience.search.vectors import DIMENSIONS_KEY, IDENTITY_KEY  # (brings NumPy)

    with target.transaction():
        target.clear_vectors()
        target.set_meta(IDENTITY_KEY, None)
        target.set_meta(DIMENSIONS_KEY, None)
