"""The click group, shared options, and the mapping of errors to exit codes.

Exit codes: 0 success; 1 a user error or a rejected write (one line on stderr, never a
traceback); 2 a usage error (click's own).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

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


def store_options(func: F) -> F:
    """``--home DIR`` and ``--profile NAME``, taken by every command."""
    func = click.option(
        "--profile",
        default=None,
        help="Scoring profile (default: $SALIENCE_PROFILE or salience).",
    )(func)
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Data directory holding salience.db (default: $SALIENCE_HOME).",
    )(func)


if TYPE_CHECKING:
    _ParamBase = click.ParamType[datetime]
else:  # click < 8.2 has a non-generic ParamType
    _ParamBase = click.ParamType


class TimeParam(_ParamBase):
    """An ISO 8601 time (UTC when no offset is given)."""

    name = "TIME"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from salience.clock import parse_time
        from salience.errors import InvalidInputError

        if isinstance(value, datetime):
            return value
        try:
            return parse_time(str(value), field="--as-of")
        except InvalidInputError as exc:
            self.fail(str(exc), param, ctx)


def as_of_option(func: F) -> F:
    """``--as-of TIME``: fix "now" for reproducible output."""
    return click.option(
        "--as-of", type=TimeParam(), default=None, help="Score as of this ISO 8601 time."
    )(func)


def json_option(func: F) -> F:
    """``--json``: machine-readable output."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def open_memory(home: Path | None, profile: str | None = None) -> Any:
    """The engine for ``--home`` (or the configured default), with ``--profile`` as default."""
    from dataclasses import replace

    from salience.config import Config
    from salience.engine.memory import Memory

    config = Config.from_env() if home is None else Config.for_home(home)
    if profile is not None:
        config = replace(config, profile=profile)
    return Memory.open(config=config)


def read_text(value: str) -> str:
    """The argument itself, or standard input when it is ``-`` (one final newline dropped)."""
    if value != "-":
        return value
    text = sys.stdin.read()
    if text.endswith("\r\n"):
        return text[:-2]
    return text.removesuffix("\n")
