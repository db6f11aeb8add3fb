"""The click group, shared options, and the mapping of errors to exit codes.

Exit codes: 0 success; 1 a user error or a rejected write (one line on stderr, never a
traceback); 2 a usage error (click's own).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from salience import __version__

F = TypeVar("F", bound=Callable[..., Any])


class UserError(click.ClickException):
    """A user-facing error: printed as one line, exit code 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


class SalienceGroup(click.Group):
    """Turns any salience error into one line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context) -> Any:
        from salience.errors import SalienceError

        try:
            return super().invoke(ctx)
        except SalienceError as exc:
            raise UserError(str(exc)) from None
        except BrokenPipeError:
            # The reader went away (e.g. `| head`); silence the interpreter's own complaint.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)


@click.group(cls=SalienceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="salience")
def cli() -> None:
    """salience: memory for AI agents, offline, in one SQLite file."""


def home_option(func: F) -> F:
    """``--home DIR``: the data directory (default $SALIENCE_HOME)."""
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Data directory holding salience.db (default: $SALIENCE_HOME).",
    )(func)


def json_option(func: F) -> F:
    """``--json``: machine-readable output."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def open_memory(home: Path | None) -> Any:
    """The engine for ``--home`` (or the configured default)."""
    from salience.config import Config
    from salience.engine import Memory

    config = Config.from_env()
    if home is not None:
        config = config.with_home(home)
    return Memory.open(config=config)


def read_text(value: str) -> str:
    """The argument itself, or standard input when it is ``-`` (one final newline dropped)."""
    if value != "-":
        return value
    text = sys.stdin.read()
    if text.endswith("\r\n"):
        return text[:-2]
    return text.removesuffix("\n")
