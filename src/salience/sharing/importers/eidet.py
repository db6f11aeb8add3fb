"""eidet's memories: its knowledge packs (JSON ``.eidet`` or markdown ``.md``) and its
markdown export (``eidet export``). Its live store is a RavenDB database, which only RavenDB
reads: export a pack or the markdown from eidet first (``eidet pack export``, ``eidet
export``).

A JSON pack carries every field: type, content, one-liner (the title), entities, tags,
importance, confidence, times, validity (a closed one: superseded, or forgotten with its
reason), the version chain (``parentMemoryId``), what it was derived from, valence, stage and
provenance (tags); its repo is the project. A markdown pack has no ids or times (the pack's
time is used), the export no times but the day and no validity. Links, drift, quarantine,
summaries and foresight hints have no place in salience."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_json, read_note, slug_name
from salience.sharing.importers.markdown import front_matter

SYSTEM = "eidet"
TYPES = {
    "observation": "observation",
    "insight": "insight",
    "procedure": "procedure",
    "heuristic": "heuristic",
}
_GROUP = re.compile(r"^## (Observation|Insight|Procedure|Heuristic)s\b")
_ENTRY = re.compile(r"^### (?:\[(\d+(?:\.\d+)?)\] )?(.*)$")
_META = re.compile(r"^<!-- eidet(-[a-z]+)?: (.*) -->$")
_EXPORT_ID = re.compile(r"^ID: `([^`]+)` \| Created: (\d{4}-\d{2}-\d{2})((?: `[^`]+`)*)$")


def read(path: Path) -> Harvest:
    """eidet's memories from a JSON pack, a markdown pack or a markdown export."""
    if path.is_dir():
        raise InvalidInputError(
            f"{path} is a folder: eidet keeps its memories in RavenDB; give a pack or an "
            "export file (eidet pack export, eidet export)"
        )
    harvest = Harvest(SYSTEM)
    text = read_note(path, harvest)
    if text is None:
        raise InvalidInputError(f"{path} cannot be read")
    if text.lstrip().startswith("{"):
        _json_pack(read_json(path, "an eidet pack"), harvest)
    elif text.startswith("---"):
        _markdown_pack(text, harvest)
    elif text.startswith("# Eidet Memory Export"):
        _export(text, harvest)
    else:
        raise InvalidInputError(f"{path} is not an eidet pack or export")
    return harvest


def _json_pack(pack: Any, harvest: Harvest) -> None:
    if not isinstance(pack, dict) or not isinstance(pack.get("entries"), list):
        raise InvalidInputError("the file is not an eidet pack (no entries)")
    for entry in pack["entries"]:
        harvest.add(entry, _entry, entry, pack, harvest)


def _entry(entry: dict[str, Any], pack: dict[str, Any], harvest: Harvest) -> Item:
    kind = str(entry.get("type") or "observation").casefold()
    validity = entry.get("validity") or {}
    ended = validity.get("validUntil")
    reason = entry.get("forgetReason")
    for name in ("links", "drift", "quarantine", "summary", "foresightHint", "forgetAfter"):
        harvest.unmapped(name, entry.get(name))
    tags = [f"kind:{kind}", *map(str, entry.get("tags") or [])]
    for name in ("valence", "stage"):
        if entry.get(name) and entry[name] not in ("neutral", "none"):
            tags.append(f"{name}:{entry[name]}")
    if entry.get("provenance"):
        tags.append(f"provenance:{entry['provenance']}")
    if pack.get("id"):
        tags.append(f"pack:{pack['id']}")
    created = moment(entry.get("createdAt") or pack.get("createdAt"))
    return Item(
        external_id=f"{SYSTEM}:{entry['id']}",
        content=str(entry["content"]),
        type=TYPES.get(kind, "observation"),
        title=entry.get("oneLiner") or None,
        created_at=created,
        tags=tags,
        importance=_unit(entry.get("importance")),
        confidence=_unit(entry.get("confidence")),
        access_count=int(entry.get("accessCount") or 0),
        last_accessed_at=None
        if not entry.get("lastAccessedAt")
        else moment(entry["lastAccessedAt"]),
        project=slug_name(str(entry["repoId"])) if entry.get("repoId") else None,
        session_id=entry.get("sourceSessionId") or None,
        entities=[str(e) for e in entry.get("entities") or []],
        derived_from=[f"{SYSTEM}:{d}" for d in entry.get("derivedFrom") or []],
        supersedes=f"{SYSTEM}:{entry['parentMemoryId']}" if entry.get("parentMemoryId") else None,
        valid_until=None if not ended or reason else moment(ended),
        forgotten=str(reason) if ended and reason else None,
    )


def _unit(value: object) -> float | None:
    return None if value is None else min(1.0, max(0.0, float(value)))  # type: ignore[arg-type]


def _markdown_pack(text: str, harvest: Harvest) -> None:
    meta, body = front_matter(text)
    about = meta.get("eidet") or {}
    pack = {"id": about.get("id"), "createdAt": about.get("createdAt")}
    for kind, title, fields, content in _sections(body):
        values = dict(p.split("=", 1) for p in fields.get("", "").split() if "=" in p)
        ident = hashlib.sha256(f"{pack['id']}\0{content}".encode()).hexdigest()[:12]
        entry = {
            "id": f"pack/{pack['id']}/{kind}/{ident}",
            "type": kind,
            "content": content,
            "oneLiner": title,
            "tags": [t for t in values.get("tags", "").split(",") if t],
            "importance": float(values.get("importance", 0.5)),
            "confidence": float(values.get("confidence", 0.7)),
            "provenance": values.get("provenance"),
            "valence": values.get("valence"),
            "stage": values.get("stage"),
            "entities": [e.strip() for e in fields.get("-entities", "").split(",") if e.strip()],
            "derivedFrom": [d for d in values.get("derivedFrom", "").split(",") if d],
            "summary": fields.get("-summary"),
            "foresightHint": fields.get("-foresight"),
        }
        harvest.items.append(_entry(entry, pack, harvest))


def _sections(body: str) -> list[tuple[str, str, dict[str, str], str]]:
    """(type, heading, the comment fields by suffix, content) of every entry."""
    found: list[tuple[str, str, dict[str, str], list[str]]] = []
    kind = None
    for line in body.splitlines():
        group = _GROUP.match(line)
        if group:
            kind = group.group(1).casefold()
            continue
        entry = _ENTRY.match(line)
        if entry and kind:
            shown = {"[importance]": entry.group(1)} if entry.group(1) else {}
            found.append((kind, entry.group(2).strip(), shown, []))
            continue
        if not found:
            continue
        comment = _META.match(line.strip())
        if comment and not found[-1][3]:
            found[-1][2][comment.group(1) or ""] = comment.group(2)
        else:
            found[-1][3].append(line)
    return [(k, t, f, "\n".join(c).strip()) for k, t, f, c in found if "\n".join(c).strip()]


def _export(text: str, harvest: Harvest) -> None:
    for kind, title, shown, content in _sections(text):
        lines = content.splitlines()
        head = _EXPORT_ID.match(lines[0]) if lines else None
        if head is None:
            harvest.skipped.append((title, "no ID line: not an entry of eidet's export"))
            continue
        tags = re.findall(r"`([^`]+)`", head.group(3))
        entry = {
            "id": head.group(1),
            "type": kind,
            "content": "\n".join(lines[1:]).strip(),
            "oneLiner": title,
            "tags": tags,
            "createdAt": f"{head.group(2)}T00:00:00Z",
            "importance": shown.get("[importance]"),
            "repoId": head.group(1).split("/")[1] if head.group(1).count("/") >= 3 else None,
        }
        harvest.items.append(_entry(entry, {}, harvest))
