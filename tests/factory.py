"""A record factory for pure tests: ages in days relative to a fixed ``NOW``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from salience.ids import new_ulid
from salience.models import MemoryRecord

NOW = datetime(2026, 4, 20, 0, 0, 0, tzinfo=UTC)
_serial = count()


def record(
    content: str | None = None,
    *,
    age: float = 0.0,
    updated_age: float | None = None,
    **fields: Any,
) -> MemoryRecord:
    """A record created ``age`` days before NOW (updated ``updated_age`` days before)."""
    created = NOW - timedelta(days=age)
    updated = NOW - timedelta(days=age if updated_age is None else updated_age)
    fields.setdefault("type", "observation")
    fields.setdefault("id", new_ulid(created))
    n = next(_serial)
    return MemoryRecord(
        content=content or f"memory number {n}", created_at=created, updated_at=updated, **fields
    )
