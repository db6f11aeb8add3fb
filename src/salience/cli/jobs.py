"""``salience jobs``: the long work of the store's servers (imports, consolidations,
reindexes), listed, followed, and stopped from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import (
    all_users_option,
    chosen_user,
    cli,
    json_option,
    open_memory,
    store_options,
)


@cli.group()
def jobs() -> None:
    """Long work run as jobs by a server of this store (one user's, or every user's)."""


def _line(job: Any) -> str:
    shown = f"{job['id']}  {job['kind']:<12} {job['state']:<8} {job['done']}/{job['total']}"
    if job["error"] is not None:
        shown += f"  {job['error']['code']}: {job['error']['message']}"
    return shown


def _show(job: Any, as_json: bool) -> None:
    if as_json:
        render.emit_json(job)
    else:
        render.say(_line(job))


@jobs.command(name="list")
@click.option("--limit", type=click.IntRange(1, 200), default=50, show_default=True)
@store_options
@all_users_option
@json_option
def list_jobs(limit: int, home: Path | None, profile: str | None, as_json: bool) -> None:
    """The user's jobs, newest first (finished ones are kept a week)."""
    from salience.wire.values import job_out

    with open_memory(home, profile, create=False) as memory:
        found = [job_out(j) for j in memory.jobs(user=chosen_user(), limit=limit)]
    if as_json:
        render.emit_json(found)
        return
    for job in found:
        render.say(_line(job))
    if not found:
        render.say("no jobs")


@jobs.command(name="show")
@click.argument("job_id")
@store_options
@all_users_option
@json_option
def show_job(job_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """One job: its progress, and once finished its result or error."""
    from salience.wire.values import job_out

    with open_memory(home, profile, create=False) as memory:
        _show(job_out(memory.job(job_id, user=chosen_user())), as_json)


@jobs.command(name="cancel")
@click.argument("job_id")
@store_options
@all_users_option
@json_option
def cancel_job(job_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Stop a job, whichever server process runs it: a queued one leaves the queue, a
    running one stops at its next check (within seconds) and applies nothing."""
    from salience.wire.values import job_out

    with open_memory(home, profile, create=False) as memory:
        job = job_out(memory.cancel_job(job_id, user=chosen_user()))
    if as_json:
        render.emit_json(job)
        return
    render.say(f"asked job {job_id} to stop ({job['state']})")
