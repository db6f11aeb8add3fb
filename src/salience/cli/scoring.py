"""Commands over scores: briefing, rank, session start|end, profiles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import (
    LIMIT,
    all_users_option,
    as_of_option,
    chosen_user,
    cli,
    json_option,
    open_memory,
    read_text,
    store_options,
)
from salience.cli.commands import LaterGroup
from salience.wire.values import session_start_out


@cli.group(invoke_without_command=True, cls=LaterGroup, later=("evaluation",))
@click.option("--project", default=None, help="The project the session works on.")
@click.option("--session", "session_id", default=None, help="The session being started.")
@click.option("--budget", type=LIMIT, default=None, help="Token budget.")
@click.option("--explain", is_flag=True, help="Add the manifest: kept and dropped, and why.")
@click.option("--space", default=None, help="This space's only (default: yours and your spaces').")
@as_of_option
@store_options
@json_option
def briefing(
    project: str | None,
    session_id: str | None,
    budget: int | None,
    explain: bool,
    space: str | None,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Print the briefing exactly as it would be injected at session start (a preview: not
    recorded). ``salience briefing log``: what sessions were given."""
    if click.get_current_context().invoked_subcommand is not None:
        return
    with open_memory(home, profile, create=False) as memory:
        result = memory.briefing(
            project=project,
            session_id=session_id,
            budget=budget,
            as_of=as_of,
            record=False,
            space=space,
        )
        render.warn_unavailable(memory.unavailable_layers())
    if as_json:
        render.emit_json(render.briefing_json(result))
        return
    if result.text:
        render.say(result.text)
    else:
        render.say(render.empty_briefing_hint(result, project), err=True)
    if explain:
        render.manifest(result)


@cli.command()
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--limit", type=LIMIT, default=None, help="At most this many.")
@click.option("--explain", is_flag=True, help="Show each score's breakdown.")
@as_of_option
@all_users_option
@store_options
@json_option
def rank(
    project: str | None,
    limit: int | None,
    explain: bool,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """List current memories by the profile's context score, best first."""
    with open_memory(home, profile, create=False) as memory:
        ranked = memory.rank(user=chosen_user(), project=project, as_of=as_of, limit=limit)
    if as_json:
        render.emit_json([render.ranked_json(record, score) for record, score in ranked])
    else:
        render.ranked_table(ranked, explain=explain)


@cli.group()
def session() -> None:
    """Start or end a working session (sessions idle for 24 h are closed automatically)."""


@session.command(name="start")
@as_of_option
@store_options
@json_option
def session_start(as_of: Any, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Reuse the open session if active in the last 24 h, else open a new one."""
    with open_memory(home, profile) as memory:
        started = memory.session_start(as_of=as_of)
    if as_json:
        render.emit_json(session_start_out(started))
        return
    state = "new" if started.is_new else "resumed"
    render.say(f"session {started.session_id} ({state})")
    if started.closed_session_id:
        render.say(f"closed stale session {started.closed_session_id} with an automatic summary")
    for record in started.summaries:
        render.say(f"  summary: {render.one_line(record.content)}")
    render.ranked_table(list(started.memories), explain=False)


@session.command(name="end")
@click.option("--summary", required=True, help="What the session did (- reads stdin).")
@as_of_option
@store_options
@json_option
def session_end(
    summary: str, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Close the open session with a summary, stored as a summary memory."""
    text = read_text(summary)
    with open_memory(home, profile) as memory:
        result = memory.session_end(text, as_of=as_of)
    render.emit_write(result, as_json)


@cli.command()
@store_options
@json_option
def profiles(home: Path | None, profile: str | None, as_json: bool) -> None:
    """The scoring profiles: the five seed systems and salience's own (marks the default)."""
    from salience.config import Config
    from salience.wire.values import profiles_out

    config = Config.from_env() if home is None else Config.for_home(home)
    listed = profiles_out(profile or config.profile)
    if as_json:
        render.emit_json(listed)
        return
    for p in listed:
        marker = " (default)" if p["default"] else ""
        render.say(f"{p['name']:<9} {p['summary']}{marker}")
        render.say(f"{'':<9} types: {', '.join(p['types'])}; from {p['document']}")
