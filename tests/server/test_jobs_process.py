"""Jobs of a real ``salience serve`` process: a job outlives the client that gave up on it,
and a server killed mid-job reports the job failed after a restart, with nothing applied."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.server.test_process import ENV, running

pytestmark = [pytest.mark.process]

EMBEDDING = {**ENV, "SALIENCE_EMBEDDER": "minilm"}  # real work: 300-750 lines a second


def _lines(count: int) -> bytes:
    return "".join(
        json.dumps({"content": f"site report {i}: crane {i % 13} passed its load test"}) + "\n"
        for i in range(count)
    ).encode()


def _follow(base: str, href: str, until: Any, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        job: dict[str, Any] = httpx.get(base + href).json()
        if until(job):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def _send_and_hang_up(base: str, body: bytes) -> socket.socket:
    """POST ``body`` to ``/v1/import`` on a socket of our own, which waits for the answer
    until :meth:`socket.socket.close` (the client giving up)."""
    url = urlsplit(base)
    sock = socket.create_connection((url.hostname or "127.0.0.1", url.port or 80))
    head = (
        f"POST /v1/import HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Content-Type: application/x-ndjson\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


def test_a_job_goes_on_when_its_client_gives_up(tmp_path: Path) -> None:
    # The client hangs up once the job is seen running, whatever the machine's speed (a
    # client timeout raced the work, and lost on a fast machine).
    lines = 1000
    with running(tmp_path / "home", env=EMBEDDING) as (_, base):
        sock = _send_and_hang_up(base, _lines(lines))
        listed = _follow(base, "/v1/jobs", lambda jobs: len(jobs) == 1, 60)
        href = listed[0]["href"]  # type: ignore[index]
        seen = _follow(base, href, lambda j: j["state"] != "queued", 60)
        sock.close()  # the client gives up while the job runs
        assert (seen["state"], seen["done"] < lines) == ("running", True), seen
        job = _follow(base, href, lambda j: j["state"] not in ("queued", "running"))
        assert job["state"] == "done", json.dumps(job)  # (whole: the error, if it failed)
        assert job["result"]["created"] == 1000
        assert httpx.get(f"{base}/v1/stats").json()["total"] == 1000


def test_a_server_killed_mid_job_reports_it_failed_and_applied_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with running(home, env=EMBEDDING) as (process, base):
        accepted = httpx.post(
            f"{base}/v1/import",
            content=_lines(2000),
            headers={"Content-Type": "application/x-ndjson", "Prefer": "respond-async"},
        )
        assert accepted.status_code == 202
        href = accepted.headers["location"]
        _follow(base, href, lambda j: j["done"] > 0, 60)  # embedding, nothing written yet
        process.kill()
        process.wait()
    with running(home, env=EMBEDDING) as (_, base):
        job = httpx.get(base + href).json()
        assert job["state"] == "failed", job
        assert job["error"]["code"] == "interrupted"
        assert job["error"]["status"] == 503
        assert httpx.get(f"{base}/v1/stats").json()["total"] == 0


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_request_waiting_for_a_job_answers_when_the_server_stops(
    tmp_path: Path, workers: str
) -> None:
    """SIGTERM while a request waits (``Prefer: wait=300``) for a long import: the request
    answers 202 with the job at once (not a 500 when its wait is cut), the process exits, and
    the job reads as failed (stopped), nothing applied."""
    import signal
    import threading

    home = tmp_path / "home"
    answers: list[httpx.Response] = []
    with running(home, "--workers", workers, env=EMBEDDING) as (process, base):

        def wait() -> None:
            answers.append(
                httpx.post(
                    f"{base}/v1/import",
                    content=_lines(20_000),
                    headers={"Content-Type": "application/x-ndjson", "Prefer": "wait=300"},
                    timeout=120,
                )
            )

        waiting = threading.Thread(target=wait)
        waiting.start()
        _follow(base, "/v1/jobs", lambda jobs: jobs and jobs[0]["done"] > 0, 60)
        process.send_signal(signal.SIGTERM)
        waiting.join(120)
        assert process.wait(60) is not None  # (a guard against a hang, not a measure)
    [answer] = answers
    assert answer.status_code == 202, answer.text
    with running(home, env=EMBEDDING) as (_, base):
        job = httpx.get(base + answer.headers["location"]).json()
        assert job["state"] == "failed", job
        assert job["error"]["code"] == "interrupted"
        assert httpx.get(f"{base}/v1/stats").json()["total"] == 0
