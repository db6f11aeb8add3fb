"""basic-memory's notes: the markdown files of a project directory (``~/basic-memory``).

Each observation (``- [category] text #tag (context)``) is one memory: its category is its
type where salience has one (else ``observation``, with the category as a ``kind:`` tag), its
``#tags`` and the note's tags are tags, its context is kept in the text, the note's title is
its title and the note's permalink a ``note:`` tag. A note's prose (outside list items) is one
memory of its own. Relations (``- type [[Target]]``) have no place in salience: they are
counted as unmappable. Times are the note's ``created`` / ``modified``, else the file's."""

from __future__ import annotations

import re
from pathlib import Path

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_note
from salience.sharing.importers.markdown import bullets, front_matter

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
    for file in files:
        _note(file, path if path.is_dir() else file.parent, harvest)
    return harvest


def _note(file: Path, root: Path, harvest: Harvest) -> None:
    text = read_note(file, harvest)
    if text is None:
        return
    meta, body = front_matter(text)
    stat = file.stat()
    created = moment(meta.get("created"), file_time=stat.st_mtime)
    updated = moment(meta.get("modified"), file_time=stat.st_mtime)
    permalink = str(meta.get("permalink") or file.relative_to(root).with_suffix("").as_posix())
    title = str(meta.get("title") or file.stem)
    note_tags = meta.get("tags") or []
    if isinstance(note_tags, str):
        note_tags = [t.strip() for t in note_tags.split(",") if t.strip()]
    for key in meta:
        if key not in ("title", "type", "tags", "permalink", "created", "modified"):
            harvest.unmapped(f"front matter {key}", meta[key])
    prose = []
    for line in body.splitlines():
        if line.lstrip().startswith(("-", "*", "+")) or line.startswith("#"):
            continue
        if line.strip():
            prose.append(line.strip())
    listed = bullets(body)
    for n, bullet in enumerate(listed):
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
            Item(
                external_id=f"{SYSTEM}:{permalink}/observations/{n}",
                content=content.strip(),
                type=TYPES.get(category.casefold(), "observation"),
                title=title,
                created_at=created,
                updated_at=updated,
                tags=list(
                    dict.fromkeys(
                        [f"kind:{category}", f"note:{permalink}", *map(str, note_tags), *tags]
                    )
                ),
            )
        )
    if prose:
        harvest.items.append(
            Item(
                external_id=f"{SYSTEM}:{permalink}",
                content=" ".join(prose),
                type="observation",
                title=title,
                created_at=created,
                updated_at=updated,
                tags=[
                    f"kind:{meta.get('type') or 'note'}",
                    f"note:{permalink}",
                    *map(str, note_tags),
                ],
            )
        )
