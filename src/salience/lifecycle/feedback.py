"""Feedback (eidet's rule, pure): was a recalled or injected memory actually used?

* echo (used): importance + 0.05 (at most 1), confidence + 0.10 (at most 1);
* fizzle (not used): importance - 0.10 (at least 0.05), confidence - 0.15 (at least 0).

Both count an access and set ``last_accessed_at``. The steps are not symmetric: a fizzle
weighs twice an echo on importance, so ``used`` then ``not used`` leaves 0.50 at 0.45, not
0.50; a mistaken vote is not undone by the opposite one.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from salience.models import MemoryRecord

ECHO_IMPORTANCE = 0.05
ECHO_CONFIDENCE = 0.10
FIZZLE_IMPORTANCE = 0.10
FIZZLE_CONFIDENCE = 0.15
IMPORTANCE_FLOOR = 0.05


def apply_feedback(record: MemoryRecord, *, used: bool, now: datetime) -> MemoryRecord:
    """The record after one echo (``used``) or one fizzle."""
    if used:
        return replace(
            record,
            importance=min(1.0, record.importance + ECHO_IMPORTANCE),
            confidence=min(1.0, record.confidence + ECHO_CONFIDENCE),
            echo_count=record.echo_count + 1,
            access_count=record.access_count + 1,
            last_accessed_at=now,
        )
    return replace(
        record,
        importance=max(IMPORTANCE_FLOOR, record.importance - FIZZLE_IMPORTANCE),
        confidence=max(0.0, record.confidence - FIZZLE_CONFIDENCE),
        fizzle_count=record.fizzle_count + 1,
        access_count=record.access_count + 1,
        last_accessed_at=now,
    )
