"""The MCP server over streamable HTTP at ``/mcp``, inside ``salience serve``.

Authenticated like every other route (a key as ``Authorization: Bearer``; none in local
mode): each request's tools act for its key's user, and a read-only key's writes are tool
errors. The transport is stateless (each request stands alone), so a session can never be
carried over from one key to another.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from salience.mcp_server import create_mcp_server
from salience.mcp_server.shell import CALLER, READ_ONLY
from salience.server.context import Engine, Refused, authenticate
from salience.server.middleware import App, Receive, Scope, Send

PATH = "/mcp"


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Gate:
    """Authenticate, then hand the request to the MCP app with its caller set."""

    def __init__(self, engine: Engine) -> None:
        self.app: App | None = None  # made anew at each start of the server (its lifespan)
        self.engine = engine

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            await _refuse(send, 503, "not_ready", "the MCP endpoint is starting")
            return
        try:
            caller = await run_in_threadpool(authenticate, self.engine, Request(scope))
        except Refused as exc:
            await _refuse(send, exc.status, exc.code, exc.message)
            return
        user, read_only = CALLER.set(caller.user), READ_ONLY.set(caller.read_only)
        try:
            await self.app(scope, receive, send)
        finally:
            CALLER.reset(user)
            READ_ONLY.reset(read_only)


def mount(app: FastAPI, engine: Engine) -> Any:
    """Add ``/mcp`` to ``app``; returns the lifespan the MCP session manager needs."""
    server = create_mcp_server(engine.memory, lock=engine.lock)
    gate = Gate(engine)
    app.router.routes.append(
        Route(PATH, gate, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        gate.app = server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            # Host checks are the API's own (local mode answers loopback names only).
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        try:
            async with server.session_manager.run():
                yield
        finally:
            gate.app = None

    return lifespan
