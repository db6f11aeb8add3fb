"""A small store's full-text index as arrays: FTS5's BM25 scores, computed in NumPy.

On a LoCoMo conversation (663 turns) a full-text search took ~0.7 ms, ~0.35 ms of it in FTS5's
``bm25``: a question naming a speaker matches most turns, and every match is scored before the
best are sorted. When the query's vector is known (an evaluation's probes, a caller's), recall's
relevance feedback waits for those hits. So a store of up to :data:`KEPT_UP_TO` rows keeps a
copy of its full-text index in memory: every token instance (term, row, column, offset)
exactly as FTS5's own ``fts5vocab`` table lists them. A search scores the rows its terms occur
in with FTS5's formula in FTS5's order of operations, so the scores are the same doubles and
the order the same (ties by row number); the filter is then checked for the best rows alone,
from the caller's columns if it can (:data:`~salience.stores.filters.Passing`), else in SQL
(LoCoMo: 0.72 -> 0.29 ms). The copy answers a search beside other work too (a worker while
recall embeds the query), though it holds the interpreter lock where FTS5 would not: on
LoCoMo conversations recall took 0.08-0.25 ms less beyond the embedding than with FTS5 there
(up to 2026-11-30 stores of up to 1,000 rows asked FTS5 beside an embedding: then the copy's
filter was a query too); at 20,000 turns 8.2 -> 4.6 ms.

The copy is tied to the index's state: FTS5's structure record (rewritten, its write counter
moved on, by every transaction that writes to the index, in any process) and its averages
record (row and token counts). A search that finds another state catches the copy up with
the rows written since (:mod:`~salience.stores.sqlite.textcopy`), or asks FTS5 while a new
copy loads.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from salience.lazy import lazy_module
from salience.stores.fts_terms import varints
from salience.stores.sqlite.instances import Instances, nothing_named
from salience.stores.sqlite.rows import counters

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

KEPT_UP_TO = 20_000
"""Stores of up to this many rows keep a copy (at LoCoMo's ~36 tokens a row: ~7 MB)."""
K1, B = 1.2, 0.75  # FTS5's bm25 constants
WEIGHTS = (1.0, 2.0, 1.0, 1.0, 1.0)  # the rank function's column weights (migration 0001)
COLUMNS = ("content", "title", "tags", "entities", "dated")
TEXT_COLUMNS = 4  # a search without dates matches the first four
_FETCH = 50_000  # instances read at a time (a load checks for a stop between them)
_STATE = "SELECT id, block FROM memory_fts_data WHERE id IN (1, 10)"  # averages, structure
COLUMN_NUMBER = " ".join(f"WHEN '{c}' THEN {i}" for i, c in enumerate(COLUMNS))
COLUMN_NUMBER = f"CASE col {COLUMN_NUMBER} END"  # (fts5vocab names columns: number them)


def state(conn: sqlite3.Connection) -> tuple[bytes, list[int]]:
    """The full-text index's state (its averages and structure records), and the averages:
    the row count, then each column's token count (empty if nothing was ever indexed)."""
    blocks = {int(i): bytes(block or b"") for i, block in conn.execute(_STATE)}
    averages = blocks.get(1, b"")
    return averages + b"/" + blocks.get(10, b""), varints(averages)


class TextIndex:
    """One state of ``memory_fts``: its token instances by term, each row's length, and the
    rows written since it was read (:meth:`caught_up`), the rows they replaced left out."""

    def __init__(
        self,
        marker: bytes,
        averages: Sequence[int],
        position: tuple[int, int] | None,
        rows: npt.NDArray[np.int64],
        lengths: npt.NDArray[np.float64],
        parts: tuple[Instances, ...],
        alive: npt.NDArray[np.bool_] | None = None,
        added: dict[int, int] | None = None,
        base: int | None = None,
    ) -> None:
        self.marker = marker
        self.averages = tuple(averages)  # row count, then each column's token count
        self.position = position  # (highest row number, highest change number) when read
        self.rows = rows  # each row's row number (rowid): those read ascending, then added
        self.lengths = lengths  # each row's tokens, all columns
        # The instances read whole, then those of the rows added since in parts, larger first
        # (each catch-up adds one; two of about one size merge: see caught_up).
        self.parts = parts
        self.alive = alive  # None: every row; else False for rows replaced or deleted since
        self.added = added or {}  # row number -> row, for the rows added since
        self.base = len(rows) if base is None else base  # the rows read (sorted), first

    @property
    def nbytes(self) -> int:
        """The arrays' size (the terms' dictionaries not counted)."""
        total = self.rows.nbytes + self.lengths.nbytes
        total += 0 if self.alive is None else self.alive.nbytes
        for part in self.parts:
            total += part.docs.nbytes + part.columns.nbytes + part.offsets.nbytes
        return int(total)

    def consistent(self) -> bool:
        """Whether the rows' tokens add up to FTS5's own count (else something was missed)."""
        lengths = self.lengths if self.alive is None else self.lengths[self.alive]
        return int(lengths.sum()) == sum(self.averages[1:])

    @classmethod
    def load(cls, conn: sqlite3.Connection, stop: Callable[[], bool]) -> TextIndex | None:
        """Read the index whole, in one read transaction (None: ``stop`` said so first): its
        terms and how many instances each has, then the instances of each run of terms
        holding about :data:`_FETCH` as one text of numbers that SQLite writes, leaving the
        interpreter lock to other threads meanwhile (read an instance a row, the load held it
        ~4 s at 15,000 LongMemEval turns, 2.5M instances, against the searches beside it)."""
        for table, kind in (("instances", "instance"), ("terms", "row")):
            conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_index_{table} "
                f"USING fts5vocab(main, memory_fts, '{kind}')"
            )
        numbers = f"group_concat(doc || ' ' || ({COLUMN_NUMBER}) || ' ' || offset, ' ')"
        run = f"SELECT {numbers} FROM temp.salience_index_instances WHERE term >= ? AND term <= ?"
        conn.execute("BEGIN")
        try:
            marker, averages = state(conn)
            position = counters(conn)
            terms = conn.execute("SELECT term, cnt FROM temp.salience_index_terms").fetchall()
            counts = [int(count) for _, count in terms]
            read: list[npt.NDArray[np.int64]] = []
            first = 0
            while first < len(terms):
                if stop():
                    return None
                last, held = first + 1, counts[first]
                while last < len(terms) and held + counts[last] <= _FETCH:
                    held += counts[last]
                    last += 1
                found = conn.execute(run, (terms[first][0], terms[last - 1][0])).fetchone()[0]
                read.append(np.fromstring(found or "", dtype=np.int64, sep=" "))
                first = last
        finally:
            conn.execute("COMMIT")
        every = np.concatenate(read) if read else np.zeros(0, np.int64)
        if len(every) != 3 * sum(counts):
            raise sqlite3.DatabaseError("the full-text index changed while it was read")
        docs, columns, offsets = every.reshape(-1, 3).T
        term_ids = np.repeat(np.arange(len(terms), dtype=np.int64), counts)
        rows, dense = np.unique(docs, return_inverse=True)
        instances = Instances(
            [str(term) for term, _ in terms],
            term_ids,
            dense.astype(np.int32),
            columns.astype(np.int8),
            offsets.astype(np.int32),
        )
        lengths = np.bincount(instances.docs, minlength=len(rows)).astype(np.float64)
        return cls(marker, averages, position, rows, lengths, (instances,))

    @classmethod
    def of_rows(
        cls,
        marker: bytes,
        averages: Sequence[int],
        position: tuple[int, int] | None,
        present: dict[int, list[tuple[str, int, int]]],
    ) -> TextIndex:
        """A copy of some rows alone (a tenant's: :mod:`~salience.stores.sqlite.ownertext`),
        each row's (term, column, offset) given, as FTS5's tokenizer splits its text."""
        rows = np.array(sorted(present), dtype=np.int64)
        codes: dict[str, int] = {}
        term_ids: list[int] = []
        docs: list[int] = []
        columns: list[int] = []
        offsets: list[int] = []
        for doc, rowid in enumerate(rows.tolist()):
            for name, column, offset in present[rowid]:
                term_ids.append(codes.setdefault(name, len(codes)))
                docs.append(doc)
                columns.append(column)
                offsets.append(offset)
        instances = Instances(
            list(codes),
            np.array(term_ids, dtype=np.int64),
            np.array(docs, dtype=np.int32),
            np.array(columns, dtype=np.int8),
            np.array(offsets, dtype=np.int32),
        )
        lengths = np.bincount(instances.docs, minlength=len(rows)).astype(np.float64)
        return cls(marker, averages, position, rows, lengths, (instances,))

    def caught_up(
        self,
        marker: bytes,
        averages: Sequence[int],
        position: tuple[int, int],
        present: dict[int, list[tuple[str, int, int]]],
        gone: Sequence[int],
    ) -> TextIndex:
        """This index with rows written since: ``present``, each row's (term, column, offset)
        now (a row added, or one whose text may have changed: its old instances are left
        out), and ``gone``, rows deleted."""
        alive = np.ones(len(self.rows), dtype=np.bool_) if self.alive is None else self.alive
        alive = alive.copy()
        added = dict(self.added)
        for rowid in (*gone, *present):
            row = self._row_of(rowid)
            if row is not None:
                alive[row] = False
                added.pop(rowid, None)
        start = len(self.rows)
        names: list[str] = []
        docs: list[int] = []
        columns: list[int] = []
        offsets: list[int] = []
        lengths = []
        for k, (rowid, tokens) in enumerate(present.items()):
            added[rowid] = start + k
            lengths.append(float(len(tokens)))
            for name, column, offset in tokens:
                names.append(name)
                docs.append(start + k)
                columns.append(column)
                offsets.append(offset)
        arrays = (
            np.array(docs, dtype=np.int32),
            np.array(columns, dtype=np.int8),
            np.array(offsets, dtype=np.int32),
        )
        # The new rows' instances are a part of their own, merged with the part before it
        # while that one is at most twice its size: a catch-up merges about as many instances
        # as it adds, not all those added since the copy was read (a binary counter's carries).
        parts = [*self.parts[1:], nothing_named().extended(names, *arrays)]
        while len(parts) > 1 and len(parts[-2].docs) <= 2 * len(parts[-1].docs):
            last = parts.pop()
            parts[-1] = parts[-1].merged(last)
        return TextIndex(
            marker,
            averages,
            position,
            np.concatenate([self.rows, np.array(list(present), dtype=np.int64)]),
            np.concatenate([self.lengths, np.array(lengths, dtype=np.float64)]),
            (self.parts[0], *parts),
            np.concatenate([alive, np.ones(len(present), dtype=np.bool_)]),
            added,
            self.base,
        )

    def moved(self, position: tuple[int, int]) -> TextIndex:
        """This index, the store's counters at ``position``: rows were written (accesses
        counted, say) but none of the index's text changed (its state is the same)."""
        return TextIndex(
            self.marker,
            self.averages,
            position,
            self.rows,
            self.lengths,
            self.parts,
            self.alive,
            self.added,
            self.base,
        )

    def added_instances(self) -> int:
        """How many token instances the rows added since the index was read hold."""
        return sum(len(part.docs) for part in self.parts[1:])

    def holds(self, rowid: int) -> bool:
        """Whether this row number's row is in the copy now."""
        return self._row_of(rowid) is not None

    def live_rows(self) -> int:
        """How many rows the copy holds now."""
        return len(self.rows) if self.alive is None else int(np.count_nonzero(self.alive))

    def _row_of(self, rowid: int) -> int | None:
        """The row holding this row number now (added since, or read), if any."""
        row = self.added.get(rowid)
        if row is not None:
            return row
        at = int(np.searchsorted(self.rows[: self.base], rowid))
        if at < self.base and int(self.rows[at]) == rowid:
            alive = self.alive
            return at if alive is None or bool(alive[at]) else None
        return None

    def ranked(
        self,
        phrases: Sequence[Sequence[str]],
        dated: bool,
        *,
        averages: Sequence[int] | None = None,
        counts: Callable[[int], int] | None = None,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The rows matching any phrase (OR) and their bm25 scores, best first, ties by row
        number: what ``ORDER BY rank, rowid`` gives, as positive scores. ``dated``: every
        column matches, else the first :data:`TEXT_COLUMNS`. A copy of some of the store's
        rows (a tenant's: :mod:`~salience.stores.sqlite.ownertext`) is given the store's
        ``averages`` record and ``counts``, how many of the store's rows the phrase at a
        position matches (the idf's n), as FTS5 weighs the store's: asked only of phrases
        found in the copy (the others add nothing to its rows' scores)."""
        weights = np.array(WEIGHTS)
        if averages is None:
            averages = self.averages
        total_rows = averages[0] if averages else 0
        found: list[tuple[float, npt.NDArray[np.float64]]] = []
        hit = np.zeros(len(self.rows), dtype=np.bool_)
        for at, tokens in enumerate(phrases):
            starts = self._starts(tokens)
            if starts is None:
                continue  # (no row has it: it adds nothing)
            docs, columns = starts
            if not dated:
                keep = columns < TEXT_COLUMNS
                docs, columns = docs[keep], columns[keep]
            frequency = np.bincount(
                docs, weights=weights[columns], minlength=len(self.rows)
            ).astype(np.float64, copy=False)  # (float64 already: the weights are)
            matched = frequency > 0
            count = int(np.count_nonzero(matched))
            if not count:
                continue
            if counts is not None:
                count = counts(at)
            idf = math.log((total_rows - count + 0.5) / (count + 0.5))
            found.append((idf if idf > 0.0 else 1e-6, frequency))
            hit |= matched
        candidates = np.flatnonzero(hit)
        scores = np.zeros(len(candidates))
        average = float(sum(averages[1:])) / float(total_rows) if total_rows else 1.0
        norm = K1 * (1 - B + B * self.lengths[candidates] / average)  # (as FTS5, per row)
        for idf, frequency in found:  # in the query's order, as FTS5 adds them
            f = frequency[candidates]
            scores = scores + idf * ((f * (K1 + 1.0)) / (f + norm))
        rows = self.rows[candidates]
        if bool(np.all(rows[1:] > rows[:-1])):  # (ties already by row number: ~3x faster)
            order = np.argsort(-scores, kind="stable")
        else:  # (a row added since the copy was read, below one read)
            order = np.lexsort((rows, -scores))
        return rows[order], scores[order]

    def _instances(
        self, token: str
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8], npt.NDArray[np.int32]] | None:
        """A token's instances in rows that hold it now (None: none)."""
        found = [got for part in self.parts if (got := part.of(token))]
        if not found:
            return None
        if len(found) == 1:
            docs, columns, offsets = found[0]
        else:
            docs, columns, offsets = (np.concatenate(arrays) for arrays in zip(*found, strict=True))
        if self.alive is not None:
            keep = self.alive[docs]
            docs, columns, offsets = docs[keep], columns[keep], offsets[keep]
        return (docs, columns, offsets) if len(docs) else None

    def _starts(
        self, tokens: Sequence[str]
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]] | None:
        """Where the phrase occurs, as (row, column) of each occurrence; None if nowhere."""
        found = [self._instances(token) for token in tokens]
        if not found or any(f is None for f in found):
            return None
        docs, columns, offsets = found[0]  # type: ignore[misc]
        if len(found) == 1:
            return docs, columns
        keys = _keys(docs, columns, offsets)
        for shift, (d, c, o) in enumerate(found[1:], 1):  # type: ignore[misc]
            keys = keys[np.isin(keys, _keys(d, c, o) - shift)]
        place = keys >> 32
        return (place >> 3).astype(np.int32), (place & 7).astype(np.int8)


def _keys(
    docs: npt.NDArray[np.int32], columns: npt.NDArray[np.int8], offsets: npt.NDArray[np.int32]
) -> npt.NDArray[np.int64]:
    """Instances as one number each: row, column and offset."""
    return ((docs.astype(np.int64) << 3 | columns) << 32) | offsets
