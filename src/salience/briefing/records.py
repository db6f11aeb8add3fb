"""The records a process read lately, kept as current as its columns.

A recall reads the records of its ten hits, a briefing those it shows: on a LoCoMo
conversation the query took ~0.3 ms of a recall's ~3.4 (docs/benchmarks.md), and the same
memories come back recall after recall. A :class:`~salience.briefing.snapshot.ColumnSnapshot`
keeps the newest :data:`RECORDS_KEPT` it read in :class:`Records` (its first look's, which
reads every row: a small store is kept whole, and those a recall read) and follows the
store's change log for them as it does for its columns: a changed row's record replaces the
one kept, a deleted row's goes, and what it cannot follow (the uncommitted rows of a
transaction) empties it. An erasure empties every one of them
(:func:`salience.text.forget_cached_texts`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from salience.models import MemoryRecord
from salience.text import holds_text

RECORDS_KEPT = 4096
"""Records a snapshot keeps (the least recently used go first): a few MB of text."""


class Records:
    """Records by id, the least recently used first."""

    def __init__(self, limit: int = RECORDS_KEPT) -> None:
        self._limit = limit
        self._kept: dict[str, MemoryRecord] = {}
        self._lock = threading.Lock()  # (an erasure empties it from any thread)
        _ALL.add(self)

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        """Forget every record."""
        with self._lock:
            self._kept.clear()

    def found(self, memory_ids: Sequence[str]) -> tuple[dict[str, MemoryRecord], list[str]]:
        """The records kept of those ids (now the most recently used), and the ids of the
        others."""
        kept = self._kept
        found: dict[str, MemoryRecord] = {}
        missing: list[str] = []
        with self._lock:
            for memory_id in memory_ids:
                record = kept.pop(memory_id, None)
                if record is None:
                    missing.append(memory_id)
                else:
                    found[memory_id] = kept[memory_id] = record
        return found, missing

    def put(self, records: Iterable[MemoryRecord]) -> None:
        """Keep these records (read from the store just now), replacing any of the same ids."""
        kept = self._kept
        with self._lock:
            for record in records:
                kept.pop(record.id, None)
                kept[record.id] = record
            while len(kept) > self._limit:
                del kept[next(iter(kept))]

    def changed(self, records: Sequence[MemoryRecord], gone: Iterable[str]) -> None:
        """The store's changes as a snapshot read them: these records added or changed (kept,
        the newest :data:`RECORDS_KEPT` of them), those ids deleted."""
        with self._lock:
            for memory_id in gone:
                self._kept.pop(memory_id, None)
        self.put(records[-self._limit :])


class _Sizes(NamedTuple):
    currsize: int


class _Every:
    """Every :class:`Records` of the process, as :func:`~salience.text.holds_text` sees a
    cache: an erasure (this process's or another's) empties them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._each: weakref.WeakSet[Records] = weakref.WeakSet()

    def add(self, records: Records) -> None:
        with self._lock:
            self._each.add(records)

    def cache_clear(self) -> None:
        with self._lock:
            each = list(self._each)
        for records in each:
            records.clear()

    def cache_info(self) -> _Sizes:
        with self._lock:
            return _Sizes(sum(len(r) for r in self._each))


_ALL = holds_text(_Every())
