"""Which module of ``salience.cli`` defines each command: a call imports only those (a hook
or a ``remember`` does not pay for every command)."""

from __future__ import annotations

import importlib
from typing import Any

import click

COMMANDS: dict[str, tuple[str, ...]] = {
    "briefing": ("scoring",),  # (its subcommand log: in evaluation, see LaterGroup)
    "connect": ("connect",),
    "consolidate": ("lifecycle",),
    "decision": ("agent",),
    "doctor": ("doctor",),
    "entities": ("memories",),
    "erase": ("erase",),
    "eval": ("evaluation",),
    "export": ("memories",),
    "feedback": ("lifecycle",),
    "forget": ("writes",),
    "history": ("memories",),
    "hook": ("agent",),
    "import": ("memories",),
    "jobs": ("jobs",),
    "keys": ("serve",),
    "layer": ("layers",),
    "list": ("memories",),
    "log": ("lifecycle",),
    "maintain": ("lifecycle",),
    "mcp": ("agent",),
    "migrate": ("migrate",),
    "pack": ("packs",),
    "profiles": ("scoring",),
    "quarantine": ("quarantine",),
    "rank": ("scoring",),
    "recall": ("memories",),
    "reindex": ("memories",),
    "remember": ("writes",),
    "serve": ("serve",),
    "session": ("scoring",),
    "show": ("memories",),
    "space": ("spaces",),
    "stale": ("quarantine",),
    "stats": ("memories",),
    "supersede": ("writes",),
    "update": ("writes",),
    "updates": ("updates",),
}
"""Each command and the modules of ``salience.cli`` that define it (and its subcommands):
a call imports only those (a hook or a ``remember`` does not pay for every command)."""


class LaterGroup(click.Group):
    """A group some of whose subcommands are defined in other modules of ``salience.cli``
    (``later``), imported only when a subcommand is asked for or listed: the group's own
    command (``salience briefing``) does not pay for them."""

    def __init__(self, *args: Any, later: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.later = later

    def _load(self) -> None:
        for module in self.later:
            importlib.import_module(f"salience.cli.{module}")

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load()
        return super().get_command(ctx, cmd_name)


def load_commands() -> None:
    """Import every command's module (for help listings and documentation)."""
    for modules in COMMANDS.values():
        for module in modules:
            importlib.import_module(f"salience.cli.{module}")
