"""Scores with their breakdown.

A score is its value plus the components that made it (name, weight, value). Context scores
(no query: what to inject at session start) and search scores (relevance to a query) are
different types: comparing or sorting one against the other raises ``TypeError``, because
their scales mean different things (ilab's rule, applied to every profile).
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

Part = tuple[str, float, float]


class Component(NamedTuple):
    """One signal of a score: ``weight * value`` is its contribution."""

    name: str
    weight: float
    value: float

    @property
    def contribution(self) -> float:
        """``weight * value``."""
        return self.weight * self.value


class _Score:
    """A value with the parts that made it; immutable. Scores of different kinds never compare.

    ``parts`` are plain ``(name, weight, value)`` tuples (cheap to build for thousands of
    memories); :attr:`components` turns them into :class:`Component` when asked.
    """

    __slots__ = ("note", "parts", "profile", "value")

    value: float
    parts: tuple[Part, ...]
    profile: str
    note: str | None

    def __init__(
        self,
        value: float,
        parts: tuple[Part, ...] = (),
        profile: str = "",
        note: str | None = None,
    ) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "parts", tuple(parts))
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "note", note)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value!r}, {self.parts!r}, {self.profile!r})"

    @property
    def components(self) -> tuple[Component, ...]:
        """The parts as :class:`Component` values, in order."""
        return tuple(Component(*part) for part in self.parts)

    def _other(self, other: object) -> float | None:
        if not isinstance(other, _Score):
            return None
        if type(other) is not type(self):
            raise TypeError(
                f"cannot compare a {type(self).__name__} with a {type(other).__name__}: "
                "their scales mean different things"
            )
        return other.value

    def __eq__(self, other: object) -> bool:
        value = self._other(other)
        if value is None:
            return NotImplemented
        return self.value == value and self.parts == other.parts  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.value, self.parts))

    def __lt__(self, other: Any) -> bool:
        value = self._other(other)
        return NotImplemented if value is None else self.value < value

    def __le__(self, other: Any) -> bool:
        value = self._other(other)
        return NotImplemented if value is None else self.value <= value

    def __gt__(self, other: Any) -> bool:
        value = self._other(other)
        return NotImplemented if value is None else self.value > value

    def __ge__(self, other: Any) -> bool:
        value = self._other(other)
        return NotImplemented if value is None else self.value >= value

    def __float__(self) -> float:
        return self.value

    def breakdown(self) -> list[dict[str, Any]]:
        """Each component as ``{"name", "weight", "value", "contribution"}``."""
        return [
            {"name": c.name, "weight": c.weight, "value": c.value, "contribution": c.contribution}
            for c in self.components
        ]


class ContextScore(_Score):
    """How salient a memory is as default context, with no query."""


class SearchScore(_Score):
    """How well a memory answers a query."""


ScoreT = TypeVar("ScoreT", bound=_Score)


def weighted(kind: type[ScoreT], profile: str, parts: tuple[Part, ...]) -> ScoreT:
    """A score of ``kind`` whose value is the sum of ``weight * value`` over ``parts``."""
    total = 0.0
    for _, weight, value in parts:
        total += weight * value
    return kind(total, parts, profile)


def scaled(score: ScoreT, factor: float, why: str) -> ScoreT:
    """``score`` times ``factor``: every part's weight scaled, so the parts still add up."""
    parts = tuple((name, weight * factor, value) for name, weight, value in score.parts)
    note = f"{score.note}; {why}" if score.note else why
    return type(score)(score.value * factor, parts, score.profile, note)
