"""One SQLite file, connected: pragmas, migrations, error translation and transactions.

Several processes may use one file at once: writes take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to the busy timeout for it, so a read-modify-write is never
lost and "database is locked" does not reach the user unless another process holds the lock
for longer than the timeout (then :class:`StoreBusyError` says so).
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

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
from salience.stores.sqlite.rows import from_row

_SQLITE_MAGIC = b"SQLite format 3\x00"
_T = TypeVar("_T")
PAGE_SIZE = 2048
_NEW_FILE_S = 2.0  # an empty file younger than this may be a store another process is making


def _split_statements(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


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
        self._lock = threading.RLock()
        self._depth = 0
        self._vector_writes = 0
        self._owner = 0
        self._change_log = True  # a read-only store may predate it (see _setup_read_only)
        self._term_counts: TermCounts  # set once connected
        if read_only or not create:
            _check_existing(self._path, busy_timeout_ms)
        else:
            _prepare_file(self._path, busy_timeout_ms)
        try:
            self._conn = sqlite3.connect(
                self._path.resolve().as_uri() + "?mode=ro" if read_only else str(self._path),
                isolation_level=None,
                timeout=busy_timeout_ms / 1000,
                check_same_thread=False,
                uri=read_only,
            )
        except sqlite3.Error as exc:
            raise self._translate(exc) from None
        self._term_counts = TermCounts(self._conn)
        try:
            if read_only:
                self._setup_read_only(busy_timeout_ms)
            else:
                self._setup(busy_timeout_ms)
        except BaseException:
            self._conn.close()
            raise

    def _setup_read_only(self, busy_timeout_ms: int) -> None:
        """Query-only, and the schema must be exactly this version's: nothing is migrated."""
        with self._errors():
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA query_only = ON")
            applied = self._applied_migrations()
        unknown = sorted(set(applied) - set(MIGRATION_NAMES))
        if unknown:
            raise SchemaTooNewError(str(self._path), unknown)
        self._change_log = "0007_memory_changes" in applied
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
                    self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                    self._conn.execute("PRAGMA foreign_keys = ON")
                    # Only a new, empty file takes this (an existing store keeps its size).
                    # Each write dirties a dozen pages (row, indexes, full-text segments, audit)
                    # and COMMIT copies each whole page to the WAL: 2 KiB pages measured +6 %
                    # writes/s over 4 KiB; a 384-d vector (1.5 KiB) still fits in one page.
                    self._conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                    mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                    if mode != "wal":
                        raise StoreReadOnlyError(str(self._path))
                    self._conn.execute("PRAGMA synchronous = NORMAL")
                    # Checkpoint less often than the default 1000 pages: fewer fsyncs and fewer
                    # rewrites of hot pages; measured +25 % write throughput (bench_store.py).
                    self._conn.execute("PRAGMA wal_autocheckpoint = 4000")
                    self._conn.execute("PRAGMA cache_size = -65536")  # up to 64 MiB, lazily
                    self._migrate()
                return
            except StoreBusyError:
                if time.monotonic() + delay > deadline:
                    raise
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

    def transaction(self) -> _Transaction:
        """One atomic unit holding the write lock; nested calls join the outer one."""
        if self._read_only:
            raise StoreReadOnlyError(str(self._path))
        return _Transaction(self)

    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        return self._depth > 0 and self._owner == threading.get_ident()

    def _applied_migrations(self) -> list[str]:
        """Names of the migrations applied; [] for an empty file (refuses a foreign one)."""
        tables = {
            row[0]
            for row in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if "schema_migrations" not in tables:
            if tables:
                raise NotASalienceDatabaseError(
                    str(self._path), "it holds other tables and no salience schema"
                )
            if self._read_only:
                raise NotASalienceDatabaseError(str(self._path), "it holds no salience schema")
            return []
        return [str(r[0]) for r in self._conn.execute("SELECT name FROM schema_migrations")]

    def _migrate(self) -> None:
        with self.transaction():
            applied = self._applied_migrations()
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
                for statement in _split_statements(script):
                    self._conn.execute(statement)
                self._conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,)
                )

    @property
    def schema(self) -> str:
        """The name of the newest migration applied."""
        return MIGRATION_NAMES[-1]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def _select(self, sql: str, params: Sequence[object]) -> list[MemoryRecord]:
        with self._lock, self._errors():
            return [from_row(row) for row in self._conn.execute(sql, params)]

    def _at_one_moment(self, read: Callable[[], _T]) -> _T:
        """Run several reads in one read transaction (or in the caller's open transaction)."""
        with self._lock, self._errors():
            if self._depth > 0:
                return read()
            self._conn.execute("BEGIN")
            try:
                return read()
            finally:
                self._conn.execute("COMMIT")


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


class _Transaction:
    """``with store.transaction():`` — BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an error);
    the thread holds the store's lock throughout, and nested use joins the outer unit."""

    __slots__ = ("_store",)

    def __init__(self, store: Connection) -> None:
        self._store = store

    def __enter__(self) -> None:
        store = self._store
        store._lock.acquire()
        if store._depth:
            store._depth += 1
            return
        try:
            store._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            store._lock.release()
            raise store._translate(exc) from None
        except BaseException:
            store._lock.release()
            raise
        store._depth = 1
        store._owner = threading.get_ident()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        store = self._store
        try:
            if store._depth > 1:
                store._depth -= 1
                return
            store._depth = 0
            conn = store._conn
            if kind is not None:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                return
            try:
                conn.execute("COMMIT")
            except BaseException as failure:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(failure, sqlite3.Error):
                    raise store._translate(failure) from None
                raise
        finally:
            store._lock.release()


def _check_existing(path: Path, busy_timeout_ms: int) -> None:
    """A store opened read-only (or without ``create``) must exist and be an SQLite file."""
    if not path.is_file():
        raise StoreError(f"no salience store at {path}")
    _check_magic(path, busy_timeout_ms)


def _check_magic(path: Path, busy_timeout_ms: int) -> None:
    """Refuse a file that is not SQLite. An empty file is refused too, unless it is new and
    fills within the busy timeout (another process creating the store this moment)."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while (status := path.stat()).st_size == 0:
        if time.monotonic() >= deadline or time.time() - status.st_mtime > _NEW_FILE_S:
            raise NotASalienceDatabaseError(
                str(path), "it is empty (0 bytes); remove it to start a new store"
            )
        time.sleep(0.01)
    with path.open("rb") as handle:
        if handle.read(16) != _SQLITE_MAGIC:
            raise NotASalienceDatabaseError(str(path), "not an SQLite file")


def _prepare_file(path: Path, busy_timeout_ms: int) -> None:
    """Create the home directory (owner only) and a new store's file (owner only: SQLite
    gives its WAL and shared-memory files the same mode); refuse a file that is not SQLite
    before SQLite touches it."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        raise StoreReadOnlyError(str(path.parent)) from None
    if path.is_dir():
        raise NotASalienceDatabaseError(str(path), "it is a directory")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        _check_magic(path, busy_timeout_ms)
    except OSError:
        raise StoreReadOnlyError(str(path)) from None
