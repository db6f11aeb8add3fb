"""``/v1/updates``: pairs of memories where the newer was found to change what the older
says (docs/scoring.md), open until confirmed (a supersession) or dismissed (never found
again). Deciding needs a write key; confirming also needs the standing to end the older
memory (an agent's key does not end a person's memory)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from salience.server.replies import (
    READ_ERRORS,
    WRITE_ERRORS,
    WRITE_REPLIES,
    AsUser,
    CallerDep,
    EngineDep,
    MemoryId,
    write_reply,
)
from salience.wire.models import UpdateOut, WriteOut
from salience.wire.values import update_out

router = APIRouter(prefix="/v1/updates", tags=["memories"])


@router.get("", response_model=list[UpdateOut], responses=READ_ERRORS)
def updates(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    state: Annotated[Literal["open", "confirmed", "dismissed", "all"], Query()] = "open",
) -> list[dict[str, Any]]:
    """The user's update links in ``state``, newest found first, each explained."""
    user = caller.acting(as_user, across=True)
    return [update_out(x) for x in engine.memory.updates(user=user, state=state)]


@router.post("/{new_id}/{old_id}/confirm", response_model=WriteOut, responses=WRITE_REPLIES)
def confirm(
    new_id: MemoryId, old_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """The newer memory replaces the older: a supersession (audited; what was built on the
    older goes stale)."""
    caller.may_write()
    result = engine.memory.confirm_update(new_id, old_id, user=caller.user)
    return write_reply(request, result)


@router.post("/{new_id}/{old_id}/dismiss", response_model=UpdateOut, responses=WRITE_ERRORS)
def dismiss(
    new_id: MemoryId, old_id: MemoryId, caller: CallerDep, engine: EngineDep
) -> dict[str, Any]:
    """Not an update: both memories stay, and the pair is never found again (audited)."""
    caller.may_write()
    return update_out(engine.memory.dismiss_update(new_id, old_id, user=caller.user))
