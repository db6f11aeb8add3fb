"""Talome's memories: its SQLite store (``~/.talome/data/talome.db``, read-only) or the JSON
of ``GET /api/memories``.

Talome's four types are salience's (talome profile); its confidence is the extractor's
confidence and its access count is kept; a disabled memory is imported forgotten; ``source``
(the conversation it came from) becomes the session. Talome keeps no tags, user, project or
history."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import (
    Harvest,
    Item,
    is_sqlite,
    moment,
    open_read_only,
    read_json,
    unsafe,
)

SYSTEM = "talome"
TYPES = {
    "preference": "preference",
    "fact": "fact",
    "context": "observation",
    "correction": "correction",
}


def read(path: Path) -> Harvest:
    """Every memory of a Talome store: ``talome.db``, its ``data`` directory, or the API's JSON."""
    if path.is_dir():
        path = path / "talome.db"
    if is_sqlite(path):
        conn = open_read_only(path)
        try:
            rows = [
                {
                    "id": r["id"],
                    "type": r["type"],
                    "content": r["content"],
                    "source": r["source"],
                    "confidence": r["confidence"],
                    "accessCount": r["access_count"],
                    "enabled": bool(r["enabled"]),
                    "createdAt": r["created_at"],
                    "updatedAt": r["updated_at"],
                }
                for r in conn.execute("SELECT * FROM memories ORDER BY id")
            ]
        except sqlite3.Error as exc:
            raise InvalidInputError(f"{path.name} is not a Talome store: {unsafe(exc)}") from None
        except (KeyError, IndexError) as exc:
            raise InvalidInputError(f"{path.name} is not a Talome store: no {exc}") from None
        finally:
            conn.close()
    else:
        listed = read_json(path, "a Talome store or its API's JSON")
        if not isinstance(listed, list):
            raise InvalidInputError(f"{path} is not the JSON of Talome's GET /api/memories")
        rows = listed
    harvest = Harvest(SYSTEM)
    for row in rows:
        harvest.add(row, _memory, row)
    return harvest


def _memory(row: dict[str, Any]) -> Item:
    kind = str(row.get("type") or "fact")
    return Item(
        external_id=f"{SYSTEM}:{row['id']}",
        content=str(row["content"]),
        type=TYPES.get(kind, "fact"),
        created_at=moment(row["createdAt"]),
        updated_at=moment(row.get("updatedAt") or row["createdAt"]),
        tags=[f"kind:{kind}"],
        confidence=float(row.get("confidence", 1.0)),
        access_count=int(row.get("accessCount") or 0),
        session_id=row.get("source") or None,
        forgotten=None if row.get("enabled", True) else f"disabled in {SYSTEM}",
    )
