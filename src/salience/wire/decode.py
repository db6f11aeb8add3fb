"""The wire: the HTTP API's JSON turned back into the library's values and errors."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import httpx

from salience import errors
from salience.clock import parse_time
from salience.models import (
    Briefing,
    BriefingSection,
    ConsolidationReport,
    DayCount,
    Decision,
    Degraded,
    GraphEdge,
    GroupPlan,
    Hit,
    ImportanceChange,
    ImportResult,
    Job,
    JobState,
    LayerMount,
    Learned,
    MaintenanceReport,
    ManifestEntry,
    MemoryGraph,
    MemoryRecord,
    MigrationReport,
    PackImport,
    PackManifest,
    Recalled,
    Relevance,
    Session,
    SessionStart,
    UpdateLink,
)
from salience.scores import ContextScore, SearchScore
from salience.sharing.packs import manifest_from_json
from salience.write.records import from_json_dict

__all__ = [
    "Briefing",
    "BriefingSection",
    "ConsolidationReport",
    "MaintenanceReport",
    "ManifestEntry",
    "SessionStart",
    "consolidation",
    "days",
    "error",
    "error_of",
    "graph",
    "hit",
    "is_rejection",
    "maintenance",
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
    fields = {k: v for k, v in data.items() if k != "space"}  # (the record says it itself)
    return from_json_dict(fields, max_bytes=_MAX_BYTES)


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


def learned(data: dict[str, Any] | None) -> Learned | None:
    if data is None:
        return None
    terms = tuple((t["feature"], t["value"], t["weight"]) for t in data["terms"])
    return Learned(
        data["before"],
        data["bias"],
        terms,
        data["logit"],
        data["low"],
        data["high"],
        data.get("session"),
    )


def update(data: dict[str, Any]) -> UpdateLink:
    decided = data["decided_at"]
    return UpdateLink(
        data["new_id"],
        data["old_id"],
        data["user"],
        data["confidence"],
        data["why"],
        data["state"],
        parse_time(data["found_at"]),
        None if decided is None else parse_time(decided),
    )


def recalled(data: dict[str, Any] | list[dict[str, Any]]) -> Recalled:
    """A :class:`SearchOut` (a server before it answered a bare list of hits)."""
    if isinstance(data, list):
        return Recalled(hit(h) for h in data)
    return Recalled((hit(h) for h in data["hits"]), (Degraded(**d) for d in data["degraded"]))


def hit(data: dict[str, Any]) -> Hit:
    relevance = data["relevance"]
    if relevance is not None:
        relevance = relevance | {"learned": learned(relevance.get("learned"))}
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
        body = dict(response.json()["error"])
        str(body["code"]), str(body["message"])
    except (ValueError, KeyError, TypeError):
        body = {"code": "http", "message": f"HTTP {response.status_code} from the server"}
    return error_of(body, response.status_code, path)


def error_of(body: dict[str, Any], status: int, path: str = "") -> errors.SalienceError:
    """The library's error for an error body (``{code, message, field?}``) of ``status``
    (a failed job's error carries its own)."""
    code, message = str(body["code"]), str(body["message"])
    if code == "not_found":
        named = path.split("/")[3] if path.startswith("/v1/memories/") else ""
        return errors.NotFoundError(named, message)
    if code == "forbidden_change":
        return errors.ForbiddenError(message, field=body.get("field"))
    if status in (401, 403):
        return errors.AccessError(message, status=status, code=code)
    kind = _ERRORS.get(code)
    if kind is None:
        return errors.RemoteError(message, status=status, code=code)
    if issubclass(kind, errors.InvalidInputError):
        return errors.InvalidInputError(message, field=body.get("field"))
    return kind(message)


def consolidation(data: dict[str, Any]) -> ConsolidationReport:
    """:func:`salience.wire.values.consolidation_out`, back."""
    groups = tuple(
        GroupPlan(
            tuple(g["members"]),
            g["action"],
            g["insight"],
            g["content"],
            g["importance"],
            g["similarity"],
            g["summary"],
            g["note"],
            g.get("replaces"),
        )
        for g in data["groups"]
    )
    return ConsolidationReport(data["dry_run"], groups, data["candidates"])


def maintenance(data: dict[str, Any]) -> MaintenanceReport:
    """:func:`salience.wire.values.maintenance_out`, back."""
    decayed = tuple(ImportanceChange(c["id"], c["before"], c["after"]) for c in data["decayed"])
    return MaintenanceReport(data["dry_run"], decayed, tuple(data["forgotten"]), data["orphans"])


def days(data: dict[str, Any]) -> list[DayCount]:
    """``/v1/activity``'s days, back."""
    return [DayCount(date.fromisoformat(d["date"]), d["created"]) for d in data["days"]]


def graph(data: dict[str, Any], memories: dict[str, MemoryRecord]) -> MemoryGraph:
    """``/v1/graph``, back, with its memory nodes' records from ``memories`` (the graph's
    nodes carry a summary of each memory, not the memory)."""
    ordered = tuple(memories[n["id"]] for n in data["nodes"] if n["kind"] == "memory")
    entities = {n["id"]: n["label"] for n in data["nodes"] if n["kind"] == "entity"}
    edges = tuple(GraphEdge(e["source"], e["target"], e["relation"]) for e in data["edges"])
    return MemoryGraph(ordered, entities, edges)


def imported(data: dict[str, Any]) -> ImportResult:
    return ImportResult(data["created"], data["updated"], data["unchanged"], data.get("renamed", 0))


def decision(data: dict[str, Any]) -> Decision:
    memory = record(data["memory"])
    return Decision(data["topic"], data["decision"], data["rationale"], data["precedence"], memory)


def layer(data: dict[str, Any]) -> LayerMount:
    return LayerMount(
        data["name"], data["kind"], data["path"] or "", datetime.fromisoformat(data["mounted_at"])
    )


def manifest(data: dict[str, Any]) -> PackManifest:
    return manifest_from_json(data, "the server's answer")


def pack_import(data: dict[str, Any]) -> PackImport:
    mount = data["layer"]
    return PackImport(
        imported(data),
        manifest(data["manifest"]),
        data["vectors"],
        None if mount is None else layer(mount),
    )


def migration(data: dict[str, Any]) -> MigrationReport:
    """:func:`salience.wire.values.migration_out`, back."""
    return MigrationReport(
        data["system"],
        data["dry_run"],
        data["found"],
        dict(data["by_type"]),
        data["created"],
        data["updated"],
        data["unchanged"],
        tuple((m["source_id"], m["into"]) for m in data["merged"]),
        tuple((r["source_id"], r["reason"]) for r in data["refused"]),
        tuple((s["what"], s["reason"]) for s in data["skipped"]),
        dict(data["unmappable"]),
    )


def session(data: dict[str, Any]) -> Session:
    ended = data["ended_at"]
    return Session(
        data["id"],
        data["user"],
        datetime.fromisoformat(data["started_at"]),
        datetime.fromisoformat(data["last_active_at"]),
        None if ended is None else datetime.fromisoformat(ended),
        data["summary_id"],
    )


def job(data: dict[str, Any], user: str = "") -> Job:
    """A job as the API shows it (:func:`salience.wire.values.job_out`); ``user`` is whom it
    was asked for (the answer does not name it)."""
    finished = data.get("finished_at")
    return Job(
        data["id"],
        user,
        data["kind"],
        JobState(data["state"]),
        parse_time(data["created_at"]),
        parse_time(data["updated_at"]),
        data["done"],
        data["total"],
        None if finished is None else parse_time(finished),
        data.get("result"),
        data.get("error"),
    )
