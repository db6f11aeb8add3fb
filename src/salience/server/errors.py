"""Every error as one JSON shape, ``{"error": {"code", "message", ...}}``, with a stable code.

No traceback and no stored or refused text ever reaches a client: messages are the library's
own (which name fields, kinds and positions, never values), and anything unexpected is a
500 that says only that.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from salience import errors
from salience.server.context import Refused
from salience.wire.errors import status_of

log = logging.getLogger("salience.server")

RETRY_AFTER = 5
"""Seconds a client refused for too many jobs is told to wait (``Retry-After``)."""
CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large", 401: "unauthorized"}


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """The one error shape."""
    body = {"code": code, "message": message, **{k: v for k, v in extra.items() if v is not None}}
    return JSONResponse({"error": body}, status_code=status)


def salience_error(exc: errors.SalienceError) -> JSONResponse:
    """A library error as its status and code."""
    status, code = status_of(exc)
    response = error_response(
        status,
        code,
        str(exc),
        field=getattr(exc, "field", None),
        line=getattr(exc, "line", None),
    )
    if status == 429:  # (too many jobs: one ends in seconds, as a rule)
        response.headers["Retry-After"] = str(RETRY_AFTER)
    return response


def validation_message(exc: RequestValidationError) -> tuple[str, str | None]:
    first = exc.errors()[0] if exc.errors() else {}
    where = [str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path")]
    field = ".".join(where) or None
    message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
    return (f"{field}: {message}" if field else message), field


def face_error(path: str, status: int, code: str, message: str) -> dict[str, Any]:
    """An error body in the shape of the face ``path`` belongs to: RAE's ``{detail}``,
    eidet's ``{error}``, else salience's ``{error: {code, message}}``."""
    if path.startswith("/compat/rae"):
        return {"detail": message}
    if path.startswith("/compat/eidet"):
        return {"error": message, "status": status}
    return {"error": {"code": code, "message": message}}


def install(app: FastAPI) -> None:
    """Register the handlers that give every error the one shape."""

    async def on_salience(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, errors.SalienceError)
        return salience_error(exc)

    async def on_refused(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Refused)
        return error_response(exc.status, exc.code, exc.message)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        message, field = validation_message(exc)
        return error_response(422, "invalid_request", message, field=field)

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 400:  # a body that is not JSON (or not UTF-8) at all
            return error_response(422, "invalid_request", f"the body cannot be read: {exc.detail}")
        code = CODES.get(exc.status_code, f"http_{exc.status_code}")
        # An unknown route or method under an original's prefix answers in its shape.
        body = face_error(request.url.path, exc.status_code, code, str(exc.detail))
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    async def on_anything(request: Request, exc: Exception) -> JSONResponse:
        log.error("internal error on %s %s: %s", request.method, request.url.path, type(exc))
        return error_response(500, "internal", "internal error")

    app.add_exception_handler(errors.SalienceError, on_salience)
    app.add_exception_handler(Refused, on_refused)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_anything)
