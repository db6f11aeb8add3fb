"""A write transaction on a SQLite store: its lock, BEGIN IMMEDIATE ... COMMIT, and the WAL
checkpoint that follows it once the lock is let go."""

from __future__ import annotations

import sqlite3
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from salience.stores.sqlite.connection import Connection

CHECKPOINT_CHANGES = 2800
"""Rows changed between checkpoints: a remember changes about 12 (row, full-text, tags,
entities, vector, audit, change log) and writes about 18 WAL pages, so about every 230
remembers, as the 4,000 WAL pages measured best for write throughput did."""


class Transaction:
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
            store._writer.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            store._lock.release()
            raise store._translate(exc) from None
        except BaseException:
            store._lock.release()
            raise
        store._owner = threading.get_ident()
        store._depth = 1

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        store = self._store
        checkpoint = False
        try:
            if store._depth > 1:
                store._depth -= 1
                return
            store._depth = 0
            store._owner = 0
            conn = store._writer
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
            changes = conn.total_changes
            if changes - store._checkpointed_at >= CHECKPOINT_CHANGES:
                store._checkpointed_at, checkpoint = changes, True
        finally:
            store._lock.release()
        if checkpoint:
            store._checkpoint()
