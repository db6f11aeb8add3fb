"""salience, our own profile: the seeds' best signals in one explained score, and a
token-budgeted briefing in sections. docs/scoring.md says why it is shaped this way.

``score = 0.30*importance + 0.10*confidence + 0.25*recency + 0.15*access + 0.10*feedback
+ 0.10*provenance``, every term in [0, 1]; recency is FadeMem's per-type curve with the
confidence brake. A positive priority pins a memory into the briefing; a negative one mutes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import NONE, Columns, micros
from salience.briefing.marks import agent_mark, mark, place_mark
from salience.briefing.policies import (
    MUTED,
    NOT_IN_SCOPE,
    TOKEN_BUDGET,
    TYPE_BUDGET,
    BriefingRequest,
    Candidates,
    ManifestBuilder,
    one_line,
    ranked,
    render,
    split_live,
)
from salience.clock import age_days
from salience.lazy import lazy_module
from salience.models import NOTES, Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, Relevances, TypeSpec
from salience.profiles.scoring import arrays
from salience.profiles.scoring.signals import feedback_ratio, log10_access, stretched_recency
from salience.scores import ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Flags, Floats
    from salience.briefing.policies import Rows
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


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
    """Stated by the user 1.0, verified 0.8, otherwise 0.5. The user's word is the record's
    source, which its channel vouches for (:mod:`salience.models`); a
    ``source:user`` tag is a claim any writer can make, so it counts for nothing here."""
    if record.source == "user":
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
    """The context score's weights without recency, renormalised to [0, 1] (added in this
    order, as :func:`search_scores` adds its columns: the same double)."""
    weighted = (
        0.0
        + 0.30 * record.importance
        + 0.10 * record.confidence
        + 0.15 * log10_access(record.access_count)
        + 0.10 * feedback_ratio(record.echo_count, record.fizzle_count)
        + 0.10 * provenance(record)
    )
    return weighted / _PRIOR_WEIGHTS


_PRIOR_WEIGHTS = 0.30 + 0.10 + 0.15 + 0.10 + 0.10
""":func:`recall_prior`'s weights, summed in their order."""


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


def search_scores(
    columns: Columns, now: datetime, relevance: Relevances, settings: ProfileSettings
) -> Floats:
    """:func:`search_score`'s values for whole columns (the prior made once a pool: its
    best rows, scored again by the learned fusion, take theirs)."""
    prior = columns.derived("salience.recall_prior", recall_priors)
    match = np.where(np.isnan(relevance.fused), relevance.lexical, relevance.fused)
    p = settings.recall_prior
    return arrays.weighted_sum(((1 - p, match), (p, prior)), len(columns))


def recall_priors(columns: Columns) -> Floats:
    """:func:`recall_prior`'s values for whole columns."""
    provenance = np.where(columns.source_user, 1.0, np.where(columns.tag_verified, 0.8, 0.5))
    parts = (
        (0.30, columns.importance),
        (0.10, columns.confidence),
        (0.15, arrays.by_value(log10_access, columns.access_count)),
        (0.10, arrays.feedback_ratio(columns.echo_count, columns.fizzle_count)),
        (0.10, provenance),
    )
    prior: Floats = arrays.weighted_sum(parts, len(columns)) / sum(w for w, _ in parts)
    return prior


def section_of(memory_type: str) -> str:
    """The briefing section a type belongs to."""
    for title, types, _ in SECTIONS:
        if memory_type in types:
            return title
    return SECTIONS[-1][0]


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    names = columns.vocab.types.names
    half_lives = arrays.table(
        columns.type, names, {t: d[0] for t, d in DECAY.items()}, DEFAULT_DECAY[0]
    )
    shapes = arrays.table(
        columns.type, names, {t: d[1] for t, d in DECAY.items()}, DEFAULT_DECAY[1]
    )
    braked = half_lives * (1 + (columns.confidence - 0.5) * 0.5)  # confidence_brake
    ages = arrays.ages_days(columns.updated, micros(now))
    provenance = np.where(columns.source_user, 1.0, np.where(columns.tag_verified, 0.8, 0.5))
    return arrays.weighted_sum(
        (
            (0.30, columns.importance),
            (0.10, columns.confidence),
            (0.25, arrays.stretched_recency(ages, braked, shapes)),
            (0.15, arrays.by_value(log10_access, columns.access_count)),
            (0.10, arrays.feedback_ratio(columns.echo_count, columns.fizzle_count)),
            (0.10, provenance),
        ),
        len(columns),
    )


def identity_line(columns: Columns, current: Flags) -> str:
    """``[Memory: 12 entries: 3 preferences, 2 decisions, ...]``, vocabulary order first."""
    numbers = np.bincount(columns.type[current], minlength=len(columns.vocab.types.names))
    counts = {
        columns.vocab.types.name(code): int(n) for code, n in enumerate(numbers.tolist()) if n
    }
    order = [t for t in DECAY if t in counts] + sorted(t for t in counts if t not in DECAY)
    parts = ", ".join(f"{counts[t]} {t}" for t in order)
    return f"[Memory: {int(np.count_nonzero(current))} entries{': ' + parts if parts else ''}]"


def headed(identity: str) -> str:
    """The briefing's header: the identity line, then :data:`NOTES` (memories are data, and
    whose words each line is)."""
    return f"{identity}\n{NOTES}"


def _line(record: MemoryRecord) -> str:
    marks = place_mark(record.user) + agent_mark(record.source, record.agent)
    if record.type == "decision" and record.topic_key:
        return f"- {marks}{record.topic_key}: {one_line(record)}"
    return f"- {marks}{one_line(record)}"


def _cost(line: str) -> int:
    return estimate_tokens(line + "\n")


def _heading_cost(title: str) -> int:
    return estimate_tokens(f"\n\n## {title}\n")


TITLES = (PINNED, *(title for title, _, _ in SECTIONS))


class _Packer:
    """Greedy packing, in order, under a total token budget and per-section caps.

    Costs are charged per line (with its newline) and per section heading, each rounded up,
    so the rendered text never exceeds the budget. Rows are looked at a block at a time: until
    a line is taken nothing changes, so a whole block is judged at once.
    """

    def __init__(self, columns: Columns, budget: int) -> None:
        self.budget = budget
        self.caps = np.array([budget] + [int(budget * share) for _, _, share in SECTIONS])
        self.headings = np.array([_heading_cost(title) for title in TITLES])
        self.used = 0
        self.spent = np.zeros(len(TITLES), dtype=np.int64)
        self.opened = np.zeros(len(TITLES), dtype=np.bool_)
        self.chosen: list[list[int]] = [[] for _ in TITLES]
        # Each row's section (0: pinned) and the cost of its line, with its newline.
        by_type = np.array(
            [TITLES.index(section_of(t)) for t in columns.vocab.types.names] + [len(SECTIONS)]
        )
        self.section = np.where(columns.priority > 0, 0, by_type[columns.type])
        decision = columns.type == columns.vocab.types.lookup("decision")
        topic_length = np.array([len(t) for t in columns.vocab.topics.names] + [0])
        topics = np.where(decision & (columns.topic != NONE), topic_length[columns.topic] + 2, 0)
        vocab = columns.vocab
        marks = np.array([len(mark(name)) for name in vocab.sources.names] + [0])[columns.source]
        agents = np.array([len(name) + 1 for name in vocab.agents.names] + [0])[columns.agent]
        marks = marks + np.where(columns.source_user, 0, agents)  # ("[agent ci-bot] ")
        marks = (
            marks + np.array([len(place_mark(n)) for n in vocab.layers.names] + [0])[columns.layer]
        )
        self.line_cost = (2 + marks + topics + columns.line_length + 1 + 3) // 4

    def pack(self, rows: Rows, manifest: ManifestBuilder, *, capped: bool) -> Rows:
        """Take the rows that fit, in order; drop those that do not fit the budget (pass 1:
        for the token budget, pass 2: for their type's budget). Pass 1 returns the rows that
        fit the budget but not their section's share, for pass 2."""
        reason = TOKEN_BUDGET if capped else TYPE_BUDGET
        over_cap: list[Rows] = []
        position, block = 0, 64
        while position < len(rows):
            window = rows[position : position + block]
            section = self.section[window]
            cost = self.line_cost[window] + np.where(
                self.opened[section], 0, self.headings[section]
            )
            fits = self.used + cost <= self.budget
            under_cap = (section == 0) | (self.spent[section] + cost <= self.caps[section])
            takes = fits & under_cap if capped else fits
            taken = int(np.argmax(takes)) if takes.any() else len(window)
            manifest.drop(window[:taken][~fits[:taken]], reason)
            if capped:
                over_cap.append(window[:taken][(fits & ~under_cap)[:taken]])
            if taken < len(window):
                self._take(int(window[taken]), int(section[taken]), int(cost[taken]))
                block = 64
            else:
                block *= 2
            position += taken + 1 if taken < len(window) else len(window)
        return np.concatenate(over_cap) if over_cap else rows[:0]

    def _take(self, row: int, section: int, cost: int) -> None:
        self.used += cost
        self.spent[section] += cost
        self.opened[section] = True
        self.chosen[section].append(row)


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """Identity line, pinned memories, then sections by type, best first, within the budget.

    Each section may use its share of the budget first; what is left over is then filled with
    the best memories that did not fit their section's share.
    """
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    header = headed(identity_line(columns, columns.current(request.now)))
    scores = context_scores(columns, request.now, settings) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    total = settings.briefing_budget if request.budget is None else request.budget
    packer = _Packer(columns, max(0, total - estimate_tokens(header)))

    if request.project is None:
        in_scope = np.ones(len(columns), dtype=np.bool_)
    else:
        in_scope = columns.tag_global | ~columns.has_project() | columns.in_project(request.project)
    muted = columns.priority < 0
    out = np.flatnonzero(live & (~in_scope | muted))
    manifest.drop(out, np.where(in_scope[out], MUTED, NOT_IN_SCOPE))
    pool = live & in_scope & ~muted
    pinned = np.flatnonzero(pool & (columns.priority > 0))
    pinned = pinned[np.lexsort((columns.ids[pinned], -columns.priority[pinned]))]
    order = ranked(candidates, np.flatnonzero(pool & (columns.priority == 0)), scores)

    over_cap = packer.pack(np.concatenate([pinned, order]), manifest, capped=True)
    packer.pack(over_cap, manifest, capped=False)
    sections = []
    for title, rows in zip(TITLES, packer.chosen, strict=True):
        chosen = np.array(rows, dtype=np.intp)
        chosen = chosen[
            np.lexsort((columns.ids[chosen], -scores[chosen], -columns.priority[chosen]))
        ]
        records = candidates.records(chosen)
        lines = tuple(_line(r) for r in records)
        for row, record, line in zip(chosen.tolist(), records, lines, strict=True):
            manifest.keep(row, record, _cost(line), title)
        sections.append(BriefingSection(title, lines, tuple(r.id for r in records)))
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
    context_scores=context_scores,
    search_score=search_score,
    search_scores=search_scores,
    briefing=briefing,
    bump_on_recall=True,
    dedup=("exact_hash",),
    source_confidence=(("user", 0.7), ("consolidation", 0.7), ("*", 0.6)),
    recall=RecallPlan(
        fusion="weighted",
        lexical_factor=5,
        vector_factor=5,
        pool=200,
        vector_min=0.2,
        dated=True,
        neighbour_weight=0.5,
        dense_weight=0.4,
        context_weight=0.4,
        feedback_weight=0.5,
        feedback_count=3,
        rerank=True,
    ),
)
