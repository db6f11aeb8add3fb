"""The marks a briefing line carries when the words are not the user's own: who wrote it
(``[agent]``, ``[agent ci-bot]``) and where it comes from (``[payments]``, a space)."""

from __future__ import annotations

from salience.models.spaces import space_of


def mark(source: str) -> str:
    """A line's source mark: none for the user's own words, else ``[source] ``."""
    return "" if source == "user" else f"[{source}] "


def agent_mark(source: str, agent: str | None) -> str:
    """The agent that wrote a line not in the user's own words: ``[agent ci-bot] ``."""
    return f"[{source} {agent}] " if agent and source != "user" else mark(source)


def place_mark(layer: str) -> str:
    """Where a line comes from, if not from the user's own memories: ``[payments] `` for a
    space's (a mounted layer's lines carry no mark)."""
    space = space_of(layer)
    return "" if space is None else f"[{space}] "
