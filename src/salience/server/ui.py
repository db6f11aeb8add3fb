"""The web UI's server side: the page, its assets (inside the package: no CDN), and the
login that keeps a key in an ``HttpOnly``, ``SameSite=Strict`` cookie.

The page calls the same ``/v1`` API as any client. A write made with the cookie must echo
the CSRF token of the ``salience_csrf`` cookie (double submit: another site can neither send
the strict cookies nor read the token). Local mode needs no login.
"""

from __future__ import annotations

import secrets
from importlib.resources import files
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from salience.server.context import CSRF_COOKIE, KEY_COOKIE, Engine, Refused, authenticate

ASSETS = files("salience") / "web"
router = APIRouter(prefix="/ui", tags=["web ui"], include_in_schema=False)


class LoginIn(BaseModel):
    key: str = Field(min_length=1, max_length=200)


def _session(caller: Any, local: bool) -> dict[str, Any]:
    return {
        "authenticated": True,
        "local": local,
        "user": caller.user,
        "admin": caller.admin,
        "read_only": caller.read_only,
    }


@router.get("/session")
def session(request: Request) -> Any:
    """Who the page is signed in as (``authenticated: false``: show the login form)."""
    engine: Engine = request.app.state.engine
    try:
        caller = authenticate(engine, request)
    except Refused:
        return {"authenticated": False, "local": False}
    return _session(caller, caller.key_id is None)


@router.post("/login")
def login(body: LoginIn, request: Request) -> Response:
    """Check a key and keep it in a strict, HttpOnly cookie (the page never reads it)."""
    engine: Engine = request.app.state.engine
    record = engine.memory.check_key(body.key)
    if record is None:
        return JSONResponse(
            {"error": {"code": "unauthorized", "message": "that key is not valid"}},
            status_code=401,
        )
    answer = JSONResponse({"authenticated": True, "user": record.user})
    secure = request.url.scheme == "https"
    answer.set_cookie(
        KEY_COOKIE, body.key, httponly=True, samesite="strict", secure=secure, path="/"
    )
    answer.set_cookie(
        CSRF_COOKIE, secrets.token_urlsafe(24), samesite="strict", secure=secure, path="/"
    )
    return answer


@router.post("/logout")
def logout() -> Response:
    """Forget the key cookie."""
    answer = JSONResponse({"authenticated": False})
    answer.delete_cookie(KEY_COOKIE, path="/")
    answer.delete_cookie(CSRF_COOKIE, path="/")
    return answer


def mount(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets at ``/ui/assets``."""
    app.include_router(router)
    app.mount("/ui/assets", StaticFiles(directory=str(ASSETS)), name="ui-assets")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(str(ASSETS / "favicon.svg"), media_type="image/svg+xml")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(
            str(ASSETS / "index.html"),
            headers={
                "Content-Security-Policy": (
                    "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'"
                ),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            },
        )
