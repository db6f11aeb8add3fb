"""``salience eval``: recall measured on the user's own store, above the engine.

An evaluation is a client of a :class:`~salience.engine.memory.Memory`: it draws probes from
the store's record and memories, asks them with ``touch=False`` under each configuration
(on a scratch copy when another model or held-out fields are asked: :mod:`.twin`), and scores
the answers (:mod:`.runs`). ``salience.Client`` asks the same of a server
(``POST /v1/eval``, ``GET /v1/eval/probes``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TYPE_CHECKING

from salience.evaluation.runs import Evaluator

if TYPE_CHECKING:
    from salience.engine.memory import Memory
    from salience.models import EvalReport, Probe, UserScope, Variant

__all__ = ["Evaluator", "evaluate", "probes"]


def evaluate(
    memory: Memory,
    variants: Sequence[Variant] = (),
    *,
    user: UserScope = None,
    per_kind: int = 50,
    entities: bool = False,
    save: bool = False,
) -> EvalReport:
    """Run the probes of ``memory``'s store under its configuration and each of
    ``variants`` (see :meth:`.runs.Evaluator.evaluate`)."""
    return Evaluator(memory).evaluate(
        variants, user=user, per_kind=per_kind, entities=entities, save=save
    )


def probes(
    memory: Memory, *, user: UserScope = None, per_kind: int = 50, entities: bool = False
) -> builtins.list[Probe]:
    """The probes an evaluation of ``memory``'s store would ask."""
    return Evaluator(memory).probes(user=user, per_kind=per_kind, entities=entities)
