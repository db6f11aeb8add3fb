"""Markdown as memory systems keep it: YAML front matter, headings and list items."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)[-*+]\s+(.*)$")


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


@dataclass(frozen=True)
class Bullet:
    """A top-level list item with its continuation lines, under its headings."""

    text: str
    headings: tuple[str, ...]


def bullets(body: str) -> list[Bullet]:
    """Every top-level list item outside code blocks (nested items and indented lines join
    the item above), with the headings it sits under."""
    found: list[tuple[list[str], tuple[str, ...]]] = []
    headings: list[tuple[int, str]] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            headings = [(n, t) for n, t in headings if n < level] + [(level, heading.group(2))]
            found.append(([], ()))  # a heading ends the item above
            continue
        item = _ITEM.match(line)
        if item and not item.group(1):
            found.append(([item.group(2).strip()], tuple(t for _, t in headings)))
        elif line.strip() and found and found[-1][0] and (line.startswith((" ", "\t")) or item):
            found[-1][0].append(line.strip().lstrip("-*+ ").strip())
        elif not line.strip() and found and found[-1][0]:
            found.append(([], ()))
    return [Bullet(" ".join(parts), where) for parts, where in found if parts]


def paragraphs(body: str) -> str:
    """The body's text with its title heading dropped and spacing kept as written."""
    lines = body.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip()
