"""Jobs: long work (an import, a consolidation, a reindex) run on a thread of its own, its
progress and outcome kept in the store, so that whoever asked for it need not wait for it
(the server answers ``202`` and a job id; ``GET /v1/jobs/{id}`` follows it, from any server
process of the store).

Every job is bounded. It spends a :class:`~salience.budget.Budget` (time, records and bytes
read, bytes unpacked, memory: the ``job_*`` settings) and stops at its next check past any of
them, failed with the limit named. At most ``jobs_per_tenant`` jobs of one user and
``jobs_running`` in all run at once in a process; the next wait, queued in the order they
came (``jobs_queued`` of one user at most: past them a new job is refused), and start as
running ones end. A job asked to stop (:meth:`Jobs.cancel_job`, from any process of the
store: the heartbeat reads the ask) stops at its next check, or leaves the queue at once.

One thread per job does the work; a second beats its heart: every :data:`HEARTBEAT` seconds
(sooner after progress) it writes the job's progress and the time. It is the only writer of
a running job's row (the work's progress callback only updates memory), so the two never
wait on each other's store lock. When the work ends, its result or error is written once.

A job is reported failed, never left "running", when the process running it stopped: its
heartbeat is older than :data:`STALE` seconds, or it names a process of this host that no
longer runs. Each job's work keeps its own promise about a stop midway: an import or a
consolidation writes in one transaction at its end, so it applied nothing; a reindex keeps
what it embedded (run it again to finish).
"""

from __future__ import annotations

import builtins
import contextvars
import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any

from salience import telemetry
from salience.budget import Budget, Limits, spending
from salience.engine.core import EngineCore
from salience.errors import ConflictError, NotFoundError, SalienceError, TooManyJobsError
from salience.ids import new_ulid
from salience.models import ALL_USERS, Job, JobState, UserScope

log = logging.getLogger("salience.jobs")

HEARTBEAT = 2.0
"""Seconds between a running job's heartbeats (progress is written as often, at most)."""
STALE = 60.0
"""Seconds without a heartbeat after which a running job is reported failed."""
KEPT = timedelta(days=7)
"""How long a finished job is kept (older ones go when a new job starts)."""
CLOSE_WAIT = 10.0
"""Seconds :meth:`Jobs.close` waits for running jobs to stop."""
INTERRUPTED = "the process running this job stopped before it finished"

Progress = Callable[[int, int], None]
Work = Callable[[Progress], dict[str, Any]]


class JobStopped(SalienceError):
    """The engine is closing: a job's work stops at its next progress report."""


class JobCancelled(SalienceError):
    """Its caller cancelled the job (``DELETE /v1/jobs/{id}``): it stopped at its next check."""


@dataclass
class _Run:
    """A job of this process, queued or running: its latest state, its work and limits, and
    the events of its life."""

    job: Job
    work: Work
    context: contextvars.Context  # (the caller's: what its channel may claim follows it)
    limits: Limits
    per_tenant: int  # (the settings of the engine that started it)
    in_all: int
    engine: Jobs
    lock: threading.Lock = field(default_factory=threading.Lock)
    moved: threading.Event = field(default_factory=threading.Event)  # progress to write
    finished: threading.Event = field(default_factory=threading.Event)  # the work ended
    written: threading.Event = field(default_factory=threading.Event)  # and its outcome too
    cancelled: threading.Event = field(default_factory=threading.Event)  # stop at next check


_RUNNING: dict[str, _Run] = {}
"""The jobs of this process not yet written as finished, queued or running, whichever engine
started them, in the order they came (the queue's order)."""
_RUNNING_LOCK = threading.Lock()


class Jobs(EngineCore):
    """Long work beside the requests: :meth:`start_job`, :meth:`job`, :meth:`jobs`."""

    def start_job(self, kind: str, work: Work, *, user: UserScope = None) -> Job:
        """Run ``work(progress)`` on a thread of its own as a job of ``user`` (``*`` for a
        whole-store job of an admin), now or, past the limits on running jobs, once its turn
        comes: it returns the job's result (a JSON object); its
        :class:`~salience.errors.SalienceError` is the job's error. Returns the job as
        started (``running`` or ``queued``); :meth:`job` follows it, :meth:`wait_job` waits
        for it here. Raises :class:`~salience.errors.TooManyJobsError` when the user has
        ``jobs_queued`` jobs waiting already."""
        scope = self._scope(user)
        now = self.now()
        self._store.delete_jobs(now - KEPT)
        tenant = "*" if scope is None else scope
        job = Job(new_ulid(now), tenant, kind, JobState.QUEUED, now, now, owner=_process())
        config = self._config
        run = _Run(
            job,
            work,
            contextvars.copy_context(),
            Limits.of(config),
            config.jobs_per_tenant,
            config.jobs_running,
            self,
        )
        with _RUNNING_LOCK:
            waiting = sum(1 for r in _RUNNING.values() if _queued(r) and r.job.user == tenant)
            if waiting >= config.jobs_queued:
                raise TooManyJobsError(
                    f"{waiting} jobs of this user are waiting their turn already, as many as "
                    "may (the jobs_queued setting); ask again once one has finished"
                )
            _RUNNING[job.id] = run
            self._started.add(job.id)
            starting = _next_runs()
            started = run.job
        self._persist(started)
        threading.Thread(
            target=self._beat, args=(run,), name=f"job-beat-{job.id}", daemon=True
        ).start()
        for ready in starting:
            ready.start()
        return started

    def job(self, job_id: str, *, user: UserScope = None) -> Job:
        """The job with this id as it stands (a job of another user is not found)."""
        scope = self._scope(user)
        run = _RUNNING.get(job_id)
        found = self._store.job(job_id) if run is None else run.job
        if found is None or (scope is not None and found.user != scope):
            raise NotFoundError(job_id, "no job with that id (or not yours)")
        return self._judged(found)

    def jobs(self, *, user: UserScope = None, limit: int = 50) -> builtins.list[Job]:
        """The user's jobs (everyone's with :data:`ALL_USERS`), newest first."""
        scope = self._scope(user)
        return [
            self._judged(_RUNNING[j.id].job if j.id in _RUNNING else j)
            for j in self._store.jobs(scope, limit)
        ]

    def cancel_job(self, job_id: str, *, user: UserScope = None) -> Job:
        """Ask a job of ``user``'s to stop, whichever process of the store runs it: a queued
        one leaves the queue at once, a running one fails (``JobCancelled``) at its next
        check. A finished job is a conflict."""
        found = self.job(job_id, user=user)
        if found.state in (JobState.DONE, JobState.FAILED):
            raise ConflictError(f"job {job_id} has finished already")
        run = _RUNNING.get(job_id)
        if run is not None:
            return self._cancel(run)
        if not self._store.ask_cancel(job_id, self.now()):  # (another process runs it)
            raise ConflictError(f"job {job_id} has finished already")
        return found

    def _cancel(self, run: _Run) -> Job:
        run.cancelled.set()
        with _RUNNING_LOCK:
            if _queued(run):  # (never started: it fails now, in the queue's place)
                self._end(run, None, _error_of(JobCancelled("the job was cancelled")))
        with run.lock:
            return run.job

    def job_finished(self, job_id: str) -> threading.Event | None:
        """What is set once the job's outcome is written (None: it is not running here), for
        a caller that waits without holding a thread (the server)."""
        run = _RUNNING.get(job_id)
        return None if run is None else run.written

    def wait_job(self, job_id: str, timeout: float | None = None) -> Job:
        """Wait (at most ``timeout`` seconds) for a job of this engine to finish; the job."""
        run = _RUNNING.get(job_id)
        if run is not None:
            run.written.wait(timeout)
        return self.job(job_id, user=ALL_USERS)

    def close(self) -> None:
        """Ask this engine's running jobs to stop (at their next check; queued ones fail at
        once), wait for them (at most :data:`CLOSE_WAIT` seconds in all), then close."""
        self._stopping.set()
        stopped = _error_of(JobStopped("the server shut down before the job started"))
        with _RUNNING_LOCK:
            runs = [_RUNNING[i] for i in self._started if i in _RUNNING]
            for run in runs:
                if _queued(run):
                    self._end(run, None, stopped)
        deadline = time.monotonic() + CLOSE_WAIT
        for run in runs:
            run.finished.wait(max(0.0, deadline - time.monotonic()))
            run.written.wait(max(0.0, deadline - time.monotonic()))
        super().close()

    # -- the job's two threads --------------------------------------------------------------

    def _work(self, run: _Run) -> None:
        def stop() -> None:
            if self._stopping.is_set():
                raise JobStopped("the server shut down before the job finished")
            if run.cancelled.is_set():
                raise JobCancelled("the job was cancelled by its caller")

        spend = Budget(run.limits, stop=stop)

        def progress(done: int, total: int) -> None:
            spend.check()
            with run.lock:
                run.job = replace(run.job, done=done, total=total)
            run.moved.set()

        result: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        try:
            with spending(spend), telemetry.span("job", kind=run.job.kind, tenant=run.job.user):
                result = run.work(progress)
        except SalienceError as exc:
            error = _error_of(exc)
        except Exception:
            log.exception("job %s (%s) failed", run.job.id, run.job.kind)
            error = {"kind": "Internal", "message": "the job failed unexpectedly"}
        with _RUNNING_LOCK:
            self._end(run, result, error)

    def _end(self, run: _Run, result: dict[str, Any] | None, error: dict[str, Any] | None) -> None:
        """The job's outcome, for its heartbeat to write (under the jobs' lock)."""
        state = JobState.FAILED if error is not None else JobState.DONE
        with run.lock:
            now = self.now()
            run.job = replace(
                run.job, state=state, result=result, error=error, updated_at=now, finished_at=now
            )
        run.work = _spent  # (an upload it held is let go now, not when the row is written)
        run.moved.set()
        run.finished.set()

    def _beat(self, run: _Run) -> None:
        """Write the job's progress and heartbeat until it finishes (reading, each time,
        whether another process asked it to stop), then its outcome; then start the next."""
        written = None
        while not run.finished.is_set():
            run.moved.wait(HEARTBEAT)
            run.moved.clear()
            with run.lock:
                current = replace(run.job, updated_at=self.now())
            if run.finished.is_set():
                break
            if current != written:
                self._persist(current)
                written = current
            if not run.cancelled.is_set() and self._asked_to_stop(run.job.id):
                self._cancel(run)
            run.finished.wait(0.5)  # progress is written twice a second at most
        with run.lock:
            final = run.job
        self._persist(final)
        with _RUNNING_LOCK:
            _RUNNING.pop(final.id, None)
            self._started.discard(final.id)
            starting = _next_runs()
        run.written.set()
        for ready in starting:
            ready.start()

    def _asked_to_stop(self, job_id: str) -> bool:
        try:
            return self._store.cancel_asked(job_id)
        except SalienceError:  # (the store closed under the job: close() stops it)
            return False

    def _persist(self, job: Job) -> None:
        try:
            self._store.save_job(job)
        except SalienceError:  # the store closed under the job: it reads as interrupted
            log.warning("job %s: could not record its state", job.id)

    def _judged(self, job: Job) -> Job:
        """The job, failed if the process running it has stopped (see the module)."""
        if job.state not in (JobState.RUNNING, JobState.QUEUED) or job.id in _RUNNING:
            return job
        age = (self.now() - job.updated_at).total_seconds()
        if age <= STALE and _alive(job.owner):
            return job
        failed = replace(
            job,
            state=JobState.FAILED,
            finished_at=self.now(),
            error={"kind": "Interrupted", "message": INTERRUPTED},
        )
        self._persist(failed)
        return failed


def _queued(run: _Run) -> bool:
    return run.job.state is JobState.QUEUED


def _spent(progress: Progress) -> dict[str, Any]:
    raise AssertionError("a finished job's work is never run")


def _next_runs() -> builtins.list[threading.Thread]:
    """Under the jobs' lock: the queued jobs whose turn has come, marked running, in the
    order they came (a user at their limit is passed over, not waited for), as the threads
    that run them (started by the caller, outside the lock)."""
    running = [r for r in _RUNNING.values() if r.job.state is JobState.RUNNING]
    starting: builtins.list[threading.Thread] = []
    for run in _RUNNING.values():
        if not _queued(run) or len(running) >= run.in_all:
            continue
        if sum(1 for r in running if r.job.user == run.job.user) >= run.per_tenant:
            continue
        with run.lock:
            run.job = replace(run.job, state=JobState.RUNNING)
        run.moved.set()
        running.append(run)
        starting.append(
            threading.Thread(
                target=run.context.run,
                args=(run.engine._work, run),
                name=f"job-{run.job.id}",
                daemon=True,
            )
        )
    return starting


def _error_of(exc: SalienceError) -> dict[str, Any]:
    """A job's error: the kind of error, its message (the library's: never stored text) and
    the field or line it names."""
    error: dict[str, Any] = {"kind": type(exc).__name__, "message": str(exc)}
    for name in ("field", "line"):
        value = getattr(exc, name, None)
        if value is not None:
            error[name] = value
    return error


@functools.cache
def _host() -> str:
    """This machine's name (``socket`` is imported only by a process that runs jobs)."""
    import socket

    return socket.gethostname()


def _process() -> str:
    """This process, as a job's ``owner`` names it."""
    return f"{_host()}:{os.getpid()}"


def _alive(owner: str) -> bool:
    """Whether the process ``owner`` names may still run: False only for this host's
    processes that do not (another host's cannot be seen: its heartbeat decides)."""
    host, _, pid = owner.rpartition(":")
    if host != _host() or not pid.isdigit():
        return True
    if int(pid) == os.getpid():
        return False  # this process's running jobs are in ``_RUNNING``: an earlier life's
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
