"""``/v1/memories``: remember, get, list, update, supersede, forget, purge, history, feedback."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from salience.server.replies import (
    READ_ERRORS,
    WRITE_REPLIES,
    AsUser,
    CallerDep,
    EngineDep,
    MemoryId,
    write_reply,
)
from salience.server.schemas import FeedbackIn, ForgetIn, RememberIn, SupersedeIn, UpdateIn
from salience.wire.models import MemoryOut, WriteOut
from salience.wire.values import memory_out

router = APIRouter(prefix="/v1/memories", tags=["memories"])


@router.post("", response_model=WriteOut, status_code=201, responses=WRITE_REPLIES)
def remember(
    body: RememberIn, request: Request, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> JSONResponse:
    """Store a memory. The answer is its outcome: created (201), updated or duplicate (200,
    naming the memory), or rejected (422, naming the gate and why)."""
    caller.may_write()
    user = caller.acting(as_user)
    fields = body.model_dump(exclude_none=True, exclude={"content", "force", "profile"})
    result = engine.memory.remember(
        body.content, profile=body.profile, force=body.force, user=user, **fields
    )
    return write_reply(request, result)


@router.get("", response_model=list[MemoryOut], responses=READ_ERRORS)
def list_memories(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    project: Annotated[str | None, Query(max_length=512)] = None,
    type: Annotated[str | None, Query(max_length=512)] = None,
    tag: Annotated[list[str] | None, Query(max_length=32)] = None,
    session_id: Annotated[str | None, Query(max_length=512)] = None,
    entity: Annotated[str | None, Query(max_length=512)] = None,
    status: Literal["current", "superseded", "forgotten", "all"] = "current",
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    space: Annotated[
        str | None, Query(max_length=63, description="A space's, not the user's")
    ] = None,
    agent: Annotated[str | None, Query(max_length=512, description="Only this agent's")] = None,
) -> list[dict[str, Any]]:
    """The user's memories (a space's, with ``space``), newest first, a page at a time
    (``offset``, ``limit``)."""
    user = caller.acting(as_user, across=True)
    records = engine.memory.list(
        user=user,
        project=project,
        type=type,
        tags=tag or (),
        session_id=session_id,
        entity=entity,
        include_superseded=status in ("superseded", "all"),
        include_forgotten=status in ("forgotten", "all"),
        limit=limit if status in ("current", "all") else None,
        offset=offset if status in ("current", "all") else 0,
        space=space,
        agent=agent,
    )
    if status in ("superseded", "forgotten"):
        now = engine.memory.now()
        records = [r for r in records if r.status(now).value == status][offset : offset + limit]
    return [memory_out(r) for r in records]


@router.get("/{memory_id}", response_model=MemoryOut, responses=READ_ERRORS)
def get_memory(
    memory_id: MemoryId, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """One of the user's memories, whatever its status."""
    user = caller.acting(as_user, across=True)
    return memory_out(engine.memory.get(memory_id, user=user))


@router.patch("/{memory_id}", response_model=WriteOut, responses=WRITE_REPLIES)
def update_memory(
    memory_id: MemoryId,
    body: UpdateIn,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> JSONResponse:
    """Change fields in place; new content replaces the text (use supersede to keep it)."""
    caller.may_write()
    user = caller.acting(as_user)
    changes = body.model_dump(exclude_none=True)
    return write_reply(request, engine.memory.update(memory_id, user=user, **changes))


@router.post("/{memory_id}/supersede", response_model=WriteOut, responses=WRITE_REPLIES)
def supersede_memory(
    memory_id: MemoryId,
    body: SupersedeIn,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> JSONResponse:
    """Replace a memory with a new version; the old one stays in its history."""
    caller.may_write()
    user = caller.acting(as_user)
    fields = body.model_dump(exclude_none=True, exclude={"content"})
    result = engine.memory.supersede(memory_id, body.content, user=user, **fields)
    return write_reply(request, result)


@router.post("/{memory_id}/forget", response_model=WriteOut, responses=WRITE_REPLIES)
def forget_memory(
    memory_id: MemoryId,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    body: ForgetIn | None = None,
    as_user: AsUser = None,
) -> JSONResponse:
    """Forget softly: out of recall and briefings, still readable, with its reason."""
    caller.may_write()
    user = caller.acting(as_user)
    reason = (body or ForgetIn()).reason
    return write_reply(request, engine.memory.forget(memory_id, reason, user=user))


@router.delete("/{memory_id}", response_model=WriteOut, responses=WRITE_REPLIES)
def purge_memory(
    memory_id: MemoryId,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> JSONResponse:
    """Delete a memory for good (cannot be undone)."""
    caller.may_write()
    user = caller.acting(as_user)
    return write_reply(request, engine.memory.purge(memory_id, user=user))


@router.get("/{memory_id}/history", response_model=list[MemoryOut], responses=READ_ERRORS)
def history(
    memory_id: MemoryId, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> list[dict[str, Any]]:
    """The memory's version chain, newest first."""
    user = caller.acting(as_user, across=True)
    return [memory_out(r) for r in engine.memory.history(memory_id, user=user)]


@router.get("/{memory_id}/derived", response_model=list[MemoryOut], responses=READ_ERRORS)
def derived(
    memory_id: MemoryId, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> list[dict[str, Any]]:
    """The insights derived from this memory (the link back from ``derived_from``)."""
    user = caller.acting(as_user, across=True)
    return [memory_out(r) for r in engine.memory.derived_from_this(memory_id, user=user)]


@router.post("/{memory_id}/feedback", response_model=WriteOut, responses=WRITE_REPLIES)
def feedback(
    memory_id: MemoryId,
    body: FeedbackIn,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> JSONResponse:
    """The memory helped (used: echo) or did not (fizzle)."""
    caller.may_write()
    user = caller.acting(as_user)
    return write_reply(request, engine.memory.feedback(memory_id, used=body.used, user=user))
