"""Who reads, and what they must see: the vocabulary of a store's read replica (the caller
whose writes a read must show, a position a caller brings from another process, and what a
replica reports), shared by the stores, the server and the client (see
:mod:`salience.stores.postgres.replica`)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Protocol

READER: ContextVar[str] = ContextVar("salience_reader", default="")
"""Whose writes the calling context must read: the server sets the caller's tenant."""
POSITION: ContextVar[int] = ContextVar("salience_position", default=0)
"""A WAL position the caller brings (a session token from another process's response)."""
POSITION_HEADER = "X-Salience-Position"


class ReadReplica(Protocol):
    """A store's read replica, as the server reports it."""

    def status(self) -> dict[str, Any]:
        """Its state (``ok``, ``down``, ``lagging``), lag and where reads went so far."""
        ...

    def token(self, reader: str) -> str | None:
        """``reader``'s newest write position as a session token (None: none written)."""
        ...


def parse_lsn(text: str) -> int:
    """A WAL position ``X/Y`` (hexadecimal halves) as one number; ValueError if it is not."""
    high, slash, low = text.strip().partition("/")
    if not slash or not 0 < len(high) <= 8 or not 0 < len(low) <= 8:
        raise ValueError(f"not a WAL position: {text[:40]!r}")
    try:
        return (int(high, 16) << 32) | int(low, 16)
    except ValueError:
        raise ValueError(f"not a WAL position: {text[:40]!r}") from None


def format_lsn(position: int) -> str:
    """The ``X/Y`` form of a position."""
    return f"{position >> 32:X}/{position & 0xFFFFFFFF:X}"
