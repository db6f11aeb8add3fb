"""Claude Code's memory files: ``CLAUDE.md`` / ``CLAUDE.local.md`` (at a project's top, in its
sub-folders and in ``.claude/``) and ``.claude/rules/**/*.md`` (instructions: one memory per
list item, numbered or not, and per paragraph of prose, type ``preference``), and the auto
memory of ``~/.claude/projects/<project>/memory/`` (a typed file with front matter ``name``,
``description`` and ``type`` / ``metadata.type`` is one memory; a free-form file gives one per
list item and paragraph). PATH is a project directory, a folder of projects, ``~/.claude``, a
memory folder or one file.

Claude Code stores no ids, times, importance or access counts: a memory's time is its file's,
its id comes from its file and text (an edited line is a new memory). Its project is the
topmost folder under PATH that holds a ``CLAUDE.md`` or ``.claude`` (a nested ``CLAUDE.md``
and a project's rules belong to it), or, for auto memory, the folder's name
(``-home-dev-demo-app`` is ``demo-app``; when a project of this import ends that name, its name:
``-home-dev-work-shop-api`` is ``shop-api``). ``~/.claude``'s own files are ``scope:global``.
A file that is read but gives nothing (broken front matter, no text) is reported as skipped.
``@path`` imports are not followed."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from salience.errors import InvalidInputError
from salience.sharing.importers.base import Harvest, Item, moment, slug_name
from salience.sharing.importers.markdown import blocks, paragraphs, read_parts

SYSTEM = "claude-code"
TYPES = {"user": "profile", "feedback": "preference", "project": "fact", "reference": "fact"}
INSTRUCTIONS = ("CLAUDE.md", "CLAUDE.local.md")
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build"})
MAX_DEPTH = 8
"""How deep under PATH nested ``CLAUDE.md`` files are looked for."""


def read(path: Path) -> Harvest:
    """Every memory in the Claude Code files at or under ``path``."""
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist")
    root = path if path.is_dir() else path.parent
    harvest = Harvest(SYSTEM)
    files = _files(path)
    projects = {_project_root(f, root) for f in files} - {None}
    names = {p.name for p in projects if p is not None}
    for file in files:
        _read_file(file, root, _project(file, root, names), harvest)
    if not harvest.items and not harvest.skipped:
        raise InvalidInputError(f"{path} holds no Claude Code memory files")
    return harvest


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    found = _instructions(path)
    for rules in (path / ".claude" / "rules", path / "rules"):
        found += sorted(rules.rglob("*.md")) if rules.is_dir() else []
    for memory in [
        path,
        *sorted(path.glob("projects/*/memory")),
        *sorted(path.glob(".claude/projects/*/memory")),
    ]:
        if memory.name == "memory" or (memory / "MEMORY.md").exists():
            found += sorted(memory.glob("*.md"))
    return [f for f in dict.fromkeys(found) if f.is_file()]


def _instructions(path: Path) -> list[Path]:
    """Every ``CLAUDE.md`` / ``CLAUDE.local.md`` under ``path`` (and in its ``.claude``
    folders), top first, skipping dependency and hidden folders and Claude's own
    ``projects`` transcripts."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(path):
        here = Path(folder)
        depth = len(here.relative_to(path).parts)
        dirs[:] = sorted(
            d
            for d in dirs
            if depth < MAX_DEPTH
            and d not in SKIPPED_DIRS
            and (not d.startswith(".") or d == ".claude")
            and not (here.name == ".claude" and d == "projects")
        )
        found += [here / name for name in INSTRUCTIONS if name in files]
    return found


def _is_home(folder: Path, root: Path) -> bool:
    """Whether ``folder`` is Claude Code's own ``~/.claude`` (not a project's ``.claude``)."""
    return folder.name == ".claude" and (folder == root or (folder / "projects").is_dir())


def _project_root(file: Path, root: Path) -> Path | None:
    """The project folder an instruction or rule file belongs to (None: a user's own)."""
    if file.parent.name == "memory" or not file.is_relative_to(root):
        return None
    for parent in [root, *(root / p for p in _parts(file.parent.relative_to(root)))]:
        if parent.name == ".claude" or _is_home(parent, root):
            return None if _is_home(parent, root) else parent.parent
        markers = [parent / n for n in INSTRUCTIONS]
        if not _is_home(parent / ".claude", root):  # (a home's .claude marks no project)
            markers.append(parent / ".claude")
        if any(m.exists() for m in markers):
            return parent
    return None


def _parts(relative: Path) -> list[Path]:
    """``a/b/c`` as ``a``, ``a/b``, ``a/b/c``."""
    return [Path(*relative.parts[: n + 1]) for n in range(len(relative.parts))]


def _project(file: Path, root: Path, names: set[str]) -> str | None:
    parent = file.parent
    if parent.name == "memory" and parent.parent.parent.name == "projects":
        slug = parent.parent.name
        known = [n for n in names if slug == n or slug.endswith(f"-{n}")]
        return max(known, key=len) if known else slug_name(slug)
    project = _project_root(file, root)
    return None if project is None else project.name


def _read_file(file: Path, root: Path, project: str | None, harvest: Harvest) -> None:
    where = str(file.relative_to(root)) if file.is_relative_to(root) else str(file)
    parts = read_parts(file, f"{SYSTEM}:{where}", harvest)
    if parts is None:
        return
    meta, body = parts
    when = moment(None, file_time=file.stat().st_mtime)
    home = _is_home(file.parent, root)
    scope = ["scope:global"] if home and file.name in INSTRUCTIONS else []
    kind = meta.get("type") or (meta.get("metadata") or {}).get("type")
    if kind:
        content = paragraphs(body)
        if not content:
            harvest.skipped.append((f"{SYSTEM}:{where}", "it holds no text below its front matter"))
            return
        harvest.items.append(
            Item(
                external_id=f"{SYSTEM}:{where}",
                content=content,
                type=TYPES.get(str(kind), "fact"),
                title=str(meta.get("description") or meta.get("name") or file.stem),
                created_at=when,
                tags=[f"kind:{kind}", f"name:{meta.get('name') or file.stem}", *scope],
                project=project,
            )
        )
        return
    instructions = file.name in INSTRUCTIONS or "rules" in file.relative_to(root).parts[:-1]
    before = len(harvest.items)
    for block in blocks(body):
        if file.name == "MEMORY.md" and _is_index_line(block.text, file.parent):
            continue
        digest = hashlib.sha256(f"{where}\0{block.text}".encode()).hexdigest()[:16]
        section = [f"section:{block.headings[-1]}"] if block.headings else []
        harvest.items.append(
            Item(
                external_id=f"{SYSTEM}:{where}#{digest}",
                content=block.text,
                type="preference" if instructions else "observation",
                created_at=when,
                tags=[f"kind:{'instruction' if instructions else 'note'}", *section, *scope],
                project=project,
            )
        )
    if len(harvest.items) == before and file.name != "MEMORY.md":
        harvest.skipped.append((f"{SYSTEM}:{where}", "it holds no list item or paragraph"))


def _is_index_line(text: str, folder: Path) -> bool:
    """``[Title](file.md) — hook``: MEMORY.md's index of the typed files (imported on their own)."""
    if not text.startswith("[") or "](" not in text:
        return False
    target = text.split("](", 1)[1].split(")", 1)[0]
    return (folder / target).is_file()
