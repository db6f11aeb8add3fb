"""salience.Client against the real app: the same verbs and values as salience.Memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from salience import (
    AccessError,
    Client,
    ConflictError,
    InvalidInputError,
    Memory,
    NotFoundError,
    Outcome,
    Variant,
)
from salience.evaluation import evaluate, probes
from salience.server.app import create_app
from tests.conftest import FakeClock
from tests.loopback import local_client


@pytest.fixture
def remote(memory: Memory) -> Iterator[Client]:
    with local_client(create_app(memory)) as http, Client("http://127.0.0.1", http=http) as client:
        yield client


def test_writes_answer_the_same_results(remote: Client, memory: Memory, clock: FakeClock) -> None:
    created = remote.remember("The staging API listens on 8080", tags=["project:api"])
    assert created.outcome is Outcome.CREATED
    assert created.record == memory.get(created.id or "")
    duplicate = remote.remember("the staging API listens on 8080")
    assert (duplicate.outcome, duplicate.id) == (Outcome.DUPLICATE, created.id)
    refused = remote.remember("token ghp_Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu")
    assert (refused.outcome, refused.gate) == (Outcome.REJECTED, "secret")
    assert "ghp_" not in (refused.reason or "")
    clock.advance(minutes=1)
    new = remote.supersede(created.id or "", "The staging API listens on 8443")
    assert [r.id for r in remote.history(new.id or "")] == [new.id, created.id]
    assert remote.history(new.id or "") == memory.history(new.id or "")
    assert remote.update(new.id or "", importance=0.8).record == memory.get(new.id or "")
    assert remote.feedback(new.id or "", used=True).record == memory.get(new.id or "")
    assert remote.forget(new.id or "", "moved").outcome is Outcome.FORGOTTEN
    assert remote.purge(new.id or "").outcome is Outcome.DELETED


def test_reads_answer_the_same_values(remote: Client, memory: Memory) -> None:
    for text in ("Deploys go through ops/deploy.sh", "The billing service retries 3 times"):
        memory.remember(text, tags=["project:api"])
    assert remote.list() == memory.list()
    assert remote.list(limit=1) == memory.list(limit=1)
    assert remote.search("deploys billing", touch=False) == memory.search(
        "deploys billing", touch=False
    )
    assert remote.rank() == memory.rank()
    remote_briefing, local = remote.briefing(), memory.briefing()
    assert (remote_briefing.text, remote_briefing.manifest) == (local.text, local.manifest)
    assert remote.entities() == memory.entities()
    assert remote.stats().by_type == memory.stats().by_type
    assert remote.log() == memory.log()
    assert list(remote.export_lines()) == list(memory.export_lines())


def test_sessions_and_import(remote: Client, memory: Memory) -> None:
    started = remote.session_start()
    assert started.is_new
    ended = remote.session_end("Set up the editor config")
    assert ended.record is not None
    assert ended.record.session_id == started.session_id
    result = remote.import_(['{"content": "Imported through the client"}'])
    assert result.created == 1
    assert memory.list()[0].content == "Imported through the client"


def test_errors_are_the_librarys(remote: Client, memory: Memory) -> None:
    with pytest.raises(NotFoundError):
        remote.get("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    with pytest.raises(InvalidInputError):
        remote.search("deploys", limit=0)
    memory_id = memory.remember("a memory to forget twice").id or ""
    remote.forget(memory_id)
    with pytest.raises(ConflictError):
        remote.forget(memory_id)


def test_keys_reach_the_server(memory: Memory, clock: FakeClock) -> None:
    key = memory.create_key(user="alice").key
    with local_client(create_app(memory)) as http:
        with pytest.raises(AccessError) as refused:
            Client("http://127.0.0.1", http=http).list()
        assert refused.value.status == 401
    with local_client(create_app(memory)) as http:
        alice = Client("http://127.0.0.1", api_key=key, http=http)
        assert alice.remember("Alice's laptop runs Fedora").record is not None
        assert [r.user for r in alice.list()] == ["alice"]


def test_evaluation_and_briefing_log_answer_the_same_values(
    remote: Client, memory: Memory, clock: FakeClock
) -> None:
    first = memory.remember("Deploys go through ops/deploy.sh on Tuesdays").id or ""
    memory.remember("The billing service retries failed webhooks three times")
    clock.advance(minutes=5)
    memory.supersede(first, "Deploys go through ops/release.sh on Tuesdays")
    memory.decide("deploys", "Deploys need a second reviewer")
    memory.briefing(session_id="s1")
    hits = memory.search("how do deploys go out")
    memory.feedback(hits[0].record.id, used=True)
    assert remote.evaluate() == evaluate(
        memory,
    )
    other = Variant("older prior", profile="aide", recall_prior=0.3)
    remote_report, local = remote.evaluate([other]), evaluate(memory, [other])
    assert remote_report == local
    assert remote_report.runs[1].variant.label == "older prior"
    assert {p.kind for p in local.probes} >= {"recorded", "supersession", "decision"}
    assert remote.briefing_log() == memory.briefing_log()
    assert remote.briefing_log().entries  # the session's briefing is in it
    text_only = Variant("text only", embedder="none")
    assert remote.evaluate([text_only]) == evaluate(memory, [text_only])
    weighed = Variant("weighed", profile="rae", settings=(("rae_half_life_hours", "2"),))
    assert remote.evaluate([weighed]) == evaluate(memory, [weighed])
    with pytest.raises(InvalidInputError, match="one alternative"):
        remote.evaluate([other, Variant("third")])


def test_updates_answer_the_same_values(remote: Client, memory: Memory, clock: FakeClock) -> None:
    old = remote.remember("The nightly backup runs at 2am.")
    clock.advance(days=1)
    new = remote.remember("The nightly backup runs at 4am now.")
    assert [(x.old_id, x.state) for x in new.updates] == [(old.id, "open")]
    assert remote.updates() == memory.updates()
    assert new.id is not None
    assert old.id is not None
    confirmed = remote.confirm_update(new.id, old.id)
    assert (confirmed.outcome.value, confirmed.id) == ("updated", new.id)
    assert remote.updates(state="all") == memory.updates(state="all")
    clock.advance(days=1)
    later = remote.remember("The nightly backup runs at 5am now.")
    assert later.id is not None
    dismissed = remote.dismiss_update(later.id, new.id)
    assert dismissed == memory.updates(state="dismissed")[0]


LOCAL_ONLY = {
    # the process's own store and settings
    "open": "opens a store in this process",
    "store": "the store object itself",
    "vectors": "the embeddings beside the store",
    "config": "this process's settings",
    "now": "this process's clock",
    "clock": "this process's clock",
    "settings": "this process's profile settings",
    "owner": "whom a local verb acts for (over HTTP, the key decides)",
    "hold_out": "an evaluation's scratch copy only",
    "profile": "a profile's rules, as objects",
    "profiles": "the profile registry (GET /v1/profiles shows it)",
    "long_running": "tells this process it serves many requests",
    "record": "the raw recorded traces (the briefing log is their face)",
    # administering the store on its machine (the CLI's `keys`, `doctor`, `migrate`)
    "api_keys": "keys are made on the store's machine, never over HTTP",
    "create_key": "keys are made on the store's machine, never over HTTP",
    "revoke_key": "keys are revoked on the store's machine",
    "has_keys": "the server's mode, decided on its machine",
    "check_key": "the server checks keys; a client presents one",
    "store_file": "where a store's file is on this machine",
    "store_kind": "stats() says the kind",
    "copy_into": "migrate copies one local store into another",
    "missing_vectors": "doctor, on the store's machine",
    "unfound_by_text": "doctor, on the store's machine",
    "repair_text": "reindex repairs the full-text index too",
    # pack files are local files: the client reads and signs them itself
    "pack_manifest": "a local file (Client reads packs through it)",
    "sign_pack": "a local file (export_pack signs here)",
    "check_pack_key": "a local check before any work",
    # the engine's own job plumbing (the faces' jobs)
    "start_job": "the server starts jobs for its requests",
    "wait_job": "the server waits on its jobs",
    "job_finished": "the server's job plumbing",
    "settle_erasure": "finishes an erasure interrupted on this machine",
    "follow_erasures": "empties this process's caches of erased words (the server's upkeep)",
}
"""Public names of Memory a Client does not have, and why."""


def _public(kind: type) -> set[str]:
    return {name for name in dir(kind) if not name.startswith("_")}


def test_a_client_answers_every_public_verb_of_a_memory() -> None:
    missing = _public(Memory) - _public(Client) - set(LOCAL_ONLY)
    assert not missing, (
        f"Memory has verbs Client lacks: {sorted(missing)} (add them to Client, or to "
        "LOCAL_ONLY with why)"
    )
    assert not set(LOCAL_ONLY) - _public(Memory), "LOCAL_ONLY names what Memory no longer has"
    assert not set(LOCAL_ONLY) & _public(Client), "a verb Client has is not local-only"


def test_jobs_erasure_and_probes_answer_the_same_values(
    remote: Client, memory: Memory, clock: FakeClock
) -> None:
    first = memory.remember("Deploys go through ops/deploy.sh on Tuesdays").id or ""
    clock.advance(minutes=5)
    memory.supersede(first, "Deploys go through ops/release.sh on Tuesdays")
    memory.decide("deploys", "Deploys need a second reviewer")
    assert remote.probes() == probes(memory)
    assert {p.kind for p in remote.probes(per_kind=1)} == {"supersession", "decision"}
    remote.reindex()  # (long work: the server runs it as a job)
    local_jobs = memory.jobs()
    assert [(j.id, j.kind, j.state) for j in remote.jobs()] == [
        (j.id, j.kind, j.state) for j in local_jobs
    ]
    assert [j.kind for j in local_jobs] == ["reindex"]
    done = remote.job(local_jobs[0].id)
    assert (done.id, done.done, done.result) == (
        local_jobs[0].id,
        local_jobs[0].done,
        local_jobs[0].result,
    )
    with pytest.raises(NotFoundError):
        remote.job("no-such-job")
    with pytest.raises(NotFoundError):
        remote.cancel_job("no-such-job")
    receipt = remote.erase_user(memory.config.user)
    assert receipt["memories"] >= 3
    assert memory.list() == []
