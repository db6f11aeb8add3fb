"""What salience's own MCP tools answer: the wire's shapes as structured content, and for the
model a compact JSON text of what it needs (:func:`answer`)."""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from salience.wire.models import DegradedOut, HitOut, MemoryOut
from salience.wire.values import format_time, hit_out, memory_out


class Explained(BaseModel):
    """Why a hit ranks where it does."""

    bm25: float
    cosine: float | None
    fused: float | None
    context: str | None = None
    learned: dict[str, Any] | None = None
    breakdown: list[dict[str, Any]]


class HitBrief(BaseModel):
    """A recall hit, compact (what an agent reads; the HTTP API has every field)."""

    rank: int
    score: float
    id: str
    type: str
    content: str
    tags: list[str]
    project: str | None
    created_at: str
    layer: str
    space: str | None = None
    agent: str | None = None
    explanation: Explained | None = None


class MemoryBrief(BaseModel):
    """A memory, compact."""

    id: str
    type: str
    content: str
    tags: list[str]
    project: str | None
    importance: float
    confidence: float
    created_at: str
    status: str
    parent_id: str | None
    space: str | None = None
    agent: str | None = None


class Hits(BaseModel):
    """A recall's hits in the wire's shape (what ``POST /v1/search`` answers), and how it
    ran short, if it did (each also said in a text block after the hits)."""

    hits: list[HitOut]
    degraded: list[DegradedOut]


class Memories(BaseModel):
    """Memories in the wire's shape (what ``GET /v1/memories`` answers)."""

    memories: list[MemoryOut]


def answer(structured: BaseModel, brief: Any) -> CallToolResult:
    """A tool's result: the wire's shape as structured content (what a program reads, the
    same as every other face), and for the model a compact JSON text of what it needs
    (about a third of the bytes: an agent's context is its budget)."""
    text = json.dumps(brief, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )


def learned_brief(learned: Any) -> dict[str, Any] | None:
    """A learned fusion's explanation, compact: its logit, the relevance it replaced, its
    three largest terms and its session's place (the HTTP API and ``recall --explain`` give
    every term)."""
    if learned is None:
        return None
    terms = learned.largest()[:3]
    return {
        "before": round(learned.before, 4),
        "logit": round(learned.logit, 4),
        "largest": {name: round(value * weight, 4) for name, value, weight in terms},
        "session": learned.session,
    }


def hit_brief(hit: Any, explain: bool) -> HitBrief:
    """A :class:`~salience.models.Hit` as :class:`HitBrief`."""
    r = hit.record
    explanation = None
    if explain:
        full = hit_out(hit)
        relevance = hit.relevance
        explanation = Explained(
            bm25=hit.lexical,
            cosine=hit.vector,
            fused=None if relevance is None else relevance.fused,
            context=None if relevance is None else relevance.lifted(),
            learned=None if relevance is None else learned_brief(relevance.learned),
            breakdown=full["breakdown"],
        )
    return HitBrief(
        rank=hit.rank,
        score=hit.score,
        id=r.id,
        type=r.type,
        content=r.content,
        tags=list(r.tags),
        project=r.project,
        created_at=format_time(r.created_at),
        layer=r.layer,
        space=r.space,
        agent=r.agent,
        explanation=explanation,
    )


def memory_brief(record: Any, now: Any) -> MemoryBrief:
    """A record as :class:`MemoryBrief`."""
    return MemoryBrief(
        id=record.id,
        type=record.type,
        content=record.content,
        tags=list(record.tags),
        project=record.project,
        importance=record.importance,
        confidence=record.confidence,
        created_at=format_time(record.created_at),
        status=record.status(now).value,
        parent_id=record.parent_id,
        space=record.space,
        agent=record.agent,
    )


def memories_answer(records: Any, now: Any) -> CallToolResult:
    return answer(
        Memories.model_validate({"memories": [memory_out(r) for r in records]}),
        {"memories": [memory_brief(r, now).model_dump() for r in records]},
    )


class EntitiesOut(BaseModel):
    entities: list[dict[str, Any]]
