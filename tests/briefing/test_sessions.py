"""Sessions: reuse within 24 h, automatic close of stale ones, summaries."""

from __future__ import annotations

import pytest

from salience import ConflictError, Memory
from salience.briefing.sessions import automatic_summary, is_stale
from salience.models import Session
from tests.conftest import T0, FakeClock
from tests.factory import record


def test_staleness_is_more_than_24_hours_idle() -> None:
    from datetime import timedelta

    session = Session("01JS0000000000000000000000", "u", T0, T0)
    assert not is_stale(session, T0 + timedelta(hours=24))
    assert is_stale(session, T0 + timedelta(hours=24, seconds=1))


def test_automatic_summary_names_the_most_important_memories() -> None:
    session = Session("01JS0000000000000000000000", "u", T0, T0)
    members = [record(content=f"note {i}", importance=i / 10) for i in range(5)]
    text = automatic_summary(session, members)
    assert "5 memories" in text
    assert text.index("note 4") < text.index("note 3") < text.index("note 2")
    assert "note 1" not in text
    assert "no memories" in automatic_summary(session, [])


def test_start_reuses_an_active_session(memory: Memory, clock: FakeClock) -> None:
    first = memory.session_start("alice")
    assert first.is_new
    clock.advance(hours=20)
    again = memory.session_start("alice")
    assert not again.is_new
    assert again.session_id == first.session_id
    assert memory.session_start("bob").session_id != first.session_id


def test_activity_keeps_a_session_open(memory: Memory, clock: FakeClock) -> None:
    started = memory.session_start("alice")
    clock.advance(hours=20)
    memory.remember("work done in the session", user="alice", session_id=started.session_id)
    clock.advance(hours=20)  # 40 h after start, 20 h after the last write
    assert memory.session_start("alice").session_id == started.session_id


def test_a_stale_session_is_closed_with_an_automatic_summary(
    memory: Memory, clock: FakeClock
) -> None:
    stale = memory.session_start("alice")
    memory.remember("the migration plan is ready", user="alice", session_id=stale.session_id)
    clock.advance(hours=25)
    fresh = memory.session_start("alice")
    assert fresh.is_new
    assert fresh.closed_session_id == stale.session_id
    assert len(fresh.summaries) == 1
    summary = fresh.summaries[0]
    assert summary.type == "summary"
    assert summary.source == "system"
    assert summary.session_id == stale.session_id
    assert "the migration plan is ready" in summary.content


def test_end_stores_the_summary_and_closes(memory: Memory, clock: FakeClock) -> None:
    started = memory.session_start("alice")
    result = memory.session_end("Refactored the auth module", user="alice")
    assert result.ok
    summary = memory.get(result.id or "", user="alice")
    assert (summary.type, summary.session_id, summary.user) == (
        "summary",
        started.session_id,
        "alice",
    )
    assert f"session:{started.session_id}" in summary.tags
    with pytest.raises(ConflictError, match="no open session"):
        memory.session_end("again", user="alice")
    clock.advance(minutes=5)
    nxt = memory.session_start("alice")
    assert nxt.is_new
    assert [s.content for s in nxt.summaries] == ["Refactored the auth module"]


def test_start_returns_about_ten_memories_and_five_summaries(
    memory: Memory, clock: FakeClock
) -> None:
    for i in range(7):
        memory.session_start("alice")
        memory.session_end(f"summary number {i}", user="alice")
        clock.advance(minutes=1)
    for i in range(12):
        memory.remember(f"memory number {i} for alice", user="alice")
    started = memory.session_start("alice", profile="ilab")
    assert len(started.summaries) == 5
    assert started.summaries[0].content == "summary number 6"
    assert len(started.memories) == 10
    assert all(r.type != "summary" for r, _ in started.memories)


def test_end_refuses_an_empty_summary(memory: Memory) -> None:
    memory.session_start("alice")
    with pytest.raises(Exception, match="empty"):
        memory.session_end("  ", user="alice")
