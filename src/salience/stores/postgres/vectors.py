"""Vectors on PostgreSQL: a pgvector column, and an HNSW index for the large stores.

:meth:`VectorRows.vector_rows` hands vectors out as the same float32 bytes they were written
as (pgvector keeps float4, sent in binary), so a process's exact in-memory search sees what
the SQLite store would give it. :meth:`VectorRows.nearest` asks the HNSW index (cosine),
which the first vector creates once it fixes the dimension and every later write extends, for
the approximate search of large stores (:mod:`salience.search.pgvector`).
"""

from __future__ import annotations

import builtins
import contextlib
import struct
import sys
from array import array
from collections.abc import Iterator, Sequence
from typing import Any

from salience.errors import StoreError
from salience.models import MemoryRecord
from salience.stores.postgres.memories import TEXT_ROWS as _TEXT_ROWS
from salience.stores.postgres.memories import MemoryRows
from salience.stores.reads import looked, replica_read
from salience.stores.rows import COLUMNS

_HNSW = "memory_vectors_hnsw"
EF_SEARCH_MAX = 1000  # pgvector's largest hnsw.ef_search


def vector_text(vector: bytes) -> str:
    """float32 bytes as pgvector's text form; ``repr`` of each float round-trips exactly."""
    values = array("f")
    values.frombytes(vector)
    return "[" + ",".join(map(repr, values)) + "]"


def vector_bytes(sent: bytes) -> bytes:
    """pgvector's binary form (dimensions, unused, big-endian float4s) as float32 bytes."""
    dims = struct.unpack_from(">H", sent)[0]
    values = array("f")
    values.frombytes(sent[4 : 4 + 4 * dims])
    if sys.byteorder == "little":
        values.byteswap()
    return values.tobytes()


_BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)


def _binary_row(memory_id: str, vector: bytes) -> bytes:
    """One row of a binary ``COPY``: two fields, the id (text) and the vector (pgvector's
    binary form: dimensions, a zero, then big-endian float4s)."""
    name = memory_id.encode("utf-8")
    values = array("f")
    values.frombytes(vector)
    if sys.byteorder == "little":
        values.byteswap()
    body = struct.pack(">HH", len(values), 0) + values.tobytes()
    return struct.pack(">hi", 2, len(name)) + name + struct.pack(">i", len(body)) + body


class VectorRows(MemoryRows):
    """Memories' embeddings, beside the rows."""

    _bulk = False  # inside bulk_load(): the HNSW index is built at its end

    def set_vector(self, memory_id: str, vector: bytes) -> None:
        """Store (or replace) the memory's embedding; it gets a new, higher ``vseq``."""
        with self.transaction():
            self._exec("DELETE FROM memory_vectors WHERE memory_id = %s", (memory_id,))
            self._exec(
                "INSERT INTO memory_vectors (memory_id, embedding) VALUES (%s, %s::vector)",
                (memory_id, vector_text(vector)),
            )
            if not self._bulk:
                self._ensure_hnsw(len(vector) // 4)
            self._vector_writes += 1

    def set_vectors(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """:meth:`set_vector` for many memories at once: one ``COPY`` in binary (pgvector's
        own wire format), in one transaction."""
        if not pairs:
            return
        pairs = list(dict(pairs).items())  # an id given twice keeps its last vector
        with self.transaction():
            self._exec(
                "DELETE FROM memory_vectors WHERE memory_id = ANY(%s)", ([i for i, _ in pairs],)
            )
            with (
                self._errors(),
                self._local.conn.cursor() as cursor,
                cursor.copy(
                    "COPY memory_vectors (memory_id, embedding) FROM STDIN (FORMAT BINARY)"
                ) as copy,
            ):
                copy.write(_BINARY_HEADER)
                for memory_id, vector in pairs:
                    copy.write(_binary_row(memory_id, vector))
                copy.write(b"\xff\xff")  # the end of the rows
            if not self._bulk:
                self._ensure_hnsw(len(pairs[0][1]) // 4)
            self._vector_writes += 1

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Drop the HNSW index while many vectors are written, and build it once after
        (each row written into an existing index costs milliseconds; one build of 100k
        costs ~1 minute here)."""
        with self.transaction():
            self._exec(f"DROP INDEX IF EXISTS {_HNSW}")
            self._hnsw_dims = None
        self._bulk = True
        try:
            yield
        finally:
            self._bulk = False
            with self.transaction():
                found = self._rows(
                    "SELECT count(*), min(vector_dims(embedding)) FROM memory_vectors"
                )
                count, dims = int(found[0][0]), found[0][1]
                if count:
                    # Room for the whole graph (vectors and links), so the build stays in
                    # memory: ~1.8 GB at 1M 384-dimension vectors; at most 4 GB.
                    need = min(4096, max(64, count * (int(dims) * 4 + 320) * 5 // 4 >> 20))
                    self._exec(f"SET LOCAL maintenance_work_mem = '{need}MB'")
                    self._ensure_hnsw(int(dims))

    def _ensure_hnsw(self, dims: int) -> None:
        """The HNSW index over vectors of ``dims`` dimensions, made once (inside the write's
        transaction: on an empty table it costs nothing, and then grows with every write)."""
        if self._hnsw_dims == dims:
            return
        found = self._rows(
            "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = %s "
            "AND c.relnamespace = current_schema()::regnamespace",
            (_HNSW,),
        )
        if found and f"vector({dims})" not in str(found[0][0]):
            self._exec(f"DROP INDEX {_HNSW}")
            found = []
        if not found:
            self._exec(
                f"CREATE INDEX {_HNSW} ON memory_vectors USING hnsw "
                f"((embedding::vector({dims})) vector_cosine_ops)"
            )
        self._hnsw_dims = dims

    @replica_read
    def nearest(self, vector: bytes, k: int, ef_search: int = 100) -> builtins.list[str]:
        """Ids of about the ``k`` memories whose vectors are nearest ``vector`` (cosine), by
        the HNSW index; [] while there is none."""
        dims = len(vector) // 4
        if self._hnsw_dims != dims:
            with self._errors(), self._pool.connection() as conn:
                exists = conn.execute(
                    "SELECT 1 FROM pg_class WHERE relname = %s "
                    "AND relnamespace = current_schema()::regnamespace",
                    (_HNSW,),
                ).fetchone()
            if not exists:
                return []
            self._hnsw_dims = dims
        # (pgvector takes 1 .. 1000: a deeper look gets the 1,000 nearest, not an error)
        ef = min(EF_SEARCH_MAX, max(int(ef_search), k))

        def read(conn: Any) -> builtins.list[Any]:
            conn.execute("BEGIN")
            try:
                conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                return conn.execute(  # type: ignore[no-any-return]
                    f"SELECT memory_id FROM memory_vectors ORDER BY "
                    f"embedding::vector({dims}) <=> %s::vector({dims}) LIMIT %s",
                    (vector_text(vector), k),
                ).fetchall()
            finally:
                if not conn.closed:
                    conn.execute("ROLLBACK")

        with self._errors():
            rows = self._on_some_pool(read)
        return [str(r[0]) for r in rows]

    def clear_vectors(self) -> None:
        """Drop every embedding and the index over them (the next model may differ in size)."""
        with self.transaction():
            self._exec("DELETE FROM memory_vectors")
            self._exec(f"DROP INDEX IF EXISTS {_HNSW}")
            self._hnsw_dims = None
            self._vector_writes += 1

    def count_rows(self) -> int:
        """How many records the store holds (all users, forgotten and superseded too)."""
        return int(self._rows("SELECT count(*) FROM memories")[0][0])

    def vector_state(self) -> tuple[int, int]:
        """(number of vectors, highest vseq): changes whenever any process writes vectors."""
        row = self._rows(  # (counted by triggers: count(*) reads every row)
            "SELECT (SELECT n FROM row_counts WHERE name = 'vectors'), "
            "(SELECT coalesce(max(vseq), 0) FROM memory_vectors)"
        )[0]
        return int(row[0]), int(row[1])

    def vector_rows(
        self, after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """(vseq, memory id, session id, vector) for vectors with ``vseq > after``, by vseq
        (the first ``limit``: a page)."""
        rows = self._rows(
            "SELECT v.vseq, v.memory_id, m.session_id, vector_send(v.embedding) "
            "FROM memory_vectors v JOIN memories m ON m.id = v.memory_id "
            "WHERE v.vseq > %s ORDER BY v.vseq LIMIT %s",
            (after, limit),
            binary=True,
        )
        return [(int(r[0]), str(r[1]), r[2], vector_bytes(bytes(r[3]))) for r in rows]

    def owner_vector_state(self, owners: Sequence[str]) -> tuple[int, int]:
        """(number of vectors, highest vseq) of the memories of ``owners``: counted whole the
        first time, then from the store's vectors written since, in one statement (one
        snapshot), as on SQLite: writers take turns under the store's lock, so vseq grows in
        commit order. Counted whole again when the store's count moved by other than the
        vectors written since (one written before was deleted or embedded again)."""
        key = tuple(owners)
        known = self._owner_states.get(key)
        if known is None:
            return self._owner_state_whole(key)
        then_count, then_top, mine, mine_top = known
        row = self._rows(
            "SELECT (SELECT n FROM row_counts WHERE name = 'vectors'), "
            "(SELECT coalesce(max(vseq), 0) FROM memory_vectors), count(*), "
            'count(*) FILTER (WHERE m."user" = ANY(%s)), '
            'coalesce(max(v.vseq) FILTER (WHERE m."user" = ANY(%s)), 0) '
            "FROM memory_vectors v LEFT JOIN memories m ON m.id = v.memory_id WHERE v.vseq > %s",
            (list(key), list(key), then_top),
        )[0]
        count, top, new, new_mine, new_top = (int(x) for x in row)
        if top < then_top or count - then_count != new:
            return self._owner_state_whole(key)
        state = (mine + new_mine, max(mine_top, new_top))
        self._owner_states[key] = (count, top, *state)
        return state

    def _owner_state_whole(self, key: tuple[str, ...]) -> tuple[int, int]:
        """:meth:`owner_vector_state` counted from the owners' rows, with the store's own."""
        row = self._rows(
            "SELECT (SELECT n FROM row_counts WHERE name = 'vectors'), "
            "(SELECT coalesce(max(vseq), 0) FROM memory_vectors), count(*), "
            "coalesce(max(v.vseq), 0) FROM memories m JOIN memory_vectors v "
            'ON v.memory_id = m.id WHERE m."user" = ANY(%s)',
            (list(key),),
        )[0]
        count, top, mine, mine_top = (int(x) for x in row)
        if len(self._owner_states) >= 4096:
            self._owner_states.clear()
        self._owner_states[key] = (count, top, mine, mine_top)
        return mine, mine_top

    def owner_vector_rows(
        self, owners: Sequence[str], after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """:meth:`vector_rows` of the memories of ``owners`` alone."""
        rows = self._rows(
            "SELECT v.vseq, v.memory_id, m.session_id, vector_send(v.embedding) "
            "FROM memories m JOIN memory_vectors v ON v.memory_id = m.id "
            'WHERE m."user" = ANY(%s) AND v.vseq > %s ORDER BY v.vseq LIMIT %s',
            (list(owners), after, limit),
            binary=True,
        )
        return [(int(r[0]), str(r[1]), r[2], vector_bytes(bytes(r[3]))) for r in rows]

    def vector_version(self) -> tuple[int, int, int]:
        """(number of vectors, highest vseq, sessions moved): what was read of the vectors and
        their session neighbours holds while this is the same (other writes leave it). Asked
        once per look (``stores.reads.LOOK``), unless this process wrote vectors since."""
        return looked((id(self), "vectors", self._vector_writes), self._vector_version)

    def _vector_version(self) -> tuple[int, int, int]:
        row = self._rows(
            "SELECT (SELECT n FROM row_counts WHERE name = 'vectors'), "
            "(SELECT coalesce(max(vseq), 0) FROM memory_vectors), "
            "(SELECT n FROM row_counts WHERE name = 'sessions_moved')"
        )[0]
        return int(row[0]), int(row[1]), int(row[2])

    def vector_places(
        self, memory_ids: Sequence[str]
    ) -> builtins.list[tuple[str, int, str | None, str | None]]:
        """(memory id, vseq, the memories with vectors written just before and after it in
        its session, by vseq) for those of ``memory_ids`` that have a vector."""
        neighbour = (  # (an index lookup each: vector_sessions_order, 0014)
            "(SELECT w.memory_id FROM vector_sessions w WHERE w.session_id = s.session_id "
            "AND w.vseq {} v.vseq ORDER BY w.vseq {} LIMIT 1)"
        )
        rows = self._rows(
            f"SELECT v.memory_id, v.vseq, {neighbour.format('<', 'DESC')}, "
            f"{neighbour.format('>', 'ASC')} FROM memory_vectors v "
            "LEFT JOIN vector_sessions s ON s.vseq = v.vseq WHERE v.memory_id = ANY(%s)",
            (list(memory_ids),),
        )
        return [(str(r[0]), int(r[1]), r[2], r[3]) for r in rows]

    def vectors_of(self, memory_ids: Sequence[str]) -> dict[str, bytes]:
        """The stored vector of each of those memories that has one (see ``Store``)."""
        rows = self._rows(
            "SELECT memory_id, vector_send(embedding) FROM memory_vectors "
            "WHERE memory_id = ANY(%s)",
            (list(memory_ids),),
            binary=True,
        )
        return {str(r[0]): vector_bytes(bytes(r[1])) for r in rows}

    def without_vectors(self, limit: int) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` records that have no embedding yet, in id order."""
        return self._select(
            f"SELECT {COLUMNS} FROM memories m WHERE NOT EXISTS "
            "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id) ORDER BY m.id LIMIT %s",
            (limit,),
        )

    def count_without_vectors(self) -> int:
        """How many records have no embedding."""
        return int(
            self._rows(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS "
                "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
            )[0][0]
        )

    def indexed(self) -> tuple[int, int]:
        """(rows in the full-text index, vectors): both counted by triggers as rows change."""
        row = self._rows(
            f"SELECT ({_TEXT_ROWS}), (SELECT n FROM row_counts WHERE name = 'vectors')"
        )[0]
        return int(row[0]), int(row[1])

    def missing_text(self) -> int:
        """None: a row's full-text columns are computed by a trigger as the row is written
        (``salience_index_row``), so the index cannot lag behind the rows."""
        return 0

    def repair_text(self) -> int:
        """Nothing to repair (see :meth:`missing_text`)."""
        return 0

    def settle_text(self) -> int:
        """GIN's pending lists merged into the full-text indexes: rows written go to a list
        every full-text search reads whole until autovacuum merges it (after importing 100k
        rows one question's query took 13.6 ms instead of 1.3). A role that does not own the
        indexes may not merge them: then autovacuum does. The pages merged."""
        try:
            found = self._rows(
                "SELECT gin_clean_pending_list('memories_fts'::regclass)"
                " + gin_clean_pending_list('memories_dated'::regclass)"
            )
        except StoreError:
            return 0
        return int(found[0][0])
