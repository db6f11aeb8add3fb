"""eidet (seed 001, "Concepts"): four memory types, a weighted memory score, L0 + L1 loading.

``score = importance*0.30 + confidence*0.15 + recency*0.25 + frequency*0.30`` with a 7-day
half-life on creation and frequency capped at 10 accesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from salience.briefing import (
    LIMIT,
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
    scored_live,
)
from salience.clock import age_days
from salience.models import MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, TypeSpec
from salience.scoring.scores import Component, ContextScore, SearchScore, weighted
from salience.scoring.signals import capped_frequency, half_life_recency, layer_weight

TYPES = ("observation", "insight", "procedure", "heuristic")
L1_LIMIT = 20
L1_TYPE_SHARES = {"insight": 50, "procedure": 30, "heuristic": 20}  # percent of 20
L1_PREFIX = {"insight": "[I]", "procedure": "[P]", "heuristic": "[H]"}
TOKEN_BUDGET_L0_L1 = 600
VECTOR_ONLY_WEIGHT = 0.9
RECALL_SHARES = {"insight": 40, "observation": 25, "procedure": 20}  # heuristics: the rest


def memory_score(record: MemoryRecord, now: datetime) -> ContextScore:
    """The memory score used for L1 and inside recall."""
    return weighted(
        ContextScore,
        "eidet",
        (
            ("importance", 0.30, record.importance),
            ("confidence", 0.15, record.confidence),
            ("recency", 0.25, half_life_recency(age_days(record.created_at, now), 7.0)),
            ("frequency", 0.30, capped_frequency(record.access_count, 10)),
        ),
    )


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """eidet has one memory score for both L1 and recall."""
    return memory_score(record, now)


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """weight (1.0 full-text hit, 0.9 vector-only) x memory score, x 0.8 off the local layer."""
    weight = 1.0 if relevance.lexical_hit else VECTOR_ONLY_WEIGHT
    layer = layer_weight(record.layer)
    base = memory_score(record, now)
    component = Component("memory score", weight * layer, base.value)
    note = f"match weight {weight:g} x layer {layer:g} x memory score {base.value:.6f}"
    return SearchScore(component.contribution, (component,), "eidet", note)


def ceil_share(limit: int, percent: int) -> int:
    """``ceil(limit * percent / 100)`` in integers (floats round 0.2 * 15 up to 4)."""
    return (limit * percent + 99) // 100


def recall_budgets(limit: int) -> dict[str, int]:
    """Type budgets for a recall of ``limit`` results: insights, observations, procedures, rest."""
    budgets = {t: ceil_share(limit, share) for t, share in RECALL_SHARES.items()}
    budgets["heuristic"] = max(1, limit - sum(budgets.values()))
    return budgets


def select(ranked: Sequence[tuple[MemoryRecord, SearchScore]], limit: int) -> list[int]:
    """Type budgets: pass 1 takes results in score order while their type has budget; pass 2
    fills free slots with the best unused ones. Types outside the four share the heuristics'."""
    budgets = recall_budgets(limit)
    chosen: list[int] = []
    for index, (record, _) in enumerate(ranked):
        kind = record.type if record.type in budgets else "heuristic"
        if len(chosen) < limit and budgets[kind] > 0:
            budgets[kind] -= 1
            chosen.append(index)
    taken = set(chosen)
    spare = [i for i in range(len(ranked)) if i not in taken][: limit - len(chosen)]
    return sorted(chosen + spare)


def l0_line(records: Sequence[MemoryRecord]) -> str:
    """``[Memory: N entries, a observations, b insights, ...]`` over current memories."""
    counts = [(sum(1 for r in records if r.type == t), t) for t in TYPES]
    parts = [f"{len(records)} entries"] + [f"{n} {t}s" for n, t in counts if n]
    return f"[Memory: {', '.join(parts)}]"


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """L0 then L1: best insights, procedures and heuristics (20, budgets 10/6/4, 600 tokens)."""
    manifest = ManifestBuilder()
    current = [r for r in candidates if r.is_current(request.now)]
    header = l0_line(current)
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: memory_score(r, request.now).value
    )
    ranked = by_score((r for r in live if r.type in L1_PREFIX), scores)
    budgets = {t: ceil_share(L1_LIMIT, share) for t, share in L1_TYPE_SHARES.items()}
    tokens = estimate_tokens(header)
    lines: list[str] = []
    ids: list[str] = []
    stopped = False
    for record in ranked:
        line = f"{L1_PREFIX[record.type]} {one_line(record)}"
        cost = estimate_tokens(line)
        if stopped:
            manifest.drop(record, TOKEN_BUDGET, scores[record.id])
        elif len(lines) >= L1_LIMIT:
            manifest.drop(record, LIMIT, scores[record.id])
        elif budgets[record.type] == 0:
            manifest.drop(record, TYPE_BUDGET, scores[record.id])
        elif tokens + cost > TOKEN_BUDGET_L0_L1:  # the first line that does not fit ends L1
            stopped = True
            manifest.drop(record, TOKEN_BUDGET, scores[record.id])
        else:
            budgets[record.type] -= 1
            tokens += cost
            lines.append(line)
            ids.append(record.id)
            manifest.keep(record, scores[record.id], cost, "L1")
    manifest.drop_all((r for r in live if r.type not in L1_PREFIX), NOT_IN_SCOPE, scores)
    sections = (BriefingSection("L1", tuple(lines), tuple(ids)),)
    text = "\n".join([header, *lines])
    return Briefing("eidet", text, sections, manifest.build(), request.now, header=header)


PROFILE = Profile(
    name="eidet",
    summary="importance, confidence, 7-day recency, capped frequency; L0 + L1 with type budgets",
    document="001 Concepts",
    types=(
        TypeSpec("observation", "raw facts noticed during a session (fast decay)"),
        TypeSpec("insight", "knowledge distilled from observations"),
        TypeSpec("procedure", "multi-step workflows"),
        TypeSpec("heuristic", "rules of thumb, decision shortcuts"),
    ),
    default_type="observation",
    context_score=context_score,
    search_score=search_score,
    briefing=briefing,
    bump_on_recall=True,
    select=select,
    weighs_layers=True,
    source_confidence=(("user", 0.7), ("consolidation", 0.7), ("*", 0.6)),
    # L2 recall: full-text 2·L hits, vector L hits with similarity >= 0.70, merged by id.
    recall=RecallPlan(fusion="union", lexical_factor=2, vector_factor=1, vector_min=0.70),
)
