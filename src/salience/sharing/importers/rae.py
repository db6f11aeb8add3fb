"""RAE's memories: its PostgreSQL database by URL (read with one ``SELECT``, in a read-only
transaction; needs ``pip install 'salience[postgres]'``), a CSV dump of its ``memories``
table (``\\copy (SELECT * FROM memories) TO 'memories.csv' CSV HEADER``; an SQL dump is
restored first, then read by URL), or its lite SQLite store (``rae_lite.db``). RAE has no
export of its own.

A memory keeps its content, label (the title), importance, times, usage (access count), TTL
(``valid_until``), project and session; its layer is kept as RAE's face keeps it
(``rae-layer:`` tag) and gives the type (semantic: ``fact``, reflective: ``insight``, the others
``observation``); its source, agent, information class and scalar metadata become tags, its
tenant the source user. Governance, strength, memory type and embeddings have no place in
salience."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, is_sqlite, moment, open_read_only

SYSTEM = "rae"
TYPES = {"semantic": "fact", "reflective": "insight"}
KEPT = ("id", "content", "layer", "tags", "metadata", "importance", "created_at", "timestamp")


def read(path: Path | str) -> Harvest:
    """RAE's memories from its database (a ``postgresql://`` URL), a CSV dump of
    ``memories`` or a lite SQLite store."""
    harvest = Harvest(SYSTEM)
    if isinstance(path, str):
        harvest.items += [_memory(row, harvest) for row in _from_postgres(path)]
        return harvest
    if path.is_dir():
        path = path / "rae_lite.db" if (path / "rae_lite.db").exists() else path / "memories.csv"
    if is_sqlite(path):
        conn = open_read_only(path)
        try:
            rows = [dict(r) for r in conn.execute("SELECT * FROM memories ORDER BY created_at")]
        except Exception as exc:
            raise InvalidInputError(f"{path} is not RAE's lite store: {exc}") from None
        finally:
            conn.close()
    else:
        try:
            with path.open(encoding="utf-8", newline="") as handle:
                rows = list(csv.DictReader(handle))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise InvalidInputError(f"{path} is not a CSV dump of RAE's memories: {exc}") from None
        if rows and not {"id", "content", "layer"} <= rows[0].keys():
            raise InvalidInputError(f"{path} is not a CSV dump of RAE's memories (no id, content)")
        rows = _whole(rows, harvest)
    for row in rows:
        harvest.add(row, _memory, row, harvest)
    return harvest


def _whole(rows: list[dict[str, Any]], harvest: Harvest) -> list[dict[str, Any]]:
    """The CSV's rows that have every column (a dump cut mid-row leaves a last row short of
    some, or one quoted field running to the end): the others are skipped, named."""
    whole = []
    for number, row in enumerate(rows, start=1):
        if None in row.values() or None in row:
            harvest.skipped.append(
                (f"{SYSTEM}:{row.get('id') or f'row {number}'}", f"row {number} is cut short")
            )
        else:
            whole.append(row)
    return whole


def _from_postgres(url: str) -> list[dict[str, Any]]:
    """Every row of RAE's ``memories`` table (read-only; the URL's password never shown)."""
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError:
        raise InvalidInputError(
            "reading RAE's PostgreSQL database needs psycopg: pip install 'salience[postgres]'"
        ) from None
    from salience.net import redact

    try:
        with psycopg.connect(url, row_factory=dict_row, connect_timeout=10) as conn:
            conn.read_only = True
            return list(conn.execute("SELECT * FROM memories ORDER BY created_at, id"))
    except psycopg.Error as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InvalidInputError(f"cannot read RAE's memories at {redact(url)}: {first}") from None


def _array(value: object) -> list[str]:
    """Tags as the lite store (a JSON array) or PostgreSQL's CSV (``{a,"b c"}``) writes them."""
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value or "").strip()
    if text.startswith("["):
        return [str(v) for v in json.loads(text)]
    if text.startswith("{") and text.endswith("}"):
        return next(csv.reader([text[1:-1]], skipinitialspace=True), [])
    return []


def _object(value: object) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        found = json.loads(str(value or "{}"))
    except json.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}


def _memory(row: dict[str, Any], harvest: Harvest) -> Item:
    layer = str(row.get("layer") or "episodic")
    metadata = _object(row.get("metadata"))
    tags = [*_array(row.get("tags")), f"rae-layer:{layer}"]
    if row.get("source"):
        tags.append(f"source:{row['source']}")
    if row.get("agent_id") and row["agent_id"] != "default":
        tags.append(f"agent:{row['agent_id']}")
    info = row.get("info_class") or metadata.pop("info_class", None)
    metadata.pop("info_class", None)
    if info and info != "internal":
        tags.append(f"info-class:{info}")
    session = row.get("session_id") or metadata.get("session_id")
    project = row.get("project") or metadata.get("project")
    metadata.pop("session_id", None)
    metadata.pop("project", None)
    for key, value in metadata.items():
        if isinstance(value, str | int | float | bool) and len(f"meta:{key}={value}") <= 200:
            tags.append(f"meta:{key}={value}")
        else:
            harvest.unmapped(f"metadata.{key}", value)
    for name in ("embedding", "memory_type", "strength", "governance"):
        value = row.get(name)
        if name == "governance" and _object(value) in ({}, None):
            continue
        if name == "strength" and str(value) in ("1", "1.0"):
            continue
        harvest.unmapped(name, value)
    expires = row.get("expires_at")
    accessed = row.get("last_accessed_at")
    uses = row.get("usage_count") or row.get("access_count") or 0
    return Item(
        external_id=f"{SYSTEM}:{row['id']}",
        content=str(row["content"]),
        type=TYPES.get(layer, "observation"),
        title=row.get("human_label") or None,
        created_at=moment(row.get("created_at") or row.get("timestamp")),
        updated_at=moment(row["modified_at"]) if row.get("modified_at") else None,
        tags=tags,
        importance=None if row.get("importance") in (None, "") else float(row["importance"]),
        access_count=int(uses),
        last_accessed_at=moment(accessed) if accessed else None,
        project=str(project) if project else None,
        session_id=str(session) if session else None,
        source_user=str(row["tenant_id"]) if row.get("tenant_id") else None,
        valid_until=moment(expires) if expires else None,
    )
