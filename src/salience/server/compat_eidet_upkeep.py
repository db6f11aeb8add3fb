"""eidet's REST routes for upkeep and sharing under ``/compat/eidet/api/eidet``:
consolidation, maintenance, packs and layers, answering what its MCP tools answer
(:mod:`salience.mcp_server.eidet_shapes`), with its ``{error}`` errors.

Maintenance, importing a pack (eidet mounts it as a base layer) and the layers' paths act on
the whole store: an admin key, or local mode.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from salience.errors import InvalidInputError, PackError
from salience.mcp_server.eidet_shapes import consolidated, imported, maintained
from salience.models import PackIdentity
from salience.server.compat import EidetErrorOut, documented, shaped_route
from salience.server.compat_eidet import CallerDep, EngineDep, _error
from salience.server.routes_sharing import PACK_TYPE, admin_only, pack_bytes, uploaded_pack
from salience.wire.values import format_time

router = APIRouter(
    prefix="/compat/eidet/api/eidet", tags=["compat: eidet"], route_class=shaped_route(_error)
)
RESPONSES = documented(EidetErrorOut)


class DryRunIn(BaseModel):
    dryRun: bool = False


class Consolidated(BaseModel):
    candidates: int
    insightsCreated: int
    insightsBoosted: int
    dryRun: bool


class Maintained(BaseModel):
    decayed: int
    forgotten: int
    orphans: int
    dryRun: bool


class EidetLayer(BaseModel):
    name: str
    kind: str
    mountedAt: str
    available: bool
    path: str | None = Field(description="Where it lives (admins only).")


class Layers(BaseModel):
    layers: list[EidetLayer]


class PackImported(BaseModel):
    imported: int
    pack: str | None
    version: str | None
    layer: str | None


@router.post("/consolidate", response_model=Consolidated)
def consolidate(caller: CallerDep, engine: EngineDep, body: DryRunIn | None = None) -> Any:
    """Observations sharing tags become insights (or boost a similar one)."""
    dry_run = (body or DryRunIn()).dryRun
    if not dry_run:
        caller.may_write()
    return consolidated(engine.memory.consolidate(dry_run=dry_run, user=caller.user))


@router.post("/maintenance", response_model=Maintained)
def maintenance(caller: CallerDep, engine: EngineDep, body: DryRunIn | None = None) -> Any:
    """Importance decay, retention and index cleaning, over the whole store."""
    admin_only(caller, "maintenance")
    dry_run = (body or DryRunIn()).dryRun
    if not dry_run:
        caller.may_write()
    return maintained(engine.memory.maintain(dry_run=dry_run))


@router.get("/layers", response_model=Layers)
def layers(caller: CallerDep, engine: EngineDep) -> Any:
    """The mounted read-only layers."""
    shown = caller.key_id is None or caller.admin
    mounts, problems = (engine.memory.layers(), engine.memory.unavailable_layers())
    return {
        "layers": [
            {
                "name": x.name,
                "kind": x.kind,
                "mountedAt": format_time(x.mounted_at),
                "available": x.name not in problems,
                "path": x.path if shown else None,
            }
            for x in mounts
        ]
    }


@router.get(
    "/packs/export",
    response_class=Response,
    responses={200: {"content": {PACK_TYPE: {}}}},
)
def pack_export(
    caller: CallerDep,
    engine: EngineDep,
    packId: Annotated[str, Query(min_length=1, max_length=200)],
    name: Annotated[str, Query(min_length=1, max_length=200)],
    version: Annotated[str, Query(min_length=1, max_length=200)],
    type: Annotated[str | None, Query(max_length=64)] = None,
    tags: Annotated[str | None, Query(max_length=4096, description="a,b: all must match")] = None,
) -> Response:
    """The caller's current memories matching the filters as a knowledge pack (a zip file)
    named by its id, name and version."""
    try:
        identity = PackIdentity(packId, name, version)
    except PackError as exc:
        raise InvalidInputError(str(exc)) from None
    wanted = [t for t in (tags or "").split(",") if t]
    data = pack_bytes(engine, tags=wanted, type=type, user=caller.user, identity=identity)
    return Response(data, media_type=PACK_TYPE)


@router.post(
    "/packs/import",
    response_model=PackImported,
    openapi_extra={"requestBody": {"content": {PACK_TYPE: {"schema": {"type": "string"}}}}},
)
async def pack_import(request: Request, caller: CallerDep, engine: EngineDep) -> Any:
    """Import a knowledge pack (the zip file as the body) and mount it as a read-only base
    layer, as eidet does: ``{imported, pack, version, layer}``."""
    admin_only(caller, "importing a pack")
    caller.may_write()
    data = await request.body()
    from starlette.concurrency import run_in_threadpool

    def run() -> Any:
        with uploaded_pack(data) as path:
            named = engine.memory.pack_manifest(path).identity  # the layer: named after the pack
            name = "pack" if named is None else named.id
            done = engine.memory.import_pack(path, mount_as="base", name=name)
        return imported(done, None)

    return await run_in_threadpool(run)
