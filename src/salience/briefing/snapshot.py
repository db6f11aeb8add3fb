"""A store's memories held as columns, kept current across processes.

The first look reads every row once; each later look asks the store what was added, changed
or deleted since (migration 0007's change log) and applies only that, so a briefing in a
long-running process (a server, an MCP process) costs the policy, not a read of the store.
A store that cannot say (a layer from before the change log, or a reader so far behind
that the log was pruned past it) is read whole again.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING

from salience.briefing import persisted
from salience.briefing.columns import Columns, Vocabularies
from salience.briefing.growing import Room
from salience.briefing.passing import (
    AHEAD_UP_TO,
    Ahead,
    ahead,
    answerable,
    first_passing,
    matching,
    passes,
    positions,
)
from salience.briefing.ranking import by_key_then_id, in_key_order
from salience.briefing.records import Records
from salience.briefing.tenant_ids import TenantIds
from salience.errors import StoreError
from salience.lazy import lazy_module
from salience.models import MemoryRecord, relabel
from salience.stores.arrays import file_key
from salience.stores.base import COLUMNS_KEY, MemoryFilter, RowChanges, Store
from salience.text import forget_cached_texts

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")


SAVE_AFTER = 1000
"""Rows read from the store since the columns were saved that make them worth saving again
(reading 1000 records costs a new process ~30 ms; saving 100k rows' columns ~30 ms)."""
SEQ_INDEX_UP_TO = 20_000
"""Stores up to this many rows keep a dict of their ids for :meth:`ColumnSnapshot.matching`
(built at a process's first recall: a few ms at 20,000; a larger store's filter is the
store's, where the vector search's own cost dwarfs the query's)."""
SAVE_FROM = 2000
"""Stores smaller than this are read whole by a new process (a few ms): nothing is saved."""
VOCABULARY_FIELDS = tuple(f.name for f in fields(Vocabularies))


class ColumnSnapshot:
    """One store's memories (every user, forgotten ones too) as :class:`Columns`.

    Rows are kept in row-number order; :meth:`view` gives one user's current-or-superseded
    memories newest first, the order the store lists them in.
    """

    def __init__(
        self, store: Store, vocab: Vocabularies, layer: str = "local", saved: Path | None = None
    ) -> None:
        self.store = store
        self.layer = layer
        self._vocab = vocab
        self._saved = saved  # where the columns are kept between processes (None: nowhere)
        self._unsaved = 0  # rows read from the store since the columns were last saved
        self._columns: Columns | None = None
        self._room = Room()  # (the columns grow in place: see salience.briefing.growing)
        self._marker: tuple[int, int] | None = None
        self._last_seq = 0
        self._last_change = 0
        self._version = 0
        self._views: dict[tuple[str, ...], tuple[int, Columns]] = {}
        self._seq_of: dict[str, int] = {}  # id -> row number, for the columns below
        self._seq_for: Columns | None = None  # (kept up to date by _apply; else rebuilt)
        self._tenant_ids = TenantIds()  # (a large store's: kept up to date by _apply)
        # The records read lately, kept up to date by _apply; none kept for a store with a
        # read replica (what it gives may be older than the change log read from the primary).
        self._records = Records() if store.read_replica() is None else None
        self._lock = threading.Lock()

    def refresh(self) -> Columns:
        """The columns as the store is now (reading only what changed since the last look)."""
        with self._lock:
            return self._refresh()

    def _refresh(self) -> Columns:
        changes = None
        if self._columns is None and self._saved is not None:
            self._resume()
        if self._columns is not None:
            marker = self.store.change_marker()
            if marker == self._marker and not self.store.in_transaction():
                # Nobody committed since (and this thread has nothing open): nothing to read.
                changes = RowChanges([], [], self._last_seq, self._last_change)
            else:
                self._marker = marker
                changes = self.store.row_changes(self._last_seq, self._last_change)
        if changes is None:
            self._read_whole()
        elif changes.rows or changes.deleted:
            self._apply(changes)
            self._version += 1
            self._unsaved += len(changes.rows) + len(changes.deleted)
        assert self._columns is not None
        if self._unsaved >= SAVE_AFTER and len(self._columns) >= SAVE_FROM:
            self._save()
        return self._columns

    def _read_whole(self) -> None:
        self._marker = self.store.change_marker()
        everything = self.store.all_rows()
        if self._records is not None:  # (the newest it read, unless they may be rolled back)
            self._records.clear()
            if not self.store.in_transaction():
                self._records.changed([record for _, record in everything.rows], ())
        self._columns = self._build(everything.rows)
        self._room.fresh()
        self._last_seq, self._last_change = everything.last_seq, everything.last_change
        self._version += 1
        self._unsaved = max(SAVE_AFTER, len(everything.rows))

    def _resume(self) -> None:
        """Start from the saved columns if they are this store's and still hold (else read
        the store whole on the way out): caught up from the change log, then counted."""
        assert self._saved is not None
        key = self.store.get_meta(COLUMNS_KEY)
        if key is None or any(getattr(self._vocab, f).names for f in VOCABULARY_FIELDS):
            return  # never saved here, or codes already given out: start from the store
        counted = persisted.CountAside(self.store)  # (beside loading the columns)
        try:
            saved = persisted.load(self._saved, key, self._vocab)
            if saved is None:
                return
            self._marker = self.store.change_marker()
            changes = self.store.row_changes(saved.last_seq, saved.last_change)
            if (
                changes is None
                or changes.last_seq < saved.last_seq
                or changes.last_change < saved.last_change
            ):
                return  # the log no longer reaches back, or the store went back in time
            self._columns = saved.columns
            self._last_seq, self._last_change = saved.last_seq, saved.last_change
            self._apply(changes)
            self._version += 1
            self._unsaved = len(changes.rows) + len(changes.deleted)
            if len(self._columns) != counted.result():
                self._columns = None  # not what the store holds after all: read it whole
        finally:
            counted.wait()

    def _save(self) -> None:
        """Keep the columns for the next process (best effort: a failure costs it a read)."""
        self._unsaved = 0
        if self._saved is None or self.store.read_only or self._columns is None:
            return
        try:
            key = file_key(self.store)
            persisted.save(self._saved, self._columns, self._last_seq, self._last_change, key)
        except (OSError, StoreError):
            pass  # (a read-only directory, a busy store): the next process reads the store

    def discard_saved(self) -> int:
        """Delete the columns kept on disk (after an erasure: the next save, of the columns as
        they are then, holds no name only erased memories had); how many files went."""
        with self._lock:
            self._unsaved = max(self._unsaved, SAVE_AFTER)  # (saved again at the next look)
            if self._saved is None or not self._saved.exists():
                return 0
            self._saved.unlink(missing_ok=True)
            return 1

    def _build(self, rows: Sequence[tuple[int, MemoryRecord]]) -> Columns:
        records = [r if self.layer == "local" else relabel(r, self.layer) for _, r in rows]
        return Columns.from_records(records, self._vocab, [seq for seq, _ in rows])

    def _apply(self, changes: RowChanges) -> None:
        assert self._columns is not None
        columns = self._columns
        index = self._seq_of if self._seq_for is columns else None
        self._seq_for = None
        before = columns
        gone_ids: list[str] = []
        if changes.deleted:
            # Purged or erased, perhaps by another process: their words leave this one's
            # caches too (salience.text).
            forget_cached_texts()
            gone = np.isin(columns.seqs, np.array(changes.deleted, dtype=np.int64))
            if gone.any():
                gone_ids = columns.ids[gone].tolist()
                columns = columns.take(~gone)  # (a copy: views of the old arrays are safe)
                self._room.fresh()
        at, found = positions(columns, [seq for seq, _ in changes.rows])
        if found.any():
            changed = [changes.rows[i] for i in np.flatnonzero(found).tolist()]
            columns = self._room.changed(columns, at[found], self._build(changed))
        if not found.all():
            added = sorted((changes.rows[i] for i in np.flatnonzero(~found).tolist()), key=_seq)
            below = len(columns) > 0 and added[0][0] <= int(columns.seqs[-1])
            columns = self._room.appended(columns, self._build(added))
            if below:  # a row number reused below the top
                columns = columns.take(np.argsort(columns.seqs, kind="stable"))
                self._room.fresh()
        self._columns = columns
        self._tenant_ids.follow(before, columns, gone_ids, changes.rows)
        if self._records is not None and self.store.in_transaction():
            self._records.clear()  # (what it changed may yet be rolled back)
        elif self._records is not None:
            self._records.changed([record for _, record in changes.rows], gone_ids)
        if index is not None:
            for memory_id in gone_ids:
                index.pop(memory_id, None)
            index.update((record.id, seq) for seq, record in changes.rows)
            self._seq_for = columns
        self._last_seq = max(self._last_seq, changes.last_seq)
        self._last_change = max(self._last_change, changes.last_change)

    def records(self, memory_ids: Sequence[str], flt: MemoryFilter) -> list[MemoryRecord]:
        """:meth:`Store.get_many <salience.stores.base.Store.get_many>` as the store is now,
        from the records this snapshot keeps current (:mod:`salience.briefing.records`) when
        it keeps them all and the filter is one it can answer; else read (and kept)."""
        with self._lock:
            kept = self._records
            if kept is None or self._columns is None or self.store.in_transaction():
                return self.store.get_many(memory_ids, flt)  # (nothing followed: nothing kept)
            self._refresh()  # (what changed since is replaced, what went is dropped)
            found, missing = kept.found(memory_ids)
            if not missing and answerable(flt):
                return [found[i] for i in memory_ids if passes(found[i], flt)]
            read = self.store.get_many(memory_ids, flt)
            kept.put(read)
            return read

    def matching(
        self, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[tuple[int, str]] | None:
        """:meth:`Store.matching <salience.stores.base.Store.matching>` answered from the
        columns as the store is now (:func:`~salience.briefing.passing.matching`); None
        when the store must answer, or the store is too large for a dict of its ids
        (:data:`SEQ_INDEX_UP_TO`)."""
        with self._lock:
            return self._matching(memory_ids, flt)

    def _matching(
        self, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[tuple[int, str]] | None:
        if not answerable(flt):
            return None
        if len(self._columns or ()) > SEQ_INDEX_UP_TO:
            return self._tenant_ids.matching(self._refresh, memory_ids, flt)
        columns = self._refresh()
        if len(columns) > SEQ_INDEX_UP_TO:
            return self._tenant_ids.matching(self._refresh, memory_ids, flt)
        if self._seq_for is not columns:
            self._seq_of = dict(zip(columns.ids.tolist(), columns.seqs.tolist(), strict=True))
            self._seq_for = columns
        return matching(columns, self._seq_of, memory_ids, flt)

    def ahead(self, flt: MemoryFilter) -> Ahead | None:
        """:func:`~salience.briefing.passing.ahead` as the store is now (None: the store or
        :meth:`matching` must answer)."""
        with self._lock:
            if not answerable(flt) or len(self._columns or ()) > AHEAD_UP_TO:
                return None
            return ahead(self._refresh(), flt)

    def passing(
        self, seqs: npt.NDArray[np.int64], flt: MemoryFilter, limit: int
    ) -> tuple[list[int], list[str]] | None:
        """:func:`~salience.briefing.passing.first_passing` as the store is now."""
        with self._lock:
            return first_passing(self._refresh(), seqs, flt, limit) if answerable(flt) else None

    def rows(self, seqs: Sequence[int]) -> tuple[Columns, npt.NDArray[np.intp]]:
        """The rows numbered ``seqs`` as the store is now, and which positions of ``seqs``
        they are: a row deleted since it was found is left out. A copy; up to
        :data:`LAZY_ROWS` rows, each column taken when first read (lent: a change copies
        what it alters first), as a recall reads half of them (0.05 ms on a LoCoMo
        conversation, after the query's embedding)."""
        with self._lock:
            columns = self._refresh()
            at, found = positions(columns, seqs)
            lazy = len(columns) <= LAZY_ROWS
            if lazy:  # (a change then copies the two or three columns it alters: a few KB)
                self._room.lent()
            return columns.take(at[found], lazy=lazy), np.flatnonzero(found)

    def everyone(self) -> Columns:
        """Every user's memories that are not forgotten, in row order."""
        with self._lock:
            columns = self._refresh()
            self._room.lent()
            return columns.take(~columns.forgotten, lazy=True)

    def view(self, user: str, spaces: tuple[str, ...] = ()) -> Columns:
        """``user``'s memories that are not forgotten, with those of the spaces (owner names)
        it reads, newest first (cached until a change)."""
        with self._lock:
            return self._view(user, spaces)

    def _view(self, user: str, spaces: tuple[str, ...] = ()) -> Columns:
        columns = self._refresh()
        key = (user, *spaces)
        cached = self._views.get(key)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        users = self._vocab.users
        if spaces:
            owners = np.isin(columns.user, [users.lookup(u) for u in key])
        else:
            owners = columns.user == users.lookup(user)
        shown = owners & ~columns.forgotten
        if shown.all() and in_key_order(columns.created, columns.ids):
            # (written in time order, as usual: the rows reversed, views, not copies: 4-8 ms)
            view = columns.take(slice(None, None, -1), lazy=True)
        else:
            mine = np.flatnonzero(shown)
            newest = by_key_then_id(columns.created[mine], columns.ids, mine)[::-1]
            order: npt.NDArray[np.intp] = mine[newest]
            view = columns.take(order, lazy=True)
        self._room.lent()
        self._views[key] = (self._version, view)
        return view


LAZY_ROWS = 5000
"""Columns of up to this many rows lend a recall the rows it asks for
(:meth:`ColumnSnapshot.rows`)."""


def _seq(row: tuple[int, MemoryRecord]) -> int:
    return row[0]
