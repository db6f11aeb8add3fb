"""API keys as the store keeps them: a hash, rights, and the source their writes may claim
(on SQLite and on PostgreSQL)."""

from __future__ import annotations

import pytest

from salience import InvalidInputError, Memory
from salience.engine.keys import check_key, create_key


def test_a_key_keeps_the_source_it_was_made_with(memory: Memory) -> None:
    agent = create_key(memory.store, user="alice", now=memory.now(), source="agent")
    person = create_key(memory.store, user="alice", now=memory.now())
    stored = memory.store.api_key(agent.record.id)
    assert stored is not None
    assert stored.source == "agent"
    found = check_key(memory.store, agent.key)
    assert found is not None
    assert found.source == "agent"
    assert sorted(k.source for k in memory.store.api_keys()) == ["agent", "user"]
    assert person.record.source == "user"


def test_a_key_with_an_unknown_source_is_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInputError, match="unknown source 'root'"):
        create_key(memory.store, user="alice", now=memory.now(), source="root")
    assert memory.store.api_keys() == []
