"""The engine under each profile: defaults, reserved types, duplicate rules, recall, briefing."""

from __future__ import annotations

from pathlib import Path

import pytest

from salience import Config, ConfigError, InvalidInputError, Memory, Outcome
from salience.profiles import UnknownProfileError
from tests.conftest import FakeClock


def test_unknown_profile_lists_the_known_ones(memory: Memory) -> None:
    with pytest.raises(
        UnknownProfileError, match="known profiles: aide, eidet, ilab, rae, salience, talome"
    ):
        memory.search("x", profile="nope")
    with pytest.raises(ConfigError, match="unknown profile"):
        Memory.open(config=Config(home=Path("/tmp/unused-salience"), profile="nope"))


def test_profile_defaults_type_and_confidence(memory: Memory) -> None:
    eidet = memory.remember("The build uses Bazel remote caching", profile="eidet", source="user")
    assert eidet.record is not None
    assert (eidet.record.type, eidet.record.confidence) == ("observation", 0.7)
    talome = memory.remember("User is setting up a media stack", profile="talome", type="context")
    assert talome.record is not None
    assert talome.record.confidence == 0.8
    aide = memory.remember("Tests need the docker daemon running", profile="aide")
    assert aide.record is not None
    assert aide.record.type == "learning"
    explicit = memory.remember(
        "Explicit confidence is kept as given", profile="eidet", confidence=0.2
    )
    assert explicit.record is not None
    assert explicit.record.confidence == 0.2


def test_ilab_reserves_the_summary_type(memory: Memory) -> None:
    result = memory.remember("A summary written by hand", type="summary", profile="ilab")
    assert result.outcome is Outcome.REJECTED
    assert result.gate == "profile"
    assert "reserved" in (result.reason or "")
    assert memory.stats().total == 0
    assert memory.remember("Fine under another profile", type="summary").ok


def test_ilab_topic_key_upserts_in_place(memory: Memory, clock: FakeClock) -> None:
    first = memory.remember("Sessions live in Redis", topic_key="auth/sessions", profile="ilab")
    later = clock.advance(days=1)
    second = memory.remember("Sessions live in Postgres", topic_key="auth/sessions", profile="ilab")
    assert second.outcome is Outcome.UPDATED
    assert second.id == first.id
    record = memory.get(first.id or "")
    assert record.content == "Sessions live in Postgres"
    assert record.revision_count == 2
    assert record.updated_at == later
    assert record.created_at == first.record.created_at  # type: ignore[union-attr]
    other_user = memory.remember(
        "Sessions live in Redis", topic_key="auth/sessions", profile="ilab", user="bob"
    )
    assert other_user.outcome is Outcome.CREATED


def test_exact_duplicates_are_reported_not_stored(memory: Memory) -> None:
    first = memory.remember("Use  HTTPX for HTTP calls")
    again = memory.remember("use httpx for http calls ")
    assert again.outcome is Outcome.DUPLICATE
    assert again.id == first.id
    assert "same content" in (again.reason or "")
    assert memory.stats().total == 1
    assert memory.remember("use httpx for http calls", user="bob").outcome is Outcome.CREATED


def test_forgotten_memories_do_not_block_a_new_identical_write(memory: Memory) -> None:
    first = memory.remember("The cache TTL is five minutes")
    memory.forget(first.id or "", "was wrong")
    assert memory.remember("The cache TTL is five minutes").outcome is Outcome.CREATED


def test_talome_dice_updates_the_near_duplicate(memory: Memory) -> None:
    first = memory.remember("User prefers Sonarr for TV show downloads", profile="talome")
    near = memory.remember("User prefers Sonarr for TV downloads", profile="talome")
    assert near.outcome is Outcome.UPDATED
    assert near.id == first.id
    assert memory.get(first.id or "").content == "User prefers Sonarr for TV downloads"
    distinct = memory.remember("My timezone is EST timezone", profile="talome")
    assert distinct.outcome is Outcome.CREATED
    other_type = memory.remember(
        "User prefers Sonarr for TV downloads!", profile="talome", type="preference"
    )
    assert other_type.outcome is Outcome.CREATED  # Dice only compares within one type


def test_recall_bumps_access_for_profiles_that_count_it(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("Kafka topics are partitioned by tenant").id or ""
    memory.search("kafka", profile="ilab")
    assert memory.get(memory_id).access_count == 0  # ilab does not count accesses
    now = clock.advance(hours=1)
    memory.search("kafka", profile="aide")
    record = memory.get(memory_id)
    assert record.access_count == 1
    assert record.last_accessed_at == now
    assert record.updated_at != now  # an access is not an update


def test_recall_scores_come_with_breakdowns(memory: Memory) -> None:
    memory.remember("Redis caches sessions; Redis evicts with LRU")
    memory.remember("Postgres stores users; it sits behind Redis")
    hits = memory.search("redis", profile="ilab")
    assert hits[0].explanation is not None
    assert [c.name for c in hits[0].explanation.components] == ["fts_rank", "recency", "revision"]
    assert hits[0].explanation.components[0].value == 1.0  # the best hit is normalised to 1
    assert hits[0].score >= hits[1].score


def test_rank_orders_by_context_score_and_skips_disabled(memory: Memory, clock: FakeClock) -> None:
    old = memory.remember("an old memory of a decision", type="decision").id
    clock.advance(days=60)
    new = memory.remember("a fresh memory of a decision", type="decision").id
    hidden = memory.remember("a disabled memory", enabled=False).id
    ranked = memory.rank("aide")
    assert [r.id for r, _ in ranked] == [new, old]
    assert hidden not in [r.id for r, _ in ranked]
    assert ranked[0][1].value > ranked[1][1].value
    assert len(memory.rank("aide", limit=1)) == 1


def _listed_and_scored(
    memory: Memory, name: str, user: object, project: str | None
) -> list[tuple[str, float]]:
    """What rank gave before columns: the store's listing, each record scored alone."""
    from salience.stores.base import MemoryFilter

    now = memory.now()
    scope = memory._scope(user)  # type: ignore[arg-type]
    records = memory.store.list(MemoryFilter(as_of=now, user=scope, project=project), None)
    rules = memory.profile(name)
    scored = [
        (r.id, rules.context_score(r, now, memory._settings).value) for r in records if r.enabled
    ]
    return sorted(scored, key=_by_score)


def _by_score(pair: tuple[str, float]) -> tuple[float, str]:
    return (-pair[1], pair[0])


@pytest.mark.parametrize("name", ["aide", "eidet", "ilab", "rae", "salience", "talome"])
def test_rank_equals_listing_and_scoring_every_record(
    memory: Memory, clock: FakeClock, name: str
) -> None:
    from salience import ALL_USERS

    ids = []
    for i in range(24):
        ids.append(
            memory.remember(
                f"memory {i} about topic {i % 5} and the {i % 3} service",
                type=["decision", "fact", "preference", "observation"][i % 4],
                project=["p0", "p1", None][i % 3],
                importance=(i % 7) / 7,
                user=["ann", "bob"][i % 2],
                enabled=i % 9 != 4,
            ).id
        )
        clock.advance(hours=5 + i)
    memory.forget(ids[3], reason="wrong", user="bob")
    memory.feedback(ids[6], used=True, user="ann")
    memory.update(ids[8], user="ann", content="memory 8 corrected", importance=0.9)
    memory.decide("topic-x", "first choice", user="bob")
    memory.decide("topic-x", "second choice", user="bob")
    for user in ("ann", "bob", ALL_USERS):
        for project in (None, "p0", "p2"):
            expected = _listed_and_scored(memory, name, user, project)
            got = memory.rank(name, user=user, project=project)
            assert [(r.id, s.value) for r, s in got] == expected
            assert [r.id for r, _ in memory.rank(name, user=user, project=project, limit=3)] == [
                i for i, _ in expected[:3]
            ]


def test_briefing_through_the_engine(memory: Memory) -> None:
    memory.remember("prefers tabs over spaces", type="preference", source="user")
    result = memory.briefing()
    assert result.profile == "salience"
    assert "prefers tabs over spaces" in result.text
    talome = memory.briefing("talome")
    assert talome.text.startswith("## What I Remember About You")
    with pytest.raises(Exception, match="budget"):
        memory.briefing(budget=0)


def _typed(memory: Memory) -> dict[str, str]:
    texts = {
        "preference": "Prefers dark mode in every editor and terminal",
        "decision": "Decided to keep dark mode assets in the design repo",
        "discovery": "Found that dark mode breaks the PDF export",
    }
    return {
        kind: str(memory.remember(text, type=kind, profile="ilab").id)
        for kind, text in texts.items()
    }


def test_mem_search_types_and_types_exclude(memory: Memory) -> None:
    ids = _typed(memory)
    only = memory.search("dark mode", profile="ilab", types=["preference", "decision"])
    assert {h.record.id for h in only} == {ids["preference"], ids["decision"]}
    without = memory.search("dark mode", profile="ilab", types_exclude=["preference"])
    assert {h.record.id for h in without} == {ids["decision"], ids["discovery"]}
    with pytest.raises(InvalidInputError, match="not both"):
        memory.search("dark mode", types=["decision"], types_exclude=["preference"])


def test_mem_search_short_queries_match_substrings(memory: Memory, clock: FakeClock) -> None:
    old = memory.remember("Nightly dbt models rebuild the warehouse tables", profile="ilab")
    clock.advance(days=30)
    new = memory.remember("The staging mongodb cluster has three nodes", profile="ilab")
    memory.remember("Nothing about clusters in this one at all", profile="ilab")
    hits = memory.search("db", profile="ilab")
    assert [h.record.id for h in hits] == [new.id, old.id]  # equal relevance: recency decides
    assert hits[0].relevance is not None
    assert hits[0].relevance.lexical == 1.0
    assert [h.record.id for h in memory.search("DB", profile="ilab")] == [new.id, old.id]
    assert hits[0].record.type == "discovery"  # ilab's default type
    assert memory.search("db", profile="ilab", types_exclude=["discovery"]) == []
    assert len(memory.search("db", profile="ilab", types_exclude=["pattern"])) == 2
    # Other profiles keep the full-text index: "db" is no word of either memory.
    assert memory.search("db", profile="aide") == []
    # Substring text is matched literally: LIKE wildcards and FTS syntax mean nothing.
    assert memory.search("%", profile="ilab") == []
    assert memory.search('"', profile="ilab") == []
