"""The memories on PostgreSQL: rows, tags and entities, and BM25 ranking over ``tsvector``.

How full-text ranking maps to what REFERENCE.md expects of FTS5's ``bm25()`` (ilab's
SearchScore, aide's and talome's recall, the salience profile's full-text side):

- The same formula and constants: ``score = Σ idf(t) · f(t)·(k1+1) / (f(t) + k1·(1 - b +
  b·|D|/avgdl))`` with k1 = 1.2, b = 0.75, ``idf = ln((N - n + 0.5)/(n + 0.5))`` floored at
  1e-6, column weights title 2 and the rest 1 (``f`` sums the weights of a term's
  occurrences), |D| the row's token count, avgdl and N over the whole table, ``n`` the rows
  holding the term (among the searched columns). Scores are positive, higher is better, as
  the SQLite store returns them (``-rank``).
- What differs is the tokenizer: PostgreSQL's English Snowball stemmer (Porter's second
  version) where FTS5 has the original Porter stemmer, and PostgreSQL's parser, which also
  indexes a hyphenated word whole (``e-mail``: ``e-mail``, ``e``, ``mail``). A few words stem
  differently (``generously``: ``generous`` / ``gener``), so a few scores differ; the LoCoMo
  parity benchmark (``bench/locomo.py --store postgresql://…``) measures the effect.
- Query words are those of :func:`salience.text.query_terms`, stemmed by the same
  configuration as the rows; any of them matches (OR), as in the SQLite store.
"""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.errors import StoreError
from salience.models import MemoryRecord
from salience.stores.base import PAGE, MemoryFilter, StagedRow
from salience.stores.filters import Passing
from salience.stores.fts_terms import MIN_ROWS
from salience.stores.grant import require_grant
from salience.stores.postgres.connection import Connection
from salience.stores.postgres.owners import OwnerSizes
from salience.stores.reads import replica_read
from salience.stores.rows import (
    COLUMNS,
    INSERT_COLUMNS,
    RowReads,
    dated_text,
    filter_sql,
    to_row,
)
from salience.text import query_terms

K1, B = 1.2, 0.75
_COLUMN_LIST = ", ".join(f'"{c}"' if c == "user" else c for c in INSERT_COLUMNS)
_INSERT = (
    f"INSERT INTO memories ({_COLUMN_LIST}, dated_words) "
    f"VALUES ({', '.join('%s' for _ in INSERT_COLUMNS)}, %s) RETURNING seq"
)
_UPDATE = (
    "UPDATE memories SET "
    + ", ".join(f'"{c}" = %s' if c == "user" else f"{c} = %s" for c in INSERT_COLUMNS)
    + ", dated_words = %s WHERE id = %s RETURNING seq"
)
_LEXEMES = (
    "SELECT u.lexeme, coalesce(sum(c.text_rows), 0), coalesce(sum(c.all_rows), 0) "
    "FROM (SELECT DISTINCT lexeme FROM unnest(%s::text[]) AS q(term), "
    "unnest(to_tsvector('salience_english', q.term))) AS u "
    "LEFT JOIN (SELECT lexeme, text_rows, all_rows FROM fts_terms UNION ALL "
    "SELECT lexeme, text_rows, all_rows FROM fts_term_deltas) AS c ON c.lexeme = u.lexeme "
    "GROUP BY u.lexeme ORDER BY u.lexeme"
)
TEXT_ROWS = (
    "SELECT t.rows + coalesce((SELECT sum(rows) FROM fts_total_deltas), 0) FROM fts_totals t"
)
_TOTALS = (
    "SELECT t.rows + coalesce(d.rows, 0), t.tokens + coalesce(d.tokens, 0) FROM fts_totals t, "
    "(SELECT sum(rows) AS rows, sum(tokens) AS tokens FROM fts_total_deltas) AS d"
)


def _tsquery(lexemes: Sequence[str]) -> str:
    """Lexemes OR-ed as a ``tsquery`` literal: each quoted, so any text is only text."""
    return " | ".join("'" + lex.replace("\\", "\\\\").replace("'", "''") + "'" for lex in lexemes)


_READERS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL AND xact_start < %s"
)
_SCRUBBED = (
    "memories",
    "memory_updates",
    "memory_tags",
    "memory_entities",
    "memory_vectors",
    "vector_sessions",
    "fts_terms",
    "fts_term_deltas",
    "memory_changes",
    "traces",
    "trace_hits",
    "trace_feedback",
)


class MemoryRows(Connection, RowReads):
    """Writes and reads of memory rows, each write atomic with its tag and entity rows."""

    def insert(self, record: MemoryRecord) -> None:
        """Add a record with its tags and entities, atomically (the row's index columns are
        filled by the database's trigger)."""
        require_grant("insert")
        with self.transaction():
            found = self._rows(_INSERT, [*to_row(record), dated_text(record)])
            self._link(int(found[0][0]), record)

    def insert_many(self, rows: Sequence[StagedRow]) -> None:
        """Add new records at once, atomically: the rows in one pipelined statement, their
        tags and entities in one each."""
        require_grant("insert_many")
        if not rows:
            return
        with self.transaction():
            seqs = []
            with self._errors(), self._local.conn.cursor() as cursor:
                cursor.executemany(
                    _INSERT, [[*row.values, row.dated] for row in rows], returning=True
                )
                while True:
                    found = cursor.fetchone()
                    assert found is not None
                    seqs.append(int(found[0]))
                    if not cursor.nextset():
                        break
            self._link_many(list(zip(seqs, (row.record for row in rows), strict=True)))

    def replace(self, record: MemoryRecord) -> None:
        """Overwrite the record with ``record.id`` and its tag and entity rows."""
        require_grant("replace")
        with self.transaction():
            found = self._rows(_UPDATE, [*to_row(record), dated_text(record), record.id])
            if not found:
                raise StoreError(f"cannot replace {record.id}: it is not stored")
            seq = int(found[0][0])
            self._exec("DELETE FROM memory_tags WHERE seq = %s", (seq,))
            self._exec("DELETE FROM memory_entities WHERE seq = %s", (seq,))
            self._link(seq, record)

    def _link(self, seq: int, record: MemoryRecord) -> None:
        self._link_many([(seq, record)])

    def _link_many(self, placed: Sequence[tuple[int, MemoryRecord]]) -> None:
        """The tag and entity rows of records at their row numbers (inside a transaction)."""
        self._execmany(
            "INSERT INTO memory_tags (seq, tag) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            [(seq, tag) for seq, record in placed for tag in record.tags],
        )
        self._execmany(
            "INSERT INTO memory_entities (seq, entity_key, name) VALUES (%s, %s, %s)",
            [
                (seq, key, name)
                for seq, record in placed
                for key, name in {e.casefold(): e for e in reversed(record.entities)}.items()
            ],
        )

    def touch(self, memory_ids: builtins.list[str], now: datetime) -> None:
        """Count one access for each id, atomically (no read-modify-write in Python)."""
        if not memory_ids:
            return
        with self.transaction():
            self._exec(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = %s "
                "WHERE id = ANY(%s)",
                (format_time(now), list(memory_ids)),
            )

    def delete(self, memory_id: str) -> bool:
        """Remove the record and everything derived from it."""
        require_grant("delete")
        with self.transaction():
            return self._exec("DELETE FROM memories WHERE id = %s", (memory_id,)) > 0

    def erase_user(self, user: str) -> dict[str, int]:
        """Delete everything ``user`` ever stored (see the SQLite store's)."""
        require_grant("erase_user")
        with self.transaction():
            counts = {
                table: self._exec(f'DELETE FROM {table} WHERE "user" = %s', (user,))
                for table in ("memories", "sessions", "audit_log", "jobs")
            }
            counts["traces"] = self.delete_traces(user=user)  # type: ignore[attr-defined]
            return counts

    def scrub(self, *, again: bool = False) -> dict[str, int]:
        """Leave no dead tuple of deleted rows: fold the term counts and drop lexemes no row
        holds any more, then VACUUM the tables a memory's text or vector reaches (outside a
        transaction, as VACUUM must). The database's own WAL archive, backups and replicas
        keep what they kept (docs/security.md). What was done, counted."""
        with self.transaction():
            self._exec("SELECT salience_fold_counts()")
            dropped = self._exec("DELETE FROM fts_terms WHERE all_rows <= 0")
        with self._errors(), self._pool.connection() as conn:
            conn.autocommit = True
            started = conn.execute("SELECT clock_timestamp()").fetchone()
            conn.execute(f"VACUUM {', '.join(_SCRUBBED)}")
            # A transaction begun before the VACUUM and still open may see the deleted rows:
            # VACUUM kept them for it (the erasure is pending until it ends).
            row = conn.execute(_READERS, (started[0] if started else None,)).fetchone()
        readers = int(row[0]) if row else 0
        return {
            "lexemes_dropped": dropped,
            "tables_vacuumed": len(_SCRUBBED),
            "readers_open": readers,
        }

    @replica_read
    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id, or None."""
        rows = self._select(f"SELECT {COLUMNS} FROM memories m WHERE m.id = %s", (memory_id,))
        return rows[0] if rows else None

    @replica_read
    def successors(self, memory_id: str) -> list[MemoryRecord]:
        """Records that name ``memory_id`` as their parent, oldest first."""
        return self._select(
            f"SELECT {COLUMNS} FROM memories m WHERE m.parent_id = %s ORDER BY m.id",
            (memory_id,),
        )

    @replica_read
    def list(
        self, flt: MemoryFilter, limit: int | None, offset: int = 0
    ) -> builtins.list[MemoryRecord]:
        """Matching records, newest first (by creation time, then id), ``offset`` skipped."""
        where, params = filter_sql(flt, "%s")
        sql = (
            f"SELECT {COLUMNS} FROM memories m WHERE {where} ORDER BY m.created_at DESC, m.id DESC"
        )
        if limit is not None or offset:
            sql += " LIMIT %s OFFSET %s"
            params.extend([limit, offset])
        return self._select(sql, params)

    def _fts(
        self,
        select: str,
        query: str,
        flt: MemoryFilter,
        limit: int,
        dated: bool,
        passing: Passing | None = None,
    ) -> builtins.list[Any]:
        """BM25 over the stored lexemes (see the module docstring; ``passing`` changes
        nothing: PostgreSQL computes it, filter included)."""
        terms = query_terms(query)
        if limit <= 0 or not terms:
            return []

        def read() -> builtins.list[Any]:
            total_rows, tokens = (int(v) for v in self._rows(_TOTALS)[0])
            if not total_rows:
                return []
            lexemes, idfs, matched = [], [], 0
            for lexeme, text_rows, all_rows in self._rows(_LEXEMES, (terms,)):
                n = int(all_rows if dated else text_rows)
                if dated and total_rows >= 2 * MIN_ROWS and n >= MIN_ROWS and 2 * n >= total_rows:
                    continue  # weightless (see fts_terms): FTS5's score would not change
                idf = math.log((total_rows - n + 0.5) / (n + 0.5))
                lexemes.append(str(lexeme))
                idfs.append(idf if idf > 0 else 1e-6)
                matched += n
            if not lexemes:
                return []
            own = flt.user is not None and self._owner_sizes.own_rows_first(
                (flt.user, *flt.spaces), total_rows, matched, self._owner_rows
            )
            return self._ranked(select, lexemes, idfs, total_rows, tokens, flt, limit, dated, own)

        return self._at_one_moment(read)

    def _ranked(
        self,
        select: str,
        lexemes: builtins.list[str],
        idfs: builtins.list[float],
        total_rows: int,
        tokens: int,
        flt: MemoryFilter,
        limit: int,
        dated: bool,
        own: bool = False,
    ) -> builtins.list[Any]:
        """BM25 of the rows that match; ``own``: the filter's owners are a small part of the
        store (:mod:`.owners`), so their rows are read first (an ``OFFSET 0`` subquery is
        planned on its own: by the user index, not by GIN's lists of every owner's rows)."""
        where, params = filter_sql(flt, "%s")
        document = "m.fts || m.dated" if dated else "m.fts"
        matches = (
            "(m.fts @@ %s::tsquery OR m.dated @@ %s::tsquery)"
            if dated
            else ("m.fts @@ %s::tsquery")
        )
        query = _tsquery(lexemes)
        rows = f"(SELECT * FROM memories m WHERE {where} OFFSET 0) AS m" if own else "memories m"
        tested = "" if own else f" AND {where}"
        sql = (
            f"SELECT {select}, s.score FROM ("
            " SELECT m.seq, sum(q.idf * f.freq * %s / (f.freq + %s * (%s + %s * m.doc_len))"
            "  ORDER BY q.lexeme)"  # (one order of the terms, whatever the plan: the same sum)
            f" AS score FROM {rows}"
            " CROSS JOIN LATERAL ("
            "  SELECT u.lexeme, sum(CASE WHEN w = 'A' THEN 2.0 ELSE 1.0 END) AS freq"
            f"  FROM unnest({document}) AS u, unnest(u.weights) AS w"
            "  WHERE u.lexeme = ANY(%s) GROUP BY u.lexeme) AS f"
            " JOIN unnest(%s::text[], %s::float8[]) AS q(lexeme, idf) ON q.lexeme = f.lexeme"
            f" WHERE {matches}{tested}"
            " GROUP BY m.seq ORDER BY score DESC, m.seq LIMIT %s"
            ") AS s JOIN memories m ON m.seq = s.seq ORDER BY s.score DESC, m.seq"
        )
        average = tokens / total_rows
        head = [K1 + 1, K1, 1 - B, B / average]
        terms = [lexemes, lexemes, idfs]
        found = [query, query] if dated else [query]
        if own:
            return self._rows(sql, [*head, *params, *terms, *found, limit])
        return self._rows(sql, [*head, *terms, *found, *params, limit])

    @replica_read
    def substring(self, text: str, flt: MemoryFilter, limit: int) -> builtins.list[MemoryRecord]:
        """Memories whose content or title contains ``text`` (case-insensitive), newest first."""
        where, params = filter_sql(flt, "%s")
        needle = text.casefold()
        sql = (
            f"SELECT {COLUMNS} FROM memories m WHERE {where} AND "
            "(strpos(lower(m.content), %s) > 0 OR strpos(lower(coalesce(m.title, '')), %s) > 0) "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT %s"
        )
        return self._select(sql, [*params, needle, needle, limit])

    @functools.cached_property
    def _owner_sizes(self) -> OwnerSizes:
        return OwnerSizes()

    def _owner_rows(self, owners: builtins.list[str], limit: int) -> int:
        """How many rows ``owners`` hold, counted up to ``limit`` (by the user index)."""
        sql = 'SELECT count(*) FROM (SELECT 1 FROM memories WHERE "user" = ANY(%s) LIMIT %s) s'
        return int(self._rows(sql, (owners, limit))[0][0])

    def _wanted(
        self, select: str, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> builtins.list[Any]:
        if not memory_ids:
            return []
        where, params = filter_sql(flt, "%s")
        sql = f"SELECT {select} FROM memories m WHERE m.id = ANY(%s) AND {where}"
        return self._rows(sql, [list(memory_ids), *params])

    @replica_read
    def entity_counts(self, flt: MemoryFilter, limit: int | None) -> builtins.list[tuple[str, int]]:
        """Entities of the matching memories with how many mention each, most first."""
        where, params = filter_sql(flt, "%s")
        sql = (
            "SELECT min(e.name), count(*) AS n FROM memory_entities e "
            f"JOIN memories m ON m.seq = e.seq WHERE {where} "
            "GROUP BY e.entity_key ORDER BY n DESC, e.entity_key"
        )
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        return [(str(name), int(n)) for name, n in self._rows(sql, params)]

    def iter_all(self, flt: MemoryFilter | None = None) -> Iterator[MemoryRecord]:
        """Every record (matching ``flt``) in id order, a page at a time (see
        ``Store.iter_all``)."""
        where, params = filter_sql(flt, "%s") if flt is not None else ("TRUE", [])
        sql = (
            f"SELECT {COLUMNS} FROM memories m WHERE ({where}) AND m.id > %s ORDER BY m.id LIMIT %s"
        )
        after = ""
        while page := self._select(sql, [*params, after, PAGE]):
            yield from page
            after = page[-1].id
