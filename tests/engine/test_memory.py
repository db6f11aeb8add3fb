"""The engine's verbs, each against a real SQLite store in a temp dir and a fixed clock."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from salience import (
    ALL_USERS,
    ConfigError,
    ConflictError,
    InvalidInputError,
    Memory,
    NotFoundError,
    Outcome,
    Status,
    StoreError,
)
from salience.stores.grant import granted
from tests.conftest import T0, FakeClock


def test_remember_creates_a_record_with_defaults(memory: Memory) -> None:
    result = memory.remember("The API listens on port 8080 in staging")
    assert result.outcome is Outcome.CREATED
    assert result.ok
    record = memory.get(result.id or "")
    assert record.content == "The API listens on port 8080 in staging"
    assert record.type == "observation"
    assert record.user == "default"
    assert record.importance == 0.5
    assert record.revision_count == 1
    assert record.access_count == 0
    assert record.layer == "local"
    assert record.enabled
    assert record.created_at == record.updated_at == T0
    assert record.status(T0) is Status.CURRENT


def test_remember_keeps_every_given_field(memory: Memory) -> None:
    result = memory.remember(
        "Use httpx rather than requests here",
        type="heuristic",
        title="httpx over requests",
        tags=["project:api", "source:user", "project:api"],
        user="alice",
        project="api",
        topic_key="http/client",
        source="user",
        importance=0.9,
        confidence=0.7,
        priority=0.25,
        session_id="s1",
        entities=["httpx", "requests"],
        enabled=False,
    )
    record = memory.get(result.id or "", user="alice")
    assert record.type == "heuristic"
    assert record.title == "httpx over requests"
    assert record.tags == ("project:api", "source:user")
    assert (record.user, record.project, record.topic_key) == ("alice", "api", "http/client")
    assert (record.source, record.importance, record.confidence) == ("user", 0.9, 0.7)
    assert (record.priority, record.session_id) == (0.25, "s1")
    assert record.entities == ("httpx", "requests")
    assert not record.enabled


@pytest.mark.parametrize(
    ("content", "fields", "field"),
    [
        ("", {}, "content"),
        ("   \n", {}, "content"),
        ("x" * 65537, {}, "content"),
        ("fine content", {"importance": 1.5}, "importance"),
        ("fine content", {"importance": math.nan}, "importance"),
        ("fine content", {"confidence": -0.1}, "confidence"),
        ("fine content", {"source": "nobody"}, "source"),
        ("fine content", {"tags": "one-string"}, "tags"),
        ("fine content", {"colour": "red"}, "colour"),
        ("fine content", {"access_count": 5}, "access_count"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    memory: Memory, content: str, fields: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidInputError) as info:
        memory.remember(content, **fields)
    assert info.value.field == field
    assert memory.stats().total == 0


def test_content_limit_is_configurable(tmp_path: object, clock: FakeClock) -> None:
    from pathlib import Path

    from salience import Config

    config = Config(home=Path(str(tmp_path)), max_content_bytes=10, signal_gate=False)
    with Memory.open(config=config, clock=clock) as small:
        with pytest.raises(InvalidInputError, match="over the limit of 10"):
            small.remember("eleven char")
        assert small.remember("ten chars!").ok


def test_get_unknown_id_raises_not_found(memory: Memory) -> None:
    with pytest.raises(NotFoundError, match="01JS"):
        memory.get("01JS0000000000000000000000")


def test_update_content_counts_a_revision_and_keeps_created_at(
    memory: Memory, clock: FakeClock
) -> None:
    memory_id = memory.remember("Cache keys use the user: prefix").id or ""
    later = clock.advance(days=2)
    result = memory.update(memory_id, content="Cache keys use the usr: prefix", importance=0.8)
    assert result.outcome is Outcome.UPDATED
    record = memory.get(memory_id)
    assert record.content == "Cache keys use the usr: prefix"
    assert record.revision_count == 2
    assert record.importance == 0.8
    assert record.updated_at == later
    assert record.created_at == T0


def test_update_without_content_change_keeps_revision(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("Cache keys use the user: prefix").id or ""
    clock.advance(hours=1)
    memory.update(memory_id, tags=["project:cache"])
    memory.update(memory_id, content="Cache keys use the user: prefix")  # same text
    record = memory.get(memory_id)
    assert record.revision_count == 1
    assert record.tags == ("project:cache",)
    assert record.updated_at == clock.now


def test_update_bad_input_changes_nothing(memory: Memory) -> None:
    memory_id = memory.remember("Cache keys use the user: prefix").id or ""
    before = memory.get(memory_id)
    with pytest.raises(InvalidInputError):
        memory.update(memory_id, importance=2.0)
    with pytest.raises(InvalidInputError):
        memory.update(memory_id, content="  ")
    with pytest.raises(InvalidInputError, match="nothing to update"):
        memory.update(memory_id)
    with pytest.raises(InvalidInputError, match="read-only"):
        memory.update(memory_id, revision_count=7)
    with pytest.raises(NotFoundError):
        memory.update("01JS0000000000000000000000", importance=0.1)
    assert memory.get(memory_id) == before


def test_supersede_links_versions_and_retires_the_old(memory: Memory, clock: FakeClock) -> None:
    old_id = memory.remember("Deploys use Jenkins", tags=["project:ops"], importance=0.7).id or ""
    now = clock.advance(days=1)
    result = memory.supersede(old_id, "Deploys use GitHub Actions")
    assert result.outcome is Outcome.CREATED
    new = memory.get(result.id or "")
    old = memory.get(old_id)
    assert new.parent_id == old_id
    assert new.tags == ("project:ops",)  # inherited
    assert new.importance == 0.7
    assert old.valid_until == now
    assert old.status(now) is Status.SUPERSEDED
    assert [r.id for r in memory.list()] == [new.id]
    with pytest.raises(ConflictError, match="superseded"):
        memory.update(old_id, importance=0.1)
    with pytest.raises(ConflictError):
        memory.supersede(old_id, "a third version")


def test_supersede_overrides_fields_and_validates_before_writing(memory: Memory) -> None:
    old_id = memory.remember("Deploys use Jenkins", type="decision").id or ""
    with pytest.raises(InvalidInputError):
        memory.supersede(old_id, "")
    assert memory.get(old_id).valid_until is None  # nothing changed
    new_id = memory.supersede(old_id, "Deploys use Buildkite", type="insight").id or ""
    assert memory.get(new_id).type == "insight"


def test_history_is_newest_first_from_any_version(memory: Memory, clock: FakeClock) -> None:
    first = memory.remember("version one of the fact").id or ""
    clock.advance(minutes=1)
    second = memory.supersede(first, "version two of the fact").id or ""
    clock.advance(minutes=1)
    third = memory.supersede(second, "version three of the fact").id or ""
    expected = [third, second, first]
    for member in expected:
        assert [r.id for r in memory.history(member)] == expected


def test_history_survives_a_cycle(memory: Memory, clock: FakeClock) -> None:
    a = memory.remember("memory a in a loop").id or ""
    clock.advance(minutes=1)
    b = memory.supersede(a, "memory b in a loop").id or ""
    # Corrupt the chain on purpose: a claims b as its parent (an imported file could do this).
    with granted("a planted cycle"):  # (around the write authority, as a damaged file is)
        memory.store.replace(replace(memory.get(a), parent_id=b))
    chain = [r.id for r in memory.history(a)]
    assert sorted(chain) == sorted([a, b])


def test_forget_is_soft_and_reasoned(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("The staging password rotates weekly").id or ""
    now = clock.advance(hours=3)
    result = memory.forget(memory_id, "no longer true")
    assert result.outcome is Outcome.FORGOTTEN
    record = memory.get(memory_id)
    assert record.forget_reason == "no longer true"
    assert record.valid_until == now
    assert record.status(now) is Status.FORGOTTEN
    assert memory.list() == []
    assert memory.search("staging password") == []
    assert [r.id for r in memory.list(include_forgotten=True)] == [memory_id]
    with pytest.raises(ConflictError, match="already forgotten"):
        memory.forget(memory_id, "again")
    with pytest.raises(InvalidInputError, match="reason"):
        memory.forget(memory.remember("another memory here").id or "", " ")


def test_purge_deletes_for_good(memory: Memory) -> None:
    memory_id = memory.remember("Temporary note about the build cache").id or ""
    assert memory.purge(memory_id).outcome is Outcome.DELETED
    with pytest.raises(NotFoundError):
        memory.get(memory_id)
    assert memory.search("build cache") == []
    with pytest.raises(NotFoundError):
        memory.purge(memory_id)


def test_valid_until_in_the_future_means_still_current(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("Freeze on deploys this week").id or ""
    with granted("test"):
        memory.store.replace(replace(memory.get(memory_id), valid_until=T0.replace(day=22)))
    assert [r.id for r in memory.list()] == [memory_id]
    clock.advance(days=3)
    assert memory.list() == []
    assert [r.id for r in memory.list(include_superseded=True)] == [memory_id]


def test_list_filters_combine(memory: Memory, clock: FakeClock) -> None:
    a = memory.remember("alpha fact one", user="alice", project="api", tags=["x", "y"]).id
    clock.advance(minutes=1)
    b = memory.remember("beta fact two", user="alice", type="decision", tags=["x"]).id
    clock.advance(minutes=1)
    c = memory.remember("gamma fact three", user="bob", session_id="s9", entities=["Redis"]).id
    every = ALL_USERS
    assert [r.id for r in memory.list(user=every)] == [c, b, a]  # newest first
    assert [r.id for r in memory.list(user="alice")] == [b, a]
    assert memory.list() == []  # the default user has none
    assert [r.id for r in memory.list(user=every, project="api")] == [a]
    assert [r.id for r in memory.list(user=every, type="decision")] == [b]
    assert [r.id for r in memory.list(user=every, tags=["x"])] == [b, a]
    assert [r.id for r in memory.list(user="alice", tags=["x", "y"])] == [a]
    assert [r.id for r in memory.list(user="bob", session_id="s9")] == [c]
    assert [r.id for r in memory.list(user=every, entity="redis")] == [c]
    assert [r.id for r in memory.list(user=every, limit=2)] == [c, b]
    with pytest.raises(InvalidInputError, match="limit"):
        memory.list(limit=0)


def test_search_ranks_by_bm25_and_filters(memory: Memory) -> None:
    best = memory.remember("Redis is the cache; Redis keys expire after one hour").id
    other = memory.remember("Postgres is the main database, Redis sits in front").id
    memory.remember("The frontend is built with Vite", user="bob")
    hits = memory.search("how does the redis cache work?")
    assert [h.record.id for h in hits] == [best, other]
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].score > hits[1].score > 0
    assert [h.record.id for h in memory.search("vite", user="bob")] == [
        r.id for r in memory.list(user="bob")
    ]
    assert memory.search("vite", user="alice") == []
    assert len(memory.search("redis", limit=1)) == 1


def test_search_matches_title_tags_and_entities(memory: Memory) -> None:
    a = memory.remember("some content here", title="Kubernetes rollout").id
    b = memory.remember("other content here", tags=["project:falcon"]).id
    c = memory.remember("third content here", entities=["DATABASE_URL"]).id
    assert [h.record.id for h in memory.search("kubernetes")] == [a]
    assert [h.record.id for h in memory.search("falcon")] == [b]
    assert [h.record.id for h in memory.search("database_url")] == [c]


def test_search_uses_porter_stemming(memory: Memory) -> None:
    memory_id = memory.remember("The workers were running migrations nightly").id
    assert [h.record.id for h in memory.search("run migration")] == [memory_id]


@pytest.mark.parametrize(
    "query",
    [
        'foo AND "bar',
        "*",
        "NEAR(",
        "🙂🙂",
        "a OR b NOT c",
        "col:value",
        "^start",
        "(((",
        "'",
        '"',
        "-x",
        "{a b}",
        "x" * 5000,
        "\x00",
    ],
)
def test_any_user_text_is_a_valid_query(memory: Memory, query: str) -> None:
    memory.remember("foo bar baz with some value and a start")
    assert isinstance(memory.search(query), list)


def test_search_with_filters_still_fills_the_limit(memory: Memory) -> None:
    # Many better-ranked matches belong to another user; the filter must not starve the result.
    for i in range(150):
        memory.remember(f"kafka kafka kafka topic number {i}", user="noise")
    wanted = [memory.remember(f"kafka topic for alice {i}", user="alice").id for i in range(3)]
    hits = memory.search("kafka", limit=3, user="alice")
    assert sorted(h.record.id for h in hits) == sorted(wanted)


def test_empty_query_and_bad_limit_are_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInputError, match="empty"):
        memory.search("  ")
    with pytest.raises(InvalidInputError, match="limit"):
        memory.search("x", limit=0)


def test_search_on_an_empty_store_finds_nothing(memory: Memory) -> None:
    assert memory.search("anything at all") == []


def test_stats_count_by_status_type_user_project(memory: Memory, clock: FakeClock) -> None:
    a = memory.remember("first memory text", project="api").id or ""
    memory.remember("second memory text", type="decision", user="bob")
    c = memory.remember("third memory text").id or ""
    clock.advance(minutes=1)
    memory.supersede(a, "first memory text, revised")
    memory.forget(c, "wrong")
    stats = memory.stats(user=ALL_USERS)
    assert stats.total == 4
    assert stats.by_status == {"current": 2, "superseded": 1, "forgotten": 1}
    assert stats.by_type == {"decision": 1, "observation": 1}
    assert stats.by_user == {"default": 1, "bob": 1}
    assert stats.by_project == {"api": 1}
    assert stats.size_bytes > 0
    mine = memory.stats()  # the default user's own counts
    assert (mine.total, mine.by_user, mine.by_type) == (3, {"default": 1}, {"observation": 1})
    assert memory.stats(user="bob").by_status == {"current": 1, "superseded": 0, "forgotten": 0}


def test_open_refuses_unsupported_urls() -> None:
    with pytest.raises(ConfigError, match="supported: sqlite, postgresql"):
        Memory.open("redis://localhost")


def test_an_unreachable_postgresql_server_is_one_clear_error(tmp_path: object) -> None:
    url = f"postgresql://nobody@/salience?host={tmp_path}&connect_timeout=2"
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL at postgresql://") as found:
        Memory.open(url)
    assert "Traceback" not in str(found.value)


def test_a_postgresql_url_keeps_its_password_out_of_the_location(postgres_url: str) -> None:
    with_password = postgres_url.replace("postgresql://postgres@", "postgresql://postgres:pw@")
    with Memory.open(with_password, embedder=None) as memory:
        assert ":pw@" not in memory.store.location
        assert memory.store.location.startswith("postgresql://postgres@")


def test_open_accepts_a_directory_a_file_or_a_sqlite_url(tmp_path: object) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    with Memory.open(base) as m:
        assert m.store.location == str(base / "salience.db")
    with Memory.open(base / "other.db") as m:
        assert m.store.location == str(base / "other.db")
    with Memory.open(f"sqlite://{base / 'url.db'}") as m:
        assert m.store.location == str(base / "url.db")


@pytest.mark.parametrize("profile", ["salience", "aide", "eidet", "ilab", "talome", "rae"])
def test_a_naive_as_of_is_utc_in_every_verb(memory: Memory, profile: str) -> None:
    """The library applies the one rule of salience.clock too: a briefing or a rank as of
    a datetime without tzinfo raised TypeError deep in the columns."""
    memory.remember("The staging API listens on 8080", profile=profile)
    naive = datetime(2026, 5, 1, 12, 0)
    aware = naive.replace(tzinfo=UTC)
    assert memory.briefing(profile, as_of=naive) == memory.briefing(profile, as_of=aware)
    assert memory.rank(profile, as_of=naive) == memory.rank(profile, as_of=aware)
    found = memory.search("staging", profile=profile, as_of=naive)
    assert [h.record.id for h in found] == [
        h.record.id for h in memory.search("staging", profile=profile, as_of=aware)
    ]


def test_activity_counts_memories_per_day_every_status_and_only_the_users(
    memory: Memory, clock: FakeClock
) -> None:
    old = memory.remember("the oldest note, outside the window", force=True)
    clock.advance(days=5)
    kept = memory.remember("the crane was serviced on Monday", force=True)
    memory.remember("bob's note on the same day", force=True, user="bob")
    clock.advance(days=1)
    assert kept.id is not None
    assert old.id is not None
    memory.supersede(kept.id, "the crane was serviced on Tuesday")
    memory.forget(old.id)
    days = memory.activity(days=3)
    assert [(d.day.isoformat(), d.created) for d in days] == [
        ("2026-04-24", 0),
        ("2026-04-25", 1),
        ("2026-04-26", 1),  # the new version; the superseded one still counts on its day
    ]
    assert sum(d.created for d in memory.activity(days=7, user=ALL_USERS)) == 4
    with pytest.raises(InvalidInputError):
        memory.activity(days=0)


def test_graph_links_versions_derivations_and_entities_inside_the_limit(memory: Memory) -> None:
    first = memory.remember("the handler in src/app.py raised KeyError", force=True)
    assert first.id is not None
    second = memory.supersede(first.id, "the handler in src/app.py raised KeyError on empty")
    assert second.id is not None
    graph = memory.graph()
    ids = {r.id for r in graph.memories}
    assert ids == {first.id, second.id}
    relations = {(e.source, e.target, e.relation) for e in graph.edges}
    assert (second.id, first.id, "supersedes") in relations
    assert graph.entities == {"entity:src/app.py": "src/app.py", "entity:keyerror": "KeyError"}
    assert (second.id, "entity:keyerror", "mentions") in relations
    one = memory.graph(limit=1)
    assert [r.id for r in one.memories] == [second.id]
    assert all(e.relation == "mentions" for e in one.edges)  # the old version is outside it
