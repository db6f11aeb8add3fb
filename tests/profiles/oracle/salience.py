"""salience's token-budgeted briefing, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from salience.briefing.policies import (
    MUTED,
    NOT_IN_SCOPE,
    TOKEN_BUDGET,
    TYPE_BUDGET,
    BriefingRequest,
    render,
)
from salience.models import Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.base import ProfileSettings

# Line rendering is shared with the policy; the packing is what the oracle checks.
from salience.profiles.salience import (
    DECAY,
    PINNED,
    SECTIONS,
    _cost,
    _heading_cost,
    _line,
    context_score,
    headed,
    section_of,
)
from tests.profiles.oracle.common import ManifestBuilder, by_score, scored_live


def identity_line(records: Sequence[MemoryRecord]) -> str:
    """``[Memory: 12 entries: 3 preferences, 2 decisions, ...]``, vocabulary order first."""
    counts: dict[str, int] = {}
    for record in records:
        counts[record.type] = counts.get(record.type, 0) + 1
    order = [t for t in DECAY if t in counts] + sorted(t for t in counts if t not in DECAY)
    parts = ", ".join(f"{counts[t]} {t}" for t in order)
    return f"[Memory: {len(records)} entries{': ' + parts if parts else ''}]"


def _in_scope(record: MemoryRecord, project: str | None) -> bool:
    if project is None or "scope:global" in record.tags:
        return True
    projects = {t.removeprefix("project:") for t in record.tags if t.startswith("project:")}
    if record.project:
        projects.add(record.project)
    return not projects or project in projects


@dataclass
class _Packer:
    """Greedy packing under a total token budget and per-section caps.

    Costs are charged per line (with its newline) and per section heading, each rounded up,
    so the rendered text never exceeds the budget.
    """

    budget: int
    caps: dict[str, int]
    used: int = 0
    per_section: dict[str, int] = field(default_factory=dict)
    chosen: dict[str, list[tuple[MemoryRecord, str]]] = field(default_factory=dict)

    def cost(self, section: str, line: str) -> int:
        opening = 0 if section in self.chosen else _heading_cost(section)
        return opening + _cost(line)

    def fits(self, section: str, line: str) -> bool:
        return self.used + self.cost(section, line) <= self.budget

    def under_cap(self, section: str, line: str) -> bool:
        spent = self.per_section.get(section, 0) + self.cost(section, line)
        return spent <= self.caps.get(section, self.budget)

    def take(self, section: str, record: MemoryRecord, line: str) -> None:
        cost = self.cost(section, line)
        self.used += cost
        self.per_section[section] = self.per_section.get(section, 0) + cost
        self.chosen.setdefault(section, []).append((record, line))


def _pack(
    ordered: list[MemoryRecord],
    packer: _Packer,
    manifest: ManifestBuilder,
    scores: dict[str, float],
) -> None:
    """Pass 1 within section shares; pass 2 gives leftover budget to the best of the rest."""
    over_cap: list[tuple[MemoryRecord, str]] = []
    for record in ordered:
        section = PINNED if record.priority > 0 else section_of(record.type)
        line = _line(record)
        if not packer.fits(section, line):
            manifest.drop(record, TOKEN_BUDGET, scores[record.id])
        elif section != PINNED and not packer.under_cap(section, line):
            over_cap.append((record, line))
        else:
            packer.take(section, record, line)
    for record, line in over_cap:
        section = section_of(record.type)
        if packer.fits(section, line):
            packer.take(section, record, line)
        else:
            manifest.drop(record, TYPE_BUDGET, scores[record.id])


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """Identity line, pinned memories, then sections by type, best first, within the budget.

    Each section may use its share of the budget first; what is left over is then filled with
    the best memories that did not fit their section's share.
    """
    manifest = ManifestBuilder()
    current = [r for r in candidates if r.is_current(request.now)]
    header = headed(identity_line(current))
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: context_score(r, request.now, settings).value
    )
    total = settings.briefing_budget if request.budget is None else request.budget
    budget = max(0, total - estimate_tokens(header))
    packer = _Packer(budget, {title: int(budget * share) for title, _, share in SECTIONS})

    pool: list[MemoryRecord] = []
    for record in live:
        if not _in_scope(record, request.project):
            manifest.drop(record, NOT_IN_SCOPE, scores[record.id])
        elif record.priority < 0:
            manifest.drop(record, MUTED, scores[record.id])
        else:
            pool.append(record)
    pinned = sorted((r for r in pool if r.priority > 0), key=lambda r: (-r.priority, r.id))
    ranked = by_score((r for r in pool if r.priority == 0), scores)

    _pack(pinned + ranked, packer, manifest, scores)
    sections = []
    for title in (PINNED, *(t for t, _, _ in SECTIONS)):
        entries = packer.chosen.get(title, [])
        entries.sort(key=lambda e: (-e[0].priority, -scores[e[0].id], e[0].id))
        for record, line in entries:
            manifest.keep(record, scores[record.id], _cost(line), title)
        lines = tuple(line for _, line in entries)
        sections.append(BriefingSection(title, lines, tuple(r.id for r, _ in entries)))
    text = render(sections, header)
    return Briefing("salience", text, tuple(sections), manifest.build(), request.now, header=header)
