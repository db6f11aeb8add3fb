"""The store a command made: kept and announced when the command succeeds, or once it starts
serving; removed when it fails before that (a failed command changes nothing)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

NEW_STORE = "salience.new_store"
"""The context's meta key: (the new store's path, whether its home was made too)."""


def announce_new_store(ctx: click.Context) -> None:
    """A command that made a new store and succeeded says where."""
    made = ctx.meta.get(NEW_STORE)
    if made is not None:
        from salience.cli.render import say

        say(f"created a new store at {made[0]}", err=True)


def keep_new_store() -> None:
    """From here the command answers clients whose writes it acknowledges (a server): a store
    it made stays whatever ends it (SIGTERM, Ctrl-C, a crash), and it says where now."""
    ctx = click.get_current_context()
    announce_new_store(ctx)
    ctx.meta.pop(NEW_STORE, None)


def discard_new_store(ctx: click.Context) -> None:
    """A command that made a new store and then failed leaves nothing behind: a failed
    command changes nothing."""
    made = ctx.meta.get(NEW_STORE)
    if made is None:
        return
    path, made_home = made
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)
    if made_home:
        with contextlib.suppress(OSError):  # something else is in it now
            path.parent.rmdir()
