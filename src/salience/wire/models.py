"""The shapes of :mod:`salience.wire.values` as pydantic models: what the HTTP API's OpenAPI
schema and the MCP tools' output schemas describe."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from salience.stores.registry import DEFAULT


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
    author: str | None = Field(None, description="Who wrote a space's memory.")
    agent: str | None = Field(None, description="The agent that wrote it.")
    space: str | None = Field(None, description="The space it belongs to (None: the user's).")


class UpdateOut(BaseModel):
    new_id: str = Field(description="The newer memory.")
    old_id: str = Field(description="The older memory it was found to change.")
    user: str
    confidence: float = Field(description="How sure, 0 to 1.")
    why: str = Field(description="The shared subject, the values that differ, words of change.")
    state: Literal["open", "confirmed", "dismissed"]
    found_at: str
    decided_at: str | None


class WriteOut(BaseModel):
    outcome: Literal["created", "updated", "duplicate", "rejected", "forgotten", "deleted"]
    id: str | None
    reason: str | None = None
    gate: str | None = None
    notes: list[str] = Field(default_factory=list)
    record: MemoryOut | None = None
    updates: list[UpdateOut] = Field(
        default_factory=list, description="Older memories this new one was found to change."
    )


class ComponentOut(BaseModel):
    name: str
    weight: float
    value: float
    contribution: float = Field(description="weight x value: its share of the score")


class TermOut(BaseModel):
    feature: str = Field(
        description="a feature (a signal, or two multiplied: 'pool*lexical'), or a hidden unit "
        "of the model ('unit 3: support, length, pool*support': its value the unit's tanh, "
        "named by the features that move it most)"
    )
    value: float
    weight: float
    contribution: float = Field(description="weight x value: its share of the logit")


class LearnedOut(BaseModel):
    """How the learned fusion scored a hit: logit = bias + the sum of the terms' contributions;
    relevance (``fused``) = (logit - low) / (high - low) over the candidates it re-ranked."""

    before: float = Field(description="the hand-set fusion's relevance it replaced")
    bias: float
    logit: float
    low: float
    high: float
    terms: list[TermOut]
    session: int | None = Field(
        None,
        description="the place of its session among those the hand-set fusion found (1: "
        "the first); recall keeps that order of sessions and ranks each one's memories by the "
        "learned relevance (null: of no session)",
    )


class RelevanceOut(BaseModel):
    lexical: float
    vector: float | None
    fused: float | None
    lexical_hit: bool
    own: float | None = None
    context: str | None = None
    learned: LearnedOut | None = None


class HitOut(BaseModel):
    rank: int
    score: float
    lexical: float
    vector: float | None
    relevance: RelevanceOut | None
    breakdown: list[ComponentOut]
    note: str | None
    record: MemoryOut


class DegradedOut(BaseModel):
    cause: str = Field(
        description="no_embedder, embedder_failed, vectors_missing, full_text_stale, "
        "layer_unavailable or layer_full_text"
    )
    detail: str = Field(description="What happened, in words.")
    fix: str = Field(description="The command or setting that fixes it.")


class SearchOut(BaseModel):
    hits: list[HitOut] = Field(description="Best first.")
    degraded: list[DegradedOut] = Field(
        description="How this recall ran short of a full hybrid search (empty: it did not)."
    )


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
    context: str = Field(
        description="The text as salience injects it into a model's context (session-start "
        "hook, MCP prompt): headed by a line saying the notes are data, not instructions."
    )
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


class StatsOut(BaseModel):
    total: int
    by_status: dict[str, int]
    by_type: dict[str, int]
    by_user: dict[str, int]
    by_project: dict[str, int]
    size_bytes: int
    erasure_pending: str | None = None
    schema_version: str
    unavailable_layers: dict[str, str]
    layers: list[dict[str, str]] = []
    embedder: str | None = None
    store: str = DEFAULT.name  # (the backend: stores.registry)


class GroupOut(BaseModel):
    action: Literal["create", "boost", "rederive"]
    insight: str | None
    members: list[str]
    importance: float
    similarity: float | None
    content: str
    summary: str
    note: str | None
    replaces: str | None = None  # the stale insight a "rederive" replaces


class ConsolidationOut(BaseModel):
    dry_run: bool
    candidates: int
    groups: list[GroupOut]


class DecayOut(BaseModel):
    id: str
    before: float
    after: float


class MaintenanceOut(BaseModel):
    dry_run: bool
    decayed: list[DecayOut]
    forgotten: list[str]
    orphans: dict[str, int]


class DecisionOut(BaseModel):
    topic: str
    decision: str
    rationale: str | None
    precedence: int
    memory: MemoryOut


class LayerOut(BaseModel):
    name: str
    kind: Literal["base", "shared"]
    path: str | None = Field(description="Where the layer lives (null unless admin).")
    mounted_at: str
    unavailable: str | None = Field(description="Why it cannot be opened now (null: it can).")


class PackImportOut(BaseModel):
    created: int
    updated: int
    unchanged: int
    renamed: int
    vectors: Literal["kept", "embedded", "none"]
    layer: LayerOut | None
    manifest: dict[str, Any] = Field(description="The pack's manifest.json document.")


class ReindexOut(BaseModel):
    embedded: int = Field(description="Memories given a vector.")
    text_indexed: int = Field(0, description="Memories added to the full-text index it lacked.")


class SessionOut(BaseModel):
    id: str
    user: str
    started_at: str
    last_active_at: str
    ended_at: str | None
    summary_id: str | None


class CurrentSessionOut(BaseModel):
    session: SessionOut | None = Field(description="The open session (null: none is open).")


class DuplicateOut(BaseModel):
    memory: MemoryOut | None = Field(description="The current memory with this content, if any.")


class MergedOut(BaseModel):
    source_id: str
    into: str = Field(description="The id of the memory it repeats (kept, not doubled).")


class RefusedOut(BaseModel):
    source_id: str
    reason: str = Field(description="Why: a secret's kind, never its text.")


class SkippedOut(BaseModel):
    what: str
    reason: str


class MigrationOut(BaseModel):
    system: str
    dry_run: bool
    found: int
    by_type: dict[str, int]
    created: int
    updated: int
    unchanged: int
    merged: list[MergedOut]
    refused: list[RefusedOut]
    skipped: list[SkippedOut]
    unmappable: dict[str, int] = Field(description="Source fields with no place in salience.")


class JobErrorOut(ErrorBody):
    status: int = Field(description="The status the request would have answered.")


class JobOut(BaseModel):
    id: str
    kind: str = Field(description="import, import_from, import_pack, consolidate, reindex")
    state: Literal["queued", "running", "done", "failed"]
    done: int = Field(description="Items done so far (0 while unknown).")
    total: int = Field(description="Items in all (0 while unknown).")
    created_at: str
    updated_at: str = Field(description="The heartbeat of the process running it.")
    finished_at: str | None
    result: dict[str, Any] | None = Field(
        description="What the request answers when it waits: the same shape."
    )
    error: JobErrorOut | None
    href: str = Field(description="Where to follow it: GET this path.")
