"""A PostgreSQL database, connected: a pool, migrations, error translation and transactions.

Several processes on several hosts may use one database. Every write transaction first takes
the store's advisory lock (``pg_advisory_xact_lock``), so writers take turns exactly as they
do on one SQLite file: a read-modify-write (dedup, a topic upsert, feedback, consolidation)
is never lost, and row, vector and change numbers are in commit order, so a reader that has
seen number n has seen every row below it. Reads run on any pooled connection, in parallel.
A writer that waits longer than the busy timeout gets :class:`StoreBusyError`, as on SQLite.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg_pool import ConnectionPool, PoolTimeout

from salience.errors import (
    InvalidInputError,
    NotASalienceDatabaseError,
    SchemaTooNewError,
    StoreBusyError,
    StoreError,
    StoreReadOnlyError,
)
from salience.models import MemoryRecord
from salience.models.reading import parse_lsn
from salience.net import redact
from salience.stores.migrations import MIGRATION_NAMES
from salience.stores.postgres.replica import ROUTE, Replica, Routed
from salience.stores.postgres.schema import MIGRATIONS
from salience.stores.reads import REPLICA_READ
from salience.stores.rows import from_row

_T = TypeVar("_T")
# Advisory lock keys: (salience's space, the schema's hash), one for writes, one for migrating.
_WRITE_LOCK = "SELECT pg_advisory_xact_lock(21009, hashtext(current_schema()))"
_MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(21010, hashtext(current_schema()))"


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class Connection:
    """An open salience database on PostgreSQL: the base of :class:`PostgresStore`."""

    def __init__(
        self,
        url: str,
        *,
        busy_timeout_ms: int = 10000,
        read_only: bool = False,
        create: bool = True,
        pool_size: int = 8,
        read_url: str | None = None,
        read_max_lag_s: float = 10.0,
    ) -> None:
        self._url = url
        self._location = redact(url)
        self._read_only = read_only
        self._busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._writers = 0  # threads of this process inside a write transaction now
        self._writers_lock = threading.Lock()
        self._vector_writes = 0
        # owners -> the store's (vectors, highest vseq) and theirs, when last counted
        self._owner_states: dict[tuple[str, ...], tuple[int, int, int, int]] = {}
        self._hnsw_dims: int | None = None
        try:  # one plain connection first: its error says why (refused, no such database...)
            first = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {self._location}: {_first_line(exc)}"
            ) from None
        try:
            with self._errors():
                self._migrate(first, create)
        finally:
            first.close()
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            timeout=max(busy_timeout_ms / 1000, 1.0),
            open=True,
            name="salience",
        )
        self._replica: Replica | None = None
        if read_url:
            self._replica = Replica(
                read_url, self._primary_position, max_lag_s=read_max_lag_s, pool_size=pool_size
            )

    @property
    def location(self) -> str:
        """The database URL without its password."""
        return self._location

    @property
    def read_only(self) -> bool:
        """Whether this store was opened for reading only."""
        return self._read_only

    @property
    def schema(self) -> str:
        """The name of the newest migration applied."""
        return MIGRATION_NAMES[-1]

    def _migrate(self, conn: psycopg.Connection[Any], create: bool) -> None:
        with conn.transaction():
            conn.execute(_MIGRATE_LOCK)
            tables = {
                str(r[0])
                for r in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
                )
            }
            if "schema_migrations" not in tables:
                if tables:
                    raise NotASalienceDatabaseError(
                        self._location, "it holds other tables and no salience schema"
                    )
                if not create or self._read_only:
                    raise StoreError(f"no salience store at {self._location}")
                conn.execute(
                    "CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
                )
            applied = {str(r[0]) for r in conn.execute("SELECT name FROM schema_migrations")}
            unknown = sorted(applied - set(MIGRATION_NAMES))
            if unknown:
                raise SchemaTooNewError(self._location, unknown)
            for name, script in MIGRATIONS:
                if name in applied:
                    continue
                if self._read_only:
                    raise StoreError(
                        f"{self._location} was written by an older salience; open it once "
                        "with this version (read-write) to upgrade it"
                    )
                conn.execute(script.encode())  # (bytes: no parameters, several statements)
                conn.execute("INSERT INTO schema_migrations VALUES (%s, now()::text)", (name,))

    def _translate(self, exc: BaseException) -> Exception:
        if isinstance(exc, pg_errors.LockNotAvailable | PoolTimeout):
            return StoreBusyError(
                f"{self._location} stayed locked by another writer past the busy timeout; "
                "try again or raise SALIENCE_BUSY_TIMEOUT_MS"
            )
        if isinstance(exc, pg_errors.ReadOnlySqlTransaction | pg_errors.InsufficientPrivilege):
            return StoreReadOnlyError(self._location)
        if isinstance(exc, pg_errors.UntranslatableCharacter) or (
            isinstance(exc, psycopg.DataError) and "NUL" in str(exc)
        ):
            return InvalidInputError(
                "a text holds a NUL character (\\x00), which PostgreSQL cannot store",
                field=None,
            )
        if isinstance(exc, pg_errors.UndefinedFile) or 'extension "vector"' in str(exc):
            return StoreError(
                f"{self._location}: the pgvector extension is not installed on this server "
                "(https://github.com/pgvector/pgvector#installation)"
            )
        if isinstance(exc, psycopg.OperationalError):
            return StoreError(f"PostgreSQL at {self._location}: {_first_line(exc)}")
        return StoreError(f"{self._location}: {_first_line(exc)}")

    def _errors(self) -> _Errors:
        """Translate psycopg's errors into salience's for the statements inside."""
        return _Errors(self)

    def transaction(self) -> _Transaction:
        """One atomic unit holding the store's write lock; nested calls join the outer one."""
        if self._read_only:
            raise StoreReadOnlyError(self._location)
        return _Transaction(self)

    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        return getattr(self._local, "depth", 0) > 0

    def writer_busy(self) -> bool:
        """Whether another thread of this process is inside a write transaction now."""
        return self._writers > (1 if self.in_transaction() else 0)

    def _count_writer(self, step: int) -> None:
        with self._writers_lock:
            self._writers += step

    def read_replica(self) -> Replica | None:
        """The read replica, if one is configured."""
        return self._replica

    def route_reads(self) -> AbstractContextManager[None]:
        """Inside, a person's reads go to the replica when it is well and has replayed the
        caller's writes (decided once, here), else to the primary (see :mod:`.replica`)."""
        if self.in_transaction():
            return nullcontext()
        return Routed(None if self._replica is None else self._replica.route())

    def _primary_position(self) -> int:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        assert row is not None
        return parse_lsn(str(row[0]))

    def _read_pool(self) -> ConnectionPool[Any]:
        """The pool a read outside a transaction takes its connection from."""
        if REPLICA_READ.get():
            routed = ROUTE.get()
            if routed is not None:
                return routed
        return self._pool

    def _on_some_pool(self, read: Callable[[psycopg.Connection[Any]], _T]) -> _T:
        """``read`` on a connection of :meth:`_read_pool`; a replica that fails is left for
        the primary (and counts as down until it is checked again)."""
        pool = self._read_pool()
        if pool is not self._pool:
            try:
                with pool.connection() as conn:
                    return read(conn)
            except (psycopg.OperationalError, PoolTimeout):
                assert self._replica is not None
                self._replica.failed()
        with self._pool.connection() as conn:
            return read(conn)

    def _bound(self) -> psycopg.Connection[Any] | None:
        """The connection of the calling thread's transaction or consistent read, if any."""
        local = self._local
        return getattr(local, "conn", None) or getattr(local, "reader", None)

    def _rows(
        self,
        sql: str,
        params: Sequence[object] | dict[str, object] = (),
        *,
        binary: bool = False,
    ) -> list[Any]:
        """Every row of a query (on this thread's transaction, else on a pooled connection);
        ``binary``: in PostgreSQL's binary format (bytea as is, not in hex: half the time)."""
        with self._errors():
            conn = self._bound()
            if conn is not None:
                return conn.execute(sql, params, binary=binary).fetchall()
            return self._on_some_pool(
                lambda pooled: pooled.execute(sql, params, binary=binary).fetchall()
            )

    def _exec(self, sql: str, params: Sequence[object] | dict[str, object] = ()) -> int:
        """Run a statement inside the calling thread's transaction; the rows it touched."""
        conn = self._local.conn
        with self._errors():
            return int(conn.execute(sql, params).rowcount)

    def _execmany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            with self._errors(), self._local.conn.cursor() as cursor:
                cursor.executemany(sql, rows)

    def _select(self, sql: str, params: Sequence[object] = ()) -> list[MemoryRecord]:
        return [from_row(row) for row in self._rows(sql, params)]

    def _at_one_moment(self, read: Callable[[], _T]) -> _T:
        """Run several reads on one snapshot (or in the caller's open transaction)."""
        if self._bound() is not None:
            return read()

        def snapshot(conn: psycopg.Connection[Any]) -> _T:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self._local.reader = conn
            try:
                return read()
            finally:
                self._local.reader = None
                if not conn.closed:
                    conn.execute("ROLLBACK")

        with self._errors():
            return self._on_some_pool(snapshot)

    def close(self) -> None:
        """Close every pooled connection (idempotent)."""
        self._pool.close()
        if self._replica is not None:
            self._replica.close()


class _Errors:
    """``with store._errors():`` — psycopg errors out as salience's."""

    __slots__ = ("_store",)

    def __init__(self, store: Connection) -> None:
        self._store = store

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if isinstance(exc, psycopg.Error | PoolTimeout):
            raise self._store._translate(exc) from None
        if isinstance(exc, UnicodeEncodeError):  # a lone surrogate: not valid Unicode
            raise InvalidInputError(
                "a text given is not valid Unicode (undecodable bytes?)", field=None
            ) from None


class _Transaction:
    """``with store.transaction():`` — BEGIN, the write lock, ... COMMIT (ROLLBACK on an
    error) on one pooled connection bound to the thread; nested use joins the outer unit."""

    __slots__ = ("_store",)

    def __init__(self, store: Connection) -> None:
        self._store = store

    def __enter__(self) -> None:
        store, local = self._store, self._store._local
        if getattr(local, "depth", 0):
            local.depth += 1
            return
        try:
            conn = store._pool.getconn()
        except PoolTimeout as exc:
            raise store._translate(exc) from None
        store._count_writer(+1)
        try:  # one round trip: three statements, no parameters
            conn.execute(
                f"BEGIN; SET LOCAL lock_timeout = {int(store._busy_timeout_ms)}; {_WRITE_LOCK}"
            )
        except BaseException as exc:
            store._count_writer(-1)
            _end(store, conn, commit=False)
            if isinstance(exc, psycopg.Error):
                raise store._translate(exc) from None
            raise
        local.conn, local.depth = conn, 1

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        local = self._store._local
        if local.depth > 1:
            local.depth -= 1
            return
        conn = local.conn
        local.conn, local.depth = None, 0
        self._store._count_writer(-1)
        try:
            _end(self._store, conn, commit=kind is None)
        except psycopg.Error as failure:
            raise self._store._translate(failure) from None


_COMMIT = "UPDATE store_version SET version = version + 1; COMMIT"


def _end(store: Connection, conn: psycopg.Connection[Any], *, commit: bool) -> None:
    """COMMIT (bumping the store's version, so other processes notice) or ROLLBACK, then give
    the connection back to the pool. With a replica, the commit's WAL position is noted for
    the caller (read-your-writes), in the same round trip."""
    try:
        if commit:
            try:
                if store._replica is None:
                    conn.execute(_COMMIT)
                else:
                    cursor = conn.execute(f"{_COMMIT}; SELECT pg_current_wal_insert_lsn()::text")
                    while cursor.nextset():
                        pass
                    row = cursor.fetchone()
                    assert row is not None
                    store._replica.wrote(parse_lsn(str(row[0])))
            except BaseException:
                if not conn.closed:
                    conn.execute("ROLLBACK")
                raise
        elif not conn.closed:
            conn.execute("ROLLBACK")
    finally:
        store._pool.putconn(conn)
