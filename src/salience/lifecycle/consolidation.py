"""Consolidation rules (pure): observations that share tags become an insight.

From eidet's document: candidates are current observations not yet consolidated (no insight
lists them in ``derived_from``); union-find joins two candidates that share a tag (compared
case-insensitively; sharing is transitive; a memory without tags is its own group). A group
of 3 or more either boosts an existing insight whose vector is more than 0.85 similar to the
group (importance + 0.05 per member, at most 1) or becomes a new insight: importance
``min(1, mean · 1.2)``, confidence 0.7, the union of the tags, and the content of the most
important member (ties: the oldest) — or, for a group of 5 or more when an LLM is configured,
the LLM's summary of the members (:func:`summarize`). Members are linked through the
insight's ``derived_from``, so a second run over unchanged data finds no candidates: it is
idempotent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from salience.errors import LLMError
from salience.models import EXTRACTIVE, MemoryRecord

if TYPE_CHECKING:
    from salience.lifecycle.llm import Summarizer

MIN_GROUP = 3
LLM_MIN_GROUP = 5
LLM = "llm"
BOOST_SIMILARITY = 0.85
BOOST_PER_MEMBER = 0.05
INSIGHT_CONFIDENCE = 0.7


def group_by_tags(records: Sequence[MemoryRecord]) -> list[list[MemoryRecord]]:
    """Connected components of "shares a tag" (case-insensitive), in order of first member."""
    parent = list(range(len(records)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for i, record in enumerate(records):
        for tag in {t.casefold() for t in record.tags}:
            if tag in first_with:
                a, b = find(i), find(first_with[tag])
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                first_with[tag] = i
    groups: dict[int, list[MemoryRecord]] = {}
    for i, record in enumerate(records):
        groups.setdefault(find(i), []).append(record)
    return list(groups.values())


def representative(members: Sequence[MemoryRecord]) -> MemoryRecord:
    """The most important member; ties go to the oldest (smallest id)."""
    return min(members, key=lambda r: (-r.importance, r.id))


def insight_importance(members: Sequence[MemoryRecord]) -> float:
    """``min(1, mean importance · 1.2)``."""
    return min(1.0, sum(r.importance for r in members) / len(members) * 1.2)


def union_tags(members: Sequence[MemoryRecord]) -> tuple[str, ...]:
    """Every member's tags, first spelling kept, in order of appearance (case-insensitive)."""
    seen: dict[str, str] = {}
    for record in members:
        for tag in record.tags:
            seen.setdefault(tag.casefold(), tag)
    return tuple(seen.values())


@dataclass(frozen=True)
class Summary:
    """An insight's text and how it was made (``extractive`` or ``llm``); ``note`` says why
    an LLM summary was not used when one was wanted."""

    content: str
    method: str
    note: str | None = None


def summarize(
    members: Sequence[MemoryRecord],
    llm: Summarizer | None,
    *,
    max_bytes: int,
    dry_run: bool = False,
) -> Summary:
    """The text of the insight a group becomes.

    Extractive (the representative's content) unless an LLM is configured and the group has
    5+ members. Only text that passes redaction and the secret scanner is sent (a member that
    does not is left out); the answer passes the write gates (secret scanner and signal gate)
    like any other write. Any failure falls back to the extractive text, with a note. A dry
    run never calls the LLM.
    """
    extractive = representative(members).content
    if llm is None or len(members) < LLM_MIN_GROUP:
        return Summary(extractive, EXTRACTIVE)
    if dry_run:
        return Summary(extractive, LLM, "dry run: the LLM is asked only by a real run")
    from salience.write.gates.pipeline import screen  # (the gates compile on first use)

    texts = [s.content for s in (screen(r.content) for r in members) if not s.rejected]
    withheld = len(members) - len(texts)
    try:
        answer = llm.summarize(texts)
    except LLMError as exc:
        return Summary(extractive, EXTRACTIVE, f"LLM failed ({exc}); extractive text used")
    checked = screen(answer, memory_type="insight", signal=True)
    if checked.rejected:
        return Summary(
            extractive,
            EXTRACTIVE,
            f"LLM summary refused by the {checked.gate} gate ({checked.reason}); "
            "extractive text used",
        )
    if len(checked.content.encode("utf-8")) > max_bytes:
        return Summary(extractive, EXTRACTIVE, "LLM summary over the size limit; extractive used")
    note = f"{withheld} member(s) withheld from the LLM by the secret scanner" if withheld else None
    return Summary(checked.content, LLM, note)
