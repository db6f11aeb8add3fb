"""Commands over scores: briefing, rank, session start|end, profiles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import as_of_option, cli, json_option, open_memory, read_text, store_options
from salience.write.records import to_json_dict


@cli.command()
@click.option("--user", default="default", show_default=True, help="Whose briefing.")
@click.option("--project", default=None, help="The project the session works on.")
@click.option("--session", "session_id", default=None, help="The session being started.")
@click.option("--budget", type=click.IntRange(min=1), default=None, help="Token budget.")
@click.option("--explain", is_flag=True, help="Add the manifest: kept and dropped, and why.")
@as_of_option
@store_options
@json_option
def briefing(
    user: str,
    project: str | None,
    session_id: str | None,
    budget: int | None,
    explain: bool,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Print the briefing exactly as it would be injected at session start."""
    with open_memory(home, profile) as memory:
        result = memory.briefing(
            user=user, project=project, session_id=session_id, budget=budget, as_of=as_of
        )
    if as_json:
        render.emit_json(render.briefing_json(result))
        return
    if result.text:
        click.echo(result.text)
    if explain:
        render.manifest(result)


@cli.command()
@click.option("--user", default=None, help="Only this user's memories.")
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many.")
@click.option("--explain", is_flag=True, help="Show each score's breakdown.")
@as_of_option
@store_options
@json_option
def rank(
    user: str | None,
    project: str | None,
    limit: int | None,
    explain: bool,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """List current memories by the profile's context score, best first."""
    with open_memory(home, profile) as memory:
        ranked = memory.rank(user=user, project=project, as_of=as_of, limit=limit)
    if as_json:
        render.emit_json([render.ranked_json(record, score) for record, score in ranked])
    else:
        render.ranked_table(ranked, explain=explain)


@cli.group()
def session() -> None:
    """Start or end a working session (sessions idle for 24 h are closed automatically)."""


@session.command(name="start")
@click.option("--user", default="default", show_default=True)
@as_of_option
@store_options
@json_option
def session_start(
    user: str, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Reuse the open session if active in the last 24 h, else open a new one."""
    with open_memory(home, profile) as memory:
        started = memory.session_start(user, as_of=as_of)
    if as_json:
        render.emit_json(
            {
                "session_id": started.session_id,
                "is_new": started.is_new,
                "closed_session_id": started.closed_session_id,
                "summaries": [to_json_dict(r) for r in started.summaries],
                "memories": [render.ranked_json(r, s) for r, s in started.memories],
            }
        )
        return
    state = "new" if started.is_new else "resumed"
    click.echo(f"session {started.session_id} ({state})")
    if started.closed_session_id:
        click.echo(f"closed stale session {started.closed_session_id} with an automatic summary")
    for record in started.summaries:
        click.echo(f"  summary: {render.one_line(record.content)}")
    render.ranked_table(list(started.memories), explain=False)


@session.command(name="end")
@click.option("--summary", required=True, help="What the session did (- reads stdin).")
@click.option("--user", default="default", show_default=True)
@as_of_option
@store_options
@json_option
def session_end(
    summary: str, user: str, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Close the open session with a summary, stored as a summary memory."""
    with open_memory(home, profile) as memory:
        result = memory.session_end(user, read_text(summary), as_of=as_of)
    if as_json:
        render.emit_json(render.write_result_json(result))
    else:
        render.write_result(result)


@cli.command()
@store_options
@json_option
def profiles(home: Path | None, profile: str | None, as_json: bool) -> None:
    """The scoring profiles: the five seed systems and salience's own (marks the default)."""
    from salience.config import Config
    from salience.profiles import PROFILES, get_profile

    config = Config.from_env() if home is None else Config.for_home(home)
    default = get_profile(profile or config.profile).name

    if as_json:
        render.emit_json(
            [
                {
                    "name": p.name,
                    "summary": p.summary,
                    "document": p.document,
                    "default_type": p.default_type,
                    "types": [t.name for t in p.types],
                    "dedup": list(p.dedup),
                    "default": p.name == default,
                }
                for p in PROFILES.values()
            ]
        )
        return
    for p in PROFILES.values():
        marker = " (default)" if p.name == default else ""
        click.echo(f"{p.name:<9} {p.summary}{marker}")
        click.echo(f"{'':<9} types: {', '.join(t.name for t in p.types)}; from {p.document}")
