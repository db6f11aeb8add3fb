"""The ``salience`` command line: a thin shell over :class:`salience.Memory`.

Each command's module is imported when the command is called (:data:`.app.COMMANDS`)."""

from __future__ import annotations

from salience.cli.app import cli, load_commands


def main() -> None:
    """Entry point of the ``salience`` console script."""
    cli(prog_name="salience")


__all__ = ["cli", "load_commands", "main"]
