"""A store's in-memory copy of its full-text index: loaded when wanted, then kept current.

A copy (:class:`~salience.stores.sqlite.textindex.TextIndex`) is loaded on a thread of its
own at a process's second search, while FTS5 answers (a command that searches once loads
none). From then on a search that finds the index in another state (a write, by any process)
catches the copy up in its own read transaction: the rows added or changed since, and those
deleted, are read from the store's change log (``memory_changes``, migration 0007); the
changed rows' text is read back from ``memory_fts`` and split into tokens by FTS5's own
tokenizer (a TEMP FTS5 table of the same columns), so their instances are FTS5's; their old
instances are left out. The copy's token count must then equal FTS5's own (its averages
record), or it is dropped. A deletion (a purge, an erasure) drops the copy too, in this
process at once and in others at their next search, rather than masking the deleted rows:
their words do not stay in memory. A change log pruned past the copy, a store without one, a
read-only connection, or more tokens added since than a quarter of the copy: the copy is
dropped, and loaded again at the second search in one state. A catch-up adds the new rows'
tokens as a part of their own, merged with the part before it while that one is at most
twice its size (:meth:`~salience.stores.sqlite.textindex.TextIndex.caught_up`), so a
catch-up costs about what it adds. (Until 2026-12-02 each merged every token added since the
copy was read, and past 10,000 of them the copy was dropped: on 15,000 LongMemEval turns, of
~170 tokens each, every ~60 writes; a copy of them takes ~4 s to load. And the first copy
loaded at the second search in one state too, which an agent that writes before each recall
never makes: FTS5 answered its every search.) At 19,000 LoCoMo turns a search right after a
write took 1.05 ms with the catch-up (0.51 ms the next; FTS5 4.4 ms); at 663, 0.69 and 0.29.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from salience.stores.sqlite.rows import counters
from salience.stores.sqlite.textindex import COLUMN_NUMBER, COLUMNS, TextIndex

_C = TypeVar("_C")
_MOST_CHANGED = 5_000  # rows changed since the copy beyond which a new copy is loaded instead


class Loading:
    """Copies read on a thread of their own, one at a time, each on a connection of its own,
    while searches go on (FTS5 answers them meanwhile)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopped = False
        self.loads = 0
        self.catches = 0  # copies caught up with writes
        self.failure: Exception | None = None  # (the last load's, if it failed)

    def _start(
        self,
        read: Callable[[sqlite3.Connection], _C | None],
        done: Callable[[_C], None],
        name: str,
    ) -> None:
        """Read a copy by ``read``, unless a load is under way or the copies were closed
        (call under ``self._lock``); ``done`` takes it, under the lock, unless they were
        closed meanwhile."""
        if self._thread is not None or self._stopped:
            return

        def run() -> None:
            copy: _C | None = None
            try:
                conn = self._connect()
                try:
                    copy = read(conn)
                finally:
                    conn.close()
            except Exception as exc:  # (FTS5 answers meanwhile; a later search tries again)
                self.failure = exc
            with self._lock:
                if copy is not None and not self._stopped:
                    done(copy)
                self._thread = None

        self.loads += 1
        self._thread = threading.Thread(target=run, name=name, daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        """Until a load under way has ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _stop(self) -> None:
        """Start no more loads, and wait for one under way."""
        with self._lock:
            self._stopped = True
        self.wait()


class TextCopy(Loading):
    """A store's current :class:`TextIndex`, loaded on a thread of its own when wanted."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        super().__init__(connect)
        self._index: TextIndex | None = None
        self._seen: bytes | None = None  # the state the last search without a copy saw
        self._missed = 0  # searches that found no copy

    def current(
        self, marker: bytes, conn: sqlite3.Connection, averages: Sequence[int]
    ) -> TextIndex | None:
        """The copy of the index in state ``marker`` (``averages``: its averages record), or
        None (then FTS5 answers). A copy of an earlier state is caught up on ``conn`` (in
        the caller's read transaction); without one, the process's second search starts
        loading its first copy, and the second search in one state a copy after that."""
        with self._lock:
            index = self._index
        if index is not None and index.marker == marker:
            now = counters(conn)  # (rows written since with no new text: never read again)
            if now is None or index.position is None or not later(now, index.position):
                return index
            moved = index.moved(now)
            with self._lock:
                if self._index is index:
                    self._index = moved
            return moved
        if index is not None:
            caught = catch_up(conn, index, marker, averages)
            if caught is not None:
                with self._lock:
                    if self._index is index:  # (else another search moved it on meanwhile)
                        self._index = caught
                        self.catches += 1
                return caught
        with self._lock:
            if self._index is index:
                self._index = None  # (it cannot follow: a new one is loaded)
            again, self._seen = self._seen == marker, marker
            self._missed += 1
            first = self.loads == 0 and self._missed >= 2  # (it searches more than once)
            if again or first:
                self._start(self._read, self._loaded, "salience-text-copy")
        return None

    def _read(self, conn: sqlite3.Connection) -> TextIndex | None:
        return TextIndex.load(conn, lambda: self._stopped)

    def _loaded(self, index: TextIndex) -> None:
        self._index = index

    def drop(self) -> None:
        """Keep no copy (rows were deleted: their words go with it; a new one loads later)."""
        with self._lock:
            self._index = None

    def close(self) -> None:
        """Stop a load (between reads) and wait for it; keep no copy."""
        self.drop()
        self._stop()
        self.drop()


def catch_up(
    conn: sqlite3.Connection, index: TextIndex, marker: bytes, averages: Sequence[int]
) -> TextIndex | None:
    """``index`` brought to the state ``marker`` that ``conn``'s read transaction sees, or
    None if it cannot be (see the module docstring)."""
    try:
        written = written_since(conn, index)
    except sqlite3.OperationalError:  # (a read-only connection makes no TEMP table)
        return None
    if written is None:
        return None
    present, gone, position = written
    if gone:  # (deleted: purged or erased. Their words leave memory with this copy)
        return None
    caught = index.caught_up(marker, averages, position, present, gone)
    grown = caught.added_instances() > len(caught.parts[0].docs) / 4
    return None if grown or not caught.consistent() else caught


def written_since(
    conn: sqlite3.Connection, index: TextIndex, owners: Sequence[str] = ()
) -> tuple[dict[int, list[tuple[str, int, int]]], list[int], tuple[int, int]] | None:
    """The rows added or changed since the index was read, as their tokens now, the rows
    deleted since, and where the counters stand; None if the change log cannot say. With
    ``owners`` (a tenant's copy), only their rows: one the copy holds that is no longer
    theirs, or no longer indexed, counts as deleted."""
    now = counters(conn)
    if index.position is None or now is None:
        return None
    if now != index.position and not later(now, index.position):
        return None  # (this transaction sees an earlier state than the copy's)
    (seq, change), (last_seq, last_change) = index.position, now
    oldest = conn.execute("SELECT min(cseq) FROM memory_changes").fetchone()[0]
    if oldest is not None and oldest > change + 1:
        return None  # (pruned past the copy)
    changed = {
        int(r[0]) for r in conn.execute("SELECT mseq FROM memory_changes WHERE cseq > ?", (change,))
    }
    columns = ", ".join(f"f.{name}" for name in COLUMNS)
    if owners:
        marks = ", ".join("?" for _ in owners)
        source = (
            f"memories m JOIN memory_fts f ON f.rowid = m.seq WHERE m.user IN ({marks}) AND m.seq"
        )
        new_rows = int(
            conn.execute(
                f"SELECT count(*) FROM memories m WHERE m.user IN ({marks}) AND m.seq > ?",
                (*owners, seq),
            ).fetchone()[0]
        )
    else:
        source, new_rows = "memory_fts f WHERE f.rowid", last_seq - seq
    if len(changed) + new_rows > _MOST_CHANGED:
        return None
    texts = conn.execute(f"SELECT f.rowid, {columns} FROM {source} > ?", (*owners, seq))
    found = texts.fetchall()
    earlier = sorted(s for s in changed if s <= seq)
    for start in range(0, len(earlier), 500):
        chunk = earlier[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        sql = f"SELECT f.rowid, {columns} FROM {source} IN ({marks})"
        found += conn.execute(sql, (*owners, *chunk)).fetchall()
    present = tokens_of(conn, found)
    gone = [s for s in earlier if s not in present and (not owners or index.holds(s))]
    return present, gone, (last_seq, last_change)


def later(now: tuple[int, int], then: tuple[int, int]) -> bool:
    """Whether counters read now are later than ``then``: the change number only grows (the
    highest row number falls when the newest row is deleted, which is a change)."""
    return now[1] > then[1] or (now[1] == then[1] and now[0] > then[0])


def tokens_of(
    conn: sqlite3.Connection, texts: Sequence[tuple[Any, ...]]
) -> dict[int, list[tuple[str, int, int]]]:
    """Each row's (term, column, offset) as ``memory_fts`` indexes its text."""
    present: dict[int, list[tuple[str, int, int]]] = {int(row[0]): [] for row in texts}
    if not texts:
        return present
    names = ", ".join(COLUMNS)
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_rows USING fts5({names}, "
        "tokenize = 'porter unicode61')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.salience_row_tokens "
        "USING fts5vocab(temp, salience_rows, 'instance')"
    )
    marks = ", ".join("?" for _ in range(len(COLUMNS) + 1))
    conn.executemany(f"INSERT INTO temp.salience_rows (rowid, {names}) VALUES ({marks})", texts)
    try:
        found = conn.execute(
            f"SELECT doc, term, {COLUMN_NUMBER}, offset FROM temp.salience_row_tokens"
        ).fetchall()
    finally:
        conn.execute("DELETE FROM temp.salience_rows")
    for doc, term, column, offset in found:
        present[int(doc)].append((str(term), int(column), int(offset)))
    return present
