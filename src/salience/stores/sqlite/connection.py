"""One SQLite file, connected: pragmas, migrations, error translation and transactions.

Several processes may use one file at once: writes take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to the busy timeout for it, so a read-modify-write is never
lost and "database is locked" does not reach the user unless another process holds the lock
for longer than the timeout (then :class:`StoreBusyError` says so).

Several threads may use one store at once. Writes go through one connection, one
transaction at a time (a thread waits for another's to end). Reads outside a write run on a
connection of the reading thread's own, opened on its first read: in WAL mode a reader sees
the last commit and never waits for a writer, in this process or another. A thread inside a
write reads through the writer's connection, so it sees what it has written.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from salience.errors import (
    InvalidInputError,
    NotASalienceDatabaseError,
    SchemaTooNewError,
    StoreBusyError,
    StoreDamagedError,
    StoreError,
    StoreReadOnlyError,
)
from salience.models import MemoryRecord
from salience.stores.fts_terms import TermCounts
from salience.stores.migrations import MIGRATION_NAMES, MIGRATIONS, READABLE_WITHOUT
from salience.stores.reads import OneLook
from salience.stores.sqlite.files import check_existing, prepare_file, split_statements
from salience.stores.sqlite.rows import from_row
from salience.stores.sqlite.transaction import Transaction

if TYPE_CHECKING:
    from salience.stores.sqlite.ownertext import OwnerTexts
    from salience.stores.sqlite.textcopy import TextCopy

_T = TypeVar("_T")
PAGE_SIZE = 2048


class Connection:
    """An open salience database file: the base every part of :class:`SQLiteStore` builds on."""

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = 10000,
        read_only: bool = False,
        create: bool = True,
    ) -> None:
        self._path = Path(path)
        self._read_only = read_only
        self._lock = threading.RLock()  # the writer's: held for a whole transaction
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()  # each thread's reading connection
        self._readers: list[_Reader] = []  # every reader opened, to close them all
        self._readers_lock = threading.Lock()
        self._closed = False
        self._depth = 0
        self._vector_writes = 0
        # owners -> the store's (vectors, highest vseq) and theirs, when last counted
        self._owner_states: dict[tuple[str, ...], tuple[int, int, int, int]] = {}
        self._checkpointed_at = 0  # the writer's total_changes at its last checkpoint
        self._owner = 0
        self._change_log = True  # a read-only store may predate it (see _setup_read_only)
        self._counted = True  # row_counts (0013): likewise
        self._copies: tuple[TextCopy, OwnerTexts] | None = None  # (FullText's, made on use)
        if read_only or not create:
            check_existing(self._path, busy_timeout_ms)
        else:
            prepare_file(self._path, busy_timeout_ms)
        self._writer = self._connect()
        self._writer_terms = TermCounts(self._writer)
        # PRAGMA data_version of a connection that never writes changes with every commit of
        # any other connection, this process's writer included: the store's change marker.
        self._watcher = self._connect()
        self._watch_lock = threading.Lock()
        try:
            if read_only:
                self._setup_read_only(busy_timeout_ms)
            else:
                self._setup(busy_timeout_ms)
        except BaseException:
            self._writer.close()
            self._watcher.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        try:
            return sqlite3.connect(
                self._path.resolve().as_uri() + "?mode=ro" if self._read_only else str(self._path),
                isolation_level=None,
                timeout=self._busy_timeout_ms / 1000,
                check_same_thread=False,
                uri=self._read_only,
            )
        except sqlite3.Error as exc:
            raise self._translate(exc) from None

    def _writing(self) -> bool:
        """Whether the calling thread holds the writer (inside :meth:`transaction`)."""
        return self._owner == threading.get_ident()  # set only while a transaction is open

    @property
    def _conn(self) -> sqlite3.Connection:
        """The connection the calling thread uses: the writer's inside its transaction, else
        the thread's own reading connection."""
        if self._writing():
            return self._writer
        return self._reader().conn

    def copy_file(self, path: Path) -> None:
        """A copy of the whole database in a new file at ``path``, as it is at one moment
        (SQLite's online backup: page by page, row numbers and index as they are)."""
        target = sqlite3.connect(str(path))
        try:
            with self._errors():
                self._conn.backup(target)
        finally:
            target.close()

    @property
    def _term_counts(self) -> TermCounts:
        if self._writing():
            return self._writer_terms
        return self._reader().terms

    def _reader(self) -> _Reader:
        reader: _Reader | None = getattr(self._local, "reader", None)
        if reader is not None:
            return reader
        if self._closed:
            raise StoreError(f"{self._path} is closed")
        conn = self._connect()
        try:
            with self._errors():
                conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
                if self._read_only:
                    conn.execute("PRAGMA query_only = ON")
        except BaseException:
            conn.close()
            raise
        reader = self._local.reader = _Reader(conn, TermCounts(conn))
        with self._readers_lock:
            self._readers.append(reader)
        return reader

    def _checkpoint(self) -> None:
        """Copy the WAL's committed pages into the database (PASSIVE: never waits for a
        reader or a writer) on this thread's reading connection, outside the write lock.
        A checkpoint that cannot finish now is finished by a later one; an error is ignored
        (the WAL keeps every page meanwhile)."""
        if self._closed:
            return
        with contextlib.suppress(sqlite3.Error, StoreError):
            self._reader().conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def data_version(self) -> int:
        """A number that changes whenever anyone (this process's writer too) commits."""
        with self._watch_lock, self._errors():
            return int(self._watcher.execute("PRAGMA data_version").fetchone()[0])

    def _setup_read_only(self, busy_timeout_ms: int) -> None:
        """Query-only, and the schema must be exactly this version's: nothing is migrated."""
        with self._errors():
            for conn in (self._writer, self._watcher):
                conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                conn.execute("PRAGMA query_only = ON")
            with self._lock:
                applied = self._applied_migrations(self._writer)
        unknown = sorted(set(applied) - set(MIGRATION_NAMES))
        if unknown:
            raise SchemaTooNewError(str(self._path), unknown)
        self._change_log = "0007_memory_changes" in applied
        self._counted = "0013_row_counts" in applied
        if set(MIGRATION_NAMES) - set(applied) - READABLE_WITHOUT:
            raise StoreError(
                f"{self._path} was written by an older salience; open it once with this "
                "version (read-write) to upgrade it, then mount it again"
            )

    @property
    def read_only(self) -> bool:
        """Whether this store was opened for reading only (a mounted layer)."""
        return self._read_only

    def _setup(self, busy_timeout_ms: int) -> None:
        """Pragmas and migrations, retried while another process is creating the same file.

        SQLite does not call the busy handler for a journal-mode change, so two processes
        opening a new file at once can see SQLITE_BUSY here; back off and try again.
        """
        deadline = time.monotonic() + busy_timeout_ms / 1000
        delay = 0.005
        while True:
            try:
                with self._errors():
                    conn = self._writer
                    self._watcher.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                    conn.execute("PRAGMA foreign_keys = ON")
                    # Only a new, empty file takes this (an existing store keeps its size).
                    # Each write dirties a dozen pages (row, indexes, full-text segments, audit)
                    # and COMMIT copies each whole page to the WAL: 2 KiB pages measured +6 %
                    # writes/s over 4 KiB; a 384-d vector (1.5 KiB) still fits in one page.
                    conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                    if mode != "wal":
                        raise StoreReadOnlyError(str(self._path))
                    conn.execute("PRAGMA synchronous = NORMAL")
                    # The writer never checkpoints inside COMMIT, where it would hold the write
                    # lock (a 3,000-line import's commit: 104 ms, 41 without): the committing
                    # thread does it after letting go, every CHECKPOINT_CHANGES changed rows
                    # (about as often as the 4,000 pages measured +25 % write throughput over
                    # SQLite's default 1,000, bench_store.py).
                    conn.execute("PRAGMA wal_autocheckpoint = 0")
                    conn.execute("PRAGMA cache_size = -65536")  # up to 64 MiB, lazily
                    # Space freed inside a page is zeroed at no extra I/O (an updated row's
                    # old cell); a delete and ``scrub`` zero whole freed pages too (ON).
                    conn.execute("PRAGMA secure_delete = FAST")
                    self._migrate()
                return
            except StoreBusyError:
                if time.monotonic() + delay > deadline:
                    raise
                import random  # (only when busy: not on every process's path)

                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.2)

    @property
    def location(self) -> str:
        """The database file's path."""
        return str(self._path)

    def _translate(self, exc: sqlite3.Error) -> StoreError:
        message = str(exc).lower()
        if "readonly" in message or "read-only" in message or "unable to open" in message:
            return StoreReadOnlyError(str(self._path))
        if "locked" in message or "busy" in message:
            return StoreBusyError(
                f"{self._path} stayed locked by another process past the busy timeout; "
                "try again or raise SALIENCE_BUSY_TIMEOUT_MS"
            )
        if "malformed" in message:
            return StoreDamagedError(str(self._path))
        if "not a database" in message:
            return NotASalienceDatabaseError(str(self._path), str(exc))
        return StoreError(f"{self._path}: {exc}")

    def _errors(self) -> _Errors:
        """Translate SQLite's errors into salience's for the statements inside."""
        return _Errors(self)

    def transaction(self) -> Transaction:
        """One atomic unit holding the write lock; nested calls join the outer one."""
        if self._read_only:
            raise StoreReadOnlyError(str(self._path))
        return Transaction(self)

    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        return self._writing()

    def read_replica(self) -> None:
        """A SQLite file has no replica."""
        return

    def route_reads(self) -> contextlib.AbstractContextManager[None]:
        """A SQLite file has no replica: every read stays here, and the verb looks at the
        file's version once (``stores.reads.LOOK``; not inside a transaction, whose own
        writes the verb reads)."""
        if self.in_transaction():
            return contextlib.nullcontext()
        return OneLook()

    def writer_busy(self) -> bool:
        """Whether another thread of this process holds the writer now."""
        if self._writing():
            return False
        if not self._lock.acquire(blocking=False):
            return True
        self._lock.release()
        return False

    def _applied_migrations(self, conn: sqlite3.Connection) -> list[str]:
        """Names of the migrations applied; [] for an empty file (refuses a foreign one)."""
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if "schema_migrations" not in tables:
            if tables:
                raise NotASalienceDatabaseError(
                    str(self._path), "it holds other tables and no salience schema"
                )
            if self._read_only:
                raise NotASalienceDatabaseError(str(self._path), "it holds no salience schema")
            return []
        return [str(r[0]) for r in conn.execute("SELECT name FROM schema_migrations")]

    def _migrate(self) -> None:
        with self.transaction():
            applied = self._applied_migrations(self._writer)
            if not applied:
                self._conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(name TEXT PRIMARY KEY, applied_at TEXT)"
                )
            unknown = sorted(set(applied) - set(MIGRATION_NAMES))
            if unknown:
                raise SchemaTooNewError(str(self._path), unknown)
            for name, script in MIGRATIONS:
                if name in applied:
                    continue
                for statement in split_statements(script):
                    self._conn.execute(statement)
                self._conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,)
                )

    @property
    def schema(self) -> str:
        """The name of the newest migration applied."""
        return MIGRATION_NAMES[-1]

    def close(self) -> None:
        """Close every connection (idempotent)."""
        self._closed = True
        for copy in self._copies or ():
            copy.close()
        with self._lock:
            self._writer.close()
        with self._watch_lock:
            self._watcher.close()
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.conn.close()

    def _select(self, sql: str, params: Sequence[object]) -> list[MemoryRecord]:
        with self._errors():
            return [from_row(row) for row in self._conn.execute(sql, params)]

    def _at_one_moment(self, read: Callable[[], _T]) -> _T:
        """Run several reads in one read transaction (or in the caller's open transaction)."""
        with self._errors():
            if self._writing():
                return read()
            conn = self._conn
            conn.execute("BEGIN")
            try:
                return read()
            finally:
                conn.execute("COMMIT")


class _Reader:
    """One thread's reading connection, and its full-text term counts."""

    __slots__ = ("conn", "terms")

    def __init__(self, conn: sqlite3.Connection, terms: TermCounts) -> None:
        self.conn = conn
        self.terms = terms


class _Errors:
    """``with store._errors():`` — SQLite errors out as :class:`StoreError` subclasses.

    Classes, not ``@contextmanager`` generators: a write enters a dozen of these, and a
    generator-based manager costs several times more (measured in bench_store.py).
    """

    __slots__ = ("_store",)

    def __init__(self, store: Connection) -> None:
        self._store = store

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if isinstance(exc, sqlite3.Error):
            raise self._store._translate(exc) from None
        if isinstance(exc, UnicodeEncodeError):  # text SQLite cannot store: a lone surrogate
            raise InvalidInputError(
                "a text given is not valid Unicode (undecodable bytes?)", field=None
            ) from None
