"""Claude Code's memory files: ``CLAUDE.md`` / ``CLAUDE.local.md`` / ``.claude/rules/*.md``
(instructions: one memory per list item, type ``preference``), and the auto memory of
``~/.claude/projects/<project>/memory/`` (a typed file with front matter ``name``,
``description`` and ``type`` / ``metadata.type`` is one memory; a free-form file gives one per
list item). PATH is a project directory, ``~/.claude``, a memory folder or one file.

Claude Code stores no ids, times, importance or access counts: a memory's time is its file's,
its id comes from its file and text (an edited line is a new memory), its project from the
folder (``-home-dev-demo-app`` is ``demo-app``). ``@path`` imports are not followed."""

from __future__ import annotations

import hashlib
from pathlib import Path

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, read_note, slug_name
from salience.sharing.importers.markdown import bullets, front_matter, paragraphs

SYSTEM = "claude-code"
TYPES = {"user": "profile", "feedback": "preference", "project": "fact", "reference": "fact"}
INSTRUCTIONS = ("CLAUDE.md", "CLAUDE.local.md")


def read(path: Path) -> Harvest:
    """Every memory in the Claude Code files at or under ``path``."""
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist")
    root = path if path.is_dir() else path.parent
    harvest = Harvest(SYSTEM)
    for file in _files(path):
        _read_file(file, root, harvest)
    if not harvest.items and not harvest.skipped:
        raise InvalidInputError(f"{path} holds no Claude Code memory files")
    return harvest


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = [path / name for name in INSTRUCTIONS] + [path / ".claude" / "CLAUDE.md"]
    for rules in (path / ".claude" / "rules", path / "rules"):
        found += sorted(rules.glob("*.md")) if rules.is_dir() else []
    for memory in [
        path,
        *sorted(path.glob("projects/*/memory")),
        *sorted(path.glob(".claude/projects/*/memory")),
    ]:
        if memory.name == "memory" or (memory / "MEMORY.md").exists():
            found += sorted(f for f in memory.glob("*.md") if f not in found)
    return [f for f in dict.fromkeys(found) if f.is_file()]


def _project(file: Path) -> str | None:
    parent = file.parent
    if parent.name == "memory" and parent.parent.parent.name == "projects":
        return slug_name(parent.parent.name)
    if file.name in INSTRUCTIONS and parent.name != ".claude":
        return parent.name
    return None


def _read_file(file: Path, root: Path, harvest: Harvest) -> None:
    text = read_note(file, harvest)
    if text is None:
        return
    when = moment(None, file_time=file.stat().st_mtime)
    meta, body = front_matter(text)
    where = str(file.relative_to(root)) if file.is_relative_to(root) else str(file)
    project = _project(file)
    scope = ["scope:global"] if file.parent.name == ".claude" and file.name == "CLAUDE.md" else []
    kind = meta.get("type") or (meta.get("metadata") or {}).get("type")
    if kind:
        harvest.items.append(
            Item(
                external_id=f"{SYSTEM}:{where}",
                content=paragraphs(body),
                type=TYPES.get(str(kind), "fact"),
                title=str(meta.get("description") or meta.get("name") or file.stem),
                created_at=when,
                tags=[f"kind:{kind}", f"name:{meta.get('name') or file.stem}", *scope],
                project=project,
            )
        )
        return
    instructions = file.name in INSTRUCTIONS or file.parent.name == "rules"
    for bullet in bullets(body):
        if file.name == "MEMORY.md" and _is_index_line(bullet.text, file.parent):
            continue
        digest = hashlib.sha256(f"{where}\0{bullet.text}".encode()).hexdigest()[:16]
        section = [f"section:{bullet.headings[-1]}"] if bullet.headings else []
        harvest.items.append(
            Item(
                external_id=f"{SYSTEM}:{where}#{digest}",
                content=bullet.text,
                type="preference" if instructions else "observation",
                created_at=when,
                tags=[f"kind:{'instruction' if instructions else 'note'}", *section, *scope],
                project=project,
            )
        )


def _is_index_line(text: str, folder: Path) -> bool:
    """``[Title](file.md) — hook``: MEMORY.md's index of the typed files (imported on their own)."""
    if not text.startswith("[") or "](" not in text:
        return False
    target = text.split("](", 1)[1].split(")", 1)[0]
    return (folder / target).is_file()
