"""``salience feedback|maintain|consolidate|log``: a memory's life after it is written."""

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
    store_options,
)
from salience.wire.values import consolidation_out, format_time, maintenance_out


@cli.command()
@click.argument("memory_id")
@click.option(
    "--used/--unused",
    default=None,
    help="The memory helped (echo: importance and confidence up) or did not (fizzle: down).",
)
@store_options
@json_option
def feedback(
    memory_id: str, used: bool | None, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Say whether memory MEMORY_ID was used; later feedback can undo it."""
    if used is None:
        raise click.UsageError("say whether the memory was used: --used or --unused")
    with open_memory(home, profile) as memory:
        result = memory.feedback(memory_id, used=used)
    render.emit_write(result, as_json)


@cli.command()
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@as_of_option
@store_options
@json_option
def maintain(
    dry_run: bool, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Decay importance (idempotent), apply retention if set, clean orphaned index rows."""
    with open_memory(home, profile) as memory:
        report = memory.maintain(dry_run=dry_run, as_of=as_of)
    if as_json:
        render.emit_json(maintenance_out(report))
        return
    verb = "would change" if dry_run else "changed"
    if not report.changed:
        render.say("nothing to do")
        return
    for change in report.decayed:
        render.say(
            f"decay   {change.memory_id}  importance {change.before:.4f} -> {change.after:.4f}"
        )
    for memory_id in report.forgotten:
        render.say(f"forget  {memory_id}  (retention)")
    for table, count in report.orphans.items():
        render.say(f"orphans {table}: {count}")
    render.say(
        f"{verb}: {len(report.decayed)} decayed, {len(report.forgotten)} forgotten, "
        f"{sum(report.orphans.values())} orphan rows"
    )


@cli.command()
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@as_of_option
@all_users_option
@store_options
@json_option
def consolidate(
    dry_run: bool, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Turn groups of 3+ observations that share tags into insights (idempotent)."""
    with open_memory(home, profile) as memory:
        report = memory.consolidate(dry_run=dry_run, as_of=as_of, user=chosen_user())
    if as_json:
        render.emit_json(consolidation_out(report))
        return
    if not report.groups:
        render.say(f"nothing to consolidate ({report.candidates} candidate observations)")
        return
    for g in report.groups:
        target = g.insight_id or "(new)"
        how = f" [{g.summary}]" if g.action != "boost" else ""
        if g.replaces:
            how += f" (replaces stale {g.replaces})"
        render.say(
            f"{g.action:<8} {target}  {len(g.members)} observations -> importance "
            f"{g.importance:.2f}{how}: {g.content[:60]}"
        )
        if g.note:
            render.say(f"note: {g.note}", err=True)
    verb = "would consolidate" if dry_run else "consolidated"
    render.say(f"{verb} {len(report.groups)} groups of {report.candidates} candidates")


@cli.command(name="log")
@click.option("--id", "memory_id", default=None, help="Only this memory's entries.")
@click.option("--limit", type=LIMIT, default=50, show_default=True)
@all_users_option
@store_options
@json_option
def log_(
    memory_id: str | None, limit: int, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """The audit log, newest first: every write, merge, feedback and maintenance change."""
    import json

    with open_memory(home, profile, create=False) as memory:
        entries = memory.log(memory_id, limit=limit, user=chosen_user())
    if as_json:
        render.emit_json(
            [
                {
                    "seq": e.seq,
                    "at": format_time(e.at),
                    "id": e.memory_id,
                    "action": e.action,
                    "actor": e.actor,
                    "user": e.user,
                    "detail": e.detail,
                }
                for e in entries
            ]
        )
        return
    if not entries:
        render.say("no entries")
    for e in entries:
        detail = json.dumps(e.detail, ensure_ascii=False, default=str) if e.detail else ""
        render.say(
            f"{e.at.isoformat(timespec='seconds')}  {e.action:<11} {e.memory_id or '-':<26}  "
            f"{e.actor:<13} {detail}"
        )
