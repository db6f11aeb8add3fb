"""The update links of a store: pairs of memories where the newer one was found to change what
the older says (:mod:`salience.write.updates`), open until a person confirms or dismisses
them. One SQL for both stores (``?`` placeholders: each store's trace primitives run it).

A link goes with either memory: its table refers to both, and deleting a memory (a purge, a
user's erasure) deletes its links, reason and all, in the same transaction.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.clock import format_time, parse_time
from salience.stores.traces import TraceRows

if TYPE_CHECKING:
    from salience.models import UpdateLink

UPDATE_LINKS = """
CREATE TABLE memory_updates (
    new_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    old_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    confidence REAL NOT NULL,
    why TEXT NOT NULL,
    state TEXT NOT NULL,
    found_at TEXT NOT NULL,
    decided_at TEXT,
    PRIMARY KEY (new_id, old_id)
);
CREATE INDEX memory_updates_old ON memory_updates (old_id);
CREATE INDEX memory_updates_owner ON memory_updates (owner, state);
"""

_COLUMNS = "new_id, old_id, owner, confidence, why, state, found_at, decided_at"
_CHUNK = 500


class UpdateRows(TraceRows):
    """Saving, listing and deciding update links (a store's trace primitives run the SQL)."""

    def save_update_links(self, links: Sequence[UpdateLink]) -> None:
        """Add links; a pair already there (open, confirmed or dismissed) is left as it is:
        a dismissed pair never comes back."""
        if not links:
            return
        with self.transaction():
            self._trace_execmany(
                f"INSERT INTO memory_updates ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [
                    (
                        x.new_id,
                        x.old_id,
                        x.user,
                        x.confidence,
                        x.why,
                        x.state,
                        format_time(x.found_at),
                        None if x.decided_at is None else format_time(x.decided_at),
                    )
                    for x in links
                ],
            )

    def update_links(
        self, user: str | None, states: Sequence[str], memory_ids: Sequence[str] = ()
    ) -> builtins.list[UpdateLink]:
        """Links in these states, newest found first (of one user with ``user``; only those
        naming one of ``memory_ids`` as the newer or the older, when given)."""
        where = [f"state IN ({', '.join('?' for _ in states)})"]
        params: list[object] = list(states)
        if user is not None:
            where.append("owner = ?")
            params.append(user)
        if not memory_ids:
            return self._links(" AND ".join(where), params)
        found: dict[tuple[str, str], UpdateLink] = {}
        ids = sorted(set(memory_ids))
        for start in range(0, len(ids), _CHUNK):
            part = ids[start : start + _CHUNK]
            marks = ", ".join("?" for _ in part)
            naming = f"(new_id IN ({marks}) OR old_id IN ({marks}))"
            for link in self._links(" AND ".join([*where, naming]), [*params, *part, *part]):
                found[(link.new_id, link.old_id)] = link
        return sorted(found.values(), key=lambda x: (x.found_at, x.new_id), reverse=True)

    def decide_update_link(self, new_id: str, old_id: str, state: str, at: datetime) -> bool:
        """Mark an open link confirmed or dismissed; False if there is no open link."""
        with self.transaction():
            return bool(
                self._trace_exec(
                    "UPDATE memory_updates SET state = ?, decided_at = ? "
                    "WHERE new_id = ? AND old_id = ? AND state = 'open'",
                    (state, format_time(at), new_id, old_id),
                )
            )

    def _links(self, where: str, params: Sequence[object]) -> builtins.list[UpdateLink]:
        rows = self._trace_rows(
            f"SELECT {_COLUMNS} FROM memory_updates WHERE {where} "
            "ORDER BY found_at DESC, new_id DESC",
            params,
        )
        if not rows:
            return []  # (a briefing that finds none does not build the class)
        from salience.models.results import UpdateLink

        return [
            UpdateLink(
                str(r[0]),
                str(r[1]),
                str(r[2]),
                float(r[3]),
                str(r[4]),
                str(r[5]),
                parse_time(r[6]),
                None if r[7] is None else parse_time(r[7]),
            )
            for r in rows
        ]
