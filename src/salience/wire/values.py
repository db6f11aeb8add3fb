"""The library's values as JSON-ready data, one shape per value on every face (see
:mod:`salience.wire`)."""

from __future__ import annotations

from typing import Any

from salience.briefing.policies import Briefing, briefing_dict
from salience.clock import format_time
from salience.models import Hit, MemoryRecord, WriteResult
from salience.write.records import to_json_dict

__all__ = [
    "Briefing",
    "briefing_dict",
    "briefing_out",
    "components",
    "format_time",
    "hit_out",
    "memory_out",
    "ranked_out",
    "to_json_dict",
    "write_out",
]


def memory_out(record: MemoryRecord) -> dict[str, Any]:
    """A record as :class:`MemoryOut` data (the export format's fields)."""
    return to_json_dict(record)


def write_out(result: WriteResult) -> dict[str, Any]:
    """A :class:`WriteResult` as :class:`WriteOut` data."""
    return {
        "outcome": result.outcome.value,
        "id": result.id,
        "reason": result.reason,
        "gate": result.gate,
        "notes": list(result.notes),
        "record": None if result.record is None else memory_out(result.record),
    }


def components(score: Any) -> list[dict[str, Any]]:
    """A score's breakdown as :class:`ComponentOut` data."""
    if score is None:
        return []
    return [{"name": c.name, "weight": c.weight, "value": c.value} for c in score.components]


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
        },
        "breakdown": components(hit.explanation),
        "note": None if hit.explanation is None else hit.explanation.note,
        "record": memory_out(hit.record),
    }


def ranked_out(record: MemoryRecord, score: Any) -> dict[str, Any]:
    """A ranked memory as :class:`RankedOut` data."""
    return {
        "score": score.value,
        "breakdown": components(score),
        "note": score.note,
        "record": memory_out(record),
    }


def briefing_out(briefing: Briefing) -> dict[str, Any]:
    """A :class:`Briefing` as :class:`BriefingOut` data."""
    return briefing_dict(briefing, as_of=format_time(briefing.as_of))
