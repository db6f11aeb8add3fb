"""The library's values as JSON-ready data, one shape per value on every face (see
:mod:`salience.wire`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from salience.briefing.policies import briefing_dict
from salience.clock import format_time
from salience.models import (
    Briefing,
    Hit,
    ImportResult,
    Job,
    LayerMount,
    Learned,
    MemoryRecord,
    Recalled,
    Session,
    SessionStart,
    Stats,
    UpdateLink,
    UserScope,
    WriteResult,
)
from salience.profiles import PROFILES, get_profile
from salience.wire.errors import job_error
from salience.write.records import to_json_dict

if TYPE_CHECKING:
    from salience.engine.memory import Memory
    from salience.models import (
        ConsolidationReport,
        Decision,
        MaintenanceReport,
        MigrationReport,
        PackImport,
        PackManifest,
    )

__all__ = [
    "Briefing",
    "briefing_dict",
    "briefing_out",
    "components",
    "consolidation_out",
    "decision_out",
    "format_time",
    "hit_out",
    "import_out",
    "job_out",
    "layer_out",
    "maintenance_out",
    "memory_out",
    "migration_out",
    "pack_import_out",
    "pack_manifest_out",
    "ranked_out",
    "session_out",
    "session_start_out",
    "stats_of",
    "stats_out",
    "to_json_dict",
    "write_out",
]


def memory_out(record: MemoryRecord) -> dict[str, Any]:
    """A record as :class:`MemoryOut` data (the export format's fields, and its space)."""
    out = to_json_dict(record)
    out["space"] = record.space
    return out


def write_out(result: WriteResult) -> dict[str, Any]:
    """A :class:`WriteResult` as :class:`WriteOut` data."""
    return {
        "outcome": result.outcome.value,
        "id": result.id,
        "reason": result.reason,
        "gate": result.gate,
        "notes": list(result.notes),
        "record": None if result.record is None else memory_out(result.record),
        "updates": [update_out(x) for x in result.updates],
    }


def update_out(link: UpdateLink) -> dict[str, Any]:
    """An :class:`UpdateLink` as :class:`UpdateOut` data."""
    decided = link.decided_at
    return {
        "new_id": link.new_id,
        "old_id": link.old_id,
        "user": link.user,
        "confidence": link.confidence,
        "why": link.why,
        "state": link.state,
        "found_at": format_time(link.found_at),
        "decided_at": None if decided is None else format_time(decided),
    }


def components(score: Any) -> list[dict[str, Any]]:
    """A score's breakdown: each component's name, weight, value and contribution."""
    return [] if score is None else list(score.breakdown())


def search_out(hits: list[Hit]) -> dict[str, Any]:
    """A recall as :class:`SearchOut` data: its hits, and how it ran short (if it did)."""
    notes = hits.degraded if isinstance(hits, Recalled) else ()
    return {"hits": [hit_out(h) for h in hits], "degraded": [asdict(d) for d in notes]}


def hit_out(hit: Hit) -> dict[str, Any]:
    """A :class:`Hit` as :class:`HitOut` data."""
    relevance = hit.relevance
    return {
        "rank": hit.rank,
        "score": hit.score,
        "lexical": hit.lexical,
        "vector": hit.vector,
        "relevance": None
        if relevance is None
        else {
            "lexical": relevance.lexical,
            "vector": relevance.vector,
            "fused": relevance.fused,
            "lexical_hit": relevance.lexical_hit,
            "own": relevance.own,
            "context": relevance.context,
            "learned": learned_out(relevance.learned),
        },
        "breakdown": components(hit.explanation),
        "note": None if hit.explanation is None else hit.explanation.note,
        "record": memory_out(hit.record),
    }


def learned_out(learned: Learned | None) -> dict[str, Any] | None:
    """A learned fusion's explanation as :class:`LearnedOut` data."""
    if learned is None:
        return None
    return {
        "before": learned.before,
        "bias": learned.bias,
        "logit": learned.logit,
        "low": learned.low,
        "high": learned.high,
        "terms": [
            {"feature": f, "value": v, "weight": w, "contribution": v * w}
            for f, v, w in learned.terms
        ],
        "session": learned.session,
    }


def ranked_out(record: MemoryRecord, score: Any) -> dict[str, Any]:
    """A ranked memory as :class:`RankedOut` data."""
    return {
        "score": score.value,
        "breakdown": components(score),
        "note": score.note,
        "record": memory_out(record),
    }


def briefing_out(briefing: Briefing, *, manifest: bool = True) -> dict[str, Any]:
    """A :class:`Briefing` as :class:`BriefingOut` data (``manifest`` false: none)."""
    data = briefing_dict(briefing, as_of=format_time(briefing.as_of), manifest=manifest)
    return {**data, "context": briefing.context}


def session_start_out(started: SessionStart) -> dict[str, Any]:
    """A started (or resumed) session: its id, the summaries and memories to brief on."""
    return {
        "session_id": started.session_id,
        "is_new": started.is_new,
        "closed_session_id": started.closed_session_id,
        "summaries": [memory_out(r) for r in started.summaries],
        "memories": [ranked_out(r, s) for r, s in started.memories],
    }


def import_out(result: ImportResult) -> dict[str, Any]:
    """What an import did, counted."""
    return {
        "created": result.created,
        "updated": result.updated,
        "unchanged": result.unchanged,
        "renamed": result.renamed,
    }


def consolidation_out(report: ConsolidationReport) -> dict[str, Any]:
    """A consolidation (or its plan): every group of 3+ and what happened to it."""
    groups = [
        {
            "action": g.action,
            "insight": g.insight_id,
            "members": list(g.members),
            "importance": g.importance,
            "similarity": g.similarity,
            "content": g.content,
            "summary": g.summary,
            "note": g.note,
            "replaces": g.replaces,
        }
        for g in report.groups
    ]
    return {"dry_run": report.dry_run, "candidates": report.candidates, "groups": groups}


def maintenance_out(report: MaintenanceReport) -> dict[str, Any]:
    """A maintenance run (or its plan): decays, retention, orphaned rows removed."""
    return {
        "dry_run": report.dry_run,
        "decayed": [
            {"id": c.memory_id, "before": c.before, "after": c.after} for c in report.decayed
        ],
        "forgotten": list(report.forgotten),
        "orphans": report.orphans,
    }


def stats_out(
    stats: Stats,
    *,
    layers: list[dict[str, str]],
    unavailable: dict[str, str],
    embedder: str | None,
    store: str,
) -> dict[str, Any]:
    """A store's counts (by status, type, user, project), size and schema, with its mounted
    layers (and those that cannot be opened), its embedder and the kind of store. The file's
    path is not in it: a server does not tell its clients where it keeps their memories."""
    return {
        "total": stats.total,
        "by_status": stats.by_status,
        "by_type": stats.by_type,
        "by_user": stats.by_user,
        "by_project": stats.by_project,
        "size_bytes": stats.size_bytes,
        "erasure_pending": stats.erasure_pending,
        "schema_version": stats.schema,
        "unavailable_layers": unavailable,
        "layers": layers,
        "embedder": embedder,
        "store": store,
    }


def stats_of(memory: Memory, *, user: UserScope = None) -> dict[str, Any]:
    """The store's statistics for ``user`` as every face shows them (the wire's shape)."""
    embedder = memory.vectors.embedder
    return stats_out(
        memory.stats(user=user),
        layers=[{"name": x.name, "kind": x.kind} for x in memory.layers()],
        unavailable=memory.unavailable_layers(),
        embedder=None if embedder is None else embedder.identity,
        store=memory.store_kind,
    )


def decision_out(decision: Decision) -> dict[str, Any]:
    """A decision: its topic, what was decided and why, its precedence, and the memory."""
    return {
        "topic": decision.topic,
        "decision": decision.decision,
        "rationale": decision.rationale,
        "precedence": decision.precedence,
        "memory": memory_out(decision.memory),
    }


def layer_out(
    mount: LayerMount, *, unavailable: str | None = None, path: bool = True
) -> dict[str, Any]:
    """A mounted layer; ``unavailable`` says why it cannot be opened now. ``path=False``
    leaves out where it lives (a server tells only its admins)."""
    return {
        "name": mount.name,
        "kind": mount.kind,
        "path": mount.path if path else None,
        "mounted_at": format_time(mount.mounted_at),
        "unavailable": unavailable,
    }


def pack_manifest_out(manifest: PackManifest) -> dict[str, Any]:
    """A pack's manifest document, as the pack holds it."""
    return manifest.to_json()


def pack_import_out(done: PackImport, *, path: bool = True) -> dict[str, Any]:
    """What a pack import did: its counts, what became of the vectors, the layer it was
    mounted as (or null), and the pack's manifest."""
    return {
        **import_out(done.result),
        "vectors": done.vectors,
        "layer": None if done.mount is None else layer_out(done.mount, path=path),
        "manifest": pack_manifest_out(done.manifest),
    }


def session_out(session: Session) -> dict[str, Any]:
    """A working session: its id, user, when it started and was last active, and how it
    ended (the summary memory's id) if it has."""
    return {
        "id": session.id,
        "user": session.user,
        "started_at": format_time(session.started_at),
        "last_active_at": format_time(session.last_active_at),
        "ended_at": None if session.ended_at is None else format_time(session.ended_at),
        "summary_id": session.summary_id,
    }


def migration_out(report: MigrationReport) -> dict[str, Any]:
    """An import from another system: what it found, by type, what it did, and what it
    merged, refused (a secret's kind, never the text), skipped or could not map."""
    return {
        "system": report.system,
        "dry_run": report.dry_run,
        "found": report.found,
        "by_type": report.by_type,
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "merged": [{"source_id": s, "into": i} for s, i in report.merged],
        "refused": [{"source_id": s, "reason": r} for s, r in report.refused],
        "skipped": [{"what": w, "reason": r} for w, r in report.skipped],
        "unmappable": report.unmappable,
    }


def job_out(job: Job) -> dict[str, Any]:
    """A job as it stands: its progress, and once finished its result (the answer the
    request would have given) or its error (the API's error shape, with its status)."""
    return {
        "id": job.id,
        "kind": job.kind,
        "state": job.state.value,
        "done": job.done,
        "total": job.total,
        "created_at": format_time(job.created_at),
        "updated_at": format_time(job.updated_at),
        "finished_at": None if job.finished_at is None else format_time(job.finished_at),
        "result": job.result,
        "error": None if job.error is None else job_error(job.error),
        "href": f"/v1/jobs/{job.id}",
    }


def profiles_out(default: str) -> list[dict[str, Any]]:
    """Every scoring profile (the registry's, in its order), marking ``default``: an unknown
    default is an error naming the known ones."""
    chosen = get_profile(default).name
    return [
        {
            "name": p.name,
            "summary": p.summary,
            "document": p.document,
            "default_type": p.default_type,
            "types": [t.name for t in p.types],
            "dedup": list(p.dedup),
            "default": p.name == chosen,
        }
        for p in PROFILES.values()
    ]
