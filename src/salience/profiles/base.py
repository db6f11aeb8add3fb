"""What a profile is: data (types, defaults, rules) plus pure functions (scores, briefing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from salience.briefing import Briefing, BriefingRequest
from salience.config import RAE_WEIGHT_DEFAULTS, Config
from salience.models import MemoryRecord
from salience.scoring.scores import ContextScore, SearchScore


@dataclass(frozen=True)
class ProfileSettings:
    """The tunable parts of the profiles, read from configuration (never inside a score)."""

    aide_scoring_disabled: bool = False
    aide_decay_disabled: bool = False
    rae_weights: tuple[tuple[str, float], ...] = RAE_WEIGHT_DEFAULTS
    rae_half_life_hours: float = 24.0
    briefing_budget: int = 1500

    @classmethod
    def from_config(cls, config: Config) -> ProfileSettings:
        """The profile settings a configuration holds."""
        return cls(
            aide_scoring_disabled=config.aide_scoring_disabled,
            aide_decay_disabled=config.aide_decay_disabled,
            rae_weights=config.rae_weights,
            rae_half_life_hours=config.rae_half_life_hours,
            briefing_budget=config.briefing_budget,
        )


@dataclass(frozen=True)
class Relevance:
    """How a memory matched a query: full-text (normalised to [0, 1]) and vector similarity."""

    lexical: float = 0.0
    vector: float | None = None
    lexical_hit: bool = True


@dataclass(frozen=True)
class TypeSpec:
    """A memory type of a profile's vocabulary and its defaults (None: the engine's default)."""

    name: str
    description: str
    confidence: float | None = None
    importance: float | None = None


ContextScorer = Callable[[MemoryRecord, datetime, ProfileSettings], ContextScore]
SearchScorer = Callable[[MemoryRecord, datetime, Relevance, ProfileSettings], SearchScore]
RecallSelector = Callable[[Sequence[tuple[MemoryRecord, SearchScore]], int], list[int]]
BriefingPolicy = Callable[[Sequence[MemoryRecord], BriefingRequest, ProfileSettings], Briefing]


@dataclass(frozen=True)
class Profile:
    """One scoring system: vocabulary, defaults, scores, briefing policy and write rules."""

    name: str
    summary: str
    document: str
    types: tuple[TypeSpec, ...]
    default_type: str
    context_score: ContextScorer
    search_score: SearchScorer
    briefing: BriefingPolicy
    bump_on_recall: bool
    dedup: tuple[str, ...] = ()
    select: RecallSelector | None = None  # None: the best ``limit`` by search score
    reserved_types: frozenset[str] = field(default_factory=frozenset)
    source_confidence: tuple[tuple[str, float], ...] = ()

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
