"""``salience quarantine [list|approve|reject]``: memories from a source below the user that
read as orders to the agent, held out of every briefing until a person decides."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import cli, json_option, open_memory, store_options
from salience.wire.values import memory_out


@cli.group(invoke_without_command=True)
@store_options
@json_option
@click.pass_context
def quarantine(
    context: click.Context, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Held memories (no subcommand: list them). Your own memories are never held; an
    agent's, a tool's or an import's that address the agent as a command are."""
    if context.invoked_subcommand is not None:
        return
    with open_memory(home, profile, create=False) as memory:
        held = memory.quarantined()
    if as_json:
        render.emit_json([memory_out(r) for r in held])
        return
    if not held:
        render.say("nothing is held in quarantine")
        return
    for record in held:
        why = next((t.split(":", 1)[1] for t in record.tags if t.startswith("quarantine:")), "")
        render.say(f"{record.id}  [{why}] ({record.source})  {render.one_line(record.content)}")
    render.say("approve: salience quarantine approve ID   reject: salience quarantine reject ID")


@quarantine.command()
@click.argument("memory_id")
@store_options
@json_option
def approve(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Let the held memory MEMORY_ID into briefings (audited)."""
    with open_memory(home, profile) as memory:
        result = memory.approve(memory_id)
    render.emit_write(result, as_json)


@quarantine.command()
@click.argument("memory_id")
@store_options
@json_option
def reject(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Forget the held memory MEMORY_ID (audited; readable in its history)."""
    with open_memory(home, profile) as memory:
        result = memory.reject(memory_id)
    render.emit_write(result, as_json)
