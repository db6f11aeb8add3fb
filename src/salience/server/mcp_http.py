"""The MCP server over streamable HTTP at ``/mcp``, inside ``salience serve``.

Authenticated like every other route (a key as ``Authorization: Bearer``; none in local
mode): each request's tools act for its key's user, and a read-only key's writes are tool
errors. The transport is stateless (each request stands alone), so a session can never be
carried over from one key to another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from salience.mcp_server import create_mcp_server
from salience.mcp_server.shell import CALLER, READ_ONLY
from salience.models.reading import READER
from salience.models.spaces import REACH
from salience.server.context import Engine, Refused, authenticate
from salience.server.guard import refuse
from salience.server.middleware import App, Receive, Scope, Send

PATH = "/mcp"


class Gate:
    """Authenticate, then hand the request to the MCP app with its caller set.

    The MCP server (13 tools, each with pydantic schemas: ~0.1-0.2 s to build) is made on
    the first request to ``/mcp``, not when the app starts, so a server process (and every
    worker) that is never asked for MCP does not pay for it."""

    def __init__(self, engine: Engine) -> None:
        self.app: App | None = None  # made on first use, within a run of the server
        self.engine = engine
        self.wanted: anyio.Event | None = None  # set by the first request of a run
        self.ready: anyio.Event | None = None
        self.stopped: anyio.Event | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "GET":  # (stateless: there is no stream of its own to open)
            await refuse(
                scope, send, 405, "method_not_allowed", "MCP here takes POST: it sends nothing "
                "unasked, so a GET would wait forever", close=False,
            )  # fmt: skip
            return
        if self.wanted is None or self.ready is None:
            await refuse(scope, send, 503, "not_ready", "the MCP endpoint is starting", close=False)
            return
        try:
            caller = await run_in_threadpool(authenticate, self.engine, Request(scope))
        except Refused as exc:
            await refuse(scope, send, exc.status, exc.code, exc.message, close=False)
            return
        if self.app is None:
            self.wanted.set()
            await self.ready.wait()
        if self.app is None:  # the server stopped meanwhile
            await refuse(scope, send, 503, "not_ready", "the MCP endpoint is stopping", close=False)
            return
        user, read_only = CALLER.set(caller.user), READ_ONLY.set(caller.read_only)
        reach, reader = REACH.set(caller.reach()), READER.set(caller.user)
        try:
            await self.app(scope, receive, send)
        finally:
            READER.reset(reader)
            REACH.reset(reach)
            CALLER.reset(user)
            READ_ONLY.reset(read_only)

    async def serve(self) -> None:
        """One run of the server: wait for a first request, then make the MCP server and
        keep its session manager running until :attr:`stopped`."""
        assert self.wanted is not None
        assert self.ready is not None
        assert self.stopped is not None
        await self.wanted.wait()
        if self.stopped.is_set():
            self.ready.set()
            return
        server = create_mcp_server(self.engine.memory)
        app = server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            # Host checks are the API's own (local mode answers loopback names only).
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        try:
            async with server.session_manager.run():
                self.app = app
                self.ready.set()
                await self.stopped.wait()
        finally:
            self.app = None
            self.ready.set()


def mount(app: FastAPI, engine: Engine) -> Any:
    """Add ``/mcp`` to ``app``; returns the lifespan the MCP session manager needs."""
    gate = Gate(engine)
    app.router.routes.append(
        Route(PATH, gate, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        gate.wanted, gate.ready, gate.stopped = anyio.Event(), anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(gate.serve)
            try:
                yield
            finally:
                gate.stopped.set()
                gate.wanted.set()
        gate.wanted = gate.ready = gate.stopped = None

    return lifespan
