"""basic-memory's notes: the markdown files of a project directory (``~/basic-memory``).

Each observation (``- [category] text #tag (context)``) is one memory: its category is its
type where salience has one (else ``observation``, with the category as a ``kind:`` tag), its
``#tags`` and the note's tags are tags, its context is kept in the text, the note's title is
its title and the note's permalink a ``note:`` tag. A note's prose (outside list items) is one
memory of its own. Relations (``- type [[Target]]``) have no place in salience: they are
counted as unmappable. Times are the note's ``created`` / ``modified``, else those basic-memory's
own index keeps (its ``memory.db``, when it is in the folder or its ``.basic-memory/``: an
edited note keeps its first creation time), else the file's. The project is the index's
project of that folder (``main`` for ``~/basic-memory``), else the folder's name. A note whose
front matter cannot be read is skipped, with why (its tags would be lost)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import replace
from pathlib import Path

from salience.errors import InvalidInputError
from salience.sharing.importers.base import (
    Harvest,
    Item,
    is_sqlite,
    moment,
    open_read_only,
    unsafe,
)
from salience.sharing.importers.markdown import bullets, read_parts

SYSTEM = "basic-memory"
TYPES = {
    "fact": "fact",
    "decision": "decision",
    "preference": "preference",
    "technique": "procedure",
    "method": "procedure",
    "idea": "insight",
    "insight": "insight",
    "requirement": "fact",
}
_OBSERVATION = re.compile(r"^\[([^\]\[]+)\]\s+(.+)$")
_RELATION = re.compile(r'^("[^"]+"|[\w-]+)\s+\[\[[^\]]+\]\]')
_TASK = re.compile(r"^\[( |x|X|-)\]\s")
_TAG = re.compile(r"(?:^|\s)#([\w/-]+)")


def read(path: Path) -> Harvest:
    """Every observation and note body under ``path`` (a project directory or one note)."""
    files = sorted(path.rglob("*.md")) if path.is_dir() else [path]
    files = [f for f in files if not any(part.startswith(".") for part in f.parts[-3:-1])]
    if not files:
        raise InvalidInputError(f"{path} holds no basic-memory notes (*.md)")
    harvest = Harvest(SYSTEM)
    root = path if path.is_dir() else path.parent
    project, times = _index(root)
    for file in files:
        _note(file, root, project or root.name, times, harvest)
    return harvest


def _index(root: Path) -> tuple[str | None, dict[str, tuple[object, object]]]:
    """The project's name and each note's (created, updated) as basic-memory's index keeps
    them, if its ``memory.db`` is in ``root`` or ``root/.basic-memory``."""
    found = [f for f in (root / "memory.db", root / ".basic-memory" / "memory.db") if is_sqlite(f)]
    if not found:
        return None, {}
    conn = open_read_only(found[0])
    try:
        projects = [dict(r) for r in conn.execute("SELECT id, name, path, is_default FROM project")]
        ours = [p for p in projects if Path(str(p["path"])).name == root.name]
        ours = ours or [p for p in projects if p["is_default"]] or projects[:1]
        if not ours:
            return None, {}
        rows = conn.execute(
            "SELECT file_path, created_at, updated_at FROM entity WHERE project_id = ?",
            (ours[0]["id"],),
        )
        return str(ours[0]["name"]), {str(r[0]): (r[1], r[2]) for r in rows}
    except sqlite3.DatabaseError as exc:  # (not basic-memory's index: its notes still count)
        raise InvalidInputError(
            f"{found[0].name} is not basic-memory's index: {unsafe(exc)}"
        ) from None
    finally:
        conn.close()


def _note(
    file: Path,
    root: Path,
    project: str,
    times: dict[str, tuple[object, object]],
    harvest: Harvest,
) -> None:
    relative = file.relative_to(root).as_posix()
    parts = read_parts(file, f"{SYSTEM}:{relative}", harvest)
    if parts is None:
        return
    meta, body = parts
    stat = file.stat()
    indexed = times.get(relative, (None, None))
    permalink = str(meta.get("permalink") or file.relative_to(root).with_suffix("").as_posix())
    note_tags = meta.get("tags") or []
    if isinstance(note_tags, str):
        note_tags = [t.strip() for t in note_tags.split(",") if t.strip()]
    for key in meta:
        if key not in ("title", "type", "tags", "permalink", "created", "modified"):
            harvest.unmapped(f"front matter {key}", meta[key])
    note = Item(  # (what every memory of the note shares)
        external_id=f"{SYSTEM}:{permalink}",
        content="",
        type="observation",
        title=str(meta.get("title") or file.stem),
        created_at=moment(meta.get("created") or indexed[0], file_time=stat.st_mtime),
        updated_at=moment(meta.get("modified") or indexed[1], file_time=stat.st_mtime),
        project=project,
        tags=[f"note:{permalink}", *map(str, note_tags)],
    )
    _observations(body, note, harvest)
    prose = [
        line.strip()
        for line in body.splitlines()
        if line.strip() and not line.lstrip().startswith(("-", "*", "+", "#"))
    ]
    if prose:
        kind = f"kind:{meta.get('type') or 'note'}"
        harvest.items.append(replace(note, content=" ".join(prose), tags=[kind, *note.tags]))


def _observations(body: str, note: Item, harvest: Harvest) -> None:
    """Each observation of the note (relations counted, tasks and plain items left)."""
    for n, bullet in enumerate(bullets(body)):
        if _RELATION.match(bullet.text):
            harvest.unmappable["relations"] += 1
            continue
        if _TASK.match(bullet.text):
            continue
        found = _OBSERVATION.match(bullet.text)
        tags = _TAG.findall(bullet.text)
        if found is None and not tags:
            continue
        category, content = (found.group(1), found.group(2)) if found else ("note", bullet.text)
        harvest.items.append(
            replace(
                note,
                external_id=f"{note.external_id}/observations/{n}",
                content=content.strip(),
                type=TYPES.get(category.casefold(), "observation"),
                tags=list(dict.fromkeys([f"kind:{category}", *note.tags, *tags])),
            )
        )
