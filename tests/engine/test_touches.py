"""Access counts: written at once when the store is free, queued when another thread writes."""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from salience import Memory


def test_a_recall_counts_its_accesses_at_once_when_nobody_writes(memory: Memory) -> None:
    made = memory.remember("the harbour crane lifts containers", force=True)
    assert memory.search("harbour crane", profile="salience")
    record = memory.get(made.id)
    assert record is not None
    assert record.access_count == 1


def test_a_recall_beside_a_write_does_not_wait_and_its_counts_follow(memory: Memory) -> None:
    made = memory.remember("the harbour crane lifts containers", force=True)
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with memory.store.transaction():
            held.set()
            release.wait(60)

    writer = threading.Thread(target=hold)
    writer.start()
    try:
        assert held.wait(10)
        with ThreadPoolExecutor(1) as pool:
            hits = [pool.submit(memory.search, "harbour crane").result(timeout=10) for _ in "ab"]
        assert all(h[0].record.id == made.id for h in hits)
        still = memory.get(made.id)
        assert still is not None
        assert still.access_count == 0
    finally:
        release.set()
        writer.join()
    memory._touches.flush()
    record = memory.get(made.id)
    assert record is not None
    assert record.access_count == 2


def test_a_record_that_cannot_be_written_is_said_on_the_salience_logger(
    memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    """The recall has answered when its record is written: a failure is not raised to
    anyone, so it is logged (a warning on ``salience``), never lost in silence."""
    from salience.engine.touches import Touches

    def fails() -> None:
        raise RuntimeError("disk full")

    queue = Touches(memory.store)
    with caplog.at_level(logging.WARNING, logger="salience"):
        queue.later(fails)
        queue.flush()
    assert [r.getMessage() for r in caplog.records] == [
        "a record of a recall was not written: disk full"
    ]
