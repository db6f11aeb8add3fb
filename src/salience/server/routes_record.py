"""``/v1/eval`` (recall measured on the caller's own memories) and ``/v1/briefings/log``
(what each session was given, and what helped): the record's faces."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from salience.evaluation import evaluate as evaluated
from salience.evaluation import probes as probes_of
from salience.models import Variant
from salience.server.replies import READ_ERRORS, AsUser, CallerDep, EngineDep
from salience.server.schemas import EvalIn
from salience.wire.record import briefing_log_out, eval_out, probe_out

router = APIRouter(prefix="/v1", tags=["record"])


@router.post("/eval", responses=READ_ERRORS)
def evaluate(
    body: EvalIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """Probes built from the caller's store (recorded recalls that were used, version chains,
    decisions' topics), recall@5/@10, MRR and nDCG@10 for the current configuration and the
    alternative named (another profile, as_of, settings such as the recall prior or rae's
    weights, embedder "none": full text alone, or "minilm") side by side, the probes that
    changed rank, and what moved since a saved baseline (``save`` keeps this run: a write)."""
    if body.save:
        caller.may_write()
    user = caller.acting(as_user)
    variants = []
    alternative = (
        body.against_profile,
        body.against_as_of,
        body.against_embedder,
        body.against_settings,
    )
    if any(alternative) or body.against_recall_prior is not None:
        variants.append(
            Variant(
                body.against_label,
                body.against_profile,
                body.against_as_of,
                body.against_recall_prior,
                body.against_embedder,
                tuple((body.against_settings or {}).items()),
            )
        )
    report = evaluated(
        engine.memory,
        variants,
        user=user,
        per_kind=body.probes,
        entities=body.entities,
        save=body.save,
    )
    return eval_out(report)


@router.get("/eval/probes", responses=READ_ERRORS)
def probes(
    caller: CallerDep,
    engine: EngineDep,
    per_kind: Annotated[int, Query(ge=1, le=1000)] = 50,
    entities: bool = False,
    as_user: AsUser = None,
) -> list[dict[str, Any]]:
    """The probes an evaluation of the caller's store would ask (each kind's newest first)."""
    user = caller.acting(as_user)
    found = probes_of(engine.memory, user=user, per_kind=per_kind, entities=entities)
    return [probe_out(p) for p in found]


@router.get("/briefings/log", responses=READ_ERRORS)
def briefing_log(
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 20,
) -> dict[str, Any]:
    """What each session was given (profile, tokens, budget, the memories by section), which
    of them were then echoed, fizzled or recalled again, and per memory how often it was
    briefed and how often that helped."""
    user = caller.acting(as_user)
    log = engine.memory.briefing_log(user=user, limit=limit)
    return briefing_log_out(log)
