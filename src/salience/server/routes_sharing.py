"""``/v1`` routes for what the library shares beyond memories: decisions, the duplicate
lookup, the open session, mounted layers, knowledge packs and reindexing.

Mounting, unmounting and reindexing act on the whole store (every user's recall, the server's
files), so they take an admin key (or local mode); so does importing a pack as a layer. A
tenant's key lists the layers without their paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import Field

from salience.engine.jobs import Progress
from salience.errors import InvalidInputError, PackError
from salience.models import PackIdentity
from salience.scratch import scratch
from salience.server import jobs
from salience.server.context import Caller, Engine, Refused
from salience.server.replies import (
    READ_ERRORS,
    WRITE_ERRORS,
    WRITE_REPLIES,
    AsUser,
    CallerDep,
    EngineDep,
    write_reply,
)
from salience.server.schemas import Request as Body
from salience.server.schemas import ShortText
from salience.wire.models import (
    CurrentSessionOut,
    DecisionOut,
    DuplicateOut,
    LayerOut,
    PackImportOut,
    ReindexOut,
    WriteOut,
)
from salience.wire.values import (
    decision_out,
    layer_out,
    memory_out,
    pack_import_out,
    session_out,
)

router = APIRouter(prefix="/v1", tags=["sharing"])
PACK_TYPE = "application/zip"
TopicQuery = Annotated[str, Query(min_length=1, max_length=512, description="The topic.")]


class DecideIn(Body):
    topic: ShortText = Field(description="kebab-case: lowercase letters, digits, -, ., /")
    decision: str = Field(min_length=1)
    rationale: str | None = Field(None, min_length=1)
    precedence: int = Field(0, ge=-1_000_000, le=1_000_000)


class DuplicateIn(Body):
    content: str = Field(min_length=1)


class MountIn(Body):
    path: str = Field(min_length=1, max_length=4096, description="A store on the server.")
    kind: str = Field(description="base or shared")
    name: ShortText | None = None


def named_pack(pack_id: str | None, name: str | None, version: str | None) -> PackIdentity | None:
    """A pack's identity from its three parts (all three, or none: a 422 otherwise)."""
    if pack_id is None and name is None and version is None:
        return None
    if pack_id is None or name is None or version is None:
        raise InvalidInputError("a pack is named by pack_id, pack_name and pack_version together")
    try:
        return PackIdentity(pack_id, name, version)
    except PackError as exc:
        raise InvalidInputError(str(exc)) from None


def pack_bytes(engine: Engine, **filters: Any) -> bytes:
    """``export_pack(**filters)`` as the pack file's bytes (written to a private folder)."""
    with scratch("pack") as folder:
        path = folder / "export.pack"
        engine.memory.export_pack(path, **filters)
        return path.read_bytes()


@contextmanager
def uploaded_pack(data: bytes) -> Iterator[Path]:
    """An uploaded pack as a file in a private folder, removed afterwards."""
    with scratch("pack") as folder:
        path = folder / "upload.pack"
        path.write_bytes(data)
        yield path


def admin_only(caller: Caller, what: str) -> None:
    """Refuse a tenant's key: ``what`` acts on the whole store."""
    if caller.key_id is not None and not caller.admin:
        raise Refused(403, "forbidden", f"{what} acts on the whole store: admin only")


@router.get("/decisions", response_model=list[DecisionOut], responses=READ_ERRORS)
def decisions(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> list[Any]:
    """The current decision of every topic, by topic."""
    user = caller.acting(as_user)
    return [decision_out(d) for d in engine.memory.decisions(user=user)]


@router.post("/decisions", response_model=WriteOut, status_code=201, responses=WRITE_REPLIES)
def decide(
    request: Request, body: DecideIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> JSONResponse:
    """Record the decision on a topic; the current one, if any, is superseded."""
    caller.may_write()
    user = caller.acting(as_user)
    result = engine.memory.decide(
        body.topic,
        body.decision,
        rationale=body.rationale,
        precedence=body.precedence,
        user=user,
    )
    return write_reply(request, result)


@router.get("/decision", response_model=DecisionOut, responses=READ_ERRORS)
def decision(
    topic: TopicQuery, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """The current decision on a topic (404 if there is none)."""
    user = caller.acting(as_user)
    return decision_out(engine.memory.decision(topic, user=user))


@router.get("/decision/history", response_model=list[DecisionOut], responses=READ_ERRORS)
def decision_history(
    topic: TopicQuery, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> list[Any]:
    """Every decision on a topic, oldest first; the last is current."""
    user = caller.acting(as_user)
    return [decision_out(d) for d in engine.memory.decision_history(topic, user=user)]


@router.post("/duplicate", response_model=DuplicateOut, responses=READ_ERRORS)
def duplicate(
    body: DuplicateIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """The current memory with this content (case and spaces aside), if any: what a store
    that refuses duplicates checks first. POST: the content stays out of URLs and logs."""
    user = caller.acting(as_user)
    found = engine.memory.duplicate_of(body.content, user=user)
    return {"memory": None if found is None else memory_out(found)}


@router.get("/sessions/current", response_model=CurrentSessionOut, responses=READ_ERRORS)
def current_session(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> Any:
    """The user's open session, if it was active in the last 24 hours."""
    user = caller.acting(as_user)
    found = engine.memory.current_session(user=user)
    return {"session": None if found is None else session_out(found)}


@router.get("/layers", response_model=list[LayerOut], responses=READ_ERRORS)
def layers(caller: CallerDep, engine: EngineDep) -> list[Any]:
    """The read-only layers mounted beside the store, and why any cannot be opened now."""
    shown = caller.key_id is None or caller.admin
    mounts, problems = (engine.memory.layers(), engine.memory.unavailable_layers())
    return [layer_out(x, unavailable=problems.get(x.name), path=shown) for x in mounts]


@router.post("/layers", response_model=LayerOut, status_code=201, responses=WRITE_ERRORS)
def mount(body: MountIn, caller: CallerDep, engine: EngineDep) -> Any:
    """Mount a store on the server read-only as a ``base`` or ``shared`` layer."""
    admin_only(caller, "mounting a layer")
    caller.may_write()
    return layer_out(engine.memory.mount(body.path, kind=body.kind, name=body.name))


@router.delete("/layers/{name}", response_model=LayerOut, responses=WRITE_ERRORS)
def unmount(name: str, caller: CallerDep, engine: EngineDep) -> Any:
    """Stop searching a mounted layer (its file is left as it is)."""
    admin_only(caller, "unmounting a layer")
    caller.may_write()
    return layer_out(engine.memory.unmount(name))


@router.get(
    "/packs/export",
    response_class=Response,
    responses={200: {"content": {PACK_TYPE: {}}}, **READ_ERRORS},
)
def export_pack(
    caller: CallerDep,
    engine: EngineDep,
    tag: Annotated[list[str], Query(max_length=32)] = [],  # noqa: B006 (FastAPI's way)
    type: Annotated[str | None, Query(max_length=512)] = None,
    project: Annotated[str | None, Query(max_length=512)] = None,
    pack_id: Annotated[str | None, Query(max_length=200)] = None,
    pack_name: Annotated[str | None, Query(max_length=200)] = None,
    pack_version: Annotated[str | None, Query(max_length=200)] = None,
    as_user: AsUser = None,
    space: Annotated[str | None, Query(max_length=63, description="A space's (its admin)")] = None,
) -> Response:
    """The user's current memories (a space's: its admin's) matching the filters as a
    knowledge pack (a zip file); ``pack_id``, ``pack_name`` and ``pack_version`` (all three,
    or none) name it."""
    user = caller.acting(as_user, across=True)
    identity = named_pack(pack_id, pack_name, pack_version)
    filters = {"tags": tag, "type": type, "project": project, "space": space}
    data = pack_bytes(engine, user=user, identity=identity, **filters)
    return Response(data, media_type=PACK_TYPE)


@router.post(
    "/packs/import",
    response_model=PackImportOut,
    responses=WRITE_ERRORS | jobs.ACCEPTED,
    openapi_extra={"requestBody": {"content": {PACK_TYPE: {"schema": {"type": "string"}}}}},
)
async def import_pack(
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    mount_as: Annotated[str | None, Query(description="base or shared: mount it")] = None,
    name: Annotated[str | None, Query(max_length=512)] = None,
    as_user: AsUser = None,
) -> Any:
    """Import a knowledge pack (the zip file as the body) into the user's memories, or
    (admin) mount it as a layer. A damaged pack changes nothing."""
    caller.may_write()
    if mount_as is not None:
        admin_only(caller, "mounting a pack")
    user = caller.acting(as_user)
    data = await request.body()

    def work(progress: Progress) -> dict[str, Any]:
        layer = (name or "pack") if mount_as is not None else None  # (names a mount only)
        with uploaded_pack(data) as path:
            done = engine.memory.import_pack(
                path, mount_as=mount_as, name=layer, user=user, progress=progress
            )
        return pack_import_out(done, path=caller.key_id is None or caller.admin)

    return await jobs.answer(request, engine, caller, "import_pack", work)


class EraseIn(Body):
    user: ShortText = Field(
        description="The user whose every memory, session, audit entry and job goes."
    )


@router.post("/erase", responses=WRITE_ERRORS)
def erase(body: EraseIn, caller: CallerDep, engine: EngineDep) -> dict[str, Any]:
    """Erase everything a user ever stored and scrub the store's files (admin only, or
    local mode); the answer is the receipt the audit log keeps: counts, never a text."""
    admin_only(caller, "erasing a user")
    caller.may_write()
    return engine.memory.erase_user(body.user)


@router.post("/reindex", response_model=ReindexOut, responses=WRITE_ERRORS | jobs.ACCEPTED)
async def reindex(request: Request, caller: CallerDep, engine: EngineDep) -> Any:
    """Embed every memory that lacks a vector (all of them after an embedder change), after
    adding to the full-text index any memory it lacks."""
    admin_only(caller, "reindexing")
    caller.may_write()

    def work(progress: Progress) -> dict[str, Any]:
        text_indexed = engine.memory.repair_text()
        return {
            "embedded": engine.memory.reindex(progress=progress),
            "text_indexed": text_indexed,
        }

    return await jobs.answer(request, engine, caller, "reindex", work)
