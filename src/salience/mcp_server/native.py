"""salience's own MCP tools: remember, recall, briefing, feedback, update, supersede, forget,
history, session_start, session_end, list, spaces, entities, stats."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from salience.mcp_server.briefs import (
    EntitiesOut,
    Hits,
    Memories,
    answer,
    hit_brief,
    memories_answer,
)
from salience.mcp_server.shell import CHANGE, READ, WRITE, ToolSet, current
from salience.wire.models import (
    BriefingOut,
    SessionStartOut,
    StatsOut,
    WriteOut,
)
from salience.wire.record import briefing_log_out
from salience.wire.values import (
    briefing_out,
    search_out,
    session_start_out,
    stats_of,
    write_out,
)

TOOLS = ToolSet()
MemoryId = Annotated[str, Field(description="A memory's id, as recall, list or remember gave it.")]
Limit = Annotated[int, Field(ge=1, le=100)]
Unit = Annotated[float, Field(ge=0, le=1)]
Space = Annotated[
    str | None,
    Field(description="A space you were granted (the spaces tool lists them); none: your own"),
]


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
    space: Space = None,
) -> WriteOut:
    """Store something worth knowing next session: a fact, a decision and why, a gotcha,
    a preference. Returns the outcome: created, updated (merged into an existing memory)
    or duplicate (already known; its id). A rejection is an error naming the gate: secrets
    are never stored, and low-value text (too short, self-talk, tool output, generic
    claims) is refused unless force is true."""
    shell = current()
    fields: dict[str, Any] = {
        "type": type,
        "tags": tags,
        "importance": importance,
        "topic_key": topic_key,
    }
    fields = {k: v for k, v in fields.items() if v is not None}
    if shell.project and "project" not in fields:
        fields["project"] = shell.project
    result = shell.write(
        lambda m: m.remember(
            content, profile=shell.profile, force=force, user=shell.user, space=space, **fields
        )
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
    return memories_answer(marked, shell.memory.now())


@TOOLS.tool(annotations=READ)
def recall(
    query: Annotated[str, Field(description="What you want to know, in words.")],
    limit: Limit = 10,
    explain: Annotated[bool, Field(description="Include each hit's score breakdown")] = False,
    types: list[str] | None = None,
    space: Space = None,
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
            space=space,
        )
    )
    return answer(
        Hits.model_validate(search_out(hits)),
        {"hits": [hit_brief(h, explain).model_dump(exclude_none=True) for h in hits]},
    )


@TOOLS.tool(annotations=READ)
def briefing(
    budget: Annotated[int, Field(ge=50, le=100_000)] | None = None, space: Space = None
) -> BriefingOut:
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
            space=space,
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
    return memories_answer(chain, shell.memory.now())


@TOOLS.tool(name="list", annotations=READ)
def listmemories_answer(
    type: str | None = None,
    tag: str | None = None,
    status: Literal["current", "all"] = "current",
    limit: Limit = 20,
    space: Space = None,
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
            space=space,
        )
    )
    return memories_answer(records, shell.memory.now())


@TOOLS.tool(annotations=READ)
def spaces() -> dict[str, Any]:
    """The team spaces you were granted, each with your right (read: recall, briefing and
    list see it; write: remember, update, supersede, forget there; admin: grants too).
    Recall and the briefing already include every space you read, each hit naming its
    space; pass space to remember to write there."""
    shell = current()
    found = shell.run(lambda m: m.spaces(user=shell.user))
    return {"spaces": [{"name": x.name, "right": x.right} for x in found]}


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
