"""``/v1/quarantine``: memories from a source below the user that read as orders to the
agent, held out of every briefing until a person approves or rejects them.

Approving needs a write key of the memory's user (or local mode). The MCP faces have no
tool for it on purpose: an agent does not let its own orders through."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
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
from salience.wire.models import MemoryOut, WriteOut
from salience.wire.values import memory_out

router = APIRouter(prefix="/v1/quarantine", tags=["memories"])


@router.get("", response_model=list[MemoryOut], responses=READ_ERRORS)
def held(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> list[dict[str, Any]]:
    """The user's held memories, newest first; the tag ``quarantine:<family>`` says why."""
    user = caller.acting(as_user, across=True)
    return [memory_out(r) for r in engine.run(lambda m: m.quarantined(user=user))]


@router.post("/{memory_id}/approve", response_model=WriteOut, responses=WRITE_REPLIES)
def approve(
    memory_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """Let the held memory into briefings (audited)."""
    caller.may_write()
    return write_reply(request, engine.run(lambda m: m.approve(memory_id, user=caller.user)))


@router.post("/{memory_id}/reject", response_model=WriteOut, responses=WRITE_REPLIES)
def reject(
    memory_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """Forget the held memory (audited; readable in its history)."""
    caller.may_write()
    return write_reply(request, engine.run(lambda m: m.reject(memory_id, user=caller.user)))
