"""``salience erase --user NAME --yes``: everything a user ever stored, gone, with a receipt."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import USER_META, UserError, cli, json_option, open_memory, store_options


@cli.command()
@click.option("--yes", is_flag=True, help="Confirm: the erasure cannot be undone.")
@store_options
@json_option
def erase(yes: bool, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Erase everything the user named by --user ever stored: memories of every status, their
    full-text and vector entries, sessions, audit entries and jobs; then scrub the store's
    files so that no copy of a text remains. The audit log keeps a receipt (counts, never a
    text). A single memory: salience forget --purge ID."""
    user = click.get_current_context().meta.get(USER_META)
    if user is None:
        raise click.UsageError("name the user to erase with --user NAME")
    if not yes:
        raise UserError(f"erasing {user!r} cannot be undone: add --yes to confirm")
    with open_memory(home, profile, create=False) as memory:
        receipt = memory.erase_user(user)
    if as_json:
        render.emit_json(receipt)
        return
    counts = ", ".join(f"{n} {name}" for name, n in receipt.items() if name != "user")
    render.say(f"erased {user!r}: {counts}")
