"""Users are a boundary: every verb acts for one user; crossing users takes ALL_USERS."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from salience import ALL_USERS, Config, InvalidInputError, Memory, NotFoundError, Outcome
from salience.ids import ulid_for
from tests.conftest import FakeClock

SECRET_TEXT = "Alice's staging database lives on host db-alice-7"


@pytest.fixture
def shared(memory: Memory) -> tuple[Memory, str]:
    """A store holding one memory of alice's (and one of bob's)."""
    alice = memory.remember(SECRET_TEXT, user="alice", tags=["project:ops"]).id or ""
    memory.remember("Bob keeps his notes in the wiki", user="bob")
    return memory, alice


ID_VERBS: dict[str, Callable[[Memory, str], Any]] = {
    "get": lambda m, i: m.get(i, user="bob"),
    "update": lambda m, i: m.update(i, importance=0.9, user="bob"),
    "update content": lambda m, i: m.update(i, content="bob was here", user="bob"),
    "supersede": lambda m, i: m.supersede(i, "bob rewrote this memory", user="bob"),
    "forget": lambda m, i: m.forget(i, "bob wants it gone", user="bob"),
    "purge": lambda m, i: m.purge(i, user="bob"),
    "history": lambda m, i: m.history(i, user="bob"),
    "feedback": lambda m, i: m.feedback(i, used=False, user="bob"),
    "derived_from_this": lambda m, i: m.derived_from_this(i, user="bob"),
}


@pytest.mark.parametrize("verb", sorted(ID_VERBS))
def test_another_users_id_is_not_found_and_nothing_changes(
    shared: tuple[Memory, str], verb: str
) -> None:
    memory, alice = shared
    before = memory.get(alice, user="alice")
    log_before = memory.log(user=ALL_USERS)
    with pytest.raises(NotFoundError):
        ID_VERBS[verb](memory, alice)
    assert memory.get(alice, user="alice") == before
    assert memory.log(user=ALL_USERS) == log_before


def test_the_default_user_is_the_same_everywhere(memory: Memory) -> None:
    memory.remember("The deploy script lives in ops/deploy.sh")
    memory.remember("Alice deploys with a different script", user="alice")
    assert [r.user for r in memory.list()] == ["default"]
    assert {h.record.user for h in memory.search("deploy script")} == {"default"}
    assert {r.user for r, _ in memory.rank()} == {"default"}
    assert "Alice" not in memory.briefing().text
    assert memory.stats().by_user == {"default": 1}


def test_a_configured_user_is_the_default(config: Config, clock: FakeClock) -> None:
    config = replace(config, user="carol")
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        created = memory.remember("Carol's laptop runs Fedora 41")
        assert created.record is not None
        assert created.record.user == "carol"
        assert memory.get(created.id or "").user == "carol"
        with pytest.raises(NotFoundError):
            memory.get(created.id or "", user="default")


def test_reads_never_show_another_users_content(shared: tuple[Memory, str]) -> None:
    memory, alice = shared
    outputs: list[str] = [
        repr(memory.list(user="bob", include_superseded=True, include_forgotten=True)),
        repr(memory.search("staging database host", user="bob")),
        repr(memory.rank(user="bob")),
        memory.briefing(user="bob").text,
        repr(memory.briefing(user="bob").manifest),
        repr(memory.entities(user="bob")),
        repr(memory.stats(user="bob")),
        repr(memory.log(user="bob")),
        "".join(memory.export_lines(user="bob")),
        repr(memory.consolidate(user="bob", dry_run=True)),
    ]
    for output in outputs:
        assert "db-alice-7" not in output
        assert alice not in output


def test_all_users_is_the_explicit_way_across(shared: tuple[Memory, str]) -> None:
    memory, alice = shared
    assert {r.user for r in memory.list(user=ALL_USERS)} == {"alice", "bob"}
    assert memory.get(alice, user=ALL_USERS).user == "alice"
    assert {h.record.user for h in memory.search("notes wiki staging", user=ALL_USERS)} == {
        "alice",
        "bob",
    }
    assert memory.stats(user=ALL_USERS).total == 2
    with pytest.raises(InvalidInputError, match="one user"):
        memory.briefing(user=ALL_USERS)
    with pytest.raises(InvalidInputError, match="one user"):
        memory.remember("a memory for every user at once", user=ALL_USERS)


def test_history_never_crosses_users(memory: Memory, clock: FakeClock) -> None:
    first = memory.remember("The cache TTL is 60 seconds", user="alice").id or ""
    clock.advance(minutes=1)
    second = memory.supersede(first, "The cache TTL is 90 seconds", user="alice").id or ""
    assert [r.id for r in memory.history(second, user="alice")] == [second, first]
    with pytest.raises(NotFoundError):
        memory.history(first, user="bob")


def test_an_import_is_for_one_user(shared: tuple[Memory, str]) -> None:
    memory, alice = shared
    theirs = memory.get(alice, user="alice")
    line = '{"content": "imported by bob, claiming alice", "user": "alice"}\n'
    with pytest.raises(InvalidInputError, match="user 'alice'"):
        memory.import_(io.StringIO(line), user="bob")
    overwrite = "".join(memory.export_lines(user="alice")).replace("db-alice-7", "db-bob-1")
    with pytest.raises(InvalidInputError, match="user 'alice'"):
        memory.import_(io.StringIO(overwrite), user="bob")
    owned = overwrite.replace('"user":"alice"', '"user":"bob"')
    # Alice's id is never taken over, and the import does not say it exists: bob's record
    # gets an id of his own, the same one on every run.
    first = memory.import_(io.StringIO(owned), user="bob")
    assert (first.created, first.renamed) == (1, 1)
    again = memory.import_(io.StringIO(owned), user="bob")
    assert (again.created, again.unchanged, again.renamed) == (0, 1, 1)
    assert memory.get(alice, user="alice") == theirs
    [copy] = [r for r in memory.list(user="bob") if "db-bob-1" in r.content]
    assert copy.id != alice
    assert copy.id == ulid_for("bob", alice)
    mine = memory.import_(io.StringIO('{"content": "a memory without a user"}\n'), user="bob")
    assert mine.created == 1
    assert {r.content for r in memory.list(user="bob")} >= {"a memory without a user"}


def test_the_log_is_per_user(shared: tuple[Memory, str]) -> None:
    memory, alice = shared
    memory.remember("Bob's password is hunter2hunter2", user="bob")  # not a secret by kind
    assert {e.memory_id for e in memory.log(user="alice")} == {alice}
    assert alice not in {e.memory_id for e in memory.log(user="bob")}
    refused = memory.remember(
        "token ghp_0123456789abcdefghijABCDEFGHIJ012345", user="alice", force=True
    )
    assert refused.outcome is Outcome.REJECTED
    assert [e.action for e in memory.log(user="alice", limit=1)] == ["reject"]
    assert "reject" not in [e.action for e in memory.log(user="bob")]
