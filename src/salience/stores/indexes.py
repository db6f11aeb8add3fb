"""The indexes a store keeps beside its records: the vectors, and the full-text index whose
agreement with the rows recall checks before it trusts them (:mod:`salience.engine.degraded`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from salience.models import MemoryRecord


class Indexes(Protocol):
    """A store's vectors and full-text index (part of :class:`~salience.stores.base.Store`)."""

    def set_vector(self, memory_id: str, vector: bytes) -> None:
        """Store or replace a memory's embedding (float32 bytes) with a new, higher vseq."""
        ...

    def set_vectors(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """:meth:`set_vector` for many memories at once, in one transaction (in order)."""
        ...

    def bulk_load(self) -> AbstractContextManager[None]:
        """``with store.bulk_load():`` many vectors are about to be written (a migration, a
        benchmark's fill): indexes that each write would extend are built once, at the end.
        Meanwhile the store's approximate search finds nothing: not for a store in use."""
        ...

    def clear_vectors(self) -> None:
        """Drop every embedding."""
        ...

    def vector_state(self) -> tuple[int, int]:
        """(number of vectors, highest vseq)."""
        ...

    def change_marker(self) -> tuple[int, int]:
        """A cheap value that differs after any write by another process or a vector write."""
        ...

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, bytes]:
        """The stored vector (float32 bytes) of each of those memories that has one, read
        from the store (a page of a whole-store read: nothing else is loaded)."""
        ...

    def vector_rows(
        self, after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """(vseq, memory id, session id, vector) with ``vseq > after``, by vseq (the first
        ``limit`` of them when given: a page)."""
        ...

    def owner_vector_state(self, owners: Sequence[str]) -> tuple[int, int]:
        """(number of vectors, highest vseq) of the memories of ``owners`` (users, spaces):
        one index lookup per owner, whatever the store holds besides."""
        ...

    def owner_vector_rows(
        self, owners: Sequence[str], after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """:meth:`vector_rows` of the memories of ``owners`` alone."""
        ...

    def without_vectors(self, limit: int) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` records without an embedding, in id order."""
        ...

    def count_without_vectors(self) -> int:
        """How many records have no embedding."""
        ...

    def indexed(self) -> tuple[int, int]:
        """(rows in the full-text index, vectors): both kept by the store as it writes, so
        cheap to read; with an embedder they equal the number of records when all is well."""
        ...

    def missing_text(self) -> int:
        """How many records the full-text index lacks (a damaged or stale index)."""
        ...

    def repair_text(self) -> int:
        """Index the records the full-text index lacks, and drop its rows of no record; how
        many records it added."""
        ...

    def settle_text(self) -> int:
        """After many rows were written at once, the full-text index made as fast to search
        as it will be (best effort: it may also be left to the database); what it merged."""
        ...
