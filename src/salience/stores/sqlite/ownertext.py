"""A small tenant's own copy of its rows' full text: on a SQLite store of many users, a
full-text search pays for its own memories, not for everyone's.

FTS5 ranks every row of the store that matches a query before the user filter is applied:
at 1,000 users over 100,000 memories, a user of 1,000 recalled in 2.65x the time of a store
of its own (p95 8.6x), most of it in FTS5 scoring the others' rows. So a search that names
its owners (a user and the spaces it reads), on a store of more than
:data:`~salience.stores.tenancy.FROM` rows, is answered from an in-memory copy of those
owners' rows alone when they are a small tenant (:func:`~salience.stores.tenancy.small`):
their token instances as FTS5's own tokenizer splits their text (a TEMP FTS5 table of the
same columns, as a catch-up of the store's copy reads them,
:mod:`~salience.stores.sqlite.textcopy`), scored with FTS5's formula
(:meth:`~salience.stores.sqlite.textindex.TextIndex.ranked`) over the store's statistics: its
averages record (row and token counts) and, for each query word, how many of the store's rows
it matches (:meth:`~salience.stores.fts_terms.TermCounts.rows_matching`; kept while the
index stays in one state). The scores are the doubles FTS5 gives those rows in the whole
store, the order the same (ties by row number): the same hits as before, at the cost of the
tenant's rows.

A copy loads on a thread of its own at the owners' second search (FTS5 answers meanwhile; a
command that searches once loads none) and follows the store by its change log, each search
reading only the owners' rows written since. A row of the copy deleted (a purge, an erasure),
or no longer the owners', drops the copy, so its words leave memory; it loads again at the
next search. Copies are kept for the owner sets searched most recently, within
:data:`BUDGET_BYTES`.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from salience.stores.fts_terms import TermCounts
from salience.stores.sqlite.rows import counters
from salience.stores.sqlite.textcopy import Loading, later, tokens_of, written_since
from salience.stores.sqlite.textindex import COLUMNS, TextIndex, state
from salience.stores.tenancy import FROM, SMALL, TenantCopies, key_of, small

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

BUDGET_BYTES = 64 * 2**20
"""The most the tenants' copies hold in all (their arrays), the least recently used first
given up (a tenant of 1,000 rows of ~25 words: ~0.3 MB)."""


class _Unknown(Exception):
    """A word's count in the store could not be read."""


Ranked = tuple["npt.NDArray[np.int64]", "npt.NDArray[np.float64]"]


class OwnerTexts(Loading):
    """The small tenants' copies of one store (see the module docstring)."""

    def __init__(
        self, connect: Callable[[], sqlite3.Connection], budget: int = BUDGET_BYTES
    ) -> None:
        super().__init__(connect)
        self._copies: TenantCopies[TextIndex] = TenantCopies(budget, _nbytes)
        self._asked: OrderedDict[tuple[str, ...], None] = OrderedDict()  # searched once
        self._counted: tuple[bytes, dict[tuple[str, bool], int]] = (b"", {})

    def ranked(
        self,
        conn: sqlite3.Connection,
        owners: Sequence[str],
        words_of: Callable[[int], tuple[list[str], list[tuple[str, ...]]] | None],
        dated: bool,
        terms: TermCounts,
    ) -> Ranked | None:
        """The owners' rows matching the query and their scores, best first, read in
        ``conn``'s open read transaction; None if the owners are no small tenant of this
        store, have no current copy, or ``words_of`` gives None (then FTS5 answers).
        ``words_of(rows)``: the query's words in a store of that many rows, and their tokens
        (asked only when a copy answers)."""
        marker, averages = state(conn)
        total = averages[0] if averages else 0
        if total < FROM or not owners:
            return None
        index = self._copy(conn, key_of(owners), marker, averages)
        if index is None:
            return None
        found = words_of(total)
        if found is None:
            return None
        words, phrases = found
        with self._lock:
            seen, known = self._counted
            if seen != marker:  # (counts hold while the index stays in one state)
                known = {}
                self._counted = (marker, known)

        def count(at: int) -> int:
            key = (words[at], dated)
            found = known.get(key)
            if found is None:
                found = terms.rows_matching(words[at], phrases[at], dated)
                if found is None:
                    raise _Unknown
                known[key] = found
            return found

        try:
            return index.ranked(phrases, dated, averages=averages, counts=count)
        except _Unknown:  # (this connection cannot count: FTS5 answers)
            return None

    def _copy(
        self,
        conn: sqlite3.Connection,
        key: tuple[str, ...],
        marker: bytes,
        averages: Sequence[int],
    ) -> TextIndex | None:
        """The current copy of ``key``'s rows, if they are a small tenant and have one."""
        total = averages[0]
        index, large = self._copies.find(key)
        if large:
            return None
        if index is None:
            self._wanted(conn, key, total)
            return None
        index = self._current(conn, key, index, marker, averages)
        if index is not None and not small(index.live_rows(), total):
            self._copies.large(key)  # (grown past the bound: FTS5 again)
            return None
        return index

    def _current(
        self,
        conn: sqlite3.Connection,
        key: tuple[str, ...],
        index: TextIndex,
        marker: bytes,
        averages: Sequence[int],
    ) -> TextIndex | None:
        """``index`` brought to what ``conn`` sees (None: it cannot be, and is dropped if it
        cannot follow)."""
        now = counters(conn)
        if now is None or index.position is None:
            return None
        if now == index.position:
            return index
        if not later(now, index.position):
            return None  # (this transaction sees an earlier state than the copy's)
        try:
            written = written_since(conn, index, key)
        except sqlite3.OperationalError:  # (a read-only connection makes no TEMP table)
            written = None
        if written is None or written[1]:  # (rows deleted: their words leave memory)
            self._copies.forget(key, index)
            with self._lock:
                self._asked[key] = None  # (loaded again at the next search)
            return None
        present, _, position = written
        caught = (
            index.caught_up(marker, averages, position, present, ())
            if present
            else index.moved(position)
        )
        if self._copies.keep(key, caught, instead_of=index):  # (else another search moved it on)
            self.catches += 1
        return caught

    def _wanted(self, conn: sqlite3.Connection, key: tuple[str, ...], total: int) -> None:
        """A search of ``key`` found no copy: count their rows the first time (a large
        tenant is remembered as such), and start loading a copy the second."""
        with self._lock:
            again = key in self._asked
            self._asked[key] = None
            self._asked.move_to_end(key)
            while len(self._asked) > 4096:
                self._asked.popitem(last=False)
        if not again:
            marks = ", ".join("?" for _ in key)
            row = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM memories WHERE user IN ({marks}) LIMIT ?)",
                (*key, SMALL + 1),
            ).fetchone()
            if not small(int(row[0]), total):
                self._copies.large(key)
                with self._lock:
                    self._asked.pop(key, None)  # (counted again, not loaded, when next asked)
            return

        def loaded(index: TextIndex) -> None:
            total = index.averages[0] if index.averages else 0
            if small(index.live_rows(), total):
                self._copies.keep(key, index)
            else:
                self._copies.large(key)

        with self._lock:  # (one load at a time: a later search asks again)
            if self._thread is None:
                self._asked.pop(key, None)
            self._start(lambda conn: load(conn, key), loaded, "salience-tenant-text")

    def kept(self, owners: Sequence[str]) -> TextIndex | None:
        """The copy of ``owners``' rows, if one is kept."""
        return self._copies.kept(owners)

    def drop(self) -> None:
        """Keep no copy (rows were deleted: their words go with them)."""
        self._copies.clear()

    def close(self) -> None:
        """Wait for a load under way; keep no copy."""
        self._stop()
        self._copies.clear()


def _nbytes(index: TextIndex) -> int:
    return index.nbytes


def load(conn: sqlite3.Connection, owners: Sequence[str]) -> TextIndex:
    """A copy of ``owners``' rows, read in one read transaction on ``conn``."""
    marks = ", ".join("?" for _ in owners)
    columns = ", ".join(f"f.{name}" for name in COLUMNS)
    conn.execute("BEGIN")
    try:
        position = counters(conn)
        marker, averages = state(conn)
        texts = conn.execute(
            f"SELECT f.rowid, {columns} FROM memories m JOIN memory_fts f ON f.rowid = m.seq "
            f"WHERE m.user IN ({marks})",
            tuple(owners),
        ).fetchall()
        present = tokens_of(conn, texts)
    finally:
        conn.execute("COMMIT")
    return TextIndex.of_rows(marker, averages, position, present)
