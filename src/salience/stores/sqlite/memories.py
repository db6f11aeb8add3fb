"""The memories themselves: rows, their full-text index, tags and entities."""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.clock import format_time
from salience.errors import StoreError
from salience.models import FIELD_NAMES, MemoryRecord
from salience.stores.base import PAGE, MemoryFilter, StagedRow
from salience.stores.grant import require_grant
from salience.stores.rows import RowReads
from salience.stores.sqlite.fulltext import FullText
from salience.stores.sqlite.rows import (
    COLUMNS,
    INDEXED_FIELDS,
    INSERT_COLUMNS,
    dated_text,
    filter_sql,
    from_row,
    to_row,
)
from salience.stores.sqlite.textindex import state as index_state

if TYPE_CHECKING:
    pass

_INDEX_TEXT = (
    "INSERT INTO memory_fts (rowid, content, title, tags, entities, dated) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_UNINDEXED = "seq NOT IN (SELECT rowid FROM memory_fts)"


class MemoryRows(FullText, RowReads):
    """Writes and reads of memory rows, each write atomic with its index rows."""

    def insert(self, record: MemoryRecord) -> None:
        """Add a record with its full-text row, tags and entities, atomically."""
        require_grant("insert")
        placeholders = ", ".join("?" for _ in INSERT_COLUMNS)
        with self.transaction(), self._errors():
            cursor = self._conn.execute(
                f"INSERT INTO memories ({', '.join(INSERT_COLUMNS)}) VALUES ({placeholders})",
                to_row(record),
            )
            assert cursor.lastrowid is not None
            self._index(cursor.lastrowid, record)

    def insert_many(self, rows: Sequence[StagedRow]) -> None:
        """Add new records at once, atomically: one statement per table, row numbers given
        (the next free ones, as SQLite would choose them), so no row is read back."""
        require_grant("insert_many")
        if not rows:
            return
        columns = ("seq", *INSERT_COLUMNS)
        marks = ", ".join("?" for _ in columns)
        with self.transaction(), self._errors():
            top = self._conn.execute("SELECT coalesce(max(seq), 0) FROM memories").fetchone()[0]
            seqs = range(top + 1, top + 1 + len(rows))
            self._conn.executemany(
                f"INSERT INTO memories ({', '.join(columns)}) VALUES ({marks})",
                [(seq, *row.values) for seq, row in zip(seqs, rows, strict=True)],
            )
            self._conn.executemany(
                _INDEX_TEXT,
                [
                    (
                        seq,
                        row.record.content,
                        row.record.title or "",
                        " ".join(row.record.tags),
                        " ".join(row.record.entities),
                        row.dated,
                    )
                    for seq, row in zip(seqs, rows, strict=True)
                ],
            )
            self._conn.executemany(
                "INSERT INTO memory_tags (seq, tag) VALUES (?, ?)",
                [(seq, t) for seq, row in zip(seqs, rows, strict=True) for t in row.record.tags],
            )
            self._conn.executemany(
                "INSERT INTO memory_entities (seq, entity_key, name) VALUES (?, ?, ?)",
                [
                    (seq, key, name)
                    for seq, row in zip(seqs, rows, strict=True)
                    for key, name in _entity_names(row.record).items()
                ],
            )

    def replace(self, record: MemoryRecord) -> None:
        """Overwrite the record with ``record.id``; reindex only if indexed text changed."""
        require_grant("replace")
        assignments = ", ".join(f"{name} = ?" for name in INSERT_COLUMNS)
        with self.transaction(), self._errors():
            old = self._conn.execute(
                "SELECT seq, content, title, tags, entities, created_at FROM memories WHERE id = ?",
                (record.id,),
            ).fetchone()
            if old is None:
                raise StoreError(f"cannot replace {record.id}: it is not stored")
            seq = old[0]
            row = to_row(record)
            self._conn.execute(f"UPDATE memories SET {assignments} WHERE seq = ?", [*row, seq])
            new_indexed = tuple(row[FIELD_NAMES.index(name)] for name in INDEXED_FIELDS)
            if tuple(old[1:]) != new_indexed:
                self._unindex(seq)
                self._index(seq, record)

    def _index(self, seq: int, record: MemoryRecord) -> None:
        self._conn.execute(_INDEX_TEXT, _text_row(seq, record))
        if record.tags:  # (skipping empty statements saves a round trip on most writes)
            self._conn.executemany(
                "INSERT INTO memory_tags (seq, tag) VALUES (?, ?)", [(seq, t) for t in record.tags]
            )
        if record.entities:
            self._conn.executemany(
                "INSERT INTO memory_entities (seq, entity_key, name) VALUES (?, ?, ?)",
                [(seq, key, name) for key, name in _entity_names(record).items()],
            )

    def indexed(self) -> tuple[int, int]:
        """(rows in the full-text index, vectors): FTS5's own count and the triggers' one."""
        counted = "SELECT n FROM row_counts WHERE name = 'vectors'"  # (triggers: 0013)
        with self._errors():
            averages = index_state(self._conn)[1]
            vectors = self._conn.execute(
                counted if self._counted else "SELECT count(*) FROM memory_vectors"
            ).fetchone()
        return (averages[0] if averages else 0), int(vectors[0])

    def missing_text(self) -> int:
        """How many records the full-text index lacks."""
        with self._errors():
            row = self._conn.execute(f"SELECT count(*) FROM memories WHERE {_UNINDEXED}")
            return int(row.fetchone()[0])

    def settle_text(self) -> int:
        """Nothing to settle: FTS5 merges its segments as it writes."""
        return 0

    def repair_text(self) -> int:
        """Index the records the full-text index lacks and drop its rows of no record."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "DELETE FROM memory_fts WHERE rowid NOT IN (SELECT seq FROM memories)"
            )
            found = self._conn.execute(
                f"SELECT m.seq, {COLUMNS} FROM memories m WHERE {_UNINDEXED} ORDER BY m.seq"
            ).fetchall()
            rows = [_text_row(int(row[0]), from_row(row[1:])) for row in found]
            self._conn.executemany(_INDEX_TEXT, rows)
        return len(rows)

    def _unindex(self, seq: int) -> None:
        self._conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (seq,))
        self._conn.execute("DELETE FROM memory_tags WHERE seq = ?", (seq,))
        self._conn.execute("DELETE FROM memory_entities WHERE seq = ?", (seq,))

    def touch(self, memory_ids: builtins.list[str], now: datetime) -> None:
        """Count one access for each id, atomically (no read-modify-write in Python)."""
        if not memory_ids:
            return
        marks = ", ".join("?" for _ in memory_ids)
        with self.transaction(), self._errors():
            self._conn.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
                f"WHERE id IN ({marks})",
                [format_time(now), *memory_ids],
            )

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id, or None."""
        rows = self._select(f"SELECT {COLUMNS} FROM memories m WHERE m.id = ?", (memory_id,))
        return rows[0] if rows else None

    def successors(self, memory_id: str) -> list[MemoryRecord]:
        """Records that name ``memory_id`` as their parent, oldest first."""
        return self._select(
            f"SELECT {COLUMNS} FROM memories m WHERE m.parent_id = ? ORDER BY m.id", (memory_id,)
        )

    def list(
        self, flt: MemoryFilter, limit: int | None, offset: int = 0
    ) -> builtins.list[MemoryRecord]:
        """Matching records, newest first (by creation time, then id), ``offset`` skipped."""
        where, params = filter_sql(flt)
        # With a selective lookup (hash, topic), sort its few rows; otherwise SQLite walks the
        # (user, created_at) index for the order and scans every row of the user (measured:
        # the duplicate check per write grew linearly with the store).
        order = "+m.created_at" if flt.content_hash or flt.topic_key else "m.created_at"
        sql = f"SELECT {COLUMNS} FROM memories m WHERE {where} ORDER BY {order} DESC, m.id DESC"
        if limit is not None or offset:
            sql += " LIMIT ? OFFSET ?"
            params.extend([-1 if limit is None else limit, offset])
        return self._select(sql, params)

    def substring(self, text: str, flt: MemoryFilter, limit: int) -> builtins.list[MemoryRecord]:
        """Memories whose content or title contains ``text`` (case-insensitive), newest first.

        For queries too short for the full-text index (ilab: under 3 characters).
        """
        where, params = filter_sql(flt)
        needle = text.casefold()
        sql = (
            f"SELECT {COLUMNS} FROM memories m WHERE {where} AND "
            "(instr(lower(m.content), ?) > 0 OR instr(lower(coalesce(m.title, '')), ?) > 0) "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT ?"
        )
        return self._select(sql, [*params, needle, needle, limit])

    def _wanted(
        self, select: str, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> builtins.list[Any]:
        """The ids drive the join (``CROSS JOIN`` fixes SQLite's join order): each is looked up
        by its unique index. With ``m.id IN (…) AND m.user = ?`` and no table statistics,
        SQLite chose the (user, content_hash) index instead and read every memory of the
        user: ~300 ms per vector search at 100k memories, against ~4 ms this way."""
        if not memory_ids:
            return []
        where, params = filter_sql(flt)
        rows: builtins.list[Any] = []
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            values = ", ".join("(?)" for _ in chunk)
            sql = (
                f"SELECT {select} FROM (VALUES {values}) AS wanted "
                f"CROSS JOIN memories m ON m.id = wanted.column1 WHERE {where}"
            )
            with self._errors():
                rows += self._conn.execute(sql, [*chunk, *params]).fetchall()
        return rows

    def entity_counts(self, flt: MemoryFilter, limit: int | None) -> builtins.list[tuple[str, int]]:
        """Entities of the matching memories with how many mention each, most first."""
        where, params = filter_sql(flt)
        sql = (
            "SELECT min(e.name), count(*) AS n FROM memory_entities e "
            f"JOIN memories m ON m.seq = e.seq WHERE {where} "
            "GROUP BY e.entity_key ORDER BY n DESC, e.entity_key"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._errors():
            return [(str(name), int(n)) for name, n in self._conn.execute(sql, params)]

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, bytes]:
        """The stored vector of each of those memories that has one (see ``Store``)."""
        marks = ", ".join("?" for _ in memory_ids)
        sql = f"SELECT memory_id, vector FROM memory_vectors WHERE memory_id IN ({marks})"
        with self._errors():
            return dict(self._conn.execute(sql, list(memory_ids)).fetchall()) if marks else {}

    def iter_all(self, flt: MemoryFilter | None = None) -> Iterator[MemoryRecord]:
        """Every record (matching ``flt``) in id order, a page at a time (see
        ``Store.iter_all``)."""
        where, params = filter_sql(flt) if flt is not None else ("1", [])
        sql = f"SELECT {COLUMNS} FROM memories m WHERE ({where}) AND m.id > ? ORDER BY m.id LIMIT ?"
        after = ""
        while page := self._select(sql, [*params, after, PAGE]):
            yield from page
            after = page[-1].id


def _entity_names(record: MemoryRecord) -> dict[str, str]:
    """The record's entities by their index key (casefolded; the first spelling wins)."""
    return {entity.casefold(): entity for entity in reversed(record.entities)}


def _text_row(seq: int, record: MemoryRecord) -> tuple[int, str, str, str, str, str]:
    """A record's row of ``memory_fts``."""
    tags, entities = " ".join(record.tags), " ".join(record.entities)
    return seq, record.content, record.title or "", tags, entities, dated_text(record)
