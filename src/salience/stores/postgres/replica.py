"""Reads from a streaming replica (``SALIENCE_STORE_READ_URL``), every write on the primary,
and each caller reading its own writes.

**What goes to the replica.** A verb that only reads for a person (recall, briefing, list,
history, stats, the web UI's pages) asks :meth:`Replica.route` once, on entry, where its reads
go; within it, the store's request reads (full text, records by id, lists, the audit log,
traces, entities) run there. Everything else stays on the primary: writes and what a write
reads first, and the in-process copies (vectors, briefing columns) that follow the store's
change log, whose counters must come from the one server that numbers them.

**Read-your-writes.** After each commit the store notes the primary's WAL insert position
for the caller (:data:`READER`: the server sets the key's tenant; a library or CLI process is
one caller). A read goes to the replica only once the replica has replayed that position
(``pg_last_wal_replay_lsn()``); until then it reads the primary. A position can also come with
the request (:data:`POSITION`: the server reads it from ``X-Salience-Position`` and sends the
caller's own back on every response), so a client that writes through one server process and
reads through another still reads its writes. (The insert position can sit a page header past
the commit when the commit ends a WAL page; the replica then reaches it with the next WAL
record, at the latest the primary's next standby snapshot, ~15 s: reads stay on the primary
meanwhile, never stale.)

**Health.** At most once a second a read checks the replica: up, and its lag (how long the
primary has held WAL the replica has not replayed, from the positions seen at each check).
Down, or lagging past ``SALIENCE_READ_MAX_LAG_S``, all reads go to the primary until a later
check finds it well; ``/readyz`` and ``/metrics`` say which.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from salience.models.reading import POSITION, READER, format_lsn, parse_lsn
from salience.net import redact
from salience.stores.reads import OneLook

log = logging.getLogger(__name__)

ROUTE: ContextVar[ConnectionPool[Any] | None] = ContextVar("salience_route", default=None)
"""Where the current read verb's reads go: the replica's pool, or None (the primary)."""

CHECK_EVERY_S = 1.0
CONNECT_TIMEOUT_S = 2
READERS_KEPT = 10_000  # callers whose last write position is kept (older ones: the floor)
_MARKS_KEPT = 600
_HEALTH = (
    "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, "
    "to_regclass('schema_migrations') IS NOT NULL"
)


@dataclass(frozen=True)
class Health:
    """The replica as last checked: ``state`` is ``ok``, ``down`` or ``lagging``."""

    state: str
    replayed: int = 0
    lag_s: float = 0.0
    checked_at: float = 0.0
    error: str = ""


class Replica:
    """A streaming replica of a :class:`~.connection.Connection`'s primary."""

    def __init__(
        self,
        url: str,
        primary_position: Callable[[], int],
        *,
        max_lag_s: float,
        pool_size: int = 8,
        check_every_s: float = CHECK_EVERY_S,
    ) -> None:
        self.location = redact(url)
        self._url = url
        self._primary_position = primary_position
        self._max_lag_s = max_lag_s
        self._check_every_s = check_every_s
        self._lock = threading.Lock()
        self._checking = threading.Lock()
        self._written: OrderedDict[str, int] = OrderedDict()
        self._floor = 0  # the newest position of a caller no longer kept
        self._marks: list[tuple[float, int]] = []  # (when, the primary's position then)
        self._health = Health("down", error="not checked yet")
        self.reads = {"replica": 0, "down": 0, "lagging": 0, "behind": 0}
        self.pool: ConnectionPool[Any] = ConnectionPool(
            url,
            min_size=0,
            max_size=pool_size,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
            timeout=CONNECT_TIMEOUT_S,
            open=True,
            name="salience-replica",
        )

    # -- positions ------------------------------------------------------------------------

    def wrote(self, position: int, reader: str | None = None) -> None:
        """A commit of ``reader`` (else the calling context's) ended at ``position``."""
        who = READER.get() if reader is None else reader
        with self._lock:
            if position > self._written.get(who, 0):
                self._written[who] = position
            self._written.move_to_end(who)
            while len(self._written) > READERS_KEPT:
                _, dropped = self._written.popitem(last=False)
                self._floor = max(self._floor, dropped)

    def position_of(self, reader: str | None = None) -> int:
        """The newest position ``reader`` (else the calling context's) must read."""
        who = READER.get() if reader is None else reader
        with self._lock:
            return max(self._written.get(who, self._floor), POSITION.get())

    # -- routing --------------------------------------------------------------------------

    def route(self) -> ConnectionPool[Any] | None:
        """Where a read verb's reads go now: the replica's pool, or None (the primary)."""
        health = self.health()
        if health.state != "ok":
            self._count(health.state)
            return None
        needed = self.position_of()
        if needed > health.replayed:
            health = self.check()  # (one round trip: has it replayed the caller's write?)
            if health.state != "ok" or needed > health.replayed:
                self._count("behind" if health.state == "ok" else health.state)
                return None
        self._count("replica")
        return self.pool

    def _count(self, where: str) -> None:
        with self._lock:
            self.reads[where] += 1

    # -- health ---------------------------------------------------------------------------

    def health(self) -> Health:
        """The replica's health, checked again when the last check is older than a second
        (by one thread: the others meanwhile take the last answer)."""
        known = self._health
        if time.monotonic() - known.checked_at < self._check_every_s:
            return known
        if not self._checking.acquire(blocking=False):
            return known
        try:
            return self.check()
        finally:
            self._checking.release()

    def check(self) -> Health:
        """Ask the replica (and the primary) now. A replica known to be down is probed on a
        connection of its own (a pool would keep retrying it for its whole timeout)."""
        now = time.monotonic()
        try:
            primary = self._primary_position()
            if self._health.state == "down":
                with psycopg.connect(
                    self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
                ) as probe:
                    row = probe.execute(_HEALTH).fetchone()
                self.pool.check()  # (connections from before it went down are dropped)
            else:
                with self.pool.connection() as conn:
                    row = conn.execute(_HEALTH).fetchone()
        except Exception as exc:
            log.warning("the read replica %s does not answer: %s", self.location, _first_line(exc))
            health = Health("down", checked_at=now, error="unreachable")
        else:
            if row is None or not row[0] or row[1] is None:
                health = Health("down", checked_at=now, error="not a streaming replica")
            elif not row[2]:
                health = Health("down", checked_at=now, error="no salience store there")
            else:
                replayed = parse_lsn(str(row[1]))
                lag = self._lag(now, primary, replayed)
                state = "lagging" if lag > self._max_lag_s else "ok"
                health = Health(state, replayed, lag, now)
        self._health = health
        return health

    def _lag(self, now: float, primary: int, replayed: int) -> float:
        """How long the primary has held WAL the replica has not replayed (0: caught up)."""
        with self._lock:
            self._marks.append((now, primary))
            if replayed >= primary:
                self._marks = [(now, primary)]
                return 0.0
            del self._marks[:-_MARKS_KEPT]
            for when, position in self._marks:
                if position > replayed:  # the first moment the primary had what it lacks
                    return now - when
        return 0.0

    def failed(self) -> None:
        """A read on the replica failed: it counts as down until the next check."""
        self._health = Health("down", checked_at=time.monotonic(), error="unreachable")

    def status(self) -> dict[str, Any]:
        """For ``/readyz`` and ``/metrics``: the replica's state, lag and reads so far."""
        health = self.health()
        with self._lock:
            reads = dict(self.reads)
        return {
            "state": health.state,
            "lag_s": round(health.lag_s, 3),
            "max_lag_s": self._max_lag_s,
            "reads": reads,
            **({"error": health.error} if health.error else {}),
        }

    def token(self, reader: str) -> str | None:
        """``reader``'s newest write position as a session token (None: none written)."""
        with self._lock:
            position = self._written.get(reader, 0)
        return format_lsn(position) if position else None

    def close(self) -> None:
        self.pool.close()


class Routed:
    """``with store.route_reads():`` — the replica's pool (or None: the primary) for the reads
    inside, and one look at the store for them all (``stores.reads.LOOK``)."""

    __slots__ = ("_look", "_pool", "_token")

    def __init__(self, pool: ConnectionPool[Any] | None) -> None:
        self._pool = pool
        self._look = OneLook()

    def __enter__(self) -> None:
        self._token = ROUTE.set(self._pool)
        self._look.__enter__()

    def __exit__(self, *_: object) -> None:
        self._look.__exit__()
        ROUTE.reset(self._token)


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, psycopg.Error | OSError):
        return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return type(exc).__name__
