"""What one piece of work may spend: time, records, bytes read and unpacked, memory.

A job (an import, a consolidation, a reindex) runs with a :class:`Budget` made from the
settings (``job_seconds``, ``job_rows``, ``job_read_mb``, ``job_unpacked_mb``,
``job_unpack_ratio``, ``job_memory_mb``). The work spends it as it goes (an importer charges
each record and byte it reads, an unpacker each byte it writes) and checks it at every step;
past a limit the work stops with an :class:`~salience.errors.OverLimitError` naming the
setting, and applies nothing. The budget also carries the job's stop: a cancelled job, or
one whose server is shutting down, stops at its next check.

The budget is found through :func:`active` (a context variable), so that code deep inside
the work (a SQLite progress handler, a reader of another system's files) spends the budget
of the job it runs in without being handed it. Outside a job there is no time limit; the
other limits are the settings' own (:func:`spending`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from time import monotonic

from salience.config import Config
from salience.errors import OverLimitError, SalienceError

MB = 1024 * 1024
VALUE_BYTES = 16 * MB
"""The largest single value (a row's text or blob) read from another system's store: a memory
holds at most ``max_content_bytes`` (64 KB by default), so anything this large is refused
rather than held in memory."""
MEMORY_EVERY = 0.25
"""Seconds between two readings of the process's memory (a reading costs a file read)."""


@dataclass(frozen=True)
class Limits:
    """The limits of one piece of work; ``seconds`` None: no time limit (work outside a job)."""

    seconds: float | None
    rows: int
    read_bytes: int
    unpacked_bytes: int
    unpack_ratio: int
    memory_bytes: int

    @classmethod
    def of(cls, config: Config, *, timed: bool = True) -> Limits:
        """The limits the settings give (``timed=False``: without the time limit)."""
        return cls(
            seconds=float(config.job_seconds) if timed else None,
            rows=config.job_rows,
            read_bytes=config.job_read_mb * MB,
            unpacked_bytes=config.job_unpacked_mb * MB,
            unpack_ratio=config.job_unpack_ratio,
            memory_bytes=config.job_memory_mb * MB,
        )

    @property
    def value_bytes(self) -> int:
        """The largest single value read from a source."""
        return min(VALUE_BYTES, self.read_bytes)


Stop = Callable[[], None]
"""Raises when the work must stop (cancelled, or its process is shutting down)."""


class Budget:
    """What a piece of work has spent against its :class:`Limits`."""

    def __init__(self, limits: Limits, *, stop: Stop | None = None) -> None:
        self.limits = limits
        self._stop = stop
        self.started = monotonic()
        self.rows = 0
        self.read = 0
        self.unpacked = 0
        self.tripped: SalienceError | None = None
        self._memory_at = 0.0

    def check(self) -> None:
        """Raise if the work must stop: stopped by its caller, out of time, or the process
        holds more memory than the limit."""
        if self._stop is not None:
            try:
                self._stop()
            except SalienceError as exc:
                self._trip(exc)
        now = monotonic()
        seconds = self.limits.seconds
        if seconds is not None and now - self.started > seconds:
            self._over(f"the job ran for more than {seconds:g} seconds", "job_seconds")
        if now - self._memory_at >= MEMORY_EVERY:
            self._memory_at = now
            held = resident_bytes()
            if held > self.limits.memory_bytes:
                self._over(
                    f"the process held {held // MB} MB, more than the "
                    f"{self.limits.memory_bytes // MB} MB a job may let it hold",
                    "job_memory_mb",
                )

    def row(self, count: int = 1) -> None:
        """Charge ``count`` records read."""
        self.rows += count
        if self.rows > self.limits.rows:
            self._over(f"the source holds more than {self.limits.rows:,} records", "job_rows")
        self.check()

    def bytes_read(self, count: int) -> None:
        """Charge ``count`` bytes read from the source."""
        self.read += count
        if self.read > self.limits.read_bytes:
            self._over(
                f"the source is larger than {self.limits.read_bytes // MB:,} MB", "job_read_mb"
            )
        self.check()

    def archive(self, members: Sequence[tuple[str, int, int]]) -> None:
        """Check an archive before anything is unpacked: each member (name, size, compressed
        size, as the archive declares them) against the ratio, and their sum against the
        unpacked total (:meth:`bytes_unpacked` holds the unpacking to both)."""
        ratio = self.limits.unpack_ratio
        for name, size, compressed in members:
            if size > ratio * compressed + MB:
                self._over(
                    f"the zip member {name!r} unpacks to {size // max(compressed, 1):,} times "
                    f"its compressed size; at most {ratio}",
                    "job_unpack_ratio",
                )
        if self.unpacked + sum(size for _, size, _ in members) > self.limits.unpacked_bytes:
            self._over(
                f"the zip unpacks to more than {self.limits.unpacked_bytes // MB:,} MB",
                "job_unpacked_mb",
            )

    def bytes_unpacked(self, count: int) -> None:
        """Charge ``count`` bytes written while unpacking."""
        self.unpacked += count
        if self.unpacked > self.limits.unpacked_bytes:
            self._over(
                f"the zip unpacks to more than {self.limits.unpacked_bytes // MB:,} MB",
                "job_unpacked_mb",
            )
        self.check()

    def interrupts(self) -> bool:
        """For a callback that may not raise (SQLite's progress handler): whether the work
        must stop, the reason kept in :attr:`tripped`."""
        if self.tripped is not None:
            return True
        try:
            self.check()
        except SalienceError:
            return True
        return False

    def _over(self, message: str, setting: str) -> None:
        self._trip(OverLimitError(f"{message} (the {setting} setting)", field=setting))

    def _trip(self, exc: SalienceError) -> None:
        self.tripped = exc
        raise exc


_CURRENT: ContextVar[Budget | None] = ContextVar("salience_budget", default=None)


def active() -> Budget:
    """The budget of the work this code runs in (one without limits outside any)."""
    found = _CURRENT.get()
    return found if found is not None else Budget(UNLIMITED)


@contextmanager
def spending(budget: Budget | Config) -> Iterator[Budget]:
    """Run the block with ``budget`` active; given the settings instead, keep the budget
    already active (a job's), else make one of the settings' limits, without a time limit."""
    if isinstance(budget, Config):
        found = _CURRENT.get()
        budget = found if found is not None else Budget(Limits.of(budget, timed=False))
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def resident_bytes() -> int:
    """The memory this process holds now (Linux: ``/proc/self/statm``; elsewhere its peak)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak) * (1 if os.uname().sysname == "Darwin" else 1024)


_HUGE = 1 << 62
UNLIMITED = Limits(None, _HUGE, _HUGE, _HUGE, _HUGE, _HUGE)
"""No limit at all (code run outside any work, e.g. a reader called directly)."""
