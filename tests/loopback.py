"""In-process clients that reach the app as a real loopback peer would.

Local mode answers loopback peers and loopback host names only, so the in-process clients'
made-up names (peer ``testclient``, host ``testserver``) are replaced by 127.0.0.1.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

BASE = "http://127.0.0.1"
PEER = ("127.0.0.1", 50000)


def local_client(app: Any, **options: Any) -> TestClient:
    """A TestClient that connects from 127.0.0.1 to 127.0.0.1."""
    return TestClient(app, base_url=BASE, client=PEER, **options)


def on_loopback(app: Any) -> Any:
    """``app`` as a loopback peer reaches it (for clients whose peer cannot be set, such as
    schemathesis's): the peer is 127.0.0.1, and a ``testserver`` host is 127.0.0.1."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = [
                (b"host", b"127.0.0.1")
                if name == b"host" and value == b"testserver"
                else (name, value)
                for name, value in scope.get("headers", [])
            ]
            scope = {**scope, "client": list(PEER), "headers": headers}
        await app(scope, receive, send)

    return wrapped
