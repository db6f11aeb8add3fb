"""Engram's memories (and iLAB Memory's, which follows Engram): its SQLite store
(``~/.engram/engram.db``, read-only) or its ``engram export`` JSON.

An observation becomes a memory of its type (Engram's types are kept: iLAB's profile knows
them), titled, in its project and session, with its topic key and revision count; a soft-deleted
one is imported forgotten; a pinned one gets importance 1; ``scope``, ``tool_name`` become
tags. Sessions' summaries are imported when no ``session_summary`` observation holds them.
Relations other than ``supersedes``, prompts, dedup counters and embeddings have no place in
salience (counted as unmappable)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import (
    Harvest,
    Item,
    columns,
    is_sqlite,
    moment,
    open_read_only,
    read_json,
)

SYSTEM = "engram"
TYPES = {
    "decision": "decision",
    "architecture": "decision",
    "bugfix": "observation",
    "pattern": "heuristic",
    "config": "fact",
    "discovery": "observation",
    "learning": "insight",
    "manual": "observation",
    "preference": "preference",
    "session_summary": "summary",
}


def read(path: Path, system: str = SYSTEM) -> Harvest:
    """Everything in an Engram store: ``engram.db``, a directory holding it, or an export."""
    if path.is_dir():
        path = path / "engram.db"
    harvest = Harvest(system)
    if is_sqlite(path):
        conn = open_read_only(path)
        try:
            data = _from_database(conn)
        finally:
            conn.close()
    else:
        exported = read_json(path, "an Engram store or its export")
        if not isinstance(exported, dict) or "observations" not in exported:
            raise InvalidInputError(f"{path} is not an Engram export (no observations)")
        data = exported
    summarised = {
        o.get("session_id") for o in data["observations"] if o.get("type") == "session_summary"
    }
    for row in data["observations"]:
        harvest.add(row, _observation, row, system, harvest)
    for session in data.get("sessions", []):
        if session.get("summary") and session["id"] not in summarised:
            harvest.items.append(
                Item(
                    external_id=f"{system}:session:{session['id']}",
                    content=session["summary"],
                    type="summary",
                    created_at=moment(session.get("ended_at") or session.get("started_at")),
                    project=session.get("project") or None,
                    session_id=session["id"],
                    tags=["kind:session_summary"],
                )
            )
    for name in ("prompts", "relations"):
        for _ in data.get(name, []):
            harvest.unmappable[name] += 1
    return harvest


def _from_database(conn: sqlite3.Connection) -> dict[str, Any]:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "observations" not in tables:
        raise InvalidInputError("the database holds no Engram observations table")
    known = columns(conn, "observations")
    observations = [
        {k: row[k] for k in row.keys() if k in known and k != "embedding"}  # noqa: SIM118 (a Row)
        for row in conn.execute("SELECT * FROM observations ORDER BY id")
    ]
    sessions = (
        [dict(r) for r in conn.execute("SELECT * FROM sessions")] if "sessions" in tables else []
    )
    relations: list[dict[str, Any]] = []
    if "memory_relations" in tables:
        relations = [dict(r) for r in conn.execute("SELECT * FROM memory_relations")]
    prompts = (
        [1 for _ in conn.execute("SELECT id FROM user_prompts")] if "user_prompts" in tables else []
    )
    return {
        "observations": observations,
        "sessions": sessions,
        "relations": relations,
        "prompts": prompts,
    }


def _observation(row: dict[str, Any], system: str, harvest: Harvest) -> Item:
    ident = row.get("sync_id") or row["id"]
    kind = str(row.get("type") or "manual")
    tags = [f"kind:{kind}"]
    if row.get("scope"):
        tags.append(f"scope:{'global' if row['scope'] == 'personal' else row['scope']}")
    if row.get("tool_name"):
        tags.append(f"tool:{row['tool_name']}")
    for name in (
        "duplicate_count",
        "last_seen_at",
        "review_after",
        "expires_at",
        "embedding_model",
    ):
        if name != "duplicate_count" or (row.get(name) or 1) > 1:
            harvest.unmapped(name, row.get(name))
    deleted = row.get("deleted_at")
    return Item(
        external_id=f"{system}:{ident}",
        content=str(row["content"]),
        type=TYPES.get(kind, "observation"),
        title=row.get("title") or None,
        created_at=moment(row["created_at"]),
        updated_at=moment(row.get("updated_at") or row["created_at"]),
        tags=tags,
        importance=1.0 if row.get("pinned") else None,
        revision_count=int(row.get("revision_count") or 1),
        project=row.get("project") or None,
        topic_key=row.get("topic_key") or None,
        session_id=row.get("session_id") or None,
        forgotten=None if not deleted else f"deleted in {system} at {deleted}",
    )
