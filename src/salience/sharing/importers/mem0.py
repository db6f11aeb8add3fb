"""mem0's memories: the JSON of ``Memory.get_all()`` (or the platform's paginated
``get_all``), its history database (``~/.mem0/history.db``), or a directory holding them.

A memory keeps its text, times, ``memory_type`` (semantic: ``fact``, episodic:
``observation``, procedural: ``procedure``) and expiration (its ``valid_until``); its
``run_id`` is the session; ``agent_id``, ``role``, ``actor_id`` and metadata become tags. The
history adds what ``get_all`` cannot show: each ``UPDATE`` makes the text it replaced a
superseded version (from the update that made it to the one that replaced it), and a
``DELETE`` brings the deleted text back as forgotten. A memory the history holds but the JSON
does not is imported from the history: the history keeps no user id (its ``actor_id`` is a
chat message's speaker, not a user), so such a memory's owner is unknown, and it is imported
only for one named user. A record without a creation time or text is skipped, named. A
folder may also hold its local Qdrant store (``qdrant/``), read with an unpickler that refuses
every class but a point's (:mod:`qdrant`); chat ``messages`` are not memories."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers import qdrant
from salience.sharing.importers.base import (
    UNREADABLE,
    Harvest,
    Item,
    is_sqlite,
    moment,
    open_read_only,
    read_json,
)

SYSTEM = "mem0"
TYPES = {
    "semantic_memory": "fact",
    "episodic_memory": "observation",
    "procedural_memory": "procedure",
}


def read(path: Path) -> Harvest:
    """mem0's memories from a get_all JSON, a history database, its local Qdrant store, or
    a directory of them."""
    files = sorted(path.iterdir()) if path.is_dir() else [path]
    listed: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    harvest = Harvest(SYSTEM)
    for folder in [path, path / "qdrant"] if path.is_dir() else []:
        if (folder / "collection").is_dir():  # its local Qdrant store (vectors: made anew)
            found = qdrant.points(folder)
            harvest.unmappable["vectors"] += len(found)
            listed += found
    for file in files:
        if file.is_dir() or (file.name == "meta.json" and (path / "collection").is_dir()):
            continue  # (a Qdrant store's own configuration)
        if is_sqlite(file):
            events += _history(file, harvest)
        elif file.suffix == ".json" or not path.is_dir():
            listed += _listed(file)
    if not listed and not events:
        raise InvalidInputError(f"{path} holds no mem0 get_all JSON and no history database")
    listed = list({str(row["id"]): row for row in reversed(listed)}.values())[::-1]  # first wins
    by_memory: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in sorted(events, key=lambda e: (str(e["updated_at"]), str(e["id"]))):
        by_memory[str(event["memory_id"])].append(event)
    seen = {str(row["id"]) for row in listed}
    for row in listed:
        _listed_item(row, by_memory.get(str(row["id"]), []), harvest)
    for memory_id, chain in by_memory.items():
        if memory_id not in seen:
            harvest.items += _from_history(memory_id, chain, harvest)
    return harvest


def _listed_item(row: dict[str, Any], chain: list[dict[str, Any]], harvest: Harvest) -> None:
    """A memory get_all lists, and the versions its history holds (or why it is skipped)."""
    memory_id = str(row["id"])
    if not row.get("created_at"):
        harvest.skipped.append((f"{SYSTEM}:{memory_id}", "it has no created_at"))
        return
    if not isinstance(row["memory"], str):
        harvest.skipped.append((f"{SYSTEM}:{memory_id}", "its memory is not a text"))
        return
    try:
        current = _current(row, harvest)
        versions = _versions(memory_id, chain, current)
    except UNREADABLE as exc:
        harvest.skipped.append((f"{SYSTEM}:{memory_id}", harvest.why(exc)))
        return
    harvest.items += [*versions, current]


def _listed(file: Path) -> list[dict[str, Any]]:
    data = read_json(file, "mem0's get_all JSON")
    results = data.get("results") if isinstance(data, dict) else data
    if not isinstance(results, list) or not all(
        isinstance(r, dict) and "memory" in r for r in results
    ):
        raise InvalidInputError(f"{file} is not mem0's get_all JSON (no results with a memory)")
    return results


def _history(file: Path, harvest: Harvest) -> list[dict[str, Any]]:
    conn = open_read_only(file)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "history" not in tables:
            raise InvalidInputError(f"{file} is not mem0's history database (no history table)")
        if "messages" in tables:  # (counted only if there are some: "0 records" says nothing)
            count = int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
            if count:
                harvest.unmappable["messages"] += count
        return [dict(r) for r in conn.execute("SELECT * FROM history")]
    finally:
        conn.close()


def _tags(row: dict[str, Any], harvest: Harvest) -> list[str]:
    tags = []
    for key in ("agent_id", "role", "actor_id", "attributed_to"):
        if row.get(key):
            tags.append(f"{key.removesuffix('_id')}:{row[key]}")
    for key, value in (row.get("metadata") or {}).items():
        if key == "tags" and isinstance(value, list) and all(isinstance(t, str) for t in value):
            tags += [t for t in value if t.strip() and len(t) <= 200]
        elif isinstance(value, str | int | float | bool) and len(f"{key}:{value}") <= 200:
            tags.append(f"{key}:{value}" if key == "category" else f"meta:{key}={value}")
        else:
            harvest.unmapped(f"metadata.{key}", value)
    return tags


def _current(row: dict[str, Any], harvest: Harvest) -> Item:
    kind = str((row.get("metadata") or {}).get("memory_type") or row.get("memory_type") or "")
    expires = row.get("expiration_date")
    return Item(
        external_id=f"{SYSTEM}:{row['id']}",
        content=str(row["memory"]),
        type=TYPES.get(kind, "fact"),
        created_at=moment(row["created_at"]),
        updated_at=moment(row.get("updated_at") or row["created_at"]),
        tags=_tags(row, harvest),
        session_id=row.get("run_id") or None,
        source_user=row.get("user_id") or None,
        valid_until=None if not expires else moment(f"{expires}T00:00:00+00:00"),
    )


def _versions(memory_id: str, chain: list[dict[str, Any]], current: Item) -> list[Item]:
    """The texts each UPDATE replaced, oldest first, as superseded versions of ``current``:
    each from the update that made it (the first from the memory's creation) to the update
    that replaced it (mem0 gives every event the memory's creation as ``created_at``, and the
    event's own time as ``updated_at``)."""
    updates = [e for e in chain if e["event"] == "UPDATE" and e.get("old_memory")]
    versions: list[Item] = []
    began = current.created_at
    for n, event in enumerate(updates):
        replaced = moment(event["updated_at"])
        version = Item(
            external_id=f"{SYSTEM}:{memory_id}~{n}",
            content=str(event["old_memory"]),
            type=current.type,
            created_at=began,
            updated_at=began,
            tags=list(current.tags),
            session_id=current.session_id,
            source_user=current.source_user,
            supersedes=versions[-1].external_id if versions else None,
            valid_until=replaced,
            owner_known=current.owner_known,
        )
        versions.append(version)
        began = replaced
    if versions:
        current.supersedes = versions[-1].external_id
        current.revision_count = len(versions) + 1
    return versions


def _from_history(memory_id: str, chain: list[dict[str, Any]], harvest: Harvest) -> list[Item]:
    """A memory only the history holds: its last text (forgotten if it was deleted), and the
    texts its updates replaced."""
    last = chain[-1]
    deleted = last["event"] == "DELETE"
    text = last.get("old_memory") if deleted else last.get("new_memory")
    first = chain[0]
    if not text:
        harvest.skipped.append((f"{SYSTEM}:{memory_id}", "its history holds no text"))
        return []
    current = Item(
        external_id=f"{SYSTEM}:{memory_id}",
        content=str(text),
        type="fact",
        created_at=moment(first["created_at"]),
        updated_at=moment(last["updated_at"]),
        tags=[f"actor:{first['actor_id']}"] if first.get("actor_id") else [],
        forgotten=f"deleted in {SYSTEM} at {last['updated_at']}" if deleted else None,
        owner_known=False,  # (the history keeps no user id: actor_id is a speaker's name)
    )
    return [*_versions(memory_id, chain, current), current]
