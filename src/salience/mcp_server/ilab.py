"""iLAB Memory's eight MCP tools (``mem_*``), on the ``ilab`` profile.

Each takes a ``user_id``, as in the original. Over stdio (one person's machine) it names the
user; over HTTP the key's user is the tenant, and another ``user_id`` is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from salience.engine.memory import Memory
from salience.errors import NotFoundError
from salience.mcp_server.shell import CALLER, READ, WRITE, Shell, ToolSet, current
from salience.models import MemoryRecord, Outcome, WriteResult

TOOLS = ToolSet()

PROFILE = "ilab"
ObsType = Literal["profile", "preference", "decision", "discovery", "pattern"]


class SessionStartOut(BaseModel):
    session_id: str
    is_new: bool
    sessions_context: list[dict[str, Any]]
    memories: list[dict[str, Any]]


class SaveOut(BaseModel):
    id: str | None
    outcome: Literal["created", "updated", "deduped"]
    session_id: str | None
    topic_key: str | None


class SearchHit(BaseModel):
    """One hit of ``mem_search``: the documented answer is a list of these."""

    id: str
    type: str
    title: str | None
    topic_key: str | None
    score: float
    snippet: str
    updated_at: str


class SessionOut(BaseModel):
    session_id: str
    summary_id: str | None
    ended: bool


class StatsOut(BaseModel):
    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]


def observation(record: MemoryRecord) -> dict[str, Any]:
    """An observation as iLAB shows one."""
    return {
        "id": record.id,
        "type": record.type,
        "title": record.title,
        "content": record.content,
        "topic_key": record.topic_key,
        "session_id": record.session_id,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
    }


def _user(shell: Shell, user_id: str) -> str:
    caller = CALLER.get()
    if caller is not None and user_id != caller:
        raise ToolError("user_id must be the API key's user")
    return user_id


@TOOLS.tool(annotations=WRITE)
def mem_session_start(user_id: str) -> SessionStartOut:
    """Start (or resume, if active in the last 24 h) the user's session: recent session
    summaries and the ~10 memories that matter most."""
    shell = current()
    shell.may_write()
    user = _user(shell, user_id)
    started = shell.run(lambda m: m.session_start(user, profile=PROFILE))
    return SessionStartOut(
        session_id=started.session_id,
        is_new=started.is_new,
        sessions_context=[observation(r) for r in started.summaries],
        memories=[{**observation(r), "score": s.value} for r, s in started.memories],
    )


@TOOLS.tool(annotations=WRITE)
def mem_save(
    user_id: str,
    content: str,
    type: ObsType,
    title: str | None = None,
    topic_key: str | None = None,
) -> SaveOut:
    """Save an observation; the same topic_key updates it, the same text is deduped;
    <private>...</private> spans are redacted."""
    shell = current()
    user = _user(shell, user_id)

    def save(m: Memory) -> WriteResult:
        session = m.current_session(user=user)  # iLAB files it under the open session
        return m.remember(
            content,
            profile=PROFILE,
            user=user,
            type=type,
            title=title,
            topic_key=topic_key,
            session_id=None if session is None else session.id,
            force=True,
        )

    result = shell.write(save)
    outcome = {Outcome.CREATED: "created", Outcome.UPDATED: "updated"}.get(
        result.outcome, "deduped"
    )
    record = result.record
    return SaveOut(
        id=result.id,
        outcome=outcome,  # type: ignore[arg-type]
        session_id=None if record is None else record.session_id,
        topic_key=topic_key,
    )


@TOOLS.tool(annotations=READ)
def mem_search(
    user_id: str,
    query: str,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
    types: list[str] | None = None,
    types_exclude: list[str] | None = None,
) -> list[SearchHit]:
    """Search observations by SearchScore (never comparable with ContextScore)."""
    shell = current()
    user = _user(shell, user_id)
    hits = shell.run(
        lambda m: m.search(
            query,
            limit,
            profile=PROFILE,
            user=user,
            types=types or (),
            types_exclude=types_exclude or (),
            touch=shell.touch,
        )
    )
    return [
        SearchHit(
            id=h.record.id,
            type=h.record.type,
            title=h.record.title,
            topic_key=h.record.topic_key,
            score=h.score,
            snippet=" ".join(h.record.content.split())[:200],
            updated_at=h.record.updated_at.isoformat(),
        )
        for h in hits
    ]


@TOOLS.tool(annotations=READ)
def mem_get_observation(user_id: str, observation_id: str) -> dict[str, Any] | None:
    """One observation, or null (also for another user's id)."""
    shell = current()
    user = _user(shell, user_id)

    def one(m: Memory) -> MemoryRecord | None:
        try:
            return m.get(observation_id, user=user)
        except NotFoundError:
            return None

    record = shell.run(one)
    return None if record is None else observation(record)


@TOOLS.tool(annotations=READ)
def mem_timeline(user_id: str, observation_id: str) -> list[dict[str, Any]]:
    """The observations around one, in time order."""
    shell = current()
    user = _user(shell, user_id)
    ordered = list(reversed(shell.run(lambda m: m.list(user=user))))
    at = next((i for i, r in enumerate(ordered) if r.id == observation_id), None)
    if at is None:
        raise ToolError(f"no observation with id {observation_id!r}")
    return [observation(r) for r in ordered[max(0, at - 5) : at + 6]]


@TOOLS.tool(annotations=WRITE)
def mem_session_summary(user_id: str, summary: str) -> SaveOut:
    """Save a summary observation without closing the session."""
    shell = current()
    user = _user(shell, user_id)
    result = shell.write(
        lambda m: m.remember(summary, profile=PROFILE, user=user, type="discovery", force=True)
    )
    return SaveOut(id=result.id, outcome="created", session_id=None, topic_key=None)


@TOOLS.tool(annotations=WRITE)
def mem_session_end(user_id: str, summary: str) -> SessionOut:
    """Close the user's active session with a (non-empty) summary."""
    shell = current()
    user = _user(shell, user_id)
    result = shell.write(lambda m: m.session_end(summary, user=user))
    record = result.record
    session = "" if record is None or record.session_id is None else record.session_id
    return SessionOut(session_id=session, summary_id=result.id, ended=True)


@TOOLS.tool(annotations=READ)
def mem_stats(user_id: str) -> StatsOut:
    """Counts of the user's observations."""
    shell = current()
    user = _user(shell, user_id)
    stats = shell.run(lambda m: m.stats(user=user))
    return StatsOut(total=stats.total, by_type=stats.by_type, by_status=stats.by_status)
