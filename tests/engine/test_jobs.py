"""Jobs: long work on a thread of its own, followed in the store, never left "running" when
the process that ran it is gone (on SQLite and on PostgreSQL)."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from salience import Config, Memory
from salience.engine import jobs
from salience.errors import ConflictError, InvalidInputError, NotFoundError, TooManyJobsError
from salience.models import ALL_USERS, Job, JobState
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

LINES = [json.dumps({"content": f"imported note number {i} about the crane"}) for i in range(5)]


def _held(release: threading.Event, started: threading.Event) -> Any:
    def work(progress: Any) -> dict[str, Any]:
        progress(1, 4)
        started.set()
        assert release.wait(10)
        progress(4, 4)
        return {"answer": 42}

    return work


def test_a_job_runs_beside_the_caller_and_keeps_its_result(memory: Memory) -> None:
    release, started = threading.Event(), threading.Event()
    job = memory.start_job("test", _held(release, started))
    assert job.state is JobState.RUNNING
    assert job.user == memory.config.user
    assert started.wait(10)
    running = memory.job(job.id)
    assert (running.state, running.done, running.total) == (JobState.RUNNING, 1, 4)
    release.set()
    done = memory.wait_job(job.id, 10)
    assert done.state is JobState.DONE
    assert done.result == {"answer": 42}
    assert (done.done, done.total) == (4, 4)
    assert done.finished_at is not None
    assert done.error is None
    stored = memory.store.job(job.id)  # what another process reads
    assert stored is not None
    assert stored.state is JobState.DONE
    assert stored.result == done.result
    assert [j.id for j in memory.jobs()] == [job.id]


def test_a_job_is_its_users_alone(memory: Memory) -> None:
    job = memory.start_job("test", lambda progress: {}, user="alice")
    memory.wait_job(job.id, 10)
    with pytest.raises(NotFoundError, match="no job"):
        memory.job(job.id, user="bob")
    assert memory.jobs(user="bob") == []
    assert memory.job(job.id, user="alice").state is JobState.DONE
    assert [j.id for j in memory.jobs(user=ALL_USERS)] == [job.id]


def test_a_failed_job_keeps_the_error_never_the_text(memory: Memory) -> None:
    def refuse(progress: Any) -> dict[str, Any]:
        raise InvalidInputError("line 3: content is empty", field="content")

    def crash(progress: Any) -> dict[str, Any]:
        raise RuntimeError("secret-looking internal detail sk-live-abc")

    refused = memory.wait_job(memory.start_job("test", refuse).id, 10)
    assert refused.state is JobState.FAILED
    assert refused.result is None
    assert refused.error == {
        "kind": "InvalidInputError",
        "message": "line 3: content is empty",
        "field": "content",
    }
    crashed = memory.wait_job(memory.start_job("test", crash).id, 10)
    assert crashed.state is JobState.FAILED
    assert crashed.error == {"kind": "Internal", "message": "the job failed unexpectedly"}
    stored = memory.store.job(crashed.id)
    assert stored is not None
    assert "sk-live" not in json.dumps(stored.error)


def _orphan(memory: Memory, owner: str, beat: timedelta) -> Job:
    now = memory.now()
    job = Job("01JOBORPHAN0000000000000000", memory.config.user, "import", JobState.RUNNING,
              now - beat, now - beat, done=3, total=9, owner=owner)  # fmt: skip
    memory.store.save_job(job)
    return job


def test_a_job_whose_process_died_reads_as_failed_and_stays_so(memory: Memory) -> None:
    gone_pid = 2**22 + 17  # above Linux's default pid_max: no such process
    job = _orphan(memory, f"{jobs._host()}:{gone_pid}", timedelta(seconds=1))
    failed = memory.job(job.id)
    assert failed.state is JobState.FAILED
    assert failed.error == {"kind": "Interrupted", "message": jobs.INTERRUPTED}
    stored = memory.store.job(job.id)
    assert stored is not None
    assert stored.state is JobState.FAILED
    assert [j.state for j in memory.jobs()] == [JobState.FAILED]


def test_another_hosts_job_fails_only_when_its_heartbeat_stops(
    memory: Memory, clock: FakeClock
) -> None:
    job = _orphan(memory, "elsewhere:1234", timedelta(seconds=5))
    assert memory.job(job.id).state is JobState.RUNNING
    clock.advance(seconds=jobs.STALE)
    assert memory.job(job.id).state is JobState.FAILED


def test_this_processes_job_not_running_here_is_from_an_earlier_life(memory: Memory) -> None:
    job = _orphan(memory, jobs._process(), timedelta(seconds=1))
    assert memory.job(job.id).state is JobState.FAILED


def test_closing_stops_an_import_job_before_it_writes_anything(
    config: Config, clock: FakeClock
) -> None:
    release, started = threading.Event(), threading.Event()
    memory = Memory.open(config=config, clock=clock, embedder=WordHashEmbedder())

    def work(progress: Any) -> dict[str, Any]:
        started.set()
        assert release.wait(10)
        memory.import_(LINES, progress=progress)
        return {"imported": True}

    job = memory.start_job("import", work)
    assert started.wait(10)
    closing = threading.Thread(target=memory.close)
    closing.start()
    assert memory._stopping.wait(10)
    release.set()
    closing.join(20)
    assert not closing.is_alive()
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as again:
        stopped = again.job(job.id)
        assert stopped.state is JobState.FAILED
        assert stopped.error is not None
        assert stopped.error["kind"] == "JobStopped"
        assert again.list(limit=None) == []


def test_a_finished_job_is_kept_a_week(memory: Memory, clock: FakeClock) -> None:
    old = memory.wait_job(memory.start_job("test", lambda progress: {}).id, 10)
    clock.advance(days=8)
    new = memory.wait_job(memory.start_job("test", lambda progress: {}).id, 10)
    assert [j.id for j in memory.jobs()] == [new.id]
    assert memory.store.job(old.id) is None
    assert new.state is JobState.DONE


# -- limits: how many run, the queue, the budget, a cancel from anywhere -----------------------


def _limited(config: Config, clock: FakeClock, **limits: Any) -> Memory:
    return Memory.open(config=replace(config, **limits), clock=clock, embedder=WordHashEmbedder())


def _blocked(release: threading.Event, ran: list[str], name: str) -> Any:
    def work(progress: Any) -> dict[str, Any]:
        ran.append(name)
        while not release.wait(0.01):
            progress(0, 1)  # (a check: a cancel stops it here)
        return {"name": name}

    return work


def test_jobs_past_the_limits_wait_their_turn_in_order(config: Config, clock: FakeClock) -> None:
    release, ran = threading.Event(), []
    with _limited(config, clock, jobs_per_tenant=1, jobs_running=2) as memory:
        first = memory.start_job("test", _blocked(release, ran, "a1"), user="alice")
        second = memory.start_job("test", _blocked(release, ran, "a2"), user="alice")
        other = memory.start_job("test", _blocked(release, ran, "b1"), user="bob")
        third = memory.start_job("test", _blocked(release, ran, "c1"), user="carol")
        # alice is at her limit, bob takes the second place, carol waits for any
        assert [j.state for j in (first, second, other, third)] == [
            JobState.RUNNING,
            JobState.QUEUED,
            JobState.RUNNING,
            JobState.QUEUED,
        ]
        assert memory.store.job(second.id).state is JobState.QUEUED  # (as others read it)
        assert memory.job(second.id, user="alice").state is JobState.QUEUED
        release.set()
        done = [memory.wait_job(j.id, 20) for j in (first, second, other, third)]
        assert [j.state for j in done] == [JobState.DONE] * 4
        assert ran.index("a2") > ran.index("a1")
        assert {ran[0], ran[1]} == {"a1", "b1"}


def test_a_full_queue_refuses_a_new_job_and_starts_nothing(
    config: Config, clock: FakeClock
) -> None:
    release, ran = threading.Event(), []
    with _limited(config, clock, jobs_per_tenant=1, jobs_queued=2) as memory:
        started = [memory.start_job("t", _blocked(release, ran, str(n))) for n in range(3)]
        with pytest.raises(TooManyJobsError, match="jobs_queued"):
            memory.start_job("t", _blocked(release, ran, "refused"))
        assert len(memory.jobs()) == 3
        other = memory.start_job("t", lambda progress: {}, user="bob")  # (another user's turn)
        assert memory.wait_job(other.id, 20).state is JobState.DONE
        release.set()
        assert all(memory.wait_job(j.id, 20).state is JobState.DONE for j in started)
        assert "refused" not in ran


def test_a_queued_job_cancelled_leaves_the_queue_at_once(config: Config, clock: FakeClock) -> None:
    release, ran = threading.Event(), []
    with _limited(config, clock, jobs_running=1) as memory:
        running = memory.start_job("t", _blocked(release, ran, "running"))
        queued = memory.start_job("t", _blocked(release, ran, "queued"))
        cancelled = memory.cancel_job(queued.id)
        assert cancelled.state is JobState.FAILED
        assert cancelled.error is not None
        assert cancelled.error["kind"] == "JobCancelled"
        release.set()
        assert memory.wait_job(running.id, 20).state is JobState.DONE
        assert memory.wait_job(queued.id, 20).state is JobState.FAILED
        assert ran == ["running"]


def test_a_job_is_cancelled_from_another_process_of_the_store(
    config: Config, clock: FakeClock
) -> None:
    release, ran = threading.Event(), []
    with _limited(config, clock) as server, _limited(config, clock) as other:
        job = server.start_job("t", _blocked(release, ran, "long"))
        assert other.store.ask_cancel(job.id, clock.now)  # (what another process does)
        stopped = server.wait_job(job.id, 20)  # (its heartbeat reads the ask)
        assert stopped.state is JobState.FAILED
        assert stopped.error is not None
        assert stopped.error["kind"] == "JobCancelled"
        assert not other.store.ask_cancel(job.id, clock.now)  # (finished: nothing to ask)


def test_cancelling_a_job_another_process_runs_asks_it_through_the_store(
    memory: Memory, clock: FakeClock
) -> None:
    elsewhere = Job(
        "01JOBELSEWHERE00000000000000",
        memory.config.user,
        "import",
        JobState.RUNNING,
        clock.now,
        clock.now,
        owner="another-host:41",
    )
    memory.store.save_job(elsewhere)
    assert memory.cancel_job(elsewhere.id).state is JobState.RUNNING
    assert memory.store.cancel_asked(elsewhere.id)
    memory.store.save_job(replace(elsewhere, done=3))  # (its heartbeat keeps the ask)
    assert memory.store.cancel_asked(elsewhere.id)
    memory.store.save_job(replace(elsewhere, state=JobState.DONE, finished_at=clock.now))
    with pytest.raises(ConflictError, match="finished"):
        memory.cancel_job(elsewhere.id)


def test_a_job_past_its_time_fails_naming_the_limit(
    config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from salience import budget

    ticks = iter(range(0, 10_000, 7))  # (each reading of the clock 7 s on)
    monkeypatch.setattr(budget, "monotonic", lambda: float(next(ticks)))
    with _limited(config, clock, job_seconds=20) as memory:

        def endless(progress: Any) -> dict[str, Any]:
            while True:
                progress(0, 1)

        failed = memory.wait_job(memory.start_job("t", endless).id, 20)
    assert failed.state is JobState.FAILED
    assert failed.error is not None
    assert (failed.error["kind"], failed.error["field"]) == ("OverLimitError", "job_seconds")


def test_an_import_job_past_its_records_applies_nothing(config: Config, clock: FakeClock) -> None:
    source = Path(__file__).parent.parent / "data" / "importers" / "talome" / "talome.db"
    with _limited(config, clock, job_rows=3) as memory:

        def work(progress: Any) -> dict[str, Any]:
            return {"found": memory.import_from("talome", source, progress=progress).found}

        failed = memory.wait_job(memory.start_job("import_from", work).id, 20)
        assert failed.state is JobState.FAILED
        assert failed.error is not None
        assert (failed.error["kind"], failed.error["field"]) == ("OverLimitError", "job_rows")
        assert memory.list(limit=None) == []
        roomy = replace(memory.config, job_rows=100)
        with Memory.open(config=roomy, clock=clock, embedder=WordHashEmbedder()) as again:
            done = again.wait_job(again.start_job("import_from", work).id, 20)
        assert done.state is JobState.DONE
