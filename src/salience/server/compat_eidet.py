"""eidet's REST API under ``/compat/eidet``: camelCase JSON, its status codes and its
``{error, duplicateId?}`` errors, on the engine's ``eidet`` profile.

``POST /api/eidet`` answers 201 ``{id}``; a near-duplicate 409 with ``duplicateId``; a gate's
refusal 422. ``PUT /api/eidet/{id}`` with new content makes a new version (eidet's edit), with
other fields only it changes them in place. ``DELETE`` forgets softly, with a reason.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from salience.engine.memory import Memory
from salience.models import MemoryRecord, Outcome, WriteResult
from salience.server.compat import EidetErrorOut, documented, shaped_route
from salience.server.context import Caller, Engine, caller_of, engine_of

PROFILE = "eidet"
TYPES = ("observation", "insight", "procedure", "heuristic")
SOURCES = {"user_stated": "user", "agent_inferred": "agent", "tool_output": "tool"}


def _error(status: int, message: str, extra: dict[str, Any]) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


router = APIRouter(prefix="/compat/eidet", tags=["compat: eidet"], route_class=shaped_route(_error))
RESPONSES = documented(EidetErrorOut)  # given to include_router (the app)
CallerDep = Annotated[Caller, Depends(caller_of)]
EngineDep = Annotated[Engine, Depends(engine_of)]
MemoryId = Annotated[str, Path(min_length=1, max_length=64)]


class StoreIn(BaseModel):
    content: str = Field(min_length=20, max_length=65536)
    type: Literal["observation", "insight", "procedure", "heuristic"] = "observation"
    tags: list[str] = Field(default_factory=list, max_length=64)
    importance: float = Field(0.5, ge=0, le=1)
    source: Literal["user_stated", "agent_inferred", "tool_output"] | None = None
    sessionId: str | None = Field(None, max_length=512)
    supersedes: str | None = Field(None, max_length=64)


class FeedbackIn(BaseModel):
    memoryId: str = Field(min_length=1, max_length=64)
    wasUsed: bool


class EditIn(BaseModel):
    content: str | None = Field(None, min_length=1, max_length=65536)
    tags: list[str] | None = Field(None, max_length=64)
    importance: float | None = Field(None, ge=0, le=1)
    confidence: float | None = Field(None, ge=0, le=1)
    type: Literal["observation", "insight", "procedure", "heuristic"] | None = None


class EidetMemory(BaseModel):
    id: str
    type: str
    content: str
    oneLiner: str
    tags: list[str]
    importance: float
    confidence: float
    createdAt: str
    ageDays: float
    accessCount: int
    status: str
    score: float | None = None


class Health(BaseModel):
    status: str


class Context(BaseModel):
    context: str
    estimatedTokens: int


class Preview(Context):
    layers: list[dict[str, Any]]


class Recalled(BaseModel):
    query: str
    results: list[EidetMemory]


class Stored(BaseModel):
    id: str | None


class Applied(BaseModel):
    applied: bool
    id: str
    used: bool


class Edited(BaseModel):
    updated: bool
    id: str | None


class Forgotten(BaseModel):
    forgotten: bool
    id: str


class Page(BaseModel):
    total: int
    skip: int
    take: int
    items: list[EidetMemory]


class Graph(BaseModel):
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]


class EidetStats(BaseModel):
    total: int
    byType: dict[str, int]
    byStatus: dict[str, int]


def eidet_memory(record: MemoryRecord, now: datetime, score: float | None = None) -> dict[str, Any]:
    """A memory as eidet shows one (camelCase)."""
    flat = " ".join(record.content.split())
    out: dict[str, Any] = {
        "id": record.id,
        "type": record.type,
        "content": record.content,
        "oneLiner": flat if len(flat) <= 120 else flat[:119] + "…",
        "tags": list(record.tags),
        "importance": record.importance,
        "confidence": record.confidence,
        "createdAt": record.created_at.isoformat(),
        "ageDays": round((now - record.created_at).total_seconds() / 86400, 2),
        "accessCount": record.access_count,
        "status": record.status(now).value,
    }
    if score is not None:
        out["score"] = score
    return out


def _refused(result: WriteResult) -> JSONResponse | None:
    if not result.ok:
        return JSONResponse({"error": result.reason, "gate": result.gate}, status_code=422)
    if result.outcome is Outcome.DUPLICATE:
        return JSONResponse(
            {"error": f"near-duplicate of {result.id}", "duplicateId": result.id}, status_code=409
        )
    return None


@router.get("/api/health", response_model=Health)
def health() -> Any:
    """eidet's health check."""
    return {"status": "healthy"}


@router.get("/api/eidet/context", response_model=Context)
def context(caller: CallerDep, engine: EngineDep) -> Any:
    """The L0 + L1 context eidet injects at session start."""
    briefing = engine.memory.briefing(PROFILE, user=caller.user, record=not caller.read_only)
    return {"context": briefing.text, "estimatedTokens": briefing.tokens}


@router.get("/api/eidet/context/preview", response_model=Preview)
def context_preview(
    caller: CallerDep, engine: EngineDep, tokens: Annotated[int, Query(ge=1, le=100_000)] = 600
) -> Any:
    """The context at a token budget, with how it was assembled."""
    briefing = engine.memory.briefing(PROFILE, user=caller.user, budget=tokens, record=False)
    layers = [{"title": s.title, "memories": len(s.ids)} for s in briefing.sections]
    return {"context": briefing.text, "estimatedTokens": briefing.tokens, "layers": layers}


@router.get("/api/eidet/recall", response_model=Recalled)
def recall(
    caller: CallerDep,
    engine: EngineDep,
    q: Annotated[str, Query(min_length=1, max_length=4096)],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
    type: Annotated[str | None, Query(max_length=64)] = None,
    tags: Annotated[str | None, Query(max_length=2048)] = None,
) -> Any:
    """eidet's recall: ``{query, results: [...]}``, best first."""
    wanted = [t.strip() for t in (tags or "").split(",") if t.strip()]
    hits = engine.memory.search(
        q,
        limit,
        profile=PROFILE,
        user=caller.user,
        type=type,
        tags=wanted,
        touch=not caller.read_only,
    )
    now = engine.memory.now()
    return {"query": q, "results": [eidet_memory(h.record, now, h.score) for h in hits]}


@router.post("/api/eidet", status_code=201, response_model=Stored)
def store(body: StoreIn, caller: CallerDep, engine: EngineDep) -> Any:
    """eidet's store: 201 ``{id}``; 409 for a near-duplicate; 422 when a gate refuses."""
    caller.may_write()
    fields: dict[str, Any] = {
        "type": body.type,
        "tags": body.tags,
        "importance": body.importance,
        "session_id": body.sessionId,
    }
    if body.source is not None:
        fields["source"] = SOURCES[body.source]
    if body.supersedes:
        result = engine.memory.supersede(
            body.supersedes or "", body.content, user=caller.user, **fields
        )
    else:

        def remember(m: Memory) -> WriteResult:
            # eidet refuses a second copy of a memory's text (as its MCP tool does), whatever
            # the profile's own dedup would keep: checked and written under one engine turn.
            twin = m.duplicate_of(body.content, user=caller.user)
            if twin is not None:
                return WriteResult(Outcome.DUPLICATE, twin.id, record=twin)
            return m.remember(body.content, profile=PROFILE, user=caller.user, **fields)

        result = remember(engine.memory)
    refused = _refused(result)
    if refused is not None:
        return refused
    return {"id": result.id}


@router.post("/api/eidet/feedback", response_model=Applied)
def feedback(body: FeedbackIn, caller: CallerDep, engine: EngineDep) -> Any:
    """eidet's feedback: echo (used) or fizzle."""
    caller.may_write()
    engine.memory.feedback(body.memoryId, used=body.wasUsed, user=caller.user)
    return {"applied": True, "id": body.memoryId, "used": body.wasUsed}


@router.get("/api/eidet/history/{memory_id}", response_model=list[EidetMemory])
def history(memory_id: MemoryId, caller: CallerDep, engine: EngineDep) -> Any:
    """The version chain, newest first."""
    chain = engine.memory.history(memory_id, user=caller.user)
    now = engine.memory.now()
    return [eidet_memory(r, now) for r in chain]


@router.put("/api/eidet/{memory_id}", response_model=Edited)
def edit(memory_id: MemoryId, body: EditIn, caller: CallerDep, engine: EngineDep) -> Any:
    """eidet's edit: new content is a new version; other fields change in place."""
    caller.may_write()
    changes = body.model_dump(exclude_none=True, exclude={"content"})
    if body.content is not None:
        result = engine.memory.supersede(memory_id, body.content or "", user=caller.user, **changes)
    elif changes:
        result = engine.memory.update(memory_id, user=caller.user, **changes)
    else:
        return JSONResponse({"error": "nothing to edit"}, status_code=400)
    refused = _refused(result)
    if refused is not None:
        return refused
    return {"updated": True, "id": result.id}


@router.delete("/api/eidet/{memory_id}", response_model=Forgotten)
def forget(
    memory_id: MemoryId,
    caller: CallerDep,
    engine: EngineDep,
    reason: Annotated[str, Query(min_length=1, max_length=512)] = "forgotten on request",
) -> Any:
    """eidet's forget: validity ends now, the memory stays for history (audited)."""
    caller.may_write()
    result = engine.memory.forget(memory_id, reason, user=caller.user)
    refused = _refused(result)
    return refused if refused is not None else {"forgotten": True, "id": memory_id}


@router.get("/api/eidet/browse", response_model=Page)
def browse(
    caller: CallerDep,
    engine: EngineDep,
    skip: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
    take: Annotated[int, Query(ge=1, le=500)] = 50,
    type: Annotated[str | None, Query(max_length=64)] = None,
) -> Any:
    """A page of memories, newest first, with the total."""

    def read(m: Any) -> tuple[list[MemoryRecord], int]:
        page = m.list(user=caller.user, type=type, limit=take, offset=skip)
        total = m.stats(user=caller.user).by_status.get("current", 0)
        return page, total

    page, total = read(engine.memory)
    now = engine.memory.now()
    return {
        "total": total,
        "skip": skip,
        "take": take,
        "items": [eidet_memory(r, now) for r in page],
    }


@router.get("/api/eidet/graph", response_model=Graph)
def graph(
    caller: CallerDep, engine: EngineDep, limit: Annotated[int, Query(ge=1, le=5000)] = 200
) -> Any:
    """Memories as nodes, version chains and derived-from links as edges."""
    found = engine.memory.graph(user=caller.user, limit=limit)
    nodes = [
        {
            "id": r.id,
            "type": r.type,
            "label": " ".join(r.content.split())[:80],
            "importance": r.importance,
            "confidence": r.confidence,
            "createdAt": r.created_at.isoformat(),
            "accessCount": r.access_count,
            "tags": list(r.tags),
            "entities": list(r.entities),
        }
        for r in found.memories
    ]
    edges = [
        {"from": e.source, "to": e.target, "relation": e.relation}
        for e in found.edges
        if e.relation != "mentions"  # (eidet's graph has no entity nodes)
    ]
    return {"nodes": nodes, "edges": edges}


@router.get("/api/eidet/stats", response_model=EidetStats)
def stats(caller: CallerDep, engine: EngineDep) -> Any:
    """Counts by type and status."""
    s = engine.memory.stats(user=caller.user)
    return {"total": s.total, "byType": s.by_type, "byStatus": s.by_status}
