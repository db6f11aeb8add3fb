"""``salience updates [confirm|dismiss]``: newer memories found to change what older ones
say (a different value, a "no", words of change), open until you decide them."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import cli, json_option, open_memory, store_options
from salience.wire.values import update_out

STATES = click.Choice(["open", "confirmed", "dismissed", "all"])


@cli.group(invoke_without_command=True)
@click.option("--state", type=STATES, default="open", show_default=True, help="Which pairs.")
@store_options
@json_option
@click.pass_context
def updates(
    context: click.Context, state: str, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Update pairs (no subcommand: list them), newest first: NEW changes what OLD says.
    Confirm one (NEW replaces OLD: a supersession) or dismiss it (it never comes back)."""
    if context.invoked_subcommand is not None:
        return
    with open_memory(home, profile, create=False) as memory:
        found = memory.updates(state=state)
        if as_json:
            render.emit_json([update_out(x) for x in found])
            return
        if not found:
            render.say(f"no {state} updates" if state != "all" else "no updates")
            return
        for link in found:
            new, old = memory.get(link.new_id), memory.get(link.old_id)
            render.say(f"{link.new_id} -> {link.old_id}  [{link.state}, {link.confidence:.2f}]")
            render.say(f"  new: {render.one_line(new.content)}")
            render.say(f"  old: {render.one_line(old.content)}")
            render.say(f"  why: {link.why}")
        if state == "open":
            render.say(
                "replace: salience updates confirm NEW OLD   not: salience updates dismiss NEW OLD"
            )


@updates.command()
@click.argument("new_id")
@click.argument("old_id")
@store_options
@json_option
def confirm(
    new_id: str, old_id: str, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """NEW_ID replaces OLD_ID: OLD_ID is superseded (audited; what was built on it goes stale)."""
    with open_memory(home, profile) as memory:
        result = memory.confirm_update(new_id, old_id)
    render.emit_write(result, as_json)


@updates.command()
@click.argument("new_id")
@click.argument("old_id")
@store_options
@json_option
def dismiss(
    new_id: str, old_id: str, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """NEW_ID does not change OLD_ID: both stay, and the pair is never found again."""
    with open_memory(home, profile) as memory:
        link = memory.dismiss_update(new_id, old_id)
    if as_json:
        render.emit_json(update_out(link))
    else:
        render.say(f"dismissed {link.new_id} -> {link.old_id}")
