"""Who is calling, as whom they act, and the one engine they share.

The server's *mode* is fixed when it starts, and only ever tightens:

* **keys** — a key was in force at start (or has been since): every request must carry one
  (``Authorization: Bearer KEY`` or ``X-API-Key: KEY``) and the key's user is the tenant.
  Revoking every key does not turn authentication off: a keyless request is refused until
  the server is restarted with no key.
* **local** — no key at start: one user (the configured one), nothing to present, and only
  from loopback: the peer's address must be loopback and the ``Host`` a loopback name or
  address (``salience serve`` refuses any other listening address). A key made while it
  runs switches it to keys mode for good.

An admin key may act for another user by naming them in ``X-Salience-User`` (``*`` for every
user where a route lists across users); any other key naming another user is refused.
"""

from __future__ import annotations

import hmac
import ipaddress
import threading
from dataclasses import dataclass, replace
from typing import Any

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from salience.engine.memory import Memory
from salience.errors import InvalidInputError
from salience.models import ALL_USERS, CEILING, UserScope
from salience.models.reading import POSITION, POSITION_HEADER, READER, parse_lsn
from salience.models.spaces import REACH, Reach

USER_HEADER = "X-Salience-User"
LOCAL, KEYS = "local", "keys"


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if not host:
        return False
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class Refused(Exception):
    """A request the caller may not make: ``status`` 401 or 403, and why."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Caller:
    """The authenticated caller: their user, and what their key allows."""

    user: str
    read_only: bool = False
    admin: bool = False
    key_id: str | None = None
    source: str = "user"  # the highest source the caller's writes may claim
    agent: str | None = None  # the agent its key names
    spaces: tuple[tuple[str, str], ...] | None = None  # what its key was narrowed to

    def reach(self) -> Reach:
        """What this caller's key reaches beyond its user's own memories."""
        narrowed = None if self.spaces is None else dict(self.spaces)
        return Reach(spaces=narrowed, agent=self.agent, admin=self.admin)

    def acting(self, named: str | None, *, across: bool = False) -> UserScope:
        """The user a request acts for: the caller's own, or (admin only) the one named;
        ``*`` means every user where the route allows it (``across``)."""
        if named is None or named == self.user:
            return self.user
        if not self.admin:
            raise Refused(403, "forbidden", "only an admin key may act for another user")
        if named == "*":
            if not across:
                raise Refused(403, "forbidden", "this route acts for one user: name one")
            return ALL_USERS
        return named

    def may_write(self) -> None:
        """Refuse a read-only key."""
        if self.read_only:
            raise Refused(403, "read_only_key", "this key is read-only; writes need another key")


class Engine:
    """One :class:`Memory` shared by the server's threads, every face's requests at once: a
    :class:`Memory` is safe to use from several threads (reads run beside each other and
    beside a write; writes take turns inside the store), so no request waits for another."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.stopping = threading.Event()  # the process is stopping: waits answer at once
        memory.long_running()  # (a server: see salience.search.warm)
        self.mode = KEYS if self.memory.has_keys() else LOCAL

    def local_mode(self) -> bool:
        """Whether the server is (still) in local mode: no key at start and none made since.
        Once keys mode, always keys mode, whatever is revoked later."""
        if self.mode == LOCAL and self.memory.has_keys():
            self.mode = KEYS
        return self.mode == LOCAL


KEY_COOKIE = "salience_key"
CSRF_COOKIE = "salience_csrf"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def presented_key(request: Request) -> str | None:
    """The key a request carries: ``Authorization: Bearer``, ``X-API-Key``, or the web UI's
    cookie (then a write must also carry the CSRF token the UI was given)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if request.headers.get("x-api-key"):
        return request.headers["x-api-key"]
    cookie = request.cookies.get(KEY_COOKIE)
    if cookie and request.method not in SAFE_METHODS:
        expected = request.cookies.get(CSRF_COOKIE, "")
        given = request.headers.get(CSRF_HEADER, "")
        if not expected or not hmac.compare_digest(expected, given):
            raise Refused(403, "csrf", "a write from the web UI needs its CSRF token")
    return cookie or None


def authenticate(engine: Engine, request: Request) -> Caller:
    """The caller of ``request`` (see the module docstring); :class:`Refused` if unknown."""
    key = presented_key(request)
    memory = engine.memory
    if key is None:
        if not engine.local_mode():
            raise Refused(401, "unauthorized", "an API key is required (Authorization: Bearer KEY)")
        peer = request.client.host if request.client is not None else None
        if not is_loopback(peer):
            raise Refused(403, "forbidden", "local mode answers loopback peers only")
        if not is_loopback(request.url.hostname):
            # A web page whose name was rebound to 127.0.0.1 would otherwise read and
            # write the local store: local mode answers loopback names only.
            raise Refused(403, "forbidden", "local mode answers loopback host names only")
        return Caller(memory.config.user)
    record = engine.memory.check_key(key)
    if record is None:
        raise Refused(401, "unauthorized", "the API key is not valid (unknown or revoked)")
    return Caller(
        record.user,
        record.read_only,
        record.admin,
        record.id,
        record.source,
        record.agent,
        record.spaces,
    )


async def caller_of(request: Request) -> Caller:
    """FastAPI dependency: the request's caller. Its key's ceiling holds for the rest of the
    request (the route, and any job it starts): see :mod:`salience.models`."""
    state: Any = request.app.state
    caller: Caller = await run_in_threadpool(authenticate, state.engine, request)
    if getattr(request.state, "cross_site", False):  # (the guard: a read from another site)
        caller = replace(caller, read_only=True)
    CEILING.set(caller.source)  # this request's own context: it ends with the request
    REACH.set(caller.reach())  # (likewise: its key's spaces and agent)
    READER.set(caller.user)  # (its writes: read back from the replica only once replayed)
    request.state.reader = caller.user
    given = request.headers.get(POSITION_HEADER)
    if given:
        try:
            POSITION.set(parse_lsn(given))
        except ValueError as exc:
            raise InvalidInputError(str(exc), field=POSITION_HEADER) from None
    return caller


def engine_of(request: Request) -> Engine:
    """FastAPI dependency: the shared engine."""
    engine: Engine = request.app.state.engine
    return engine
