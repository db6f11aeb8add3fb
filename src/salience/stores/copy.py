"""Copy one store into another, whatever their backends: ``salience migrate``.

Everything goes, through the :class:`~salience.stores.base.Store` contract only: every memory
(superseded and forgotten versions too, with their ids, times and counters), every vector (in
the order it was written), the audit log (oldest first), sessions, decay bases, update
links, the store's settings (the embedder identity), API keys (their hashes), mounted
layers, and spaces with their grants. The target must be empty: a copy never merges into
memories that are already there.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from salience.errors import ConflictError
from salience.models.reports import CopyReport
from salience.stores.base import COLUMNS_KEY, PAGE, Store

BATCH = 500  # rows per transaction: a crash loses at most one batch, never half a row


def copy_store(
    source: Store, target: Store, progress: Callable[[int, int], None] | None = None
) -> CopyReport:
    """Copy everything in ``source`` into the empty ``target``; ``progress(done, total)``
    counts memories, then vectors. Reads a page at a time: memory stays bounded whatever
    the size of the store (the source should not be written meanwhile)."""
    if next(iter(target.iter_all()), None) is not None or target.vector_state()[0]:
        raise ConflictError(
            f"{target.location} already holds memories; migrate copies into an empty store only"
        )
    total = source.count_rows() + source.vector_state()[0]
    advance = _counter(total, progress)
    records = source.iter_all()
    copied = 0
    while batch := list(itertools.islice(records, BATCH)):
        with target.transaction():
            for record in batch:
                target.insert(record)
        copied += len(batch)
        advance(len(batch))
    vectors, after = 0, 0
    with target.bulk_load():  # (PostgreSQL: the HNSW index is built once, after)
        while part := source.vector_rows(after, BATCH):
            target.set_vectors([(memory_id, vector) for _, memory_id, _, vector in part])
            vectors, after = vectors + len(part), part[-1][0]
            advance(len(part))
    with target.transaction():
        audit, counts = _copy_beside(source, target)
    advance(0)
    return CopyReport(copied, vectors, audit, *counts)


def _copy_beside(source: Store, target: Store) -> tuple[int, tuple[int, int, int, int]]:
    """Inside the target's transaction: what a store keeps beside its memories. The audit
    entries copied, and how many sessions, keys, layers and spaces."""
    audit, after = 0, 0
    while entries := source.audit_page(after, PAGE):
        target.append_audit(entries)
        audit, after = audit + len(entries), entries[-1].seq
    sessions = source.sessions()
    for session in sessions:
        target.save_session(session)
    for memory_id, (importance, set_at) in source.importance_bases().items():
        target.set_importance_base(memory_id, importance, set_at)
    for key, value in source.all_meta().items():
        if key != COLUMNS_KEY:  # names the source's own saved columns
            target.set_meta(key, value)
    keys = source.api_keys()
    for api_key in keys:
        target.save_key(api_key)
    layers = source.layers()
    for mount in layers:
        target.mount_layer(mount)
    target.save_update_links(source.update_links(None, ("open", "confirmed", "dismissed")))
    spaces = source.spaces()
    for space in spaces:
        target.add_space(space)
    for grant in source.grants():
        target.set_grant(grant)
    return audit, (len(sessions), len(keys), len(layers), len(spaces))


def _counter(total: int, progress: Callable[[int, int], None] | None) -> Callable[[int], None]:
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    return advance
