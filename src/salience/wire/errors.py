"""The library's errors as the API names them: a status and a stable code per kind of error
(the server answers with them; a job's error carries them; the client turns them back)."""

from __future__ import annotations

from typing import Any

from salience import errors

# Most specific first: the first class an error is an instance of decides.
STATUS: tuple[tuple[type[errors.SalienceError], int, str], ...] = (
    (errors.ImportFormatError, 422, "invalid_import"),
    (errors.OverLimitError, 422, "over_limit"),
    (errors.InvalidInputError, 422, "invalid_input"),
    (errors.NotFoundError, 404, "not_found"),
    (errors.ConflictError, 409, "conflict"),
    (errors.ForbiddenError, 403, "forbidden_change"),
    (errors.ReadOnlyLayerError, 409, "read_only_layer"),
    (errors.LayerError, 409, "layer"),
    (errors.PackError, 400, "invalid_pack"),
    (errors.ConfigError, 400, "config"),
    (errors.TooManyJobsError, 429, "too_many_jobs"),
    (errors.EmbedderError, 503, "embedder_unavailable"),
    (errors.StoreBusyError, 503, "busy"),
    (errors.StoreError, 500, "store"),
)
JOB_CODES = {
    "Interrupted": (503, "interrupted"),
    "JobStopped": (503, "interrupted"),
    "JobCancelled": (409, "cancelled"),
}
"""A job's errors that are not the library's: the process running it stopped."""


def status_of(exc: errors.SalienceError) -> tuple[int, str]:
    """The status and code of a library error."""
    return _status(type(exc))


def _status(kind: type[errors.SalienceError]) -> tuple[int, str]:
    return next(((s, c) for k, s, c in STATUS if issubclass(kind, k)), (500, "error"))


def job_error(error: dict[str, Any]) -> dict[str, Any]:
    """A job's error (:attr:`salience.models.Job.error`) in the API's error shape, with the
    status the request would have answered had it waited."""
    kind = str(error.get("kind", ""))
    named = getattr(errors, kind, None)
    if kind in JOB_CODES:
        status, code = JOB_CODES[kind]
    elif isinstance(named, type) and issubclass(named, errors.SalienceError):
        status, code = _status(named)
    else:
        status, code = 500, "error"
    body = {"code": code, "status": status, "message": str(error.get("message", ""))}
    return body | {k: error[k] for k in ("field", "line") if error.get(k) is not None}
