"""API keys as the store keeps them: a hash, rights, and the source their writes may claim
(on SQLite and on PostgreSQL)."""

from __future__ import annotations

import pytest

from salience import InvalidInputError, Memory


def test_a_key_keeps_the_source_it_was_made_with(memory: Memory) -> None:
    agent = memory.create_key(user="alice", source="agent")
    person = memory.create_key(user="alice")
    stored = memory.store.api_key(agent.record.id)
    assert stored is not None
    assert stored.source == "agent"
    found = memory.check_key(agent.key)
    assert found is not None
    assert found.source == "agent"
    assert sorted(k.source for k in memory.store.api_keys()) == ["agent", "user"]
    assert person.record.source == "user"


def test_a_key_with_an_unknown_source_is_refused(memory: Memory) -> None:
    with pytest.raises(InvalidInputError, match="unknown source 'root'"):
        memory.create_key(user="alice", source="root")
    assert memory.store.api_keys() == []
