"""What the compatibility faces share: routes whose errors take the original's shape, and
the tenant a request names."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException

from salience.errors import SalienceError
from salience.server.context import Refused
from salience.server.errors import salience_error, validation_message

Shape = Callable[[int, str, dict[str, Any]], JSONResponse]


def shaped_route(shape: Shape) -> type[APIRoute]:
    """An :class:`APIRoute` whose errors (library errors, refusals, invalid requests) are
    answered in ``shape(status, message, extra)`` instead of salience's own shape."""

    class ShapedRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            original = super().get_route_handler()

            async def handler(request: Request) -> Response:
                try:
                    return await original(request)
                except SalienceError as exc:
                    native = salience_error(exc)
                    return shape(native.status_code, str(exc), {})
                except Refused as exc:
                    return shape(exc.status, exc.message, {})
                except HTTPException as exc:  # a body that cannot be parsed at all
                    status = 422 if exc.status_code == 400 else exc.status_code
                    return shape(status, str(exc.detail), {})
                except RequestValidationError as exc:
                    # Never the input back: a refused value may be a secret.
                    details = [
                        {k: v for k, v in e.items() if k in ("loc", "msg", "type")}
                        for e in jsonable_encoder(exc.errors())
                    ]
                    message, _ = validation_message(exc)  # names the field: "version: ..."
                    return shape(422, message, {"errors": details})

            return handler

    return ShapedRoute


class DetailOut(BaseModel):
    """FastAPI's (and RAE's) error body."""

    detail: Any


class EidetErrorOut(BaseModel):
    """eidet's error body."""

    model_config = ConfigDict(extra="allow")
    error: str | None


def documented(model: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    """Every error status a compatibility route can answer, in the original's shape."""
    return {status: {"model": model} for status in (400, 401, 403, 404, 409, 413, 415, 422, 503)}
