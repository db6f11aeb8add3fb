"""eidet (its document "Concepts"): four memory types, a weighted memory score, L0 + L1 loading.

``score = importance*0.30 + confidence*0.15 + recency*0.25 + frequency*0.30`` with a 7-day
half-life on creation and frequency capped at 10 accesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import Columns, micros
from salience.briefing.policies import (
    LIMIT,
    NOT_IN_SCOPE,
    TOKEN_BUDGET,
    TYPE_BUDGET,
    BriefingRequest,
    Candidates,
    ManifestBuilder,
    one_line,
    ranked,
    split_live,
)
from salience.clock import age_days
from salience.lazy import lazy_module
from salience.models import Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, Relevances, TypeSpec
from salience.profiles.scoring import arrays
from salience.profiles.scoring.signals import (
    capped_frequency,
    half_life_recency,
    layer_weight,
    shared_from,
)
from salience.scores import Component, ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Flags, Floats
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


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
    layer = layer_weight(shared_from(record))
    base = memory_score(record, now)
    component = Component("memory score", weight * layer, base.value)
    note = f"match weight {weight:g} x layer {layer:g} x memory score {base.value:.6f}"
    return SearchScore(component.contribution, (component,), "eidet", note)


def search_scores(
    columns: Columns, now: datetime, relevance: Relevances, settings: ProfileSettings
) -> Floats:
    """:func:`search_score`'s values for whole columns."""
    weight = np.where(relevance.lexical_hit, 1.0, VECTOR_ONLY_WEIGHT)
    result: Floats = (weight * arrays.layer_weight(columns.layer)) * memory_scores(columns, now)
    return result


def ceil_share(limit: int, percent: int) -> int:
    """``ceil(limit * percent / 100)`` in integers (floats round 0.2 * 15 up to 4)."""
    return (limit * percent + 99) // 100


def recall_budgets(limit: int) -> dict[str, int]:
    """Type budgets for a recall of ``limit`` results: insights, observations, procedures, rest."""
    budgets = {t: ceil_share(limit, share) for t, share in RECALL_SHARES.items()}
    budgets["heuristic"] = max(1, limit - sum(budgets.values()))
    return budgets


def select(types: Sequence[str], limit: int) -> list[int]:
    """Type budgets over the candidates' types, best first: pass 1 takes results in score
    order while their type has budget; pass 2 fills free slots with the best unused ones.
    Types outside the four share the heuristics'."""
    budgets = recall_budgets(limit)
    chosen: list[int] = []
    for index, memory_type in enumerate(types):
        kind = memory_type if memory_type in budgets else "heuristic"
        if len(chosen) < limit and budgets[kind] > 0:
            budgets[kind] -= 1
            chosen.append(index)
    taken = set(chosen)
    spare = [i for i in range(len(types)) if i not in taken][: limit - len(chosen)]
    return sorted(chosen + spare)


def memory_scores(columns: Columns, now: datetime) -> Floats:
    """:func:`memory_score`'s values for whole columns."""
    recency = arrays.half_life_recency(arrays.ages_days(columns.created, micros(now)), 7.0)
    frequency = arrays.by_value(lambda n: capped_frequency(n, 10), columns.access_count)
    return arrays.weighted_sum(
        (
            (0.30, columns.importance),
            (0.15, columns.confidence),
            (0.25, recency),
            (0.30, frequency),
        ),
        len(columns),
    )


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    return memory_scores(columns, now)


def l0_line(columns: Columns, current: Flags) -> str:
    """``[Memory: N entries, a observations, b insights, ...]`` over current memories."""
    counts = [(int(np.count_nonzero(current & columns.of_types([t]))), t) for t in TYPES]
    parts = [f"{int(np.count_nonzero(current))} entries"] + [f"{n} {t}s" for n, t in counts if n]
    return f"[Memory: {', '.join(parts)}]"


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """L0 then L1: best insights, procedures and heuristics (20, budgets 10/6/4, 600 tokens)."""
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    header = l0_line(columns, columns.current(request.now))
    scores = memory_scores(columns, request.now) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    kinds = tuple(L1_PREFIX)
    order = ranked(candidates, np.flatnonzero(live & columns.of_types(kinds)), scores)
    kind = columns.type_index(kinds)[order]
    # f"{prefix} {one_line}": every prefix is 3 characters.
    costs = (columns.line_length[order] + 4 + 3) // 4
    budgets = [ceil_share(L1_LIMIT, L1_TYPE_SHARES[k]) for k in kinds]
    tokens = estimate_tokens(header)
    kept: list[int] = []
    position = 0
    while position < len(order):
        if len(kept) >= L1_LIMIT:
            manifest.drop(order[position:], LIMIT)
            break
        # Types whose budget is spent are passed over (each dropped for its type budget).
        has_budget = np.array([b > 0 for b in budgets])[kind[position:]]
        skip = int(np.argmax(has_budget)) if has_budget.any() else len(has_budget)
        manifest.drop(order[position : position + skip], TYPE_BUDGET)
        position += skip
        if position == len(order):
            break
        cost = int(costs[position])
        if tokens + cost > TOKEN_BUDGET_L0_L1:  # the first line that does not fit ends L1
            manifest.drop(order[position:], TOKEN_BUDGET)
            break
        budgets[kind[position]] -= 1
        tokens += cost
        kept.append(int(order[position]))
        position += 1
    records = candidates.records(kept)
    lines = [f"{L1_PREFIX[r.type]} {one_line(r)}" for r in records]
    for row, record, line in zip(kept, records, lines, strict=True):
        manifest.keep(row, record, estimate_tokens(line), "L1")
    manifest.drop(np.flatnonzero(live & ~columns.of_types(kinds)), NOT_IN_SCOPE)
    sections = (BriefingSection("L1", tuple(lines), tuple(r.id for r in records)),)
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
    context_scores=context_scores,
    search_score=search_score,
    search_scores=search_scores,
    briefing=briefing,
    bump_on_recall=True,
    select=select,
    weighs_layers=True,
    source_confidence=(("user", 0.7), ("consolidation", 0.7), ("*", 0.6)),
    # L2 recall: full-text 2·L hits, vector L hits with similarity >= 0.70, merged by id.
    recall=RecallPlan(fusion="union", lexical_factor=2, vector_factor=1, vector_min=0.70),
)
