"""salience's own MCP tools: remember, recall, briefing, feedback, update, supersede, forget,
history, session_start, session_end, list, entities, stats."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from salience.mcp_server.shell import CHANGE, READ, WRITE, ToolSet, current
from salience.wire.models import (
    BriefingOut,
    DegradedOut,
    HitOut,
    MemoryOut,
    SessionStartOut,
    StatsOut,
    WriteOut,
)
from salience.wire.record import briefing_log_out
from salience.wire.values import (
    briefing_out,
    format_time,
    hit_out,
    memory_out,
    search_out,
    session_start_out,
    stats_of,
    write_out,
)

TOOLS = ToolSet()
MemoryId = Annotated[str, Field(description="A memory's id, as recall, list or remember gave it.")]
Limit = Annotated[int, Field(ge=1, le=100)]
Unit = Annotated[float, Field(ge=0, le=1)]


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


def _learned(learned: Any) -> dict[str, Any] | None:
    """A learned fusion's explanation, compact: its logit, the relevance it replaced and its
    three largest terms (the HTTP API and ``recall --explain`` give every term)."""
    if learned is None:
        return None
    terms = learned.largest()[:3]
    return {
        "before": round(learned.before, 4),
        "logit": round(learned.logit, 4),
        "largest": {name: round(value * weight, 4) for name, value, weight in terms},
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
            learned=None if relevance is None else _learned(relevance.learned),
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
    )


def _memories(records: Any, now: Any) -> CallToolResult:
    return answer(
        Memories.model_validate({"memories": [memory_out(r) for r in records]}),
        {"memories": [memory_brief(r, now).model_dump() for r in records]},
    )


class EntitiesOut(BaseModel):
    entities: list[dict[str, Any]]


@TOOLS.tool(annotations=WRITE)
def remember(
    content: Annotated[
        str, Field(description="One fact, decision or lesson, in a sentence or two.")
    ],
    type: Annotated[
        str | None, Field(description="observation, insight, decision, heuristic, ...")
    ] = None,
    tags: Annotated[list[str] | None, Field(description="e.g. project:api")] = None,
    importance: Unit | None = None,
    topic_key: Annotated[str | None, Field(description="A stable key to update one topic")] = None,
    force: Annotated[
        bool, Field(description="Keep it even if the signal gate finds it low-value")
    ] = False,
) -> WriteOut:
    """Store something worth knowing next session: a fact, a decision and why, a gotcha,
    a preference. Returns the outcome: created, updated (merged into an existing memory)
    or duplicate (already known; its id). A rejection is an error naming the gate: secrets
    are never stored, and low-value text (too short, self-talk, tool output, generic
    claims) is refused unless force is true."""
    shell = current()
    fields = {"type": type, "tags": tags, "importance": importance, "topic_key": topic_key}
    fields = {k: v for k, v in fields.items() if v is not None}
    if shell.project and "project" not in fields:
        fields["project"] = shell.project
    result = shell.write(
        lambda m: m.remember(content, profile=shell.profile, force=force, user=shell.user, **fields)
    )
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=WRITE)
def feedback(
    memory_id: MemoryId, used: Annotated[bool, Field(description="Did it help?")]
) -> WriteOut:
    """Say whether a memory recalled or briefed actually helped (used: true raises its
    importance and confidence; false lowers them). Call it after using recalled memories."""
    shell = current()
    result = shell.write(lambda m: m.feedback(memory_id, used=used, user=shell.user))
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=CHANGE)
def update(
    memory_id: MemoryId,
    content: str | None = None,
    tags: list[str] | None = None,
    importance: Unit | None = None,
    type: str | None = None,
) -> WriteOut:
    """Change a memory in place (new content replaces the old text; use supersede to keep
    the old version). Content another memory already has answers duplicate."""
    shell = current()
    changes = {"content": content, "tags": tags, "importance": importance, "type": type}
    changes = {k: v for k, v in changes.items() if v is not None}
    result = shell.write(lambda m: m.update(memory_id, user=shell.user, **changes))
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=CHANGE)
def supersede(memory_id: MemoryId, content: str) -> WriteOut:
    """Replace a memory that is no longer true with a new version; the old one stays in
    its history (see history)."""
    shell = current()
    result = shell.write(lambda m: m.supersede(memory_id, content, user=shell.user))
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=CHANGE)
def forget(memory_id: MemoryId, reason: str = "forgotten on request") -> WriteOut:
    """Forget a memory that is wrong or obsolete: it leaves recall and briefings but
    stays readable with its reason."""
    shell = current()
    result = shell.write(lambda m: m.forget(memory_id, reason, user=shell.user))
    return WriteOut.model_validate(write_out(result))


@TOOLS.tool(annotations=READ)
def stale() -> Annotated[CallToolResult, Memories]:
    """Memories derived from one that changed since (superseded, rewritten, forgotten):
    out of briefings until a person confirms them, or forgotten (forget) or superseded
    if no longer true."""
    shell = current()
    marked = shell.run(lambda m: m.stale(user=shell.user))
    return _memories(marked, shell.memory.now())


@TOOLS.tool(annotations=READ)
def recall(
    query: Annotated[str, Field(description="What you want to know, in words.")],
    limit: Limit = 10,
    explain: Annotated[bool, Field(description="Include each hit's score breakdown")] = False,
    types: list[str] | None = None,
) -> Annotated[CallToolResult, Hits]:
    """Search memory before answering from it: hybrid full-text and semantic search,
    best first. Each hit has its score; with explain, why (BM25, cosine, breakdown)."""
    shell = current()
    hits = shell.run(
        lambda m: m.search(
            query,
            limit,
            profile=shell.profile,
            user=shell.user,
            project=shell.project,
            types=types or (),
            touch=shell.touch,
        )
    )
    return answer(
        Hits.model_validate(search_out(hits)),
        {"hits": [hit_brief(h, explain).model_dump(exclude_none=True) for h in hits]},
    )


@TOOLS.tool(annotations=READ)
def briefing(budget: Annotated[int, Field(ge=50, le=100_000)] | None = None) -> BriefingOut:
    """The briefing to read at session start: the most useful memories for this user and
    project, within a token budget, with a manifest of what was left out and why."""
    shell = current()
    result = shell.run(
        lambda m: m.briefing(
            shell.profile,
            user=shell.user,
            project=shell.project,
            budget=budget,
            record=shell.touch,
        )
    )
    return BriefingOut.model_validate(briefing_out(result))


@TOOLS.tool(annotations=READ)
def briefing_log(limit: Limit = 10) -> dict[str, Any]:
    """What the last sessions were given at start, and which of those memories were then
    echoed, fizzled or recalled again: the evidence of what helps."""
    shell = current()
    return briefing_log_out(shell.run(lambda m: m.briefing_log(user=shell.user, limit=limit)))


@TOOLS.tool(annotations=READ)
def history(memory_id: MemoryId) -> Annotated[CallToolResult, Memories]:
    """A memory's versions, newest first (what it said before each supersede)."""
    shell = current()
    chain = shell.run(lambda m: m.history(memory_id, user=shell.user))
    return _memories(chain, shell.memory.now())


@TOOLS.tool(name="list", annotations=READ)
def list_memories(
    type: str | None = None,
    tag: str | None = None,
    status: Literal["current", "all"] = "current",
    limit: Limit = 20,
) -> Annotated[CallToolResult, Memories]:
    """Memories, newest first (current ones, or all with their superseded and forgotten
    versions)."""
    shell = current()
    records = shell.run(
        lambda m: m.list(
            user=shell.user,
            project=shell.project,
            type=type,
            tags=[tag] if tag else (),
            include_superseded=status == "all",
            include_forgotten=status == "all",
            limit=limit,
        )
    )
    return _memories(records, shell.memory.now())


@TOOLS.tool(annotations=READ)
def entities(top: Limit = 20) -> EntitiesOut:
    """The files, symbols, packages, variables, ports and error codes memories name."""
    shell = current()
    counts = shell.run(lambda m: m.entities(user=shell.user, project=shell.project, top=top))
    return EntitiesOut(entities=[{"entity": n, "memories": c} for n, c in counts])


@TOOLS.tool(annotations=READ)
def stats() -> StatsOut:
    """How many memories there are, by status, type, user and project; the store's
    size, schema, layers and embedder."""
    shell = current()
    return StatsOut.model_validate(shell.run(lambda m: stats_of(m, user=shell.user)))


@TOOLS.tool(annotations=WRITE)
def session_start() -> SessionStartOut:
    """Start (or resume, within 24 h) a working session: recent session summaries and
    the best memories to start from."""
    shell = current()
    shell.may_write()
    started = shell.run(lambda m: m.session_start(shell.user, profile=shell.profile))
    return SessionStartOut.model_validate(session_start_out(started))


@TOOLS.tool(annotations=WRITE)
def session_end(
    summary: Annotated[str, Field(description="What this session did and learned.")],
) -> WriteOut:
    """Close the session with a summary; the next session_start shows it."""
    shell = current()
    result = shell.write(lambda m: m.session_end(summary, user=shell.user))
    return WriteOut.model_validate(write_out(result))
