"""Pure scoring: shared signals, score types with breakdowns. No I/O, no clock, no environment."""

from salience.scores import Component, ContextScore, SearchScore

__all__ = ["Component", "ContextScore", "SearchScore"]
