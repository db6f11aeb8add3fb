"""The same scenarios on :class:`salience.Memory` and on :class:`salience.Client` (through
the real app): both answer :class:`salience.wire.verbs.Verbs`, with the same values."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from salience import Client, Memory, NotFoundError, Outcome
from salience.server.app import create_app
from salience.wire.verbs import Verbs
from tests.conftest import T0, FakeClock
from tests.loopback import local_client


@pytest.fixture(params=["memory", "client"])
def verbs(request: pytest.FixtureRequest, memory: Memory) -> Iterator[Verbs]:
    if request.param == "memory":
        yield memory
        return
    with local_client(create_app(memory)) as http, Client("http://127.0.0.1", http=http) as c:
        yield c


def test_a_memorys_life(verbs: Verbs, clock: FakeClock) -> None:
    made = verbs.remember("The staging API listens on 8080", tags=["project:api"])
    assert made.outcome is Outcome.CREATED
    assert made.id is not None
    assert verbs.get(made.id).content == "The staging API listens on 8080"
    assert verbs.remember("the staging api listens on 8080").outcome is Outcome.DUPLICATE
    clock.advance(minutes=1)
    new = verbs.supersede(made.id, "The staging API listens on 8443")
    assert new.id is not None
    assert [r.id for r in verbs.history(new.id)] == [new.id, made.id]
    assert verbs.update(new.id, importance=0.8).record.importance == 0.8  # type: ignore[union-attr]
    assert verbs.feedback(new.id, used=True).ok
    assert verbs.forget(new.id, "moved").outcome is Outcome.FORGOTTEN
    assert verbs.purge(new.id).outcome is Outcome.DELETED
    with pytest.raises(NotFoundError):
        verbs.get(new.id)


def test_reads_and_counts(verbs: Verbs) -> None:
    for text in ("Deploys go through ops/deploy.sh", "The billing service retries 3 times"):
        verbs.remember(text, tags=["project:api"])
    assert [h.record.content for h in verbs.search("billing retries", touch=False)][:1] == [
        "The billing service retries 3 times"
    ]
    assert len(verbs.list()) == 2
    assert len(verbs.rank()) == 2
    assert "ops/deploy.sh" in verbs.briefing().text
    assert verbs.stats().total == 2
    assert [d.created for d in verbs.activity(days=1)] == [2]
    assert verbs.activity(days=3)[-1].day == T0.date()
    assert len(list(verbs.export_lines())) == 2


def test_consolidation_maintenance_and_the_graph(verbs: Verbs, clock: FakeClock) -> None:
    members = [
        verbs.remember(text, type="observation", tags=["scanner"]).id
        for text in (
            "the pallet scanner misread a wet label at dock 3",
            "dock 4's pallet scanner failed on a damp label",
            "wet labels confuse the pallet scanner again",
        )
    ]
    plan = verbs.consolidate(dry_run=True)
    assert [g.action for g in plan.groups] == ["create"]
    assert plan.dry_run
    done = verbs.consolidate()
    insight = done.groups[0].insight_id
    assert insight is not None
    assert sorted(r.id for r in verbs.derived_from_this(members[0])) == [insight]
    graph = verbs.graph()
    links = {(e.source, e.target) for e in graph.edges if e.relation == "derived_from"}
    assert links == {(insight, m) for m in members}
    clock.advance(days=60)
    report = verbs.maintain(dry_run=True, as_of=T0 + timedelta(days=60))
    assert report.dry_run
    assert report.decayed
