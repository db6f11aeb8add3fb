"""A small store's full-text index as arrays: FTS5's BM25 scores, computed in NumPy.

On a LoCoMo conversation (663 turns) a full-text search took ~0.7 ms, ~0.35 ms of it in FTS5's
``bm25``: a question naming a speaker matches most turns, and every match is scored before the
best are sorted. When the query's vector is known (an evaluation's probes, a caller's), recall's
relevance feedback waits for those hits. So a store of up to :data:`KEPT_UP_TO` rows keeps a
copy of its full-text index in memory: every token instance (term, row, column, offset)
exactly as FTS5's own ``fts5vocab`` table lists them. A search scores the rows its terms occur
in with FTS5's formula in FTS5's order of operations, so the scores are the same doubles and
the order the same (ties by row number); the filter is then checked in SQL for the best rows
alone (LoCoMo: 0.72 -> 0.29 ms). A search ``beside`` other work (a worker while recall embeds
the query) in a store of up to :data:`BESIDE_UP_TO` rows asks FTS5, which runs without the
interpreter lock (the copy would hold it); in a larger one FTS5's work, on two cores beside
the embedding's threads, costs more than the copy's (20,000 turns: recall 8.2 -> 4.6 ms).

The copy is tied to the index's state: FTS5's structure record (rewritten, its write counter
moved on, by every transaction that writes to the index, in any process) and its averages
record (row and token counts). A search in another state asks FTS5, as before; once a store
has been searched twice in one state, a thread loads a new copy while FTS5 goes on answering,
so a store written between every search never pays for copies it would not use.
"""

from __future__ import annotations

import math
import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from salience.lazy import lazy_module
from salience.stores.fts_terms import varints

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

KEPT_UP_TO = 20_000
"""Stores of up to this many rows keep a copy (at LoCoMo's ~36 tokens a row: ~7 MB)."""
BESIDE_UP_TO = 1_000
"""Up to this many rows a search beside an embedding asks FTS5, which leaves the interpreter
lock to it: recall on LoCoMo turns took 0.05-0.14 ms less so at 663 and 1,000 rows; from
1,500 rows the copy is faster even there (0.3 ms at 1,500 and 2,000, 3.5 ms at 20,000)."""

K1, B = 1.2, 0.75  # FTS5's bm25 constants
WEIGHTS = (1.0, 2.0, 1.0, 1.0, 1.0)  # the rank function's column weights (migration 0001)
COLUMNS = ("content", "title", "tags", "entities", "dated")
TEXT_COLUMNS = 4  # a search without dates matches the first four
_FETCH = 50_000  # instances read at a time (a load checks for a stop between them)
_STATE = "SELECT id, block FROM memory_fts_data WHERE id IN (1, 10)"  # averages, structure


def state(conn: sqlite3.Connection) -> tuple[bytes, list[int]]:
    """The full-text index's state (its averages and structure records), and the averages:
    the row count, then each column's token count (empty if nothing was ever indexed)."""
    blocks = {int(i): bytes(block or b"") for i, block in conn.execute(_STATE)}
    averages = blocks.get(1, b"")
    return averages + b"/" + blocks.get(10, b""), varints(averages)


class TextIndex:
    """One state of ``memory_fts``: its token instances by term, and each row's length."""

    def __init__(
        self,
        marker: bytes,
        total_rows: int,
        total_tokens: int,
        rows: npt.NDArray[np.int64],
        terms: dict[str, tuple[int, int]],
        docs: npt.NDArray[np.int32],
        columns: npt.NDArray[np.int8],
        offsets: npt.NDArray[np.int32],
    ) -> None:
        self.marker = marker
        self.rows = rows  # the row numbers (rowid) of the rows with any token, ascending
        self._terms = terms  # term -> its instances' span in the three arrays
        self._docs, self._columns, self._offsets = docs, columns, offsets
        self._total_rows = total_rows
        lengths = np.bincount(docs, minlength=len(rows)).astype(np.float64)  # all columns
        average = float(total_tokens) / float(total_rows) if total_rows else 1.0
        self._norm = K1 * (1 - B + B * lengths / average)  # as FTS5: per row, before any term

    @property
    def nbytes(self) -> int:
        """The arrays' size (the terms' dictionary not counted)."""
        arrays = (self.rows, self._docs, self._columns, self._offsets, self._norm)
        return sum(int(a.nbytes) for a in arrays)

    @classmethod
    def load(cls, conn: sqlite3.Connection, stop: Callable[[], bool]) -> TextIndex | None:
        """Read the index whole, in one read transaction (None: ``stop`` said so first)."""
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_index_instances "
            "USING fts5vocab(main, memory_fts, 'instance')"
        )
        case = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(COLUMNS))
        conn.execute("BEGIN")
        try:
            marker, averages = state(conn)
            cursor = conn.execute(
                f"SELECT term, doc, CASE col {case} END, offset FROM temp.salience_index_instances"
            )
            ids: dict[str, int] = {}
            term_ids: list[int] = []
            docs: list[int] = []
            columns: list[int] = []
            offsets: list[int] = []
            while chunk := cursor.fetchmany(_FETCH):
                if stop():
                    return None
                names, chunk_docs, chunk_columns, chunk_offsets = zip(*chunk, strict=True)
                term_ids.extend(ids.setdefault(name, len(ids)) for name in names)
                docs.extend(chunk_docs)
                columns.extend(chunk_columns)
                offsets.extend(chunk_offsets)
        finally:
            conn.execute("COMMIT")
        tid = np.array(term_ids, dtype=np.int64)
        order = np.argsort(tid, kind="stable")
        starts = np.searchsorted(tid[order], np.arange(len(ids) + 1))
        rows, dense = np.unique(np.array(docs, dtype=np.int64), return_inverse=True)
        spans = {name: (int(starts[i]), int(starts[i + 1])) for name, i in ids.items()}
        return cls(
            marker,
            averages[0] if averages else 0,
            sum(averages[1:]),
            rows,
            spans,
            dense.astype(np.int32)[order],
            np.array(columns, dtype=np.int8)[order],
            np.array(offsets, dtype=np.int32)[order],
        )

    def ranked(
        self, phrases: Sequence[Sequence[str]], dated: bool
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The rows matching any phrase (OR) and their bm25 scores, best first, ties by row
        number: what ``ORDER BY rank, rowid`` gives, as positive scores. ``dated``: every
        column matches, else the first :data:`TEXT_COLUMNS`."""
        weights = np.array(WEIGHTS)
        found: list[tuple[float, npt.NDArray[np.float64]]] = []
        hit = np.zeros(len(self.rows), dtype=np.bool_)
        for tokens in phrases:
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
            idf = math.log((self._total_rows - count + 0.5) / (count + 0.5))
            found.append((idf if idf > 0.0 else 1e-6, frequency))
            hit |= matched
        candidates = np.flatnonzero(hit)
        scores = np.zeros(len(candidates))
        norm = self._norm[candidates]
        for idf, frequency in found:  # in the query's order, as FTS5 adds them
            f = frequency[candidates]
            scores = scores + idf * ((f * (K1 + 1.0)) / (f + norm))
        rows = self.rows[candidates]
        order = np.lexsort((rows, -scores))
        return rows[order], scores[order]

    def _starts(
        self, tokens: Sequence[str]
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]] | None:
        """Where the phrase occurs, as (row, column) of each occurrence; None if nowhere."""
        spans = [self._terms.get(token) for token in tokens]
        if not spans or None in spans:
            return None
        first, end = spans[0]  # type: ignore[misc]
        docs, columns = self._docs[first:end], self._columns[first:end]
        if len(spans) == 1:
            return docs, columns
        keys = self._keys(first, end)
        for shift, (start, stop) in enumerate(spans[1:], 1):  # type: ignore[misc]
            keys = keys[np.isin(keys, self._keys(start, stop) - shift)]
        place = keys >> 32
        return (place >> 3).astype(np.int32), (place & 7).astype(np.int8)

    def _keys(self, start: int, stop: int) -> npt.NDArray[np.int64]:
        """Instances as one number each: row, column and offset."""
        docs = self._docs[start:stop].astype(np.int64)
        return ((docs << 3 | self._columns[start:stop]) << 32) | self._offsets[start:stop]


class TextCopy:
    """A store's current :class:`TextIndex`, loaded on a thread of its own when wanted."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._index: TextIndex | None = None
        self._seen: bytes | None = None  # the state the last search without a copy saw
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.loads = 0
        self.failure: Exception | None = None

    def current(self, marker: bytes) -> TextIndex | None:
        """The copy of the index in state ``marker``, or None (then FTS5 answers): the second
        search in one state starts loading a copy."""
        with self._lock:
            index = self._index
            if index is not None and index.marker == marker:
                return index
            self._index = None  # (an index only moves on: that state will not come back)
            again, self._seen = self._seen == marker, marker
            if again and self._thread is None and not self._stopped:
                self.loads += 1
                self._thread = threading.Thread(target=self._load, name="salience-text-copy")
                self._thread.daemon = True
                self._thread.start()
        return None

    def _load(self) -> None:
        index: TextIndex | None = None
        try:
            conn = self._connect()
            try:
                index = TextIndex.load(conn, lambda: self._stopped)
            finally:
                conn.close()
        except Exception as exc:  # (FTS5 answers meanwhile; the next state tries again)
            self.failure = exc
        with self._lock:
            if index is not None and not self._stopped:
                self._index = index
            self._thread = None

    def wait(self, timeout: float | None = None) -> None:
        """Until a load under way has ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self) -> None:
        """Stop a load (between reads) and wait for it; keep no copy."""
        with self._lock:
            self._stopped = True
            self._index = None
        self.wait()
