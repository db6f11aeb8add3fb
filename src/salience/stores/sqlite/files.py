"""A store's file before SQLite opens it: made owner-only, and refused if it is not SQLite."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from salience.errors import NotASalienceDatabaseError, StoreError, StoreReadOnlyError

_SQLITE_MAGIC = b"SQLite format 3\x00"
_NEW_FILE_S = 2.0  # an empty file younger than this may be a store another process is making


def split_statements(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def check_existing(path: Path, busy_timeout_ms: int) -> None:
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


def prepare_file(path: Path, busy_timeout_ms: int) -> None:
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
