"""RAE's HTTP API under ``/compat/rae``: its v1 memory routes (the seed's ``/v1/memory/store``
among them) and ``/v2/memories``, with its ``X-API-Key`` / ``X-Tenant-Id`` headers and
FastAPI's ``{"detail": ...}`` errors, on the engine's ``rae`` profile.

The tenant is the key's user; a request naming another tenant needs an admin key. RAE's own
``source`` (free text), ``layer`` (its memory layers) and scalar ``metadata`` are kept as
tags (``source:``, ``rae-layer:``, ``meta:k=v``) and given back the same way; its
``timestamp`` is not taken (salience dates a memory when it is written).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from salience.models import MemoryRecord, Outcome
from salience.server.compat import DetailOut, documented, shaped_route
from salience.server.context import Caller, Engine, caller_of, engine_of

PROFILE = "rae"


def _detail(status: int, message: str, extra: dict[str, Any]) -> JSONResponse:
    """FastAPI's error body: a request that does not validate gives its errors' list of
    ``{loc, msg, type}`` (compat.py leaves the input out), anything else a message."""
    return JSONResponse({"detail": extra.get("errors", message)}, status_code=status)


FILTERS = ("layer", "tags", "source", "project")
"""The fields a query's ``filters`` may name: every one must match."""


class _BadFilter(Exception):
    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def _filter_tags(filters: dict[str, Any] | None) -> tuple[list[str], str | None]:
    """A query's ``filters`` as the tags every hit must carry, and its project."""
    tags: list[str] = []
    project = None
    for key, value in (filters or {}).items():
        if key not in FILTERS:
            raise _BadFilter(key, f"unknown filter {key!r}; filters are {', '.join(FILTERS)}")
        if key == "tags":
            values = [value] if isinstance(value, str) else value
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise _BadFilter(key, "tags is a tag or a list of tags")
            tags += values
        elif not isinstance(value, str):
            raise _BadFilter(key, f"{key} is a string")
        elif key == "layer":
            tags.append(f"rae-layer:{value}")
        elif key == "source":
            tags.append(f"source:{value}")
        else:
            project = value
    return tags, project


def _bad_filter(exc: _BadFilter) -> JSONResponse:
    where = ["body", "filters", exc.key]
    return JSONResponse(
        {"detail": [{"loc": where, "msg": str(exc), "type": "value_error"}]}, status_code=422
    )


router = APIRouter(
    prefix="/compat/rae",
    tags=["compat: rae"],
    route_class=shaped_route(_detail),
)
RESPONSES = documented(DetailOut)  # given to include_router (the app)


def tenant(
    caller: Annotated[Caller, Depends(caller_of)],
    x_tenant_id: Annotated[str | None, Header(max_length=512)] = None,
    tenant_id: Annotated[str | None, Query(max_length=512)] = None,
) -> str:
    """The user a RAE request acts for: its tenant (header, then query), else the key's."""
    acting = caller.acting(x_tenant_id or tenant_id)
    assert isinstance(acting, str)
    return acting


def writer(
    caller: Annotated[Caller, Depends(caller_of)], user: Annotated[str, Depends(tenant)]
) -> str:
    """:func:`tenant`, for a route that writes (a read-only key is refused)."""
    caller.may_write()
    return user


Tenant = Annotated[str, Depends(tenant)]
Writer = Annotated[str, Depends(writer)]
EngineDep = Annotated[Engine, Depends(engine_of)]
CallerDep = Annotated[Caller, Depends(caller_of)]


class StoreV1(BaseModel):
    content: str = Field(min_length=1, max_length=65536)
    source: str | None = Field(None, max_length=256)
    importance: float = Field(0.5, ge=0, le=1)
    layer: str | None = Field(None, max_length=64)
    tags: list[str] = Field(default_factory=list, max_length=64)
    timestamp: str | None = Field(None, max_length=64)
    project: str | None = Field(None, max_length=512)
    session_id: str | None = Field(None, max_length=512)
    metadata: dict[str, Any] | None = None


class StoreV2(StoreV1):
    source: str | None = Field("api", max_length=256)
    project: str | None = Field("default", max_length=512)


class QueryV1(BaseModel):
    query_text: str = Field(min_length=1, max_length=1024)
    k: int = Field(10, ge=1, le=100)
    filters: dict[str, Any] | None = None
    project: str | None = Field(None, max_length=512)


class QueryV2(BaseModel):
    query: str = Field(min_length=1, max_length=1024)
    project: str = Field(min_length=1, max_length=512)
    k: int = Field(10, ge=1, le=100)
    filters: dict[str, Any] | None = None


class RaeMemory(BaseModel):
    id: str
    content: str
    source: str | None
    importance: float
    layer: str | None
    tags: list[str]
    timestamp: str
    project: str | None
    session_id: str | None
    metadata: dict[str, str]
    score: float | None = None


class StoredV1(BaseModel):
    id: str
    message: str


class StoredV2(BaseModel):
    memory_id: str
    message: str


class ResultsV1(BaseModel):
    results: list[RaeMemory]


class PageV1(BaseModel):
    results: list[RaeMemory]
    total: int
    limit: int
    offset: int


class Message(BaseModel):
    message: str


class HitV2(BaseModel):
    id: str
    content: str
    score: float | None
    layer: str | None
    importance: float
    timestamp: str
    tags: list[str]
    metadata: dict[str, str]


class ResultsV2(BaseModel):
    results: list[HitV2]
    total_count: int


class PageV2(BaseModel):
    memories: list[RaeMemory]
    total_count: int


class StatsV2(BaseModel):
    total_memories: int
    by_project: dict[str, int]
    by_type: dict[str, int]


def _tags(body: StoreV1) -> list[str]:
    tags = list(body.tags)
    if body.source:
        tags.append(f"source:{body.source}")
    if body.layer:
        tags.append(f"rae-layer:{body.layer}")
    for key, value in (body.metadata or {}).items():
        if isinstance(value, str | int | float | bool) and len(f"{key}={value}") <= 200:
            tags.append(f"meta:{key}={value}")
    return tags


def _tag_value(record: MemoryRecord, prefix: str) -> str | None:
    return next((t[len(prefix) :] for t in record.tags if t.startswith(prefix)), None)


def rae_record(record: MemoryRecord, score: float | None = None) -> dict[str, Any]:
    """A memory as RAE shows one."""
    metadata = dict(t[5:].split("=", 1) for t in record.tags if t.startswith("meta:") and "=" in t)
    plain = [t for t in record.tags if not t.startswith(("source:", "rae-layer:", "meta:"))]
    out = {
        "id": record.id,
        "content": record.content,
        "source": _tag_value(record, "source:"),
        "importance": record.importance,
        "layer": _tag_value(record, "rae-layer:"),
        "tags": plain,
        "timestamp": record.created_at.isoformat(),
        "project": record.project,
        "session_id": record.session_id,
        "metadata": metadata,
    }
    if score is not None:
        out["score"] = score
    return out


def _store(engine: Engine, user: str, body: StoreV1) -> tuple[str, str]:
    result = engine.memory.remember(
        body.content,
        profile=PROFILE,
        user=user,
        importance=body.importance,
        tags=_tags(body),
        project=body.project,
        session_id=body.session_id,
        force=True,  # RAE has no signal gate; the secret scanner still runs
    )
    if not result.ok:
        raise _Rejected(result.reason or "the memory was refused")
    assert result.id is not None
    if result.outcome is Outcome.DUPLICATE:
        return result.id, f"duplicate of an existing memory: {result.reason}"
    return result.id, "Memory stored successfully"


class _Rejected(Exception):
    pass


def _query(
    engine: Engine,
    caller: Caller,
    user: str,
    text: str,
    k: int,
    project: str | None,
    filters: dict[str, Any] | None,
) -> list[Any]:
    """RAE's query, every filter applied (all must match); it counts an access, except for
    a read-only key (which changes nothing)."""
    tags, filtered_project = _filter_tags(filters)
    if filtered_project is not None and project is not None and filtered_project != project:
        return []  # two projects asked at once: none matches both
    project = project or filtered_project
    touch = False if caller.read_only else None
    return engine.memory.search(
        text, k, profile=PROFILE, user=user, project=project, tags=tags, touch=touch
    )


@router.post("/v1/memory/store", response_model=StoredV1)
def store_v1(body: StoreV1, user: Writer, engine: EngineDep) -> Any:
    """RAE's store: ``{id, message}``; a duplicate (cosine >= 0.95) returns the existing id."""
    try:
        memory_id, message = _store(engine, user, body)
    except _Rejected as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    return {"id": memory_id, "message": message}


@router.post("/v1/memory/query", response_model=ResultsV1)
def query_v1(body: QueryV1, caller: CallerDep, user: Tenant, engine: EngineDep) -> Any:
    """RAE's query: ``{results: [{...record, score}]}``, best first."""
    try:
        hits = _query(engine, caller, user, body.query_text, body.k, body.project, body.filters)
    except _BadFilter as exc:
        return _bad_filter(exc)
    return {"results": [rae_record(h.record, h.score) for h in hits]}


@router.get("/v1/memory/list", response_model=PageV1)
def list_v1(
    user: Tenant,
    engine: EngineDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
    project: Annotated[str | None, Query(max_length=512)] = None,
    layer: Annotated[str | None, Query(max_length=64)] = None,
) -> Any:
    """RAE's list: ``{results, total, limit, offset}``, newest first."""
    tags = [f"rae-layer:{layer}"] if layer else []
    everything = engine.memory.list(user=user, project=project, tags=tags)
    page = everything[offset : offset + limit]
    return {
        "results": [rae_record(r) for r in page],
        "total": len(everything),
        "limit": limit,
        "offset": offset,
    }


@router.delete("/v1/memory/delete", response_model=Message)
def delete_v1(
    user: Writer, engine: EngineDep, memory_id: Annotated[str, Query(min_length=1, max_length=64)]
) -> Any:
    """RAE's delete: the memory is gone for good."""
    engine.memory.purge(memory_id, user=user)
    return {"message": f"Memory {memory_id} deleted"}


@router.post("/v2/memories", status_code=201, response_model=StoredV2)
def store_v2(body: StoreV2, user: Writer, engine: EngineDep) -> Any:
    """RAE v2's store: ``{memory_id, message}``."""
    try:
        memory_id, message = _store(engine, user, body)
    except _Rejected as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    return {"memory_id": memory_id, "message": message}


@router.post("/v2/memories/query", response_model=ResultsV2)
def query_v2(body: QueryV2, caller: CallerDep, user: Tenant, engine: EngineDep) -> Any:
    """RAE v2's query: ``{results: [{id, content, score, layer, importance, timestamp, tags,
    metadata}], total_count}``."""
    try:
        hits = _query(engine, caller, user, body.query, body.k, body.project, body.filters)
    except _BadFilter as exc:
        return _bad_filter(exc)
    keys = ("id", "content", "score", "layer", "importance", "timestamp", "tags", "metadata")
    results = [{k: rae_record(h.record, h.score)[k] for k in keys} for h in hits]
    return {"results": results, "total_count": len(results)}


@router.get("/v2/memories", response_model=PageV2)
def list_v2(
    user: Tenant,
    engine: EngineDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
    project: Annotated[str | None, Query(max_length=512)] = None,
) -> Any:
    """RAE v2's list, newest first."""
    everything = engine.memory.list(user=user, project=project)
    page = everything[offset : offset + limit]
    return {"memories": [rae_record(r) for r in page], "total_count": len(everything)}


@router.get("/v2/memories/stats", response_model=StatsV2)
def stats_v2(user: Tenant, engine: EngineDep) -> Any:
    """RAE v2's stats: counts of the tenant's memories."""
    stats = engine.memory.stats(user=user)
    return {
        "total_memories": stats.by_status.get("current", 0),
        "by_project": stats.by_project,
        "by_type": stats.by_type,
    }


@router.get("/v2/memories/{memory_id}", response_model=RaeMemory)
def get_v2(memory_id: str, user: Tenant, engine: EngineDep) -> Any:
    """RAE v2's get."""
    return rae_record(engine.memory.get(memory_id, user=user))


@router.delete("/v2/memories/{memory_id}", response_model=Message)
def delete_v2(memory_id: str, user: Writer, engine: EngineDep) -> Any:
    """RAE v2's delete: the memory is gone for good."""
    engine.memory.purge(memory_id, user=user)
    return {"message": f"Memory {memory_id} deleted"}
