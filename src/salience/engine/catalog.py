"""What the faces ask of the engine besides a :class:`~salience.engine.memory.Memory`'s verbs:
the scoring profiles, what kind of store a URL names, copying one store into another, and
what ``salience doctor`` checks of a store's indexes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from salience.profiles import PROFILES, Profile, get_profile
from salience.stores.base import Store
from salience.stores.copy import CopyReport, copy_store
from salience.stores.postgres import is_postgres_url
from salience.stores.scratch import scratch
from salience.stores.scratch import sweep as sweep_scratch
from salience.write.authority import Authority

__all__ = [
    "CopyReport",
    "Profile",
    "copy",
    "get_profile",
    "is_postgres_url",
    "missing_vectors",
    "profiles",
    "scratch",
    "store_kind",
    "sweep_scratch",
    "unfound_by_text",
]


def profiles() -> Mapping[str, Profile]:
    """Every scoring profile, by name."""
    return PROFILES


def store_kind(location: str) -> str:
    """``postgresql`` or ``sqlite``: the kind of store at ``location``."""
    return "postgresql" if is_postgres_url(location) else "sqlite"


def copy(
    source: Store, target: Store, progress: Callable[[int, int], None] | None = None
) -> CopyReport:
    """Copy everything in ``source`` into the empty ``target`` (see :mod:`salience.stores.copy`)."""
    with Authority(target).copying():
        return copy_store(source, target, progress)


def missing_vectors(store: Store) -> int:
    """How many memories have no vector (``salience reindex`` embeds them)."""
    return store.count_without_vectors()


def unfound_by_text(store: Store, as_of: datetime, sample: int) -> tuple[int, int]:
    """Whether full-text search finds the ``sample`` newest memories by their own words:
    (how many it did not find, how many were looked for). A stale or damaged index misses
    some; recall then says nothing of them."""
    from salience.stores.base import MemoryFilter

    recent = store.list(MemoryFilter(as_of=as_of), sample)
    unfound = 0
    for record in recent:
        mine = MemoryFilter(as_of=as_of, user=record.user)
        hits = store.search(record.content[:300], mine, 50)
        unfound += not any(hit.id == record.id for hit, _ in hits)
    return unfound, len(recent)
