"""What a profile is: data (types, defaults, rules) plus pure functions (scores, briefing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import Columns
from salience.briefing.policies import BriefingRequest, Candidates
from salience.config import RAE_WEIGHT_DEFAULTS, Config
from salience.models import Briefing, MemoryRecord
from salience.scores import ContextScore, SearchScore

if TYPE_CHECKING:
    from salience.briefing.columns import Flags, Floats
    from salience.models import Relevance


@dataclass(frozen=True)
class ProfileSettings:
    """The tunable parts of the profiles, read from configuration (never inside a score)."""

    aide_scoring_disabled: bool = False
    aide_decay_disabled: bool = False
    rae_weights: tuple[tuple[str, float], ...] = RAE_WEIGHT_DEFAULTS
    rae_half_life_hours: float = 24.0
    briefing_budget: int = 1500
    recall_prior: float = 0.15
    recall_learned: bool = True

    @classmethod
    def from_config(cls, config: Config) -> ProfileSettings:
        """The profile settings a configuration holds."""
        return cls(
            aide_scoring_disabled=config.aide_scoring_disabled,
            aide_decay_disabled=config.aide_decay_disabled,
            rae_weights=config.rae_weights,
            rae_half_life_hours=config.rae_half_life_hours,
            briefing_budget=config.briefing_budget,
            recall_prior=config.recall_prior,
            recall_learned=config.recall_learned,
        )


@dataclass(frozen=True)
class RecallPlan:
    """How a profile gathers and fuses recall candidates (see :mod:`salience.search.fusion`).

    ``lexical_factor`` / ``vector_factor``: candidates taken from each retriever, as a multiple
    of the limit (at least ``pool``); ``vector_factor`` 0 means no vector search.
    ``substring_below``: a query shorter than this many characters is matched as a substring
    of content and title instead (ilab: 3), every match with full-text relevance 1.
    ``feedback_weight`` / ``feedback_count``: the query vector is moved toward the vectors of
    its best ``feedback_count`` full-text hits, ``normalise(q + weight * mean)``, before the
    vector search (0: not moved).
    ``reply_weight``: a candidate that follows a question in its session is worth at least
    this share of the question's fused relevance (0: off; see :func:`spread_context`).
    ``rerank``: with the ``recall_learned`` setting on, the best candidates of the fusion are
    scored again by the learned model of :mod:`salience.search.rerank` (fitted on this plan's
    fusion), whose relevance replaces the fused one.
    """

    fusion: str = "lexical"
    lexical_factor: int = 2
    vector_factor: int = 0
    pool: int = 0
    vector_min: float = -1.0
    dated: bool = False
    neighbour_weight: float = 0.0
    context_weight: float = 0.0
    dense_weight: float = 0.0
    substring_below: int = 0
    feedback_weight: float = 0.0
    feedback_count: int = 0
    reply_weight: float = 0.0
    rerank: bool = False

    def lexical_count(self, limit: int) -> int:
        """Full-text candidates for ``limit`` results."""
        return max(self.lexical_factor * limit, self.pool)

    def vector_count(self, limit: int) -> int:
        """Vector candidates for ``limit`` results (0: none)."""
        return max(self.vector_factor * limit, self.pool) if self.vector_factor else 0

    @property
    def feeds_back(self) -> bool:
        """Whether the query vector is moved toward its best full-text hits' vectors."""
        return self.feedback_weight > 0 and self.feedback_count > 0


@dataclass(frozen=True)
class Relevances:
    """:class:`~salience.models.Relevance` for whole columns (NaN where it has None)."""

    lexical: Floats
    vector: Floats  # NaN: not found by vector search
    lexical_hit: Flags
    fused: Floats  # NaN: not fused


@dataclass(frozen=True)
class TypeSpec:
    """A memory type of a profile's vocabulary and its defaults (None: the engine's default)."""

    name: str
    description: str
    confidence: float | None = None
    importance: float | None = None


ContextScorer = Callable[[MemoryRecord, datetime, ProfileSettings], ContextScore]
SearchScorer = Callable[[MemoryRecord, datetime, "Relevance", ProfileSettings], SearchScore]
RecallSelector = Callable[[Sequence[str], int], list[int]]  # (types, best first) -> positions
ColumnScorer = Callable[[Columns, datetime, ProfileSettings], "Floats"]
SearchColumnScorer = Callable[[Columns, datetime, Relevances, ProfileSettings], "Floats"]
BriefingPolicy = Callable[
    [Sequence[MemoryRecord] | Candidates, BriefingRequest, ProfileSettings], Briefing
]


@dataclass(frozen=True)
class Profile:
    """One scoring system: vocabulary, defaults, scores, briefing policy and write rules."""

    name: str
    summary: str
    document: str
    types: tuple[TypeSpec, ...]
    default_type: str
    context_score: ContextScorer
    context_scores: ColumnScorer  # the same scores' values for whole columns, bit for bit
    search_score: SearchScorer
    search_scores: SearchColumnScorer  # the same scores' values for whole columns, bit for bit
    briefing: BriefingPolicy
    bump_on_recall: bool
    dedup: tuple[str, ...] = ()
    select: RecallSelector | None = None  # None: the best ``limit`` by search score
    reserved_types: frozenset[str] = field(default_factory=frozenset)
    source_confidence: tuple[tuple[str, float], ...] = ()
    recall: RecallPlan = field(default_factory=RecallPlan)
    # Whether the search score already applies the layer de-boost itself (eidet's does);
    # otherwise recall applies it after scoring.
    weighs_layers: bool = False

    def type_spec(self, name: str) -> TypeSpec | None:
        """The vocabulary entry for ``name``, if the profile has one."""
        return next((t for t in self.types if t.name == name), None)

    def default_confidence(self, memory_type: str, source: str) -> float | None:
        """Confidence for a new memory: by type first, then by source; None if neither says."""
        spec = self.type_spec(memory_type)
        if spec is not None and spec.confidence is not None:
            return spec.confidence
        by_source = dict(self.source_confidence)
        return by_source.get(source, by_source.get("*"))
