"""``/v1`` routes over the whole store: entities, graph, audit, stats, profiles, export,
import, consolidation and maintenance."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from salience.engine.jobs import Progress
from salience.engine.memory import Memory
from salience.models import ALL_USERS, MemoryRecord, UserScope
from salience.server import jobs
from salience.server.context import Refused
from salience.server.replies import READ_ERRORS, WRITE_ERRORS, AsUser, CallerDep, EngineDep
from salience.server.schemas import DryRunIn
from salience.wire.models import ConsolidationOut, ImportOut, MaintenanceOut, StatsOut
from salience.wire.values import (
    consolidation_out,
    format_time,
    import_out,
    maintenance_out,
    profiles_out,
    stats_of,
)

router = APIRouter(prefix="/v1", tags=["store"])


class EntityOut(BaseModel):
    entity: str
    memories: int


class GraphNode(BaseModel):
    id: str
    kind: str  # "memory" or "entity"
    label: str
    type: str | None = None
    importance: float | None = None
    confidence: float | None = None
    status: str | None = None
    project: str | None = None


class GraphEdge(BaseModel):
    source: str
    target: str
    relation: str  # mentions, supersedes, derived_from


class GraphOut(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class AuditOut(BaseModel):
    seq: int
    at: str
    memory_id: str | None
    action: str
    actor: str
    user: str | None
    detail: dict[str, Any]


class DayOut(BaseModel):
    date: str
    created: int


class ActivityOut(BaseModel):
    days: list[DayOut]


class ProfileOut(BaseModel):
    name: str
    summary: str
    document: str
    default_type: str
    types: list[str]
    dedup: list[str]
    default: bool


@router.get("/entities", response_model=list[EntityOut], responses=READ_ERRORS)
def entities(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    top: Annotated[int, Query(ge=1, le=1000)] = 50,
    project: Annotated[str | None, Query(max_length=512)] = None,
) -> list[dict[str, Any]]:
    """The files, symbols, packages, variables, ports and error codes memories name."""
    user = caller.acting(as_user, across=True)
    counts = engine.memory.entities(user=user, project=project, top=top)
    return [{"entity": name, "memories": n} for name, n in counts]


def _graph(
    memory: Memory, user: UserScope, limit: int, type_: str | None, project: str | None
) -> dict[str, Any]:
    found = memory.graph(user=user, limit=limit, type=type_, project=project)
    now = memory.now()
    nodes = [_memory_node(r, now) for r in found.memories]
    nodes += [{"id": key, "kind": "entity", "label": name} for key, name in found.entities.items()]
    edges = [{"source": e.source, "target": e.target, "relation": e.relation} for e in found.edges]
    return {"nodes": nodes, "edges": edges}


def _memory_node(r: MemoryRecord, now: Any) -> dict[str, Any]:
    label = " ".join(r.content.split())
    return {
        "id": r.id,
        "kind": "memory",
        "label": label if len(label) <= 80 else label[:79] + "…",
        "type": r.type,
        "importance": r.importance,
        "confidence": r.confidence,
        "status": r.status(now).value,
        "project": r.project,
    }


@router.get("/graph", response_model=GraphOut, responses=READ_ERRORS)
def graph(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
    type: Annotated[str | None, Query(max_length=512)] = None,
    project: Annotated[str | None, Query(max_length=512)] = None,
) -> dict[str, Any]:
    """Memories and the entities they name, with version chains and derived-from links."""
    user = caller.acting(as_user, across=True)
    return _graph(engine.memory, user, limit, type, project)


@router.get("/audit", response_model=list[AuditOut], responses=READ_ERRORS)
def audit(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    memory_id: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    space: Annotated[str | None, Query(max_length=63, description="A space's entries")] = None,
    agent: Annotated[str | None, Query(max_length=512, description="Only this agent's")] = None,
) -> list[dict[str, Any]]:
    """The user's part of the audit log (a space's), newest first (never any memory's text)."""
    user = caller.acting(as_user, across=True)
    entries = engine.memory.log(memory_id, limit=limit, user=user, space=space, agent=agent)
    return [
        {
            "seq": e.seq,
            "at": format_time(e.at),
            "memory_id": e.memory_id,
            "action": e.action,
            "actor": e.actor,
            "user": e.user,
            "detail": e.detail,
        }
        for e in entries
    ]


@router.get("/stats", response_model=StatsOut, responses=READ_ERRORS)
def stats(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> dict[str, Any]:
    """Counts of the user's memories by status, type, user and project."""
    user = caller.acting(as_user, across=True)

    return stats_of(engine.memory, user=user)


@router.get("/activity", response_model=ActivityOut, responses=READ_ERRORS)
def activity(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    days: Annotated[int, Query(ge=1, le=366)] = 30,
) -> dict[str, Any]:
    """Memories created per day, the last ``days`` days (oldest first)."""
    user = caller.acting(as_user, across=True)

    counts = engine.memory.activity(days=days, user=user)
    return {"days": [{"date": c.day.isoformat(), "created": c.created} for c in counts]}


@router.get("/profiles", response_model=list[ProfileOut], responses=READ_ERRORS)
def profiles(caller: CallerDep, engine: EngineDep) -> list[dict[str, Any]]:
    """The scoring profiles, and which is the default."""
    return profiles_out(engine.memory.config.profile)


@router.get(
    "/export",
    responses={200: {"content": {"application/x-ndjson": {}}}, **READ_ERRORS},
    response_class=StreamingResponse,
)
def export(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    space: Annotated[str | None, Query(max_length=63, description="A space's (its admin)")] = None,
) -> StreamingResponse:
    """The user's memories (a space's, its admin's; superseded and forgotten too) as JSON
    Lines, streamed."""
    user = caller.acting(as_user, across=True)
    lines = list(engine.memory.export_lines(user=user, space=space))

    def stream() -> Iterator[bytes]:
        for line in lines:
            yield (line + "\n").encode()

    return StreamingResponse(stream(), media_type="application/x-ndjson")


@router.post(
    "/import",
    response_model=ImportOut,
    responses=WRITE_ERRORS | jobs.ACCEPTED,
    openapi_extra={
        "requestBody": {"content": {"application/x-ndjson": {"schema": {"type": "string"}}}}
    },
)
async def import_(
    request: Request, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> Any:
    """Import JSON Lines (the export format), all or nothing: a bad line is named (422).
    With a tenant's key, a record keeps its id only if that memory is already the tenant's;
    any other gets an id of the tenant's own, the same on every run (``renamed``)."""
    caller.may_write()
    user = caller.acting(as_user, across=True)
    lines = (await request.body()).splitlines()
    # A tenant's key keeps only the ids of its own memories: whether an id exists elsewhere
    # changes nothing in the answer (no existence oracle).
    private = caller.key_id is not None and not caller.admin

    def work(progress: Progress) -> dict[str, Any]:
        return import_out(
            engine.memory.import_(lines, user=user, private_ids=private, progress=progress)
        )

    return await jobs.answer(request, engine, caller, "import", work)


@router.post(
    "/consolidate", response_model=ConsolidationOut, responses=WRITE_ERRORS | jobs.ACCEPTED
)
async def consolidate(
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    body: DryRunIn | None = None,
    as_user: AsUser = None,
) -> Any:
    """Groups of 3+ tag-sharing observations become insights (``dry_run``: the plan only)."""
    plan = body or DryRunIn()
    if not plan.dry_run:
        caller.may_write()
    user = caller.acting(as_user, across=True)

    def work(progress: Progress) -> dict[str, Any]:
        return consolidation_out(
            engine.memory.consolidate(dry_run=plan.dry_run, as_of=plan.as_of, user=user)
        )

    return await jobs.answer(request, engine, caller, "consolidate", work)


@router.post("/maintain", response_model=MaintenanceOut, responses=WRITE_ERRORS)
def maintain(caller: CallerDep, engine: EngineDep, body: DryRunIn | None = None) -> dict[str, Any]:
    """Decay, retention and index cleaning over the whole store: admin keys only (or local
    mode), ``dry_run`` shows the plan."""
    plan = body or DryRunIn()
    if not caller.admin and caller.key_id is not None:
        raise Refused(403, "forbidden", "maintenance acts on every user's memories: admin only")
    if not plan.dry_run:
        caller.may_write()
    report = engine.memory.maintain(dry_run=plan.dry_run, as_of=plan.as_of)
    return maintenance_out(report)


__all__ = ["ALL_USERS", "router"]
