"""Long work as jobs: ``GET /v1/jobs/{id}``, ``GET /v1/jobs``, and how a long route answers.

An import, an import from another system, a pack import, a consolidation and a reindex run
as a job of the caller (:mod:`salience.engine.jobs`). The request waits for it up to
:data:`WAIT` seconds and then answers as it always did: the result, or the error with its
status. Longer work answers ``202 Accepted`` with the job (``Location`` names it) and goes
on whatever the client does; the job's ``result`` is then the same answer. The client may
choose (RFC 7240): ``Prefer: respond-async`` answers ``202`` at once, ``Prefer: wait=N``
waits up to N seconds (at most :data:`MAX_WAIT`), on the event loop: a waiting request holds
no worker thread. Past the limits on running jobs a job waits its turn (``queued``); past the
user's queue (``jobs_queued``) the request answers ``429`` with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from salience.engine.jobs import Progress
from salience.models import ALL_USERS, Job, JobState, UserScope
from salience.server.context import Caller, Engine
from salience.server.errors import error_response
from salience.server.replies import READ_ERRORS, WRITE_ERRORS, CallerDep, EngineDep
from salience.wire.models import JobOut
from salience.wire.values import job_out

router = APIRouter(prefix="/v1", tags=["jobs"])
WAIT = 10.0
"""Seconds a long request waits for its job before it answers ``202``."""
MAX_WAIT = 300.0
"""The longest ``Prefer: wait=N`` honoured."""
ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {"model": JobOut, "description": "still running: follow the job (Location)"}
}


def wait_of(request: Request) -> float:
    """How long the request's ``Prefer`` header asks to wait (see the module)."""
    wait: float | None = None
    asynchronous = False
    for part in request.headers.get("prefer", "").split(","):
        name, _, value = part.strip().partition("=")
        name = name.strip().lower()
        if name == "respond-async":
            asynchronous = True
        elif name == "wait":
            try:
                wait = min(max(float(value.strip().strip('"')), 0.0), MAX_WAIT)
            except ValueError:
                wait = None
    if wait is not None:
        return wait
    return 0.0 if asynchronous else WAIT


async def answer(
    request: Request,
    engine: Engine,
    caller: Caller,
    kind: str,
    work: Callable[[Progress], dict[str, Any]],
) -> JSONResponse:
    """Run ``work`` as a job of the caller and answer its result, its error, or (if it is
    not done within the wait) ``202`` with the job."""
    # (on a worker thread: the event loop never waits for the store's lock)
    job = await run_in_threadpool(engine.memory.start_job, kind, work, user=caller.user)
    wait = wait_of(request)
    if wait > 0:
        await _finished(engine, job.id, wait)
        job = await run_in_threadpool(engine.memory.job, job.id, user=ALL_USERS)
    return reply(job)


async def _finished(engine: Engine, job_id: str, wait: float) -> None:
    """Wait up to ``wait`` seconds for the job's outcome, on the event loop: a waiting
    request holds no worker thread (those answer other requests, authentication first)."""
    done = engine.memory.job_finished(job_id)
    if done is None:
        return
    deadline = anyio.current_time() + wait
    pause = 0.005
    while not done.is_set() and not engine.stopping.is_set():  # (stopping: answer now)
        left = deadline - anyio.current_time()
        if left <= 0:
            break
        await anyio.sleep(min(pause, left))
        pause = min(pause * 2, 0.25)


def reply(job: Job) -> JSONResponse:
    """A job's answer: its result (200), its error (with its status), or 202 while running."""
    if job.state is JobState.DONE:
        return JSONResponse(job.result)
    shaped = job_out(job)
    if job.state is JobState.FAILED:
        error = dict(shaped["error"])
        status = int(error.pop("status"))
        code, message = error.pop("code"), error.pop("message")
        return error_response(status, code, message, **error)
    return JSONResponse(
        shaped,
        status_code=202,
        headers={"Location": shaped["href"], "Preference-Applied": "respond-async"},
    )


def _scope(caller: Caller) -> UserScope:
    """Whose jobs a caller sees: their own; an admin's, everyone's."""
    return ALL_USERS if caller.admin else caller.user


@router.get("/jobs/{job_id}", response_model=JobOut, responses=READ_ERRORS)
def get_job(job_id: str, caller: CallerDep, engine: EngineDep) -> Any:
    """A job the caller started: its progress, and when finished its result or error (a job
    whose server process stopped reads as failed, ``interrupted``)."""
    return job_out(engine.memory.job(job_id, user=_scope(caller)))


@router.get("/jobs", response_model=list[JobOut], responses=READ_ERRORS)
def list_jobs(
    caller: CallerDep,
    engine: EngineDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> Any:
    """The caller's jobs (an admin's: everyone's), newest first; finished ones are kept a
    week."""
    return [job_out(j) for j in engine.memory.jobs(user=_scope(caller), limit=limit)]


@router.delete("/jobs/{job_id}", response_model=JobOut, responses=WRITE_ERRORS)
def cancel_job(job_id: str, caller: CallerDep, engine: EngineDep) -> Any:
    """Stop a job the caller started, whichever server process runs it: a queued one leaves
    the queue at once, a running one fails as ``cancelled`` at its next check (what it wrote
    so far stays: an import is all or nothing, so it writes nothing). A finished job
    answers 409."""
    caller.may_write()
    return job_out(engine.memory.cancel_job(job_id, user=_scope(caller)))
