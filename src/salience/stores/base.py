"""The narrow contract every store implements; the engine talks to nothing else."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from salience.models import MemoryRecord, Session, Stats


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a list or search considers. ``as_of`` decides what is still current."""

    as_of: datetime
    user: str | None = None
    project: str | None = None
    type: str | None = None
    tags: tuple[str, ...] = ()
    session_id: str | None = None
    topic_key: str | None = None
    content_hash: str | None = None
    entity: str | None = None
    include_superseded: bool = False
    include_forgotten: bool = False
    enabled_only: bool = False


class Store(Protocol):
    """Persistence of memory records, their full-text index and their derived tables.

    Writes are atomic per call; :meth:`transaction` groups several calls into one atomic unit
    that also excludes other writers (read-modify-write is safe inside it).
    """

    @property
    def location(self) -> str:
        """Where the data lives (a path or a URL without credentials)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group writes atomically; nested use joins the outer transaction."""
        ...

    def insert(self, record: MemoryRecord) -> None:
        """Add a new record (its id must not exist yet)."""
        ...

    def replace(self, record: MemoryRecord) -> None:
        """Overwrite the stored record that has ``record.id``."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id, or None."""
        ...

    def successors(self, memory_id: str) -> list[MemoryRecord]:
        """Records whose ``parent_id`` is ``memory_id``, oldest first."""
        ...

    def list(self, flt: MemoryFilter, limit: int | None) -> list[MemoryRecord]:
        """Records matching ``flt``, newest first."""
        ...

    def search(
        self, query: str, flt: MemoryFilter, limit: int
    ) -> builtins.list[tuple[MemoryRecord, float]]:
        """Full-text matches of a natural-language query, best first, with relevance > 0."""
        ...

    def touch(self, memory_ids: builtins.list[str], now: datetime) -> None:
        """Count one access for each id: ``access_count + 1``, ``last_accessed_at = now``."""
        ...

    def open_session(self, user: str) -> Session | None:
        """The user's newest session that has not ended, if any."""
        ...

    def save_session(self, session: Session) -> None:
        """Insert or overwrite a session."""
        ...

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        ...

    def delete(self, memory_id: str) -> bool:
        """Remove a record for good; False if it did not exist."""
        ...

    def entity_counts(self, flt: MemoryFilter, limit: int | None) -> builtins.list[tuple[str, int]]:
        """Entities of the matching memories with how many mention each, most first."""
        ...

    def iter_all(self) -> Iterator[MemoryRecord]:
        """Every record, in id order."""
        ...

    def stats(self, as_of: datetime) -> Stats:
        """Counts by status, type, user and project."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...
