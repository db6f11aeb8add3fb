"""ASGI middleware: the metrics of every request (plain ASGI: no per-request task or body
copy). What a request must be before it is served is in guard.py."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from salience.engine.degraded import listening
from salience.models.reading import ReadReplica

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


class Metrics:
    """Request counts and latency per route, and memories written per outcome, in the
    Prometheus text format (``/metrics``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency: dict[tuple[str, str], list[float]] = {}
        self.writes: dict[str, int] = defaultdict(int)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(method, route, status)] += 1
            sums = self.latency.setdefault((method, route), [0.0] * (len(BUCKETS) + 2))
            for i, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    sums[i] += 1
            sums[-2] += 1  # count
            sums[-1] += seconds  # sum

    def wrote(self, outcome: str) -> None:
        with self._lock:
            self.writes[outcome] += 1

    def text(self) -> str:
        """The Prometheus exposition of everything observed so far."""
        out = ["# TYPE salience_http_requests_total counter"]
        with self._lock:
            for (method, route, status), n in sorted(self.requests.items()):
                out.append(
                    f'salience_http_requests_total{{method="{method}",route="{route}",'
                    f'status="{status}"}} {n}'
                )
            out.append("# TYPE salience_http_request_duration_seconds histogram")
            for (method, route), sums in sorted(self.latency.items()):
                labels = f'method="{method}",route="{route}"'
                for bound, seen in zip(BUCKETS, sums, strict=False):
                    out.append(
                        f'salience_http_request_duration_seconds_bucket{{{labels},le="{bound}"}} '
                        f"{int(seen)}"
                    )
                out.append(
                    f'salience_http_request_duration_seconds_bucket{{{labels},le="+Inf"}} '
                    f"{int(sums[-2])}"
                )
                out.append(
                    f"salience_http_request_duration_seconds_count{{{labels}}} {int(sums[-2])}"
                )
                out.append(f"salience_http_request_duration_seconds_sum{{{labels}}} {sums[-1]:.6f}")
            out.append("# TYPE salience_memory_writes_total counter")
            for outcome, n in sorted(self.writes.items()):
                out.append(f'salience_memory_writes_total{{outcome="{outcome}"}} {n}')
        return "\n".join(out) + "\n"


def replica_metrics(status: dict[str, Any]) -> str:
    """The read replica's state, lag and reads by where they went (Prometheus text)."""
    out = [
        "# TYPE salience_replica_up gauge",
        f"salience_replica_up {int(status['state'] != 'down')}",
        "# TYPE salience_replica_lagging gauge",
        f"salience_replica_lagging {int(status['state'] == 'lagging')}",
        "# TYPE salience_replica_lag_seconds gauge",
        f"salience_replica_lag_seconds {status['lag_s']}",
        "# TYPE salience_replica_reads_total counter",
    ]
    for where, n in sorted(status["reads"].items()):
        to = "replica" if where == "replica" else "primary"
        why = "" if where == "replica" else f',why="{where}"'
        out.append(f'salience_replica_reads_total{{to="{to}"{why}}} {n}')
    return "\n".join(out) + "\n"


class Measure:
    """Time every request and count it under its route's template (not its raw path)."""

    def __init__(self, app: App, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.observe(scope["method"], route, status, time.perf_counter() - started)


DEGRADED_HEADER = b"salience-degraded"
POSITION_HEADER = b"x-salience-position"


class SayPosition:
    """With a read replica: answer ``X-Salience-Position: <WAL position>``, the caller's
    newest write, which a client sends back (to this or another server process) to read its
    writes from the replica (see :mod:`salience.stores.postgres.replica`)."""

    def __init__(self, app: App, replica: ReadReplica) -> None:
        self.app = app
        self.replica = replica

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                reader = scope.get("state", {}).get("reader")
                token = self.replica.token(reader) if isinstance(reader, str) else None
                if token is not None:
                    message["headers"] = [
                        *message.get("headers", ()),
                        (POSITION_HEADER, token.encode()),
                    ]
            await send(message)

        await self.app(scope, receive, sending)


class SayDegraded:
    """Answer ``Salience-Degraded: <cause>, ...`` to a request whose recall ran short (no
    embedder, the embedder failing, an index lacking memories, a layer left out): every route,
    an original's too, which answers in the original's shape (``POST /v1/search`` also says
    it in its body, with each fix)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with listening() as heard:

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start" and heard:
                    causes = ", ".join(dict.fromkeys(note.cause for note in heard))
                    message["headers"] = [
                        *message.get("headers", ()),
                        (DEGRADED_HEADER, causes.encode()),
                    ]
                await send(message)

            await self.app(scope, receive, sending)
