"""Memories waiting for a person: ``salience quarantine [approve|reject]`` (from a source
below the user, reading as orders to the agent) and ``salience stale [confirm]`` (derived
from a memory that changed since). Both stay out of every briefing until decided."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import cli, json_option, open_memory, store_options
from salience.models import MemoryRecord
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
    if context.invoked_subcommand is None:
        with open_memory(home, profile, create=False) as memory:
            held = memory.quarantined()
        hint = "approve: salience quarantine approve ID   reject: salience quarantine reject ID"
        _waiting(held, "quarantine", as_json, "nothing is held in quarantine", hint)


def _waiting(records: list[MemoryRecord], prefix: str, as_json: bool, none: str, hint: str) -> None:
    """Memories waiting for a person: as JSON, or one line each with why (its
    ``prefix:<why>`` tag) and the commands that settle them."""
    if as_json:
        render.emit_json([memory_out(r) for r in records])
        return
    if not records:
        render.say(none)
        return
    for record in records:
        why = next((t.split(":", 1)[1] for t in record.tags if t.startswith(f"{prefix}:")), "")
        render.say(f"{record.id}  [{why}] ({record.source})  {render.one_line(record.content)}")
    render.say(hint)


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


@cli.group(invoke_without_command=True)
@store_options
@json_option
@click.pass_context
def stale(context: click.Context, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Memories derived from one that changed since (no subcommand: list them): out of
    briefings until you confirm them (still true) or forget them."""
    if context.invoked_subcommand is None:
        with open_memory(home, profile, create=False) as memory:
            marked = memory.stale()
        hint = "still true: salience stale confirm ID   no longer: salience forget ID"
        _waiting(marked, "stale", as_json, "nothing is stale", hint)


@stale.command(name="confirm")
@click.argument("memory_id")
@store_options
@json_option
def confirm_(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """MEMORY_ID is still true: clear its stale mark (audited)."""
    with open_memory(home, profile) as memory:
        result = memory.confirm(memory_id)
    render.emit_write(result, as_json)
