"""What every native route shares: the acting-user header, write replies, documented errors."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Header, Path, Request
from fastapi.responses import JSONResponse

from salience.models import Outcome, WriteResult
from salience.server.context import USER_HEADER, Caller, Engine, caller_of, engine_of
from salience.server.errors import error_response
from salience.wire.models import ErrorOut, WriteOut
from salience.wire.values import write_out

AsUser = Annotated[
    str | None,
    Header(
        alias=USER_HEADER,
        max_length=512,
        description="Admin keys only: act for this user (* for every user on list routes).",
    ),
]
CallerDep = Annotated[Caller, Depends(caller_of)]
MemoryId = Annotated[str, Path(min_length=1, max_length=64, description="A memory's id.")]
EngineDep = Annotated[Engine, Depends(engine_of)]


def _documented(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorOut} for status in statuses}


READ_ERRORS = _documented(400, 401, 403, 404, 409, 413, 415, 422, 503)
"""415: a body that is not JSON (guard.py); 403 also: a state change from another site."""
WRITE_ERRORS = READ_ERRORS
WRITE_REPLIES: dict[int | str, dict[str, Any]] = {
    200: {"model": WriteOut, "description": "updated, duplicate, forgotten or deleted"},
    201: {"model": WriteOut, "description": "created"},
    **READ_ERRORS,
}


def write_reply(request: Request, result: WriteResult) -> JSONResponse:
    """A write's outcome: 201 created, 200 updated / duplicate / forgotten / deleted, and a
    refused write as a 422 error naming the gate and the reason (never the refused text)."""
    request.app.state.metrics.wrote(result.outcome.value)
    if not result.ok:
        return error_response(
            422, "rejected", result.reason or "the write was refused", gate=result.gate
        )
    status = 201 if result.outcome is Outcome.CREATED else 200
    return JSONResponse(write_out(result), status_code=status)
