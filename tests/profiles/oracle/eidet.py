"""eidet's L0 + L1, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence

from salience.briefing.policies import (
    LIMIT,
    NOT_IN_SCOPE,
    TOKEN_BUDGET,
    TYPE_BUDGET,
    BriefingRequest,
    one_line,
)
from salience.models import Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.base import ProfileSettings
from salience.profiles.eidet import (
    L1_LIMIT,
    L1_PREFIX,
    L1_TYPE_SHARES,
    TOKEN_BUDGET_L0_L1,
    TYPES,
    ceil_share,
    memory_score,
)
from tests.profiles.oracle.common import ManifestBuilder, by_score, scored_live


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
