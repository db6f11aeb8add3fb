"""The ASGI app: :func:`create_app` builds it around one :class:`Memory`.

Routes are thin shells (parse, one engine call, map the result); the native API lives under
``/v1``, the originals' HTTP faces under ``/compat/<name>``, and ``/healthz``, ``/readyz``,
``/metrics``, ``/docs`` and ``/openapi.json`` beside them. Docs are served from assets that
ship with the package (no CDN).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib.resources import files
from types import FrameType
from typing import Any

import anyio
import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles

from salience import __version__
from salience.engine.memory import Memory
from salience.server import (
    compat_eidet,
    compat_eidet_upkeep,
    compat_rae,
    errors,
    jobs,
    mcp_http,
    routes_memories,
    routes_quarantine,
    routes_recall,
    routes_record,
    routes_sharing,
    routes_spaces,
    routes_store,
    routes_switching,
    routes_updates,
    ui,
)
from salience.server.context import LOCAL, Engine, Refused, authenticate
from salience.server.guard import Guard
from salience.server.middleware import (
    Measure,
    Metrics,
    SayDegraded,
    SayPosition,
    replica_metrics,
)

DESCRIPTION = """Memory for AI agents: remember, recall (hybrid full-text + vector, every
score explained), briefings, feedback and the memory's life, per user.

Authenticate with `Authorization: Bearer KEY` (or `X-API-Key`); a key's user is its tenant.
With no key configured the server runs in local mode: one user, loopback only. The mode is
fixed when the server starts (`/healthz` says which); revoking every key does not end keys
mode. A request that changes state is refused from another site (`Origin`,
`Sec-Fetch-Site`), and a body must be JSON (JSON Lines for `/v1/import`): 415 otherwise."""


HEALTH_WAIT_S = 0.5
"""The longest ``/healthz`` waits for the store to say whether a key exists."""


def _with_upkeep(lifespan: Any) -> Any:
    """``lifespan``, and beside it a watch on the signals that stop the process
    (:func:`_watch_stop`). (Pending erasures are finished, and other processes' erasures
    followed, by the engine's own upkeep: ``Memory.long_running``.)"""

    @asynccontextmanager
    async def both(app: FastAPI) -> AsyncIterator[None]:
        async with lifespan(app):
            restore = _watch_stop(app.state.engine)
            try:
                yield
            finally:
                restore()

    return both


def _watch_stop(engine: Engine) -> Callable[[], None]:
    """Set ``engine.stopping`` when SIGTERM or SIGINT arrives, before the server's own
    handler runs: a request waiting for a job answers at once (``202``, the job) instead of
    holding the shutdown until it is cancelled (which would answer 500). Returns what puts
    the handlers back. (Signals are the main thread's: elsewhere, e.g. under a test client,
    nothing is watched.)"""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}

    def chained(sig: int, frame: FrameType | None) -> None:
        engine.stopping.set()
        handler = before[signal.Signals(sig)]
        if callable(handler):
            handler(sig, frame)
        elif handler == signal.SIG_DFL:  # (what the signal would have done: done now)
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    for sig in before:
        signal.signal(sig, chained)

    def restore() -> None:
        for sig, handler in before.items():
            if signal.getsignal(sig) is chained:
                signal.signal(sig, handler)

    return restore


def create_app(memory: Memory) -> FastAPI:
    """The HTTP API around ``memory`` (which the app owns from here: it closes it on
    shutdown only if it opened it, so the caller closes its own)."""
    engine = Engine(memory)
    app = FastAPI(
        title="salience",
        version=__version__,
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
    )
    app.router.lifespan_context = _with_upkeep(mcp_http.mount(app, engine))
    app.state.engine = engine
    app.state.metrics = Metrics()
    errors.install(app)
    natives = (
        routes_memories,
        routes_quarantine,
        routes_updates,
        routes_recall,
        routes_record,
        routes_store,
        routes_sharing,
        routes_spaces,
        routes_switching,
        jobs,
    )
    for native in natives:
        app.include_router(native.router)
    app.include_router(routes_quarantine.stale_router)
    for compat in (compat_rae, compat_eidet, compat_eidet_upkeep):
        app.include_router(compat.router, responses=compat.RESPONSES)
    _health(app)
    _docs(app)
    ui.mount(app)
    app.add_middleware(SayDegraded)
    replica = memory.store.read_replica()
    if replica is not None:
        app.add_middleware(SayPosition, replica=replica)
    app.add_middleware(Guard, limit=memory.config.max_request_bytes)
    app.add_middleware(Measure, metrics=app.state.metrics)
    return app


def _health(app: FastAPI) -> None:
    @app.get("/healthz", tags=["health"])
    async def healthz(request: Request) -> dict[str, str]:
        """The process is up, and its mode as every request meets it now: ``local`` (no key;
        one user, loopback only) or ``keys`` (every request needs a key; for good once a key
        has been in force, even one made by another process since the server started). In
        local mode the store's keys are read on a worker thread, at most
        :data:`HEALTH_WAIT_S`; past it (a store that does not answer) the mode last
        decided."""
        engine: Engine = request.app.state.engine
        if engine.mode == LOCAL:
            with anyio.move_on_after(HEALTH_WAIT_S):
                await anyio.to_thread.run_sync(engine.local_mode)
        return {"status": "ok", "mode": engine.mode}

    @app.get("/readyz", tags=["health"], responses={503: {"model": errors_model()}})
    def readyz(request: Request) -> Any:
        """The store answers."""
        engine: Engine = request.app.state.engine
        try:
            engine.memory.store.get_meta("ready")
            engine.local_mode()
        except Exception:
            return errors.error_response(503, "not_ready", "the store does not answer")
        replica = engine.memory.store.read_replica()
        if replica is None:
            return {"status": "ready"}
        status = replica.status()  # (down or lagging: ready still, reading the primary)
        return {"status": "ready", "replica": status["state"], "replica_lag_s": status["lag_s"]}

    @app.get("/metrics", tags=["health"], response_class=PlainTextResponse)
    def metrics(request: Request) -> PlainTextResponse:
        """Request counts and latency per route, memories written per outcome (Prometheus
        text). Needs an admin key once keys exist."""
        caller = authenticate(request.app.state.engine, request)
        if caller.key_id is not None and not caller.admin:
            raise Refused(403, "forbidden", "metrics need an admin key")
        text: str = request.app.state.metrics.text()
        replica = request.app.state.engine.memory.store.read_replica()
        if replica is not None:
            text += replica_metrics(replica.status())
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


def errors_model() -> Any:
    from salience.wire.models import ErrorOut

    return ErrorOut


def _docs(app: FastAPI) -> None:
    static = files("fastapi_offline") / "static"
    app.mount("/docs/static", StaticFiles(directory=str(static)), name="docs-static")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="salience API",
            swagger_js_url="/docs/static/swagger-ui-bundle.js",
            swagger_css_url="/docs/static/swagger-ui.css",
            swagger_favicon_url="/docs/static/favicon.png",
        )


def app_from_env() -> FastAPI:
    """The app for ``uvicorn --factory`` (one per worker): the store named by
    ``SALIENCE_STORE_URL`` (else ``$SALIENCE_HOME``), opened in this process."""
    memory = Memory.open(os.environ.get("SALIENCE_STORE_URL") or None)
    app = create_app(memory)
    app.router.on_shutdown.append(memory.close)
    return app
