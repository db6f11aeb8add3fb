"""The server's edge: what a request must be before any route sees it.

Plain ASGI, in front of everything (the API, the originals' faces, ``/mcp``, the web UI):

* **No state change from another site.** A browser attaches ``Origin`` to every POST and
  ``Sec-Fetch-Site`` to every request; a request that changes state (any method but GET, HEAD
  and OPTIONS) is refused when ``Origin`` is present and is not the server's own origin, or
  when ``Sec-Fetch-Site`` says ``cross-site`` or ``same-site`` (another port of localhost is
  the same site, not the same origin); a GET from another site is answered as a read-only
  key's would be (no access counted, nothing recorded). Clients that are not browsers send
  neither header and are not affected; the web UI's own requests are same-origin. A request
  that repeats ``Origin``, ``Sec-Fetch-Site`` or ``Host`` is refused (400).
* **Declared media types only.** A request with a body must say it is JSON (``/v1/import``
  also takes JSON Lines; ``/v1/packs/import`` takes a zip file only); anything else,
  ``text/plain`` and HTML forms included, is a 415.
  A form or a ``no-cors`` fetch can send only ``text/plain``, form or multipart bodies.
* **A size limit on every body.** A body over the limit is a 413, whether it says its
  length or is streamed in chunks (then it is read, up to the limit, before the route runs).

Each refusal is answered in the shape of the face it was sent to (salience's own, or an
original's: RAE's ``{"detail"}``, eidet's ``{"error"}``) and changes nothing.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from salience.server.errors import face_error
from salience.server.middleware import App, Message, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON_TYPES = frozenset({"application/json"})
LINES_TYPES = frozenset({"application/x-ndjson", "application/jsonl", "application/json"})
OWN_TYPES = {
    "/v1/import": LINES_TYPES,
    "/v1/packs/import": frozenset({"application/zip"}),
    "/compat/eidet/api/eidet/packs/import": frozenset({"application/zip"}),
}
"""Routes whose body is not (only) JSON, and the media types each takes."""
UPLOAD_PREFIX = "/v1/import/"
UPLOAD_TYPES = frozenset(
    {
        "application/json",
        "application/zip",
        "application/octet-stream",
        "application/x-sqlite3",
        "application/vnd.sqlite3",
        "text/csv",
        "text/markdown",
    }
)
"""What ``POST /v1/import/{system}`` takes: none is a type an HTML form or a ``no-cors``
fetch can send, so a page elsewhere cannot make a browser upload one unasked."""
CROSS_SITE = frozenset({"cross-site", "same-site"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def _shape(path: str, status: int, code: str, message: str) -> bytes:
    """An error body in the shape of the face ``path`` belongs to."""
    return json.dumps(face_error(path, status, code, message)).encode()


async def refuse(
    scope: Scope, send: Send, status: int, code: str, message: str, *, close: bool = True
) -> None:
    """Answer ``status`` with ``message`` in the shape of the face asked; ``close`` the
    connection when the request's body is left unread."""
    headers = [(b"content-type", b"application/json")]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": _shape(scope["path"], status, code, message)})


def media_type(value: str) -> str:
    """``application/json`` of ``Application/JSON; charset=utf-8``."""
    return value.split(";", 1)[0].strip().lower()


def is_json(kind: str) -> bool:
    """JSON, or a ``+json`` type (``application/merge-patch+json``)."""
    return kind in JSON_TYPES or (kind.startswith("application/") and kind.endswith("+json"))


def own_origin(scope: Scope, host: str) -> tuple[str, str, int] | None:
    """The server's origin as the request names it: (scheme, host, port) from ``Host``."""
    scheme = str(scope.get("scheme", "http"))
    parts = urlsplit(f"{scheme}://{host}")
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme, 80)
    except ValueError:
        return None
    return (scheme, (parts.hostname or "").lower(), port)


def origin_of(value: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an ``Origin`` header; None for ``null`` or garbage."""
    parts = urlsplit(value.strip())
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port or DEFAULT_PORTS[parts.scheme]
    except ValueError:
        return None
    return (parts.scheme, parts.hostname.lower(), port)


def cross_site(scope: Scope, headers: dict[bytes, bytes]) -> str | None:
    """Why a state-changing request comes from another site, or None if it does not."""
    fetch_site = headers.get(b"sec-fetch-site", b"").decode("latin-1").strip().lower()
    if fetch_site in CROSS_SITE:
        return f"a {fetch_site} request may not change anything here"
    origin = headers.get(b"origin")
    if origin is None:
        return None
    theirs = origin_of(origin.decode("latin-1"))
    ours = own_origin(scope, headers.get(b"host", b"").decode("latin-1"))
    if theirs is None or ours is None or theirs != ours:
        return "a request from another origin may not change anything here"
    return None


GUARD_HEADERS = (b"origin", b"sec-fetch-site", b"host")
"""Headers the guard decides by: a request that repeats one is refused (which one a server
or a proxy reads would be a guess)."""


def _repeated(scope: Scope) -> str | None:
    names = [name.lower() for name, _ in scope.get("headers", [])]
    return next((n.decode() for n in GUARD_HEADERS if names.count(n) > 1), None)


def body_error(path: str, headers: dict[bytes, bytes]) -> str | None:
    """Why the body's media type is not one the route takes, or None."""
    kind = media_type(headers.get(b"content-type", b"").decode("latin-1"))
    own = OWN_TYPES.get(path)
    if own is None and path.startswith(UPLOAD_PREFIX) and path.count("/") == 3:
        own = UPLOAD_TYPES  # /v1/import/{system}: another system's store or export
    allowed = own or JSON_TYPES
    if kind in allowed or (own is None and is_json(kind)):
        return None
    named = " or ".join(sorted(allowed))
    said = f"{kind!r}" if kind else "no Content-Type"
    return f"this route takes a body of type {named}, not {said}"


def has_body(headers: dict[bytes, bytes]) -> bool:
    """Whether the request says it sends a body (a length above 0, or chunks)."""
    length = headers.get(b"content-length")
    if length is not None:
        return length.strip() not in (b"", b"0")
    return b"transfer-encoding" in headers


class Guard:
    """Refuse cross-site state changes, undeclared media types and oversized bodies."""

    def __init__(self, app: App, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        method = str(scope["method"]).upper()
        repeated = _repeated(scope)
        if repeated is not None:
            await refuse(scope, send, 400, "repeated_header", f"{repeated} may be given once")
            return
        why = cross_site(scope, headers)
        if why is not None and method not in SAFE_METHODS:
            await refuse(scope, send, 403, "cross_site", why)
            return
        if why is not None:  # a read from another site reads only: no access counted, no record
            scope.setdefault("state", {})["cross_site"] = True
        too_large = f"the request body is over {self.limit} bytes"
        length = headers.get(b"content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.limit):
            await refuse(scope, send, 413, "too_large", too_large)
            return
        if has_body(headers) and method not in SAFE_METHODS:
            why = body_error(str(scope["path"]), headers)
            if why is not None:
                await refuse(scope, send, 415, "unsupported_media_type", why)
                return
        if length is None and b"transfer-encoding" in headers:
            buffered = await self._read_streamed(receive)
            if buffered is None:
                await refuse(scope, send, 413, "too_large", too_large)
                return
            receive = buffered
        await self.app(scope, receive, send)

    async def _read_streamed(self, receive: Receive) -> Receive | None:
        """Read a body sent without a length, up to the limit: a receive that replays it,
        or None when it is over the limit."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return _replay([message])
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        return _replay([body], then=receive)


def _replay(messages: list[Message], then: Receive | None = None) -> Receive:
    """A receive that gives ``messages`` first, then defers to ``then`` (a disconnect)."""
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is None:
            return {"type": "http.disconnect"}
        return await then()

    return receive
