"""The click group, shared options, and the mapping of errors to exit codes.

Exit codes: 0 success; 1 a user error or a rejected write (one line on stderr, never a
traceback); 2 a usage error (click's own).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import click

from salience import __version__
from salience.cli.commands import COMMANDS
from salience.cli.newstore import (
    NEW_STORE,
    announce_new_store,
    discard_new_store,
)

if TYPE_CHECKING:
    from salience.engine.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])


MAX_ERROR = 400


def one_line(message: str) -> str:
    """An error message as one line of at most :data:`MAX_ERROR` characters (a message may
    quote an argument, and an argument may be huge)."""
    text = " ".join(message.split())
    return text if len(text) <= MAX_ERROR else text[: MAX_ERROR - 1] + "…"


class UserError(click.ClickException):
    """A user-facing error: printed as one line, exit code 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        from salience.cli.render import say

        say(f"error: {one_line(self.format_message())}", err=True)


class OneLineUsageError(click.ClickException):
    """A usage error (bad option, missing argument) as one line on stderr, exit code 2."""

    exit_code = 2

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(error.format_message())
        command = error.ctx.command_path if error.ctx is not None else "salience"
        self.hint = f"see '{command} --help'"

    def show(self, file: Any = None) -> None:
        from salience.cli.render import say

        say(f"error: {one_line(self.format_message())} ({self.hint})", err=True)


class SalienceGroup(click.Group):
    """Turns any salience error into one line on stderr and exit code 1; imports a command's
    module when the command is first asked for (:data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        for module in COMMANDS.get(cmd_name, ()):
            importlib.import_module(f"salience.cli.{module}")
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        from salience.errors import SalienceError

        try:
            result = super().invoke(ctx)
        except click.UsageError as exc:  # one line, like every other error
            discard_new_store(ctx)
            raise OneLineUsageError(exc) from None
        except SalienceError as exc:
            discard_new_store(ctx)
            raise UserError(str(exc)) from None
        except UnicodeError:  # an argument that is not valid text (undecodable bytes)
            discard_new_store(ctx)
            raise UserError("an argument is not valid text (undecodable bytes?)") from None
        except ValueError as exc:  # e.g. a path holding a NUL byte, refused by the OS layer
            discard_new_store(ctx)
            raise UserError(f"an argument cannot be used: {_first_words(exc)}") from None
        except BrokenPipeError:
            # The reader went away (e.g. `| head`); silence the interpreter's own complaint.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(0)
        except OSError as exc:  # e.g. a file name too long for the file system
            discard_new_store(ctx)
            why = exc.strerror or type(exc).__name__
            raise UserError(f"a file cannot be used: {why}") from None
        except SystemExit as exc:
            if exc.code:
                discard_new_store(ctx)
            else:
                announce_new_store(ctx)
            raise
        except BaseException:
            discard_new_store(ctx)
            raise
        announce_new_store(ctx)
        return result


def _first_words(exc: Exception) -> str:
    """An error's own message, cut short: it must not repeat a huge argument."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:119] + "…"


@click.group(cls=SalienceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="salience")
def cli() -> None:
    """salience: memory for AI agents, offline, in one SQLite file."""


_USER = USER_META = "salience.user"
_ALL_USERS = "salience.all_users"


def keep_in_context(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is not None:
            ctx.meta[key] = value

    return callback


STORE_META = "salience.store"
READ_STORE_META = "salience.read_store"


def store_options(func: F) -> F:
    """``--home DIR``, ``--store URL``, ``--profile NAME`` and ``--user U``, taken by every
    command."""
    func = click.option(
        "--store",
        default=None,
        expose_value=False,
        callback=keep_in_context(STORE_META),
        help="The store: a SQLite file or postgresql://user@host/db "
        "(default: $SALIENCE_STORE_URL, else salience.db in --home).",
    )(func)
    func = click.option(
        "--user",
        default=None,
        expose_value=False,
        callback=keep_in_context(_USER),
        help="Act as this user: only their memories are seen or changed "
        "(default: $SALIENCE_USER or default).",
    )(func)
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


def all_users_option(func: F) -> F:
    """``--all-users``: every user's memories, not only one user's."""
    return click.option(
        "--all-users",
        is_flag=True,
        default=None,
        expose_value=False,
        callback=keep_in_context(_ALL_USERS),
        help="Every user's memories (an administrator's view; not with --user).",
    )(func)


def chosen_user() -> Any:
    """What a verb's ``user=`` gets: ALL_USERS with ``--all-users``, else None (the user
    ``--user`` set, or the configured default)."""
    from salience.models import ALL_USERS

    meta = click.get_current_context().meta
    if meta.get(_ALL_USERS):
        if meta.get(_USER) is not None:
            raise click.UsageError("give --user or --all-users, not both")
        return ALL_USERS
    return None


def json_option(func: F) -> F:
    """``--json``: machine-readable output."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(func)


def key_option(flag: str, help_text: str) -> Callable[[F], F]:
    """``--sign-with`` / ``--verify-with FILE``: a shared key, read as :func:`shared_key`."""
    return click.option(
        flag,
        "key_file",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        default=None,
        help=help_text,
    )


def shared_key(path: Path | None) -> bytes | None:
    """The shared key in ``path`` (its bytes, one final newline dropped)."""
    if path is None:
        return None
    data = path.read_bytes()
    return data[:-1] if data.endswith(b"\n") else data


LIMIT = click.IntRange(1, 1_000_000)
"""How many results a command may ask for (bounded: SQLite binds 64-bit integers only)."""


def open_memory(home: Path | None, profile: str | None = None, *, create: bool = True) -> Memory:
    """The engine for ``--home`` (or the configured default), with ``--profile`` as default.

    Only a command that writes (``create``) makes a new store, and says so on stderr; one
    that reads refuses a missing store (a mistyped ``--home`` is not an empty store).
    """
    from dataclasses import replace

    from salience.config import Config
    from salience.engine.memory import Memory
    from salience.scratch import sweep as sweep_scratch

    sweep_scratch()  # (copies a killed salience process left behind: erased)
    meta = click.get_current_context().meta
    config = Config.from_env() if home is None else Config.for_home(home)
    given = {"store_url": meta.get(STORE_META), "store_read_url": meta.get(READ_STORE_META)}
    given.update(profile=profile, user=meta.get(_USER))
    config = replace(config, **{k: v for k, v in given.items() if v is not None})
    path = Memory.store_file(config.store_url or None, config)
    if path is None:
        # A database exists or the connection fails; its schema is made by a writing
        # command only (a reading one refuses a database with no salience schema).
        return Memory.open(config=config, create=create)
    existed = path.exists()
    home_existed = path.parent.exists()
    if not existed and not create:
        raise UserError(
            f"no salience store at {path} (check --home, --store or SALIENCE_HOME; "
            "a command that writes, such as `salience remember`, creates one)"
        )
    memory = Memory.open(config=config)
    if not existed:
        meta[NEW_STORE] = (path, not home_existed)
    return memory


@contextmanager
def private_file(path: str) -> Iterator[TextIO]:
    """``path`` opened for writing UTF-8 text, readable and writable by its owner only."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    os.fchmod(handle, 0o600)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        yield out


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr when it is a terminal; yields ``advance(done, total)``."""
    from rich.console import Console
    from rich.progress import Progress

    if not sys.stderr.isatty():
        yield lambda done, total: None
        return

    bar = Progress(console=Console(stderr=True), transient=True)
    with bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def read_text(value: str) -> str:
    """The argument itself, or standard input when it is ``-`` (one final newline dropped)."""
    if value != "-":
        return value
    raw = sys.stdin.buffer.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"standard input is not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}"
        ) from None
    if text.endswith("\r\n"):
        return text[:-2]
    return text.removesuffix("\n")
