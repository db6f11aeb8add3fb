"""salience, our own profile: the seeds' best signals in one explained score, and a
token-budgeted briefing in sections. docs/scoring.md says why it is shaped this way.

``score = 0.30*importance + 0.10*confidence + 0.25*recency + 0.15*access + 0.10*feedback
+ 0.10*provenance``, every term in [0, 1]; recency is FadeMem's per-type curve with the
confidence brake. A positive priority pins a memory into the briefing; a negative one mutes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from salience.briefing import (
    MUTED,
    NOT_IN_SCOPE,
    TOKEN_BUDGET,
    TYPE_BUDGET,
    Briefing,
    BriefingRequest,
    BriefingSection,
    ManifestBuilder,
    by_score,
    estimate_tokens,
    one_line,
    render,
    scored_live,
)
from salience.clock import age_days
from salience.models import MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, TypeSpec
from salience.scoring.scores import ContextScore, SearchScore, weighted
from salience.scoring.signals import feedback_ratio, log10_access, stretched_recency

# type: (half-life in days, shape). Stable knowledge fades slowly, raw observations fast.
DECAY = {
    "profile": (730.0, 0.7),
    "heuristic": (730.0, 0.7),
    "preference": (365.0, 0.8),
    "correction": (365.0, 0.8),
    "procedure": (365.0, 0.8),
    "decision": (180.0, 0.9),
    "fact": (180.0, 1.0),
    "insight": (90.0, 1.0),
    "observation": (30.0, 1.2),
    "summary": (14.0, 1.0),
}
DEFAULT_DECAY = (60.0, 1.0)

# (section title, types, share of the token budget). Types not listed go to "Recent".
SECTIONS = (
    ("About the user", ("profile", "preference", "correction"), 0.25),
    ("Decisions", ("decision",), 0.20),
    ("How we work", ("procedure", "heuristic"), 0.20),
    ("Knowledge", ("insight", "fact"), 0.20),
    ("Recent", (), 0.15),
)
PINNED = "Pinned"


def confidence_brake(half_life: float, confidence: float) -> float:
    """FadeMem's brake: confident memories fade slower (conf 1 -> 1.25x, 0 -> 0.75x)."""
    return half_life * (1 + (confidence - 0.5) * 0.5)


def recency(record: MemoryRecord, now: datetime) -> float:
    """Per-type stretched exponential on the last update, braked by confidence."""
    half_life, shape = DECAY.get(record.type, DEFAULT_DECAY)
    braked = confidence_brake(half_life, record.confidence)
    return stretched_recency(age_days(record.updated_at, now), braked, shape)


def provenance(record: MemoryRecord) -> float:
    """Stated by the user 1.0, verified 0.8, otherwise 0.5."""
    if record.source == "user" or "source:user" in record.tags:
        return 1.0
    if "verified:true" in record.tags:
        return 0.8
    return 0.5


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """The explained context score (priority pins and mutes act in the briefing, not here)."""
    return weighted(
        ContextScore,
        "salience",
        (
            ("importance", 0.30, record.importance),
            ("confidence", 0.10, record.confidence),
            ("recency", 0.25, recency(record, now)),
            ("access", 0.15, log10_access(record.access_count)),
            ("feedback", 0.10, feedback_ratio(record.echo_count, record.fizzle_count)),
            ("provenance", 0.10, provenance(record)),
        ),
    )


def recall_prior(record: MemoryRecord) -> float:
    """The context score's weights without recency, renormalised to [0, 1]."""
    parts = (
        (0.30, record.importance),
        (0.10, record.confidence),
        (0.15, log10_access(record.access_count)),
        (0.10, feedback_ratio(record.echo_count, record.fizzle_count)),
        (0.10, provenance(record)),
    )
    return sum(w * v for w, v in parts) / sum(w for w, _ in parts)


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """Relevance first (the fused hybrid relevance when vectors took part), then a small prior.

    The prior is the context score without recency: a question about an old event is not
    less relevant for being old (measured: a recency prior cost 0.3 R@10 on LoCoMo), while
    importance, confidence, use, feedback and provenance say how much to trust a memory.
    """
    prior = recall_prior(record)
    match = relevance.fused if relevance.fused is not None else relevance.lexical
    return weighted(
        SearchScore,
        "salience",
        (("relevance", 1 - settings.recall_prior, match), ("prior", settings.recall_prior, prior)),
    )


def section_of(memory_type: str) -> str:
    """The briefing section a type belongs to."""
    for title, types, _ in SECTIONS:
        if memory_type in types:
            return title
    return SECTIONS[-1][0]


def identity_line(records: Sequence[MemoryRecord]) -> str:
    """``[Memory: 12 entries: 3 preferences, 2 decisions, ...]``, vocabulary order first."""
    counts: dict[str, int] = {}
    for record in records:
        counts[record.type] = counts.get(record.type, 0) + 1
    order = [t for t in DECAY if t in counts] + sorted(t for t in counts if t not in DECAY)
    parts = ", ".join(f"{counts[t]} {t}" for t in order)
    return f"[Memory: {len(records)} entries{': ' + parts if parts else ''}]"


def _line(record: MemoryRecord) -> str:
    if record.type == "decision" and record.topic_key:
        return f"- {record.topic_key}: {one_line(record)}"
    return f"- {one_line(record)}"


def _in_scope(record: MemoryRecord, project: str | None) -> bool:
    if project is None or "scope:global" in record.tags:
        return True
    projects = {t.removeprefix("project:") for t in record.tags if t.startswith("project:")}
    if record.project:
        projects.add(record.project)
    return not projects or project in projects


def _cost(line: str) -> int:
    return estimate_tokens(line + "\n")


def _heading_cost(title: str) -> int:
    return estimate_tokens(f"\n\n## {title}\n")


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
    header = identity_line(current)
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


PROFILE = Profile(
    name="salience",
    summary="importance, confidence, per-type FadeMem recency, access, feedback, provenance; "
    "token-budgeted sections",
    document="our own (docs/scoring.md)",
    types=(
        TypeSpec("profile", "who the user is", confidence=0.8),
        TypeSpec("preference", "what the user prefers"),
        TypeSpec("correction", "a correction of something believed before", confidence=0.9),
        TypeSpec("decision", "a choice made, with its topic"),
        TypeSpec("procedure", "how to do something, step by step"),
        TypeSpec("heuristic", "a rule of thumb"),
        TypeSpec("insight", "knowledge distilled from observations"),
        TypeSpec("fact", "a stable fact about the world or the project"),
        TypeSpec("observation", "something noticed during a session"),
        TypeSpec("summary", "a session summary"),
    ),
    default_type="observation",
    context_score=context_score,
    search_score=search_score,
    briefing=briefing,
    bump_on_recall=True,
    dedup=("exact_hash",),
    source_confidence=(("user", 0.7), ("consolidation", 0.7), ("*", 0.6)),
    recall=RecallPlan(
        fusion="weighted",
        lexical_factor=5,
        vector_factor=5,
        pool=50,
        vector_min=0.2,
        dated=True,
        neighbour_weight=0.5,
        dense_weight=0.4,
        context_weight=0.4,
    ),
)
