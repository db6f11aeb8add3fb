"""The Client's connection: requests, the library's errors for HTTP errors, write replies."""

from __future__ import annotations

from datetime import datetime
from types import TracebackType
from typing import Any, Self

import httpx

from salience import errors
from salience.models import Outcome, WriteResult
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
        """``http`` is an httpx client to send through (tests pass one bound to an app)."""
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        if user is not None:  # an admin key acting for another user
            headers["X-Salience-User"] = user
        self._http = http or httpx.Client(base_url=url.rstrip("/"), timeout=timeout)
        self._http.headers.update(headers)

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
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise errors.RemoteError(
                f"cannot reach the salience server: {exc}", status=0, code="unreachable"
            ) from None
        if response.status_code >= 400 and not wire.is_rejection(response):
            raise wire.error(response, path)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._send(method, path, **kwargs).json()

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
        )


def iso(moment: datetime | None) -> str | None:
    """A time as the API takes it (ISO 8601), or None."""
    return None if moment is None else moment.isoformat()
