"""A small tenant's ids in a store too large for a dict of all of them: the filter naming it
answered by the columns, the ids followed change by change."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from salience.briefing import snapshot, tenant_ids
from salience.briefing.columns import Vocabularies
from salience.briefing.passing import owned
from salience.briefing.snapshot import ColumnSnapshot
from salience.stores.base import MemoryFilter
from salience.stores.grant import granted
from salience.stores.sqlite import SQLiteStore
from tests.briefing.test_passing import _add, filters
from tests.factory import NOW, record


def test_a_store_over_the_bound_answers_a_small_tenant_by_the_tenants_own_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store too large for a dict of all its ids keeps one of a small tenant's (no other
    row passes a filter naming it), followed change by change; a large tenant, and ids not
    the tenant's, are left to the store."""
    monkeypatch.setattr(snapshot, "SEQ_INDEX_UP_TO", 10)
    store = SQLiteStore(tmp_path / "tenants.db")
    with granted("test"):
        _add(store, 30, 0)  # (ana, bo, space:team: 10 each)
        for n in range(70):
            store.insert(record(f"another's memory {n}", user=f"other-{n % 7}"))
        for n in range(40):
            store.insert(record(f"a large tenant's memory {n}", user="large"))
    columns = ColumnSnapshot(store, Vocabularies())
    built = []
    monkeypatch.setattr(tenant_ids, "owned", lambda *args: built.append(args[1]) or owned(*args))

    def check() -> int:
        rows = store.all_rows().rows
        columns.refresh()
        answered = 0
        for flt in filters():
            if flt.user not in ("ana", "bo"):
                continue
            owners = {flt.user, *flt.spaces}
            ids = [r.id for _, r in reversed(rows) if r.user in owners]
            statements: list[str] = []
            store._conn.set_trace_callback(statements.append)
            answer = columns.matching(ids, flt)
            store._conn.set_trace_callback(None)
            assert answer == store.matching(ids, flt), flt
            assert not any("wanted.column1" in s for s in statements)  # (the columns answered)
            answered += bool(answer)
        return answered

    assert check() > 0
    assert sorted(built) == [("ana",), ("ana", "space:team"), ("bo",), ("bo", "space:team")]
    rows = store.all_rows().rows
    with granted("test"):
        for _, gone in rows[:30:4]:
            store.delete(gone.id)
        _add(store, 12, offset=100)
        store.replace(replace(rows[1][1], valid_until=NOW))
    assert check() > 0
    assert len(built) == 4  # (followed, not built again)
    large = MemoryFilter(as_of=NOW, user="large")
    large_ids = [r.id for _, r in store.all_rows().rows if r.user == "large"]
    assert columns.matching(large_ids, large) is None
    mixed = [r.id for _, r in store.all_rows().rows if r.user in ("ana", "other-1")]
    assert columns.matching(mixed, MemoryFilter(as_of=NOW, user="ana")) is None
