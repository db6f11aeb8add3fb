"""The wire: the HTTP API's JSON turned back into the library's values and errors."""

from __future__ import annotations

from typing import Any

import httpx

from salience import errors
from salience.briefing.policies import Briefing, BriefingSection, ManifestEntry
from salience.briefing.sessions import SessionStart
from salience.models import Hit, MemoryRecord, Relevance
from salience.scores import ContextScore, SearchScore
from salience.write.records import from_json_dict

__all__ = [
    "Briefing",
    "BriefingSection",
    "ManifestEntry",
    "SessionStart",
    "error",
    "hit",
    "is_rejection",
    "parts",
    "present",
    "ranked",
    "record",
    "status",
]

_ERRORS: dict[str, type[errors.SalienceError]] = {
    "invalid_input": errors.InvalidInputError,
    "invalid_request": errors.InvalidInputError,
    "invalid_import": errors.InvalidInputError,
    "conflict": errors.ConflictError,
    "read_only_layer": errors.ReadOnlyLayerError,
    "layer": errors.LayerError,
    "invalid_pack": errors.PackError,
    "config": errors.ConfigError,
    "embedder_unavailable": errors.EmbedderError,
    "busy": errors.StoreBusyError,
}
_MAX_BYTES = 1 << 40  # records from a server were validated there


def record(data: dict[str, Any]) -> MemoryRecord:
    return from_json_dict(data, max_bytes=_MAX_BYTES)


def parts(breakdown: list[dict[str, Any]]) -> tuple[tuple[str, float, float], ...]:
    return tuple((c["name"], c["weight"], c["value"]) for c in breakdown)


def present(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def status(superseded: bool, forgotten: bool) -> str:
    if superseded and forgotten:
        return "all"
    if superseded or forgotten:
        raise errors.InvalidInputError(
            "the client lists current memories, or all (include_superseded and "
            "include_forgotten together)",
            field="include_superseded",
        )
    return "current"


def hit(data: dict[str, Any]) -> Hit:
    relevance = data["relevance"]
    return Hit(
        record(data["record"]),
        data["score"],
        data["rank"],
        lexical=data["lexical"],
        explanation=SearchScore(data["score"], parts(data["breakdown"]), note=data["note"]),
        vector=data["vector"],
        relevance=None if relevance is None else Relevance(**relevance),
    )


def ranked(data: dict[str, Any]) -> tuple[MemoryRecord, ContextScore]:
    score = ContextScore(data["score"], parts(data["breakdown"]), note=data["note"])
    return record(data["record"]), score


def is_rejection(response: httpx.Response) -> bool:
    if response.status_code != 422:
        return False
    try:
        return bool(response.json()["error"]["code"] == "rejected")
    except (ValueError, KeyError, TypeError):
        return False


def error(response: httpx.Response, path: str) -> errors.SalienceError:
    """The library's error for a server's error answer."""
    try:
        error = dict(response.json()["error"])
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        error, code, message = {}, "http", f"HTTP {response.status_code} from the server"
    if code == "not_found" and path.startswith("/v1/memories/"):
        return errors.NotFoundError(path.split("/")[3])
    if response.status_code in (401, 403):
        return errors.AccessError(message, status=response.status_code, code=code)
    kind = _ERRORS.get(code)
    if kind is None:
        return errors.RemoteError(message, status=response.status_code, code=code)
    if issubclass(kind, errors.InvalidInputError):
        return errors.InvalidInputError(message, field=error.get("field"))
    return kind(message)
