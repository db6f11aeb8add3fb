"""Copy one store into another, whatever their backends: ``salience migrate``.

Everything goes, through the :class:`~salience.stores.base.Store` contract only: every memory
(superseded and forgotten versions too, with their ids, times and counters), every vector (in
the order it was written), the audit log (oldest first), sessions, decay bases, the store's
settings (the embedder identity), API keys (their hashes) and mounted layers. The target must
be empty: a copy never merges into memories that are already there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from salience.errors import ConflictError
from salience.stores.base import COLUMNS_KEY, Store

BATCH = 500  # rows per transaction: a crash loses at most one batch, never half a row


@dataclass(frozen=True)
class CopyReport:
    """What was copied."""

    memories: int
    vectors: int
    audit_entries: int
    sessions: int
    api_keys: int
    layers: int


def copy_store(
    source: Store, target: Store, progress: Callable[[int, int], None] | None = None
) -> CopyReport:
    """Copy everything in ``source`` into the empty ``target``; ``progress(done, total)``
    counts memories, then vectors."""
    if next(iter(target.iter_all()), None) is not None or target.vector_state()[0]:
        raise ConflictError(
            f"{target.location} already holds memories; migrate copies into an empty store only"
        )
    records = list(source.iter_all())
    vectors = source.vector_rows(0)
    total = len(records) + len(vectors)
    advance = _counter(total, progress)
    for start in range(0, len(records), BATCH):
        with target.transaction():
            for record in records[start : start + BATCH]:
                target.insert(record)
        advance(len(records[start : start + BATCH]))
    with target.bulk_load():  # (PostgreSQL: the HNSW index is built once, after)
        for start in range(0, len(vectors), BATCH):
            part = vectors[start : start + BATCH]
            target.set_vectors([(memory_id, vector) for _, memory_id, _, vector in part])
            advance(len(part))
    audit = list(reversed(source.audit_entries(None, None)))
    sessions = source.sessions()
    keys = source.api_keys()
    layers = source.layers()
    with target.transaction():
        for start in range(0, len(audit), BATCH):
            target.append_audit(audit[start : start + BATCH])
        for session in sessions:
            target.save_session(session)
        for memory_id, (importance, set_at) in source.importance_bases().items():
            target.set_importance_base(memory_id, importance, set_at)
        for key, value in source.all_meta().items():
            if key != COLUMNS_KEY:  # names the source's own saved columns
                target.set_meta(key, value)
        for api_key in keys:
            target.save_key(api_key)
        for mount in layers:
            target.mount_layer(mount)
    advance(0)
    return CopyReport(len(records), len(vectors), len(audit), len(sessions), len(keys), len(layers))


def _counter(total: int, progress: Callable[[int, int], None] | None) -> Callable[[int], None]:
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    return advance
