"""Recall's time words and session context, end to end on the salience profile."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from salience import Memory
from salience.models import Relevance
from salience.profiles import PROFILES
from tests.conftest import FakeClock


def test_a_question_in_relative_time_finds_what_was_said_on_that_day(
    memory: Memory, clock: FakeClock
) -> None:
    # T0 is Monday 20 April 2026: "three days ago" asked on T0 is Friday 17 April.
    clock.now -= timedelta(days=5)  # Wednesday
    wednesday = memory.remember("went to the dentist for a filling").id
    clock.now += timedelta(days=2)  # Friday
    friday = memory.remember("went to the dentist for a checkup").id
    clock.now += timedelta(days=3)  # Monday
    hits = memory.search("dentist three days ago", touch=False)
    assert [h.record.id for h in hits][:2] == [friday, wednesday]
    # what a memory says about a day counts too: "yesterday", written on Saturday
    clock.now -= timedelta(days=2)
    saturday = memory.remember("yesterday the plumber fixed the sink").id
    clock.now += timedelta(days=2)
    assert memory.search("sink repaired on 17 April", touch=False)[0].record.id == saturday


def test_reply_lift_recalls_and_explains_the_answer_to_a_matching_question(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = {"session_id": "chat-1"}
    memory.remember("Melanie said her kids love the beach", **session)
    question = memory.remember("What are your dog's names?", **session).id
    answer = memory.remember("Luna and Oliver, both rescues", **session).id
    for i in range(8):
        memory.remember(f"unrelated note {i} about names of streets and dogs", session_id=f"o{i}")

    def relevance_of_answer() -> Relevance:
        hits = {h.record.id: h for h in memory.search("what are the dog's names", touch=False)}
        assert question in hits
        assert answer in hits
        found = hits[answer].relevance
        assert found is not None
        return found

    # the salience profile leaves it off (it cost LongMemEval ranking quality); a plan may
    # turn it on
    assert relevance_of_answer().context == "session neighbour"
    base = PROFILES["salience"]
    lifted = replace(base, recall=replace(base.recall, reply_weight=0.9))
    monkeypatch.setitem(PROFILES, "salience", lifted)
    relevance = relevance_of_answer()
    assert relevance.context == "reply to a question"
    assert relevance.own is not None
    assert relevance.fused is not None
    assert relevance.fused > relevance.own
