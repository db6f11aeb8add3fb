"""Memory rows change only under a grant of the write authority.

A store adds, overwrites and deletes memory rows (``insert``, ``insert_many``, ``replace``,
``delete``, ``erase_user``) only inside :func:`granted`, which the write authority alone
enters (:mod:`salience.write.authority`), once it has decided the change. A write that goes
around the authority is a bug in salience: it fails at once with
:class:`UngrantedWriteError`, in the test of whatever path made it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_GRANT: ContextVar[str | None] = ContextVar("salience_write_grant", default=None)


class UngrantedWriteError(RuntimeError):
    """A memory row was written around the write authority (a bug, never the caller's)."""


@contextmanager
def granted(action: str) -> Iterator[None]:
    """Memory rows may change in this block, for ``action`` (the authority's only)."""
    token = _GRANT.set(action)
    try:
        yield
    finally:
        _GRANT.reset(token)


def require_grant(operation: str) -> None:
    """Refuse ``operation`` on memory rows outside :func:`granted`."""
    if _GRANT.get() is None:
        raise UngrantedWriteError(
            f"memory rows changed ({operation}) around the write authority: every change "
            "to a memory goes through salience.write.authority"
        )
