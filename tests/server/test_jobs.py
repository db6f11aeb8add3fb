"""Long requests as jobs: ``202`` and ``GET /v1/jobs/{id}``, the same answer as a request
that waited, the caller's own jobs only, and other requests served meanwhile."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from salience.server import jobs
from tests.server.conftest import Keys, bearer

LINES = "".join(
    json.dumps({"content": f"the crane inspection number {i} passed on the north site"}) + "\n"
    for i in range(6)
)
NDJSON = {"Content-Type": "application/x-ndjson"}
ASYNC = {**NDJSON, "Prefer": "respond-async"}


def _follow(client: TestClient, href: str, headers: dict[str, str] | None = None) -> Any:
    for _ in range(200):
        job = client.get(href, headers=headers or {}).json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError("the job never finished")


def test_a_request_that_waits_answers_as_before(client: TestClient, engine: Memory) -> None:
    answer = client.post("/v1/import", content=LINES, headers=NDJSON)
    assert answer.status_code == 200
    assert answer.json() == {"created": 6, "updated": 0, "unchanged": 0, "renamed": 0}


def test_respond_async_answers_202_and_the_job_gives_the_same_answer(
    client: TestClient, engine: Memory
) -> None:
    accepted = client.post("/v1/import", content=LINES, headers=ASYNC)
    assert accepted.status_code == 202, accepted.text
    job = accepted.json()
    assert accepted.headers["location"] == job["href"] == f"/v1/jobs/{job['id']}"
    assert job["kind"] == "import"
    assert job["state"] in ("running", "done")
    done = _follow(client, job["href"])
    assert done["state"] == "done"
    assert done["error"] is None
    assert done["result"] == {"created": 6, "updated": 0, "unchanged": 0, "renamed": 0}
    assert (done["done"], done["total"]) == (6, 6)
    assert len(engine.list(limit=None)) == 6
    assert [j["id"] for j in client.get("/v1/jobs").json()] == [job["id"]]


def test_a_failed_job_carries_the_error_the_request_would_have_given(
    client: TestClient,
) -> None:
    bad = LINES + "{not json\n"
    waited = client.post("/v1/import", content=bad, headers=NDJSON)
    assert waited.status_code == 422
    job = _follow(client, client.post("/v1/import", content=bad, headers=ASYNC).json()["href"])
    assert job["state"] == "failed"
    assert job["result"] is None
    given = {k: v for k, v in job["error"].items() if v is not None}
    assert given == {**waited.json()["error"], "status": 422}
    assert job["error"]["code"] == "invalid_import"
    assert job["error"]["line"] == 7


def test_long_work_answers_202_after_the_wait_and_others_are_served_meanwhile(
    client: TestClient, engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.remember("the north crane was serviced in spring", type="fact")
    release = threading.Event()
    real = engine.consolidate

    def slow(**kwargs: Any) -> Any:
        assert release.wait(20)
        return real(**kwargs)

    monkeypatch.setattr(engine, "consolidate", slow)
    accepted = client.post("/v1/consolidate", json={}, headers={"Prefer": "wait=0.3"})
    assert accepted.status_code == 202
    assert accepted.json()["state"] == "running"
    found = client.post("/v1/search", json={"query": "north crane"})
    assert found.status_code == 200
    assert found.json()["hits"]
    still = client.get(accepted.headers["location"]).json()
    assert still["state"] == "running"
    assert still["finished_at"] is None
    release.set()
    done = _follow(client, accepted.headers["location"])
    assert done["state"] == "done"
    assert done["result"]["dry_run"] is False


def test_a_job_is_the_callers_alone(client: TestClient, keys: Keys) -> None:
    accepted = client.post("/v1/import", content=LINES, headers={**ASYNC, **bearer(keys.alice)})
    href = accepted.json()["href"]
    assert _follow(client, href, bearer(keys.alice))["state"] == "done"
    stranger = client.get(href, headers=bearer(keys.bob))
    assert stranger.status_code == 404
    assert accepted.json()["id"] not in stranger.text
    assert client.get("/v1/jobs", headers=bearer(keys.bob)).json() == []
    assert client.get(href, headers=bearer(keys.admin)).json()["state"] == "done"


@pytest.mark.parametrize(
    ("prefer", "wait"),
    [
        ("", jobs.WAIT),
        ("respond-async", 0.0),
        ("respond-async, wait=5", 5.0),
        ("wait=100000", jobs.MAX_WAIT),
        ("wait=soon", jobs.WAIT),
        ("handling=lenient", jobs.WAIT),
    ],
)
def test_prefer_chooses_how_long_a_request_waits(prefer: str, wait: float) -> None:
    from starlette.requests import Request

    scope = {"type": "http", "headers": [(b"prefer", prefer.encode())]}
    assert jobs.wait_of(Request(scope)) == wait


def test_a_purge_leaves_no_text_in_a_jobs_result(client: TestClient, engine: Memory) -> None:
    """A consolidation's answer quotes its members; purging them scrubs the stored answer,
    as GET /v1/jobs shows it and as bytes in the store."""
    from tests.both_stores import stored_bytes

    marker = "qzvjobmarker"
    texts = [
        f"the pallet scanner {marker} misread a wet label at dock 3",
        f"dock 4's pallet scanner {marker} failed on a damp label",
        f"wet labels confuse the pallet scanner {marker} again",
    ]
    made = [engine.remember(t, type="observation", tags=["scanner"], force=True) for t in texts]
    accepted = client.post("/v1/consolidate", json={}, headers={"Prefer": "respond-async"})
    assert accepted.status_code in (200, 202), accepted.text
    href = accepted.json().get("href") or client.get("/v1/jobs").json()[0]["href"]
    done = _follow(client, href)
    assert marker in json.dumps(done["result"])
    for record in made:
        assert client.delete(f"/v1/memories/{record.id}").status_code == 200
    after = client.get(href).json()
    assert marker not in json.dumps(after)
    assert "erased" in after["result"]
    assert marker.encode() not in stored_bytes(engine)


def test_a_job_is_cancelled_by_its_caller_at_its_next_check(
    client: TestClient, engine: Memory, keys: Keys
) -> None:
    stop = threading.Event()

    def endless(progress: Any) -> dict[str, Any]:
        for n in range(1_000_000):  # (bounded: the test cancels it long before)
            progress(n, 1_000_000)
            if stop.wait(0.01):
                break
        return {"done": True}

    job = engine.start_job("import", endless, user="alice")
    assert client.delete(f"/v1/jobs/{job.id}", headers=bearer(keys.bob)).status_code == 404
    cancelled = client.delete(f"/v1/jobs/{job.id}", headers=bearer(keys.alice))
    assert cancelled.status_code == 200, cancelled.text
    done = _follow(client, f"/v1/jobs/{job.id}", bearer(keys.alice))
    stop.set()
    assert done["state"] == "failed"
    assert (done["error"]["code"], done["error"]["status"]) == ("cancelled", 409)
    again = client.delete(f"/v1/jobs/{job.id}", headers=bearer(keys.alice))
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")


def _held_imports(engine: Memory, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Every import of ``engine`` waits for the event returned (set it to let them go)."""
    release = threading.Event()
    real = engine.import_

    def blocked(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "import_", blocked)
    return release


def test_requests_waiting_for_jobs_hold_no_worker_thread(
    engine: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More waiting requests than the server has worker threads (40): the waits are on the
    event loop, so a request that needs a thread (authentication, a read) is answered while
    every one of them still waits."""
    import anyio
    import httpx

    from tests.server.conftest import app_for

    release = _held_imports(engine, monkeypatch)
    roomy = replace(engine.config, jobs_per_tenant=45, jobs_running=45, jobs_queued=45)
    monkeypatch.setattr(engine, "_config", roomy)  # (the limits on jobs have their own tests)
    app = app_for(engine)
    waiting = {**NDJSON, "Prefer": "wait=60"}
    answered: list[int] = []

    async def main() -> None:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:

            async def wait_for_job() -> None:
                answer = await http.post("/v1/import", content=LINES, headers=waiting)
                answered.append(answer.status_code)

            async with anyio.create_task_group() as group:
                for _ in range(45):
                    group.start_soon(wait_for_job)
                await anyio.sleep(0)
                with anyio.fail_after(30):  # (a guard against a hang, not a measure)
                    stats = await http.get("/v1/stats")
                    health = await http.get("/healthz")
                assert (stats.status_code, health.status_code) == (200, 200)
                assert answered == []  # every job's request still waits
                release.set()

    anyio.run(main)
    assert answered == [200] * 45


def test_past_the_queue_a_job_is_refused_with_429_and_another_tenant_is_served(
    client: TestClient, engine: Memory, keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One running job and one waiting per user: alice's third asks again later (429 with
    Retry-After, nothing started); a waiting one reads as queued and leaves the queue when
    cancelled; bob's job runs meanwhile."""
    limits = replace(engine.config, jobs_per_tenant=1, jobs_queued=1, jobs_running=2)
    monkeypatch.setattr(engine, "_config", limits)
    release = _held_imports(engine, monkeypatch)
    alice = {**ASYNC, **bearer(keys.alice)}
    running = client.post("/v1/import", content=LINES, headers=alice).json()
    queued = client.post("/v1/import", content=LINES, headers=alice).json()
    assert (running["state"], queued["state"]) == ("running", "queued")
    refused = client.post("/v1/import", content=LINES, headers=alice)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_jobs"
    assert int(refused.headers["retry-after"]) > 0
    assert len(client.get("/v1/jobs", headers=bearer(keys.alice)).json()) == 2
    bobs = client.post("/v1/import", content=LINES, headers={**ASYNC, **bearer(keys.bob)})
    assert bobs.json()["state"] == "running"
    left = client.delete(queued["href"], headers=bearer(keys.alice))
    assert left.json()["state"] == "failed"
    assert left.json()["error"]["code"] == "cancelled"
    release.set()
    assert _follow(client, running["href"], bearer(keys.alice))["state"] == "done"
    assert _follow(client, bobs.json()["href"], bearer(keys.bob))["state"] == "done"
