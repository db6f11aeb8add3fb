"""aide's memories and decisions: its bbolt store (``.aide/memory/memory.db``, read-only,
read with :mod:`bolt`), its git-shareable tree (``.aide/shared/``), or the JSON of
``aide memory export --format=json``. PATH may be the project root or its ``.aide`` folder:
the store is preferred (the export leaves out ``forget``-tagged memories, and stops at 50
while aide's daemon runs; the shared tree holds only shareable memories).

A memory keeps its category (a ``kind:`` tag, and salience's nearest type), content, tags
(``project:`` and ``session:`` tags also give its project and session; ``forget`` makes it
forgotten), priority, access count and times. A decision becomes a ``decision`` memory on its
topic, with its rationale (as ``Memory.decide`` writes it), details, references and
precedence; its versions form a chain. A tombstone's memory is gone from aide: it is
reported as skipped. ``plan`` and ``namespace`` have no place in salience."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_json, read_note
from salience.sharing.importers.bolt import BoltFile
from salience.sharing.importers.markdown import front_matter

SYSTEM = "aide"
TYPES = {
    "learning": "insight",
    "decision": "decision",
    "issue": "observation",
    "discovery": "observation",
    "blocker": "observation",
    "abandoned": "observation",
    "gotcha": "heuristic",
    "pattern": "heuristic",
    "session": "summary",
    "instinct": "heuristic",
}
RATIONALE = "\nRationale: "  # as salience.engine.decisions writes a decision
ZERO = "0001-01-01T00:00:00Z"  # Go's zero time: never


def read(path: Path) -> Harvest:
    """aide's memories from its store, its shared tree or its JSON export at ``path``."""
    harvest = Harvest(SYSTEM)
    if path.is_dir():
        aide = path / ".aide" if (path / ".aide").is_dir() else path
        for store in (aide / "memory" / "memory.db", aide / "memory" / "store.db"):
            if store.is_file():
                _from_store(store, harvest)
                return harvest
        shared = aide / "shared" if (aide / "shared").is_dir() else aide
        if (shared / "manifest.json").is_file() or (shared / "memories").is_dir():
            _from_shared(shared, harvest)
            return harvest
        raise InvalidInputError(f"{path} holds no aide store (.aide/memory/memory.db) or tree")
    if path.read_bytes()[:1] in (b"[", b"n"):
        memories = read_json(path, "aide's JSON export") or []
        if not isinstance(memories, list):
            raise InvalidInputError(f"{path} is not aide's JSON export (a list of memories)")
        if len(memories) == 50:
            harvest.skipped.append(
                (
                    str(path),
                    "holds exactly 50 memories: aide's daemon caps an export at 50; "
                    "import .aide/memory/memory.db for all of them",
                )
            )
        for memory in memories:
            harvest.add(memory, _memory, memory, harvest)
        return harvest
    _from_store(path, harvest)
    return harvest


def _from_store(path: Path, harvest: Harvest) -> None:
    bolt = BoltFile(path)
    for key, value in bolt.bucket(b"memories").items():
        harvest.add({"id": key.decode(errors="replace")}, _stored, value, path, harvest)
    _decisions([_json(v, path) for v in bolt.bucket(b"decisions").values()], harvest)
    for key, value in bolt.bucket(b"tombstones").items():
        stone = _json(value, path)
        harvest.skipped.append((f"{SYSTEM}:{key.decode()}", _gone(stone)))


def _json(value: bytes, path: Path) -> dict[str, Any]:
    try:
        found = json.loads(value)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path}: a record is not JSON ({exc})") from None
    if not isinstance(found, dict):
        raise InvalidInputError(f"{path}: a record is not a JSON object")
    return found


def _gone(stone: dict[str, Any]) -> str:
    return (
        f"deleted in aide at {stone.get('deletedAt') or stone.get('deleted_at')}: its text is gone"
    )


def _when(value: object) -> object:
    return None if value in (None, "", ZERO) else value


def _stored(value: bytes, path: Path, harvest: Harvest) -> Item:
    """A memory of aide's store: its JSON value."""
    return _memory(_json(value, path), harvest)


def _memory(row: dict[str, Any], harvest: Harvest) -> Item:
    category = str(row.get("category") or "learning")
    tags = [str(t) for t in row.get("tags") or []]
    project = next((t[8:] for t in tags if t.startswith("project:")), None)
    session = next((t[8:] for t in tags if t.startswith("session:")), None)
    for name in ("plan", "namespace"):
        harvest.unmapped(name, row.get(name))
    agent = [f"agent:{row['agent']}"] if row.get("agent") else []
    priority = float(row.get("priority") or 0)
    created = moment(row.get("createdAt") or row.get("created_at"))
    updated = _when(row.get("updatedAt") or row.get("updated_at"))
    accessed = _when(row.get("lastAccessed"))
    return Item(
        external_id=f"{SYSTEM}:{row['id']}",
        content=str(row["content"]),
        type=TYPES.get(category, "observation"),
        created_at=created,
        updated_at=None if updated is None else moment(updated),
        tags=[f"kind:{category}", *(t for t in tags if t != "forget"), *agent],
        priority=priority or None,
        access_count=int(row.get("accessCount") or 0),
        last_accessed_at=None if accessed is None else moment(accessed),
        project=project,
        session_id=session,
        forgotten="tagged forget in aide" if "forget" in tags else None,
    )


def _decisions(rows: list[dict[str, Any]], harvest: Harvest) -> None:
    """Every version of every topic, oldest first, each superseding the one before."""
    last: dict[str, str] = {}
    for row in sorted(
        rows, key=lambda r: (str(r["topic"]), moment(r.get("createdAt") or r.get("created_at")))
    ):
        topic = str(row["topic"])
        created = moment(row.get("createdAt") or row.get("created_at"))
        text = str(row["decision"])
        if row.get("rationale"):
            text += RATIONALE + str(row["rationale"])
        if row.get("details"):
            text += "\nDetails: " + str(row["details"])
        references = row.get("references") or []
        by = row.get("decidedBy") or row.get("decided_by")
        precedence = int(row.get("precedence") or 0)
        ident = f"{SYSTEM}:decision:{topic}:{int(created.timestamp() * 1_000_000_000)}"
        harvest.items.append(
            Item(
                external_id=ident,
                content=text,
                type="decision",
                created_at=created,
                tags=[
                    "kind:decision",
                    *([f"precedence:{precedence}"] if precedence else []),
                    *([f"decided-by:{by}"] if by else []),
                    *(f"ref:{r}" for r in references),
                ],
                topic_key=topic,
                supersedes=last.get(topic),
            )
        )
        last[topic] = ident


def _created(row: dict[str, Any]) -> datetime:
    return moment(row.get("createdAt") or row.get("created_at"))


def _from_shared(shared: Path, harvest: Harvest) -> None:
    for file in sorted((shared / "memories").glob("*.md")):
        meta, body = front_matter(read_note(file, harvest) or "")
        if meta.get("id"):
            harvest.items.append(_memory({**meta, "content": body.strip()}, harvest))
    rows = []
    for file in sorted((shared / "decisions").glob("*/*.md")):
        meta, body = front_matter(read_note(file, harvest) or "")
        if meta.get("topic"):
            rows.append({**meta, **_sections(body)})
    _decisions(rows, harvest)
    for file in sorted((shared / "tombstones").glob("*.md")):
        meta, _ = front_matter(read_note(file, harvest) or "")
        harvest.skipped.append((f"{SYSTEM}:{meta.get('kind')}:{meta.get('id')}", _gone(meta)))


def _sections(body: str) -> dict[str, str]:
    """A decision file's ``## Rationale`` and ``## Details`` sections."""
    found: dict[str, list[str]] = {}
    current = None
    for line in body.splitlines():
        if line.startswith("## "):
            current = line[3:].strip().casefold()
            found[current] = []
        elif current is not None:
            found[current].append(line)
    return {k: "\n".join(v).strip() for k, v in found.items() if k in ("rationale", "details")}
