"""Full-text search of the memory rows: FTS5, a small store's copy of its index in memory
(:mod:`salience.stores.sqlite.textindex`) or a small tenant's copy of its rows in a large one
(:mod:`salience.stores.sqlite.ownertext`), the filter answered by a query or by the caller."""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from salience.stores.filters import MemoryFilter, Passing
from salience.stores.sqlite.connection import Connection
from salience.stores.sqlite.rows import filter_sql, fts_match_expression
from salience.stores.sqlite.textindex import KEPT_UP_TO
from salience.stores.sqlite.textindex import state as index_state
from salience.text import query_terms

if TYPE_CHECKING:
    from salience.stores.sqlite.ownertext import OwnerTexts, Ranked
    from salience.stores.sqlite.textcopy import TextCopy

_MADE = threading.Lock()  # (the in-memory copies of a store are made once)
JOIN_ALL_UP_TO = 20_000
"""Stores up to this many rows join every full-text match (see ``FullText._fts``)."""


class FullText(Connection):
    """The full-text half of :class:`~salience.stores.sqlite.memories.MemoryRows`."""

    @property
    def _text_copy(self) -> TextCopy:
        """A small store's full-text index, in memory (:mod:`salience.stores.sqlite.textcopy`)."""
        return self._text_copies()[0]

    @property
    def _owner_texts(self) -> OwnerTexts:
        """Small tenants' full text, in memory (:mod:`salience.stores.sqlite.ownertext`)."""
        return self._text_copies()[1]

    def _text_copies(self) -> tuple[TextCopy, OwnerTexts]:
        """Both, made on the first full-text search (a process that only briefs never
        imports their modules)."""
        copies = self._copies
        if copies is None:
            from salience.stores.sqlite.ownertext import OwnerTexts
            from salience.stores.sqlite.textcopy import TextCopy

            with _MADE:
                if self._copies is None:
                    self._copies = (TextCopy(self._connect), OwnerTexts(self._connect))
                copies = self._copies
        return copies

    def _fts(
        self,
        select: str,
        query: str,
        flt: MemoryFilter,
        limit: int,
        dated: bool,
        passing: Passing | None = None,
    ) -> builtins.list[Any]:
        """A store of up to :data:`~salience.stores.sqlite.textindex.KEPT_UP_TO` rows is
        searched in its in-memory copy of the index when that is current (the same scores and
        order: see :mod:`~salience.stores.sqlite.textindex`). Otherwise FTS5 answers: up to
        :data:`JOIN_ALL_UP_TO` rows, every match is joined and the best ``limit`` kept (ties
        by row number); in a larger store the ranked FTS query runs first, for four times
        ``limit`` candidates (widened if the filter removes too many), and the join comes
        after. FTS5 scores every match either way; its own sort by rank cost more than the
        join where matches are few (LoCoMo: 2.2 -> 1.3 ms), the join of every match more where
        they are many (100k rows, 14k matches: 48 -> 66 ms)."""
        if limit <= 0:
            return []
        with self._errors():
            total = self._term_counts.total_rows()
        if total is not None and not self._writing():
            # (a write's own rows are in no copy: never inside one)
            if total <= KEPT_UP_TO:
                kept = self._from_copy(
                    select, lambda: self._kept_ranked(query, dated), flt, limit, passing
                )
            elif flt.user is not None:
                owners = (flt.user, *flt.spaces)
                kept = self._from_copy(
                    select,
                    lambda: self._owned_ranked(owners, query, dated),
                    flt,
                    limit,
                    passing,
                )
            else:
                kept = None
            if kept is not None:
                return kept
        leave_out: set[str] = set()
        with self._errors():
            if dated:
                leave_out = self._term_counts.weightless(query_terms(query), total)
        expression = fts_match_expression(query, dated=dated, leave_out=leave_out)
        if expression is None:
            return []
        where, params = filter_sql(flt)
        with self._errors():
            if total is not None and total <= JOIN_ALL_UP_TO:
                every = (
                    f"SELECT {select}, -f.rank FROM ("
                    " SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ?"
                    f") AS f JOIN memories m ON m.seq = f.rowid WHERE {where}"
                    " ORDER BY f.rank, m.seq LIMIT ?"
                )
                return self._conn.execute(every, [expression, *params, limit]).fetchall()
        sql = (
            f"SELECT {select}, -f.rank FROM ("
            " SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?"
            f") AS f JOIN memories m ON m.seq = f.rowid WHERE {where} ORDER BY f.rank LIMIT ?"
        )
        candidates = max(limit * 4, 64)
        while True:
            with self._errors():
                rows = self._conn.execute(sql, [expression, candidates, *params, limit]).fetchall()
                if len(rows) >= limit:
                    break
                # Filters may have removed candidates: widen until the index has no more.
                matched = self._conn.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)
                ).fetchone()[0]
            if candidates >= matched:
                break
            candidates = matched  # one more pass over every match settles it
        return rows

    def _from_copy(
        self,
        select: str,
        rank: Callable[[], Ranked | None],
        flt: MemoryFilter,
        limit: int,
        passing: Passing | None,
    ) -> builtins.list[Any] | None:
        """:meth:`_fts` from an in-memory copy (the store's, or a tenant's), whose ``rank``
        gives the rows matching, best first, and their scores (None: no current copy). The
        filter is answered by ``passing`` (``select`` is then ``m.seq, m.id``; it is asked
        after the copy is read, as it may read the store itself), else by a query. The copy
        is asked for once: a second look in one state would start loading one at a
        process's first search."""
        if passing is None:
            return self._at_one_moment(lambda: self._fts_kept(select, rank(), flt, limit))
        ranked = self._at_one_moment(rank)
        if ranked is None:
            return None
        seqs, scores = ranked
        known = passing(seqs, flt, limit)
        if known is None:
            return self._at_one_moment(lambda: self._fts_kept(select, ranked, flt, limit))
        chosen, ids = known
        return list(zip(seqs[chosen].tolist(), ids, scores[chosen].tolist(), strict=True))

    def _phrases(
        self, query: str, dated: bool, total: int
    ) -> tuple[builtins.list[str], builtins.list[tuple[str, ...]]] | None:
        """The query's words searched for (without ``dated``'s weightless ones, in a store
        of ``total`` rows) and their tokens as FTS5 indexes them; None if a word has none
        (FTS5 says what it matches) or this connection cannot say."""
        words = query_terms(query)
        leave_out = self._term_counts.weightless(words, total) if dated else ()
        terms = [term for term in words if term not in leave_out]
        phrases = self._term_counts.phrases(terms)
        if phrases is None or not all(phrases):
            return None
        return terms, phrases

    def _owned_ranked(self, owners: tuple[str, ...], query: str, dated: bool) -> Ranked | None:
        """The rows of ``owners`` matching ``query``, best first, and their scores, from the
        owners' own copy if they are a small tenant of this store and have one (read in the
        caller's read transaction); else None (then FTS5 answers)."""
        return self._owner_texts.ranked(
            self._conn,
            owners,
            lambda rows: self._phrases(query, dated, rows),
            dated,
            self._term_counts,
        )

    def _kept_ranked(self, query: str, dated: bool) -> Ranked | None:
        """Every row matching ``query`` in the in-memory copy of the index, best first, and
        their scores (read in the caller's read transaction); None if there is no current
        copy (then FTS5 answers)."""
        marker, averages = index_state(self._conn)
        if not averages or averages[0] > KEPT_UP_TO:  # (grown since the caller looked)
            return None
        index = self._text_copy.current(marker, self._conn, averages)
        if index is None:
            return None
        found = self._phrases(query, dated, averages[0])
        if found is None:
            return None
        return index.ranked(found[1], dated)

    def _fts_kept(
        self,
        select: str,
        ranked: Ranked | None,
        flt: MemoryFilter,
        limit: int,
    ) -> builtins.list[Any] | None:
        """The best ``limit`` of the copy's ``ranked`` rows that pass ``flt``, filtered by a
        query in the caller's read transaction; None if there was no current copy."""
        if ranked is None:
            return None
        seqs, scores = ranked
        where, params = filter_sql(flt)
        found: builtins.list[Any] = []
        start, step = 0, max(limit, 64)
        while start < len(seqs) and len(found) < limit:
            chunk = seqs[start : start + step].tolist()
            values = ", ".join("(?)" for _ in chunk)
            sql = (
                f"SELECT m.seq, {select} FROM (VALUES {values}) AS wanted "
                f"CROSS JOIN memories m ON m.seq = wanted.column1 WHERE {where}"
            )
            passed = {row[0]: row[1:] for row in self._conn.execute(sql, [*chunk, *params])}
            for seq, score in zip(chunk, scores[start : start + step].tolist(), strict=True):
                if seq in passed:
                    found.append((*passed[seq], score))
            start, step = start + step, min(step * 4, 500)
        return found[:limit]
