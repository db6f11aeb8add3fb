"""A tenant's vectors as the store counts and reads them: counted from what was written since
when nothing written before went, else whole; read by vseq or by the owners' rows."""

from __future__ import annotations

from pathlib import Path

from salience.stores.sqlite import SQLiteStore
from tests.stores.churn import OWNERS, churn


def _truth(store: SQLiteStore) -> tuple[tuple[int, int], list[tuple[int, str]]]:
    rows = store._conn.execute(
        "SELECT v.vseq, v.memory_id FROM memories m JOIN memory_vectors v ON v.memory_id = m.id "
        "WHERE m.user IN (?, ?) ORDER BY v.vseq",
        OWNERS,
    ).fetchall()
    return (len(rows), max((r[0] for r in rows), default=0)), [(r[0], r[1]) for r in rows]


def test_a_tenants_vector_state_and_rows_follow_every_change(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db")
    other = SQLiteStore(tmp_path / "v.db")  # (another process)
    whole = 0
    counted = store._conn.set_trace_callback
    try:
        for step in churn(store, other, 60, erase_at=40):
            statements: list[str] = []
            counted(statements.append)
            state = store.owner_vector_state(OWNERS)
            counted(None)
            whole += any("WHERE m.user IN" in s for s in statements)
            truth, rows = _truth(store)
            assert state == truth, step
            for after in {0, *(vseq for vseq, _ in rows[-3:]), truth[1] - 5}:
                counted(statements.append)
                found = store.owner_vector_rows(OWNERS, max(after, 0))
                counted(None)
                assert [(r[0], r[1]) for r in found] == [r for r in rows if r[0] > after]
                assert (
                    store.owner_vector_rows(OWNERS, 0, 2) == store.owner_vector_rows(OWNERS, 0)[:2]
                )
        assert 10 < whole < 40  # (counted whole after a vector went, else from the new ones)
        by_vseq = sum("FROM memory_vectors v CROSS JOIN" in s for s in statements)
        assert 0 < by_vseq < len(statements)  # (both ways of reading were taken)
    finally:
        other.close()
        store.close()
