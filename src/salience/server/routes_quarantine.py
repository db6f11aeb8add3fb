"""``/v1/quarantine``: memories from a source below the user that read as orders to the
agent, held out of every briefing until a person approves or rejects them; ``/v1/stale``:
memories derived from one that changed, out of briefings until confirmed or forgotten.

Approving or rejecting needs a person's key of the memory's user (a write key made with
``--source user``, the default) or local mode: a key made for an agent (``--source agent``)
is refused, and the MCP faces have no tool for it, so an agent does not let its own orders
through."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from salience.server.context import Caller, Refused
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
    return [memory_out(r) for r in engine.memory.quarantined(user=user)]


@router.post("/{memory_id}/approve", response_model=WriteOut, responses=WRITE_REPLIES)
def approve(
    memory_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """Let the held memory into briefings (audited)."""
    _a_person(caller)
    return write_reply(request, engine.memory.approve(memory_id, user=caller.user))


@router.post("/{memory_id}/reject", response_model=WriteOut, responses=WRITE_REPLIES)
def reject(
    memory_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """Forget the held memory (audited; readable in its history)."""
    _a_person(caller)
    return write_reply(request, engine.memory.reject(memory_id, user=caller.user))


def _a_person(caller: Caller) -> None:
    """Refuse a read-only key, and a key made for an agent: quarantine waits for a person."""
    caller.may_write()
    if caller.source != "user":
        raise Refused(
            403, "forbidden", f"a {caller.source}'s key cannot decide on quarantine: a person's can"
        )


stale_router = APIRouter(prefix="/v1/stale", tags=["memories"])


@stale_router.get("", response_model=list[MemoryOut], responses=READ_ERRORS)
def stale(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> list[dict[str, Any]]:
    """The user's memories gone stale (a memory they were derived from changed; the tag
    ``stale:<how>`` says how, the audit log which), newest first."""
    user = caller.acting(as_user, across=True)
    return [memory_out(r) for r in engine.memory.stale(user=user)]


@stale_router.post("/{memory_id}/confirm", response_model=WriteOut, responses=WRITE_REPLIES)
def confirm(
    memory_id: MemoryId, request: Request, caller: CallerDep, engine: EngineDep
) -> JSONResponse:
    """A stale memory is still true: the mark goes (audited) and it is briefed again."""
    caller.may_write()
    return write_reply(request, engine.memory.confirm(memory_id, user=caller.user))
