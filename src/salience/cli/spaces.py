"""``salience space create|list|members|grant|revoke|set|delete``: a team's shared spaces,
acting as the user ``--user`` names (or the configured one), within their grants."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import UserError, cli, json_option, open_memory, store_options
from salience.models.spaces import RIGHTS
from salience.wire.spaces import grant_out, space_out


@cli.group()
def space() -> None:
    """Shared spaces: memory areas a team's people and agents share, each with its grants
    (read: recall, briefing, list; write: and remember, update, forget; admin: and grants,
    quarantine, purge, delete)."""


@space.command()
@click.argument("name")
@click.option(
    "--keep-contributions",
    is_flag=True,
    help="When a member is erased, keep what they wrote here with their name erased.",
)
@store_options
@json_option
def create(
    name: str, keep_contributions: bool, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Make the space NAME; you are its first admin."""
    with open_memory(home, profile) as memory:
        made = memory.create_space(name, keep_contributions=keep_contributions)
    if as_json:
        render.emit_json(space_out(made))
    else:
        render.say(f"made space {made.name!r}; {made.created_by!r} is its admin")


@space.command(name="list")
@store_options
@json_option
def list_(home: Path | None, profile: str | None, as_json: bool) -> None:
    """The spaces you have a right on, with that right."""
    with open_memory(home, profile, create=False) as memory:
        found = memory.spaces()
    if as_json:
        render.emit_json([space_out(x) for x in found])
        return
    if not found:
        render.say("no spaces (salience space create NAME makes one)")
    for x in found:
        kept = "  keeps contributions" if x.keep_contributions else ""
        render.say(f"{x.name:<24} {x.right:<6} by {x.created_by}{kept}")


@space.command()
@click.argument("name")
@store_options
@json_option
def members(name: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Who has which right on the space NAME."""
    with open_memory(home, profile, create=False) as memory:
        grants = memory.space_members(name)
    if as_json:
        render.emit_json([grant_out(g) for g in grants])
        return
    for g in grants:
        render.say(f"{g.user:<24} {g.right:<6} granted by {g.granted_by} {g.granted_at:%Y-%m-%d}")


@space.command()
@click.argument("name")
@click.argument("member")
@click.argument("right", type=click.Choice(RIGHTS))
@store_options
@json_option
def grant(
    name: str, member: str, right: str, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Give the user MEMBER the RIGHT on the space NAME (an admin's)."""
    with open_memory(home, profile) as memory:
        given = memory.grant(name, member, right)
    if as_json:
        render.emit_json(grant_out(given))
    else:
        render.say(f"{given.user!r} has {given.right} on space {given.space!r}")


@space.command()
@click.argument("name")
@click.argument("member")
@store_options
def revoke(name: str, member: str, home: Path | None, profile: str | None) -> None:
    """Take the user MEMBER's right on the space NAME away (an admin's)."""
    with open_memory(home, profile) as memory:
        gone = memory.revoke(name, member)
    render.say(
        f"revoked {member!r}'s right on space {name!r}"
        if gone
        else f"{member!r} had no right on space {name!r}"
    )


@space.command(name="set")
@click.argument("name")
@click.option(
    "--keep-contributions/--erase-contributions",
    required=True,
    help="Whether an erased member's contributions stay (their name erased).",
)
@store_options
@json_option
def set_(
    name: str, keep_contributions: bool, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Change the space NAME's settings (an admin's)."""
    with open_memory(home, profile) as memory:
        changed = memory.set_space(name, keep_contributions=keep_contributions)
    if as_json:
        render.emit_json(space_out(changed))
    else:
        how = "keeps" if changed.keep_contributions else "erases"
        render.say(f"space {changed.name!r} {how} an erased member's contributions")


@space.command()
@click.argument("name")
@click.option("--yes", is_flag=True, help="Confirm: deleting every memory in it cannot be undone.")
@store_options
@json_option
def delete(name: str, yes: bool, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Delete the space NAME with every memory in it, scrubbed from the store (an admin's)."""
    if not yes:
        raise UserError(f"deleting space {name!r} erases every memory in it: add --yes to confirm")
    with open_memory(home, profile) as memory:
        receipt = memory.delete_space(name)
    if as_json:
        render.emit_json(receipt)
    else:
        render.say(f"deleted space {name!r}: {receipt['memories']} memories erased")
