"""``POST /v1/import/{system}``: another memory system's store or export, uploaded, brought
over as the caller's memories (what ``salience import --from`` does on the command line).

The body is the file: a SQLite store (``application/octet-stream``), a JSON, CSV or markdown
export, or a zip of a folder (``application/zip``: Claude Code's ``~/.claude``, a basic-memory
project, aide's ``.aide``, a mem0 folder). A zip is unpacked into a private temporary folder,
member by member: absolute paths, ``..``, links, more than :data:`MAX_MEMBERS` members, a
member that unpacks to more than ``job_unpack_ratio`` times its compressed size and more than
``job_unpacked_mb`` in all are refused before anything is unpacked (and held to while
unpacking: a member that lies about its size is caught). Nothing on the server's own disk is
read: a path is never taken from the request."""

from __future__ import annotations

import os
import re
import stat
import zipfile
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from salience import budget
from salience.engine.jobs import Progress
from salience.engine.migrating import SYSTEMS
from salience.errors import InvalidInputError
from salience.scratch import scratch
from salience.server import jobs
from salience.server.guard import UPLOAD_TYPES
from salience.server.replies import READ_ERRORS, WRITE_ERRORS, AsUser, CallerDep, EngineDep
from salience.wire.models import MigrationOut
from salience.wire.values import migration_out

router = APIRouter(prefix="/v1", tags=["store"])
MAX_MEMBERS = 10_000
_URL = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]*://")
"""A body that is a URL (a database's): a server connects to nothing a caller names."""
NAMES = {"text/csv": "memories.csv", "text/markdown": "notes.md", "application/json": "export.json"}


@router.get("/import", response_model=list[str], responses=READ_ERRORS)
def importers(caller: CallerDep) -> list[str]:
    """The systems whose stores or exports ``POST /v1/import/{system}`` reads (the
    importers' registry)."""
    return list(SYSTEMS)


@router.post(
    "/import/{system}",
    response_model=MigrationOut,
    responses=WRITE_ERRORS | jobs.ACCEPTED,
    openapi_extra={
        "requestBody": {
            "content": {kind: {"schema": {"type": "string"}} for kind in sorted(UPLOAD_TYPES)}
        }
    },
)
async def import_from(
    system: str,
    request: Request,
    caller: CallerDep,
    engine: EngineDep,
    dry_run: Annotated[bool, Query(description="Report what would come; change nothing.")] = False,
    as_user: AsUser = None,
) -> Any:
    """Bring every memory of ``system`` (one of ``SYSTEMS``) over from the uploaded store
    or export: each screened for secrets, merged with what the user has, all or nothing, a
    second upload adding nothing. The report names every field not kept."""
    if not dry_run:
        caller.may_write()
    if system not in SYSTEMS:
        known = ", ".join(SYSTEMS)
        raise InvalidInputError(f"no importer for {system!r}; one of: {known}", field="system")
    user = caller.acting(as_user)
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    data = await request.body()
    if not data:
        raise InvalidInputError("the body is empty: upload the store or export file")
    if _URL.match(data.lstrip()[:64]):
        raise InvalidInputError(  # (a server connects to no database a caller names)
            "the body is a database URL: upload the store or its export (RAE: its memories "
            "table as CSV); salience import --from rae URL reads a database from the CLI"
        )

    def work(progress: Progress) -> dict[str, Any]:
        with scratch("import") as root:
            if kind == "application/zip":
                source = unpack(data, root / "upload")
            else:
                source = root / NAMES.get(kind, "store.db")
                source.write_bytes(data)
            report = engine.memory.import_from(
                system, source, dry_run=dry_run, user=user, progress=progress
            )
        return migration_out(report)

    return await jobs.answer(request, engine, caller, "import_from", work)


def unpack(data: bytes, target: Path) -> Path:
    """Unpack a zip into ``target`` (refusing anything that would land outside it, links,
    and archives too large unpacked); the folder to import: the zip's one top folder, if it
    has only one, else ``target``."""
    import io

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise InvalidInputError(f"the body is not a zip file: {exc}") from None
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise InvalidInputError(f"the zip holds {len(members)} members; at most {MAX_MEMBERS}")
    spend = budget.active()  # (the job's: text compresses 5 to 10 times, a bomb 1,000)
    spend.archive([(m.filename, m.file_size, m.compress_size) for m in members])
    target.mkdir(parents=True)
    try:
        _unpack_members(archive, members, target, spend)
    except OSError as exc:  # (a file then a folder of one name, a name too long, ...)
        raise InvalidInputError(f"the zip cannot be unpacked: {exc.strerror}") from None
    tops = list(target.iterdir())
    return tops[0] if len(tops) == 1 and tops[0].is_dir() else target


def _unpack_members(
    archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], target: Path, spend: budget.Budget
) -> None:
    for member in members:
        name = PurePosixPath(member.filename)
        if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
            raise InvalidInputError(f"the zip member {member.filename!r} points outside the zip")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise InvalidInputError(f"the zip member {member.filename!r} is a link")
        if member.is_dir():
            (target / name).mkdir(parents=True, exist_ok=True)
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as source, (target / name).open("wb") as out:
            copied = 0
            while chunk := source.read(1 << 20):
                copied += len(chunk)
                if copied > member.file_size:  # a member that lies about its size
                    raise InvalidInputError(f"the zip member {member.filename!r} is damaged")
                spend.bytes_unpacked(len(chunk))
                out.write(chunk)
        # The file's time as the zip keeps it (read as UTC): a system that keeps no times of
        # its own (Claude Code, basic-memory without dates) is dated by its files.
        written = datetime(*member.date_time, tzinfo=UTC).timestamp()
        os.utime(target / name, (written, written))
