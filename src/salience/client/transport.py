"""The Client's connection: requests, the library's errors for HTTP errors, write replies."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from datetime import datetime
from types import TracebackType
from typing import Any, Self

import httpx

from salience import errors
from salience.models import Outcome, WriteResult
from salience.models.reading import POSITION_HEADER, format_lsn, parse_lsn
from salience.wire import decode as wire


class Transport:
    """The connection to a salience server, its errors and its write replies."""

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        user: str | None = None,
        timeout: float = 30.0,
        http: httpx.Client | None = None,
    ) -> None:
        """``http`` is an httpx client to send through (tests pass one bound to an app); it
        is shared as it is: this client's key goes with each of its own requests, so several
        clients with different keys may send through one."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        if user is not None:  # an admin key acting for another user
            headers["X-Salience-User"] = user
        self._headers = headers
        self._http = http or httpx.Client(base_url=url.rstrip("/"), timeout=timeout)
        self._position = 0  # the newest write position a server answered (a read replica)

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- transport ------------------------------------------------------------------------------

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self._headers, **(kwargs.pop("headers", None) or {})}
        if self._position:  # (read-your-writes through any server process: see docs/store.md)
            headers[POSITION_HEADER] = format_lsn(self._position)
        try:
            response = self._http.request(method, path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise errors.RemoteError(
                f"cannot reach the salience server: {exc}", status=0, code="unreachable"
            ) from None
        answered = response.headers.get(POSITION_HEADER)
        if answered:
            with contextlib.suppress(ValueError):
                self._position = max(self._position, parse_lsn(answered))
        if response.status_code >= 400 and not wire.is_rejection(response):
            raise wire.error(response, path)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._send(method, path, **kwargs).json()

    def _job(
        self,
        method: str,
        path: str,
        *,
        progress: Callable[[int, int], None] | None = None,
        **kwargs: Any,
    ) -> Any:
        """The answer of a request the server may run as a job: at once if it finished
        within the server's wait, else the job's result once it is done (its error raised),
        with ``progress(done, total)`` reported meanwhile (asked for at once then)."""
        headers = dict(kwargs.pop("headers", None) or {})
        if progress is not None:
            headers["Prefer"] = "respond-async"
        response = self._send(method, path, headers=headers, **kwargs)
        if response.status_code != 202:
            return response.json()
        job = response.json()
        pause = 0.05
        while job["state"] in ("queued", "running"):
            if progress is not None and job["total"]:
                progress(job["done"], job["total"])
            time.sleep(pause)
            pause = min(pause * 2, 1.0)
            job = self._json("GET", job["href"])
        if job["state"] == "failed":
            raise wire.error_of(job["error"], int(job["error"]["status"]), path)
        if progress is not None and job["total"]:
            progress(job["total"], job["total"])
        return job["result"]

    def _write(self, method: str, path: str, **kwargs: Any) -> WriteResult:
        response = self._send(method, path, **kwargs)
        body = response.json()
        if wire.is_rejection(response):
            error = body["error"]
            return WriteResult(Outcome.REJECTED, None, error["message"], error.get("gate"))
        record = body.get("record")
        return WriteResult(
            Outcome(body["outcome"]),
            body["id"],
            body.get("reason"),
            body.get("gate"),
            None if record is None else wire.record(record),
            tuple(body.get("notes", ())),
            tuple(wire.update(x) for x in body.get("updates", ())),
        )


def iso(moment: datetime | None) -> str | None:
    """A time as the API takes it (ISO 8601), or None."""
    return None if moment is None else moment.isoformat()
