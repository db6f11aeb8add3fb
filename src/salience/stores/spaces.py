"""The spaces of a store and their grants (:mod:`salience.models.spaces`), one SQL for both
stores (``?`` placeholders: each store's trace primitives run it), and the columns a memory
and a key gained with them: a memory's ``author`` and ``agent``, a key's ``agent`` and its
narrowing to some spaces.

Deleting a space deletes its grants in the same statement (a foreign key); its memories are
deleted by the engine, through the write authority, in the same transaction.
"""

from __future__ import annotations

import builtins
from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from salience.clock import format_time, parse_time
from salience.models.spaces import SPACE_PREFIX
from salience.stores.updates import UpdateRows

if TYPE_CHECKING:
    from salience.models import Grant, Space

SPACES = """
ALTER TABLE memories ADD COLUMN author TEXT;
ALTER TABLE memories ADD COLUMN agent TEXT;
CREATE INDEX memories_author ON memories (author) WHERE author IS NOT NULL;
CREATE INDEX memories_agent ON memories ("user", agent) WHERE agent IS NOT NULL;
ALTER TABLE api_keys ADD COLUMN agent TEXT;
ALTER TABLE api_keys ADD COLUMN spaces TEXT;
CREATE TABLE spaces (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL,
    keep_contributions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE space_grants (
    space TEXT NOT NULL REFERENCES spaces (name) ON DELETE CASCADE,
    "user" TEXT NOT NULL,
    "right" TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    granted_by TEXT NOT NULL,
    PRIMARY KEY (space, "user")
);
CREATE INDEX space_grants_user ON space_grants ("user");
"""

_SPACE = "name, created_at, created_by, keep_contributions"
_T = TypeVar("_T")
KEPT = 256
"""The most answers :meth:`SpaceRows._kept` holds (past it, it starts again)."""
_GRANT = 'space, "user", "right", granted_at, granted_by'


def _space(row: Sequence[object], right: str | None = None) -> Space:
    from salience.models.store_records import Space

    return Space(str(row[0]), parse_time(str(row[1])), str(row[2]), bool(row[3]), right)


def _grant(row: Sequence[object]) -> Grant:
    from salience.models.store_records import Grant

    return Grant(str(row[0]), str(row[1]), str(row[2]), parse_time(str(row[3])), str(row[4]))


class SpaceRows(UpdateRows):
    """Spaces and grants (a store's trace primitives run the SQL)."""

    _memo: dict[tuple[object, ...], tuple[object, Any]] | None = None

    @abstractmethod
    def change_marker(self) -> tuple[int, int]:
        """Differs after any commit of any process (the store's)."""

    @abstractmethod
    def in_transaction(self) -> bool:
        """Whether the calling thread is inside the store's write transaction."""

    def _kept(self, key: tuple[object, ...], read: Callable[[], builtins.list[_T]]) -> list[_T]:
        """``read()``, kept while the store's change marker holds: a recall asks for its
        caller's grants and for the mounted layers each time, on PostgreSQL a round trip
        each, though they change seldom. Inside a write transaction, read (its own writes
        are in no marker yet). A copy of the list each time."""
        if self.in_transaction():
            return read()
        marker = self.change_marker()
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        found = memo.get(key)
        if found is None or found[0] != marker:
            if len(memo) >= KEPT:
                memo.clear()
            found = memo[key] = (marker, read())
        return list(found[1])

    def add_space(self, space: Space) -> bool:
        """Add a space; False if one of that name exists (nothing changes)."""
        with self.transaction():
            return bool(
                self._trace_exec(
                    f"INSERT INTO spaces ({_SPACE}) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (
                        space.name,
                        format_time(space.created_at),
                        space.created_by,
                        int(space.keep_contributions),
                    ),
                )
            )

    def space(self, name: str) -> Space | None:
        """The space of that name, if there is one."""
        rows = self._trace_rows(f"SELECT {_SPACE} FROM spaces WHERE name = ?", (name,))
        return _space(rows[0]) if rows else None

    def spaces(self) -> builtins.list[Space]:
        """Every space, by name."""
        return [
            _space(r) for r in self._trace_rows(f"SELECT {_SPACE} FROM spaces ORDER BY name", ())
        ]

    def set_keep_contributions(self, name: str, keep: bool) -> bool:
        """Whether an erased member's contributions stay (author erased); False: no space."""
        with self.transaction():
            sql = "UPDATE spaces SET keep_contributions = ? WHERE name = ?"
            return bool(self._trace_exec(sql, (int(keep), name)))

    def drop_space(self, name: str) -> bool:
        """Delete a space's row and grants (its memories: the caller, first); False if none."""
        with self.transaction():
            self._trace_exec("DELETE FROM space_grants WHERE space = ?", (name,))
            return bool(self._trace_exec("DELETE FROM spaces WHERE name = ?", (name,)))

    def set_grant(self, grant: Grant) -> None:
        """Give ``grant.user`` ``grant.right`` on the space (replacing a right it had)."""
        with self.transaction():
            self._trace_exec(
                f"INSERT INTO space_grants ({_GRANT}) VALUES (?, ?, ?, ?, ?) "
                'ON CONFLICT (space, "user") DO UPDATE SET "right" = excluded."right", '
                "granted_at = excluded.granted_at, granted_by = excluded.granted_by",
                (
                    grant.space,
                    grant.user,
                    grant.right,
                    format_time(grant.granted_at),
                    grant.granted_by,
                ),
            )

    def drop_grant(self, space: str, user: str) -> bool:
        """Take ``user``'s right on the space away; False if it had none."""
        with self.transaction():
            sql = 'DELETE FROM space_grants WHERE space = ? AND "user" = ?'
            return bool(self._trace_exec(sql, (space, user)))

    def grants(self, *, space: str | None = None, user: str | None = None) -> builtins.list[Grant]:
        """Grants, of one space and/or one user, by space then user."""
        sql = f"SELECT {_GRANT} FROM space_grants WHERE TRUE"
        params: list[object] = []
        if space is not None:
            sql += " AND space = ?"
            params.append(space)
        if user is not None:
            sql += ' AND "user" = ?'
            params.append(user)
        sql += ' ORDER BY space, "user"'
        return self._kept(
            ("grants", space, user), lambda: [_grant(r) for r in self._trace_rows(sql, params)]
        )

    def drop_grants_of(self, user: str) -> int:
        """Take every right of ``user`` away (an erasure); how many there were."""
        with self.transaction():
            return self._trace_exec('DELETE FROM space_grants WHERE "user" = ?', (user,))

    def authored(self, author: str) -> builtins.list[tuple[str, str]]:
        """(id, owner) of every memory ``author`` wrote in a space, whatever its status."""
        sql = 'SELECT id, "user" FROM memories WHERE author = ? AND "user" LIKE ?'
        rows = self._trace_rows(sql, (author, SPACE_PREFIX + "%"))
        return [(str(r[0]), str(r[1])) for r in rows]
