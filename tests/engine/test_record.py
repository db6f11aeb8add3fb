"""The record of recalls and briefings: kept per user, linked to the feedback that followed,
no secret in it, pruned, erased with the user or with a purged memory, off when turned off
(on SQLite and on PostgreSQL)."""

from __future__ import annotations

from dataclasses import replace

from salience import ALL_USERS, Config, Memory
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

KEY = "AKIA" + "Q3EGWRMP4TXJ7NZK"  # an AWS access key id the scanner knows


def _seed(memory: Memory, user: str = "ana") -> list[str]:
    texts = ["the blue cluster deploys on port 9443", "deploys run through ops/deploy.sh"]
    return [memory.remember(t, user=user).id or "" for t in texts]


def test_a_recall_is_recorded_with_its_hits_and_a_briefing_with_what_it_kept(
    memory: Memory,
) -> None:
    made = _seed(memory)
    hits = memory.search("blue cluster deploys", user="ana")
    memory.briefing(user="ana", session_id="s1", budget=400)
    recall, briefing = sorted(memory.record(user="ana"), key=lambda t: t.kind, reverse=True)
    assert (recall.kind, recall.query, recall.profile) == (
        "recall",
        "blue cluster deploys",
        "salience",
    )
    assert recall.returned == [h.record.id for h in hits]
    assert [h.score for h in recall.hits] == [h.score for h in hits]
    assert briefing.kind == "briefing"
    assert (briefing.session_id, briefing.budget) == ("s1", 400)
    assert set(briefing.returned) == set(made)
    assert briefing.tokens is not None
    assert briefing.tokens > 0


def test_what_is_not_a_use_is_not_recorded(memory: Memory, clock: FakeClock) -> None:
    _seed(memory)
    memory.search("blue cluster", user="ana", touch=False)  # an evaluation's look
    memory.search("blue cluster", user="ana", as_of=clock.now)  # a look into the past
    memory.search("nothing of the sort zzz", user="ana")  # found nothing
    memory.briefing(user="ana", record=False)  # a person previewing
    assert memory.record(user="ana") == []


def test_the_record_is_each_users_own(memory: Memory) -> None:
    _seed(memory, "ana")
    _seed(memory, "bo")
    memory.search("blue cluster", user="ana")
    memory.search("deploy script", user="bo")
    assert [t.query for t in memory.record(user="ana")] == ["blue cluster"]
    assert [t.query for t in memory.record(user="bo")] == ["deploy script"]
    assert len(memory.record(user=ALL_USERS)) == 2


def test_a_query_holding_a_secret_is_kept_without_its_text(memory: Memory) -> None:
    _seed(memory)
    memory.search(f"blue cluster deploys with key {KEY}", user="ana")
    [trace] = memory.record(user="ana")
    assert trace.query is None
    assert trace.hits


def test_feedback_and_changes_join_the_recall_that_surfaced_the_memory(
    memory: Memory, clock: FakeClock
) -> None:
    made = _seed(memory)
    memory.search("blue cluster deploys", user="ana")
    memory.feedback(made[0], used=True, user="ana")
    memory.feedback(made[1], used=False, user="ana")
    memory.update(made[0], content="the blue cluster deploys on port 9444", user="ana")
    clock.advance(minutes=5)
    memory.search("blue cluster deploys", user="ana")  # found again the same day
    first = memory.record(user="ana")[-1]
    kinds = sorted((f.memory_id, f.kind) for f in memory.store.feedback_of([first.id]))
    assert kinds == sorted(
        [
            (made[0], "echo"),
            (made[1], "fizzle"),
            (made[0], "updated"),
            (made[0], "recalled"),
            (made[1], "recalled"),
        ]
    )


def test_the_briefing_log_says_what_each_session_was_given_and_what_helped(
    memory: Memory,
) -> None:
    made = _seed(memory)
    memory.briefing(user="ana", session_id="s1")
    memory.feedback(made[1], used=True, user="ana")
    log = memory.briefing_log(user="ana")
    [entry] = log.entries
    assert entry.session_id == "s1"
    given = {m.memory_id: m.feedback for m in entry.memories}
    assert given == {made[0]: (), made[1]: ("echo",)}
    assert log.briefed == {made[0]: 1, made[1]: 1}
    assert log.helped == {made[0]: 0, made[1]: 1}


def test_the_briefing_log_credits_what_followed_in_that_session_alone(
    memory: Memory, clock: FakeClock
) -> None:
    """A memory a briefing gave and a later recall of the session found again is credited to
    the briefing, even when another recall surfaced it in between; what follows the next
    briefing is the next session's."""
    made = _seed(memory)
    memory.briefing(user="ana")
    clock.advance(minutes=1)
    memory.search("blue cluster deploys", user="ana")  # the briefing's memories, found again
    clock.advance(minutes=1)
    memory.search("blue cluster deploys", user="ana")  # again: its newest trace is the recall
    memory.feedback(made[0], used=True, user="ana")
    clock.advance(hours=2)
    memory.briefing(user="ana", budget=1)  # the next session: gives nothing, or one memory
    clock.advance(minutes=1)
    memory.feedback(made[1], used=False, user="ana")
    log = memory.briefing_log(user="ana")
    newer, first = log.entries
    given = {m.memory_id: m.feedback for m in first.memories}
    assert given == {made[0]: ("recalled", "recalled", "echo"), made[1]: ("recalled", "recalled")}
    kept = {m.memory_id for m in newer.memories}
    assert {m.memory_id: m.feedback for m in newer.memories} == {
        m: (("fizzle",) if m == made[1] else ()) for m in kept
    }
    recalls = [t for t in memory.record(user="ana") if t.kind == "recall"]
    later = memory.store.feedback_of([recalls[0].id])  # the newest recall: the echo, once
    assert [(f.memory_id, f.kind) for f in later] == [(made[0], "echo")]


def test_a_purge_or_an_erasure_takes_the_traces(memory: Memory) -> None:
    made = _seed(memory)
    memory.search("blue cluster", user="ana")
    _seed(memory, "bo")
    memory.search("deploy script", user="bo")
    assert len(memory.record(user=ALL_USERS)) == 2
    memory.purge(made[0], user="ana")  # the query that found it may quote it
    assert memory.record(user="ana") == []
    assert memory.erase_user("bo")["traces"] == 1
    assert memory.record(user=ALL_USERS) == []


def test_retention_keeps_the_record_for_its_days(config: Config, clock: FakeClock) -> None:
    with Memory.open(
        config=replace(config, record_days=30), clock=clock, embedder=WordHashEmbedder()
    ) as memory:
        _seed(memory)
        memory.search("blue cluster", user="ana")
        clock.advance(days=31)
        memory.search("deploy script", user="ana")
        assert [t.query for t in memory.record(user="ana")] == ["deploy script"]


def test_recording_can_be_turned_off(config: Config, clock: FakeClock) -> None:
    with Memory.open(
        config=replace(config, record=False), clock=clock, embedder=WordHashEmbedder()
    ) as memory:
        _seed(memory)
        memory.search("blue cluster", user="ana")
        memory.briefing(user="ana")
        assert memory.record(user="ana") == []
