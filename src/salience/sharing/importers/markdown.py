"""Markdown as memory systems keep it: YAML front matter, headings and list items."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from salience.sharing.importers.base import Harvest, read_note

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_LEAD = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter (``---`` YAML ``---`` at the top; {} if none or unreadable) and the
    body after it."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines(keepends=True)
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            try:
                found = yaml.safe_load("".join(lines[1:end]))
            except yaml.YAMLError:
                return {}, text
            return (found if isinstance(found, dict) else {}), "".join(lines[end + 1 :])
    return {}, text


def read_parts(file: Path, name: str, harvest: Harvest) -> tuple[dict[str, Any], str] | None:
    """A markdown file's front matter and body; None, reported as skipped under ``name``
    (with why), if the file cannot be read or its front matter is broken."""
    text = read_note(file, harvest)
    if text is None:
        return None
    broken = front_matter_error(text)
    if broken is not None:
        harvest.skipped.append((name, broken))
        return None
    return front_matter(text)


def front_matter_error(text: str) -> str | None:
    """Why the front matter at the top of ``text`` cannot be read (None: it reads, or there
    is none): a file whose front matter is broken is reported, never read as plain text."""
    if not text.startswith("---"):
        return None
    lines = text.splitlines()
    end = next((n for n in range(1, len(lines)) if lines[n].strip() == "---"), None)
    if end is None:
        return "its front matter has no closing ---"
    try:
        found = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        return f"its front matter is not valid YAML{where}"
    if found is not None and not isinstance(found, dict):
        return "its front matter is not a mapping of names to values"
    return None


@dataclass(frozen=True)
class Bullet:
    """A top-level list item (``-``, ``*``, ``+`` or numbered) with its continuation lines,
    or a paragraph of prose, under its headings."""

    text: str
    headings: tuple[str, ...]
    prose: bool = False


def bullets(body: str) -> list[Bullet]:
    """Every top-level list item outside code blocks (nested items and indented lines join
    the item above), with the headings it sits under."""
    return [b for b in blocks(body) if not b.prose]


def blocks(body: str) -> list[Bullet]:
    """Every top-level list item (as :func:`bullets`) and every paragraph of prose outside
    code blocks, in the order written."""
    found: list[tuple[list[str], tuple[str, ...], bool]] = []
    headings: list[tuple[int, str]] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
            found.append(([], (), False))  # a code block ends the block above
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            headings = [(n, t) for n, t in headings if n < level] + [(level, heading.group(2))]
            found.append(([], (), False))  # a heading ends the block above
            continue
        item = _ITEM.match(line)
        under = tuple(t for _, t in headings)
        open_block = found[-1] if found and found[-1][0] else None
        if item and not item.group(1):
            found.append(([item.group(2).strip()], under, False))
        elif not line.strip():
            found.append(([], (), False))
        elif open_block and not open_block[2] and (line.startswith((" ", "\t")) or item):
            open_block[0].append(_LEAD.sub("", line.strip()).strip())
        elif open_block and open_block[2]:
            open_block[0].append(line.strip())
        elif not line.startswith((" ", "\t")) or not open_block:
            found.append(([line.strip()], under, True))
    return [Bullet(" ".join(parts), where, prose) for parts, where, prose in found if parts]


def paragraphs(body: str) -> str:
    """The body's text with its title heading dropped and spacing kept as written."""
    lines = body.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()
