"""``/v1/search``, ``/v1/rank``, ``/v1/briefing`` and ``/v1/sessions``: reading by score."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from salience.server.replies import (
    READ_ERRORS,
    WRITE_ERRORS,
    WRITE_REPLIES,
    AsUser,
    CallerDep,
    EngineDep,
    write_reply,
)
from salience.server.schemas import MOMENT_DOC, BriefingIn, Moment, SearchIn, SessionEndIn
from salience.wire.models import BriefingOut, RankedOut, SearchOut, SessionStartOut, WriteOut
from salience.wire.values import briefing_out, ranked_out, search_out, session_start_out

router = APIRouter(prefix="/v1", tags=["recall"])


@router.post("/search", response_model=SearchOut, responses=READ_ERRORS)
def search(
    body: SearchIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> JSONResponse:
    """Hybrid full-text + vector recall, scored by the profile; every hit explains itself
    (BM25, cosine, fused relevance, the score's breakdown). ``degraded`` says how the recall
    ran short of a full hybrid search, if it did (no embedder, the embedder failing, an index
    lacking memories, a layer left out), each with its fix: never an empty list without a
    word."""
    user = caller.acting(as_user, across=True)
    touch = body.touch if not caller.read_only else False
    hits = engine.memory.search(
        body.query,
        body.limit,
        profile=body.profile,
        user=user,
        project=body.project,
        types=body.types,
        types_exclude=body.types_exclude,
        tags=body.tags,
        as_of=body.as_of,
        touch=touch,
        space=body.space,
        agent=body.agent,
    )
    return JSONResponse(search_out(hits))  # (built from the same model: no re-check)


@router.get("/rank", response_model=list[RankedOut], responses=READ_ERRORS)
def rank(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    profile: Annotated[str | None, Query(max_length=64)] = None,
    project: Annotated[str | None, Query(max_length=512)] = None,
    as_of: Annotated[Moment | None, Query(description=MOMENT_DOC)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[dict[str, Any]]:
    """Current memories by the profile's context score, best first, with breakdowns."""
    user = caller.acting(as_user, across=True)
    ranked = engine.memory.rank(profile, user=user, project=project, as_of=as_of, limit=limit)
    return [ranked_out(r, s) for r, s in ranked]


@router.post("/briefing", response_model=BriefingOut, responses=READ_ERRORS)
def briefing(
    body: BriefingIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """The text to inject at session start, exactly, with the manifest of every candidate
    (kept, or dropped and why)."""
    user = caller.acting(as_user)
    result = engine.memory.briefing(
        body.profile,
        user=user,
        project=body.project,
        session_id=body.session_id,
        budget=body.budget,
        as_of=body.as_of,
        record=body.record and not caller.read_only and body.as_of is None,
        space=body.space,
    )
    return briefing_out(result, manifest=body.manifest)


@router.post("/sessions/start", response_model=SessionStartOut, responses=WRITE_ERRORS)
def session_start(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    profile: Annotated[str | None, Query(max_length=64)] = None,
) -> dict[str, Any]:
    """Resume the user's session if active in the last 24 h, else open a new one."""
    caller.may_write()
    user = caller.acting(as_user)
    started = engine.memory.session_start(user, profile=profile)
    return session_start_out(started)


@router.post("/sessions/end", response_model=WriteOut, responses=WRITE_REPLIES)
def session_end(
    body: SessionEndIn,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> JSONResponse:
    """Close the user's open session with a summary (stored as a summary memory)."""
    caller.may_write()
    user = caller.acting(as_user)
    return write_reply(request, engine.memory.session_end(body.summary, user=user))
