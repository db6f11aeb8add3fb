"""The HTTP API's request and response models (what ``/openapi.json`` describes).

Requests forbid unknown fields, so a typo is a 422 naming it rather than a silently ignored
value. Responses mirror the library's values field for field (:func:`memory_out` and friends
convert them), so the Python client can rebuild the same types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from salience.briefing.policies import Briefing, briefing_dict
from salience.clock import as_utc, parse_time
from salience.models import Hit, MemoryRecord, WriteResult
from salience.write.records import to_json_dict

Unit = Annotated[float, Field(ge=0, le=1)]
ShortText = Annotated[str, Field(min_length=1, max_length=512)]
Limit = Annotated[int, Field(ge=1, le=1000)]


def _moment(value: object) -> datetime:
    """A time by salience's one rule (:mod:`salience.clock`): ISO 8601 text, no offset
    meaning UTC. Numbers are refused: seconds or milliseconds since when would be a guess."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, str):
        return parse_time(value, field="the time")
    raise ValueError("the time must be ISO 8601 text (e.g. 2026-04-20T12:00:00Z)")


MOMENT_DOC = "An ISO 8601 time; without an offset it is UTC (2026-04-20T12:00:00 = ...Z)."
Moment = Annotated[
    datetime,
    BeforeValidator(_moment),
    WithJsonSchema({"type": "string", "format": "date-time", "description": MOMENT_DOC}),
]
"""Every time a request gives: parsed as the CLI, MCP and the library parse it."""


class Request(BaseModel):
    """Base of every request body: unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")


class RememberIn(Request):
    content: str = Field(min_length=1, description="The memory's text (secrets are refused).")
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] = Field(default_factory=list, max_length=64)
    project: ShortText | None = None
    topic_key: ShortText | None = None
    source: Literal["user", "agent", "consolidation", "import", "system"] | None = None
    importance: Unit | None = None
    confidence: Unit | None = None
    priority: Annotated[float, Field(ge=-1e6, le=1e6)] | None = None
    session_id: ShortText | None = None
    entities: list[ShortText] = Field(default_factory=list, max_length=64)
    enabled: bool | None = None
    force: bool = Field(False, description="Bypass the signal gate (never the secret scanner).")
    profile: ShortText | None = None


class UpdateIn(Request):
    content: str | None = Field(None, min_length=1)
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] | None = Field(None, max_length=64)
    project: ShortText | None = None
    topic_key: ShortText | None = None
    importance: Unit | None = None
    confidence: Unit | None = None
    priority: Annotated[float, Field(ge=-1e6, le=1e6)] | None = None
    enabled: bool | None = None


class SupersedeIn(Request):
    content: str = Field(min_length=1)
    type: ShortText | None = None
    title: ShortText | None = None
    tags: list[ShortText] | None = Field(None, max_length=64)
    importance: Unit | None = None


class ForgetIn(Request):
    reason: ShortText = "forgotten on request"


class FeedbackIn(Request):
    used: bool


class SearchIn(Request):
    query: str = Field(min_length=1, max_length=4096)
    limit: Limit = 10
    profile: ShortText | None = None
    project: ShortText | None = None
    types: list[ShortText] = Field(default_factory=list, max_length=32)
    types_exclude: list[ShortText] = Field(default_factory=list, max_length=32)
    tags: list[ShortText] = Field(default_factory=list, max_length=32)
    as_of: Moment | None = None
    touch: bool | None = Field(None, description="Count an access (default: unless as_of).")


class BriefingIn(Request):
    profile: ShortText | None = None
    project: ShortText | None = None
    session_id: ShortText | None = None
    budget: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    as_of: Moment | None = None


class SessionEndIn(Request):
    summary: str = Field(min_length=1)


class DryRunIn(Request):
    dry_run: bool = False
    as_of: Moment | None = None


class MemoryOut(BaseModel):
    id: str
    content: str
    type: str
    created_at: str
    updated_at: str
    title: str | None
    tags: list[str]
    user: str
    project: str | None
    topic_key: str | None
    source: str
    importance: float
    confidence: float
    priority: float
    access_count: int
    revision_count: int
    echo_count: int
    fizzle_count: int
    last_accessed_at: str | None
    valid_until: str | None
    parent_id: str | None
    forget_reason: str | None
    layer: str
    session_id: str | None
    entities: list[str]
    derived_from: list[str]
    enabled: bool


class WriteOut(BaseModel):
    outcome: Literal["created", "updated", "duplicate", "rejected", "forgotten", "deleted"]
    id: str | None
    reason: str | None = None
    gate: str | None = None
    notes: list[str] = Field(default_factory=list)
    record: MemoryOut | None = None


class ComponentOut(BaseModel):
    name: str
    weight: float
    value: float


class RelevanceOut(BaseModel):
    lexical: float
    vector: float | None
    fused: float | None
    lexical_hit: bool
    own: float | None = None
    context: str | None = None


class HitOut(BaseModel):
    rank: int
    score: float
    lexical: float
    vector: float | None
    relevance: RelevanceOut | None
    breakdown: list[ComponentOut]
    note: str | None
    record: MemoryOut


class RankedOut(BaseModel):
    score: float
    breakdown: list[ComponentOut]
    note: str | None
    record: MemoryOut


class SectionOut(BaseModel):
    title: str
    lines: list[str]
    ids: list[str]


class ManifestOut(BaseModel):
    id: str
    type: str
    kept: bool
    score: float | None
    tokens: int
    section: str | None
    reason: str | None


class BriefingOut(BaseModel):
    profile: str
    as_of: str
    text: str
    tokens: int
    overflow: bool
    sections: list[SectionOut]
    manifest: list[ManifestOut]


class SessionStartOut(BaseModel):
    session_id: str
    is_new: bool
    closed_session_id: str | None
    summaries: list[MemoryOut]
    memories: list[RankedOut]


class ImportOut(BaseModel):
    created: int
    updated: int
    unchanged: int
    renamed: int = Field(0, description="Records given an id of the importer's own.")


class ErrorBody(BaseModel):
    code: str = Field(description="A stable machine code: not_found, invalid_input, ...")
    message: str
    field: str | None = None
    gate: str | None = None
    line: int | None = None


class ErrorOut(BaseModel):
    error: ErrorBody


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
    return briefing_dict(briefing, as_of=briefing.as_of.isoformat())
