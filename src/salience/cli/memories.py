"""Commands over memories: remember, recall, show, list, update, supersede, forget, history,
export, import, stats. Each parses, calls one engine method, and prints."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from salience.cli import render
from salience.cli.app import as_of_option, cli, json_option, open_memory, read_text, store_options
from salience.models import SOURCES
from salience.write.records import to_json_dict

F = TypeVar("F", bound=Callable[..., Any])

_FIELD_OPTIONS: tuple[tuple[str, str, Any, str], ...] = (
    ("--type", "type", str, "Memory type (e.g. observation, insight, decision)."),
    ("--title", "title", str, "A one-line title or summary."),
    ("--user", "user", str, "Owner of the memory (default: default)."),
    ("--project", "project", str, "Project the memory belongs to."),
    ("--topic-key", "topic_key", str, "Stable topic key (e.g. auth/session-storage)."),
    ("--source", "source", click.Choice(SOURCES), "Where the memory came from."),
    ("--importance", "importance", float, "Importance in [0, 1] (default 0.5)."),
    ("--confidence", "confidence", float, "Confidence in [0, 1]."),
    ("--priority", "priority", float, "Manual priority; non-zero pins the score."),
    ("--session", "session_id", str, "Session the memory was written in."),
)


def field_options(func: F) -> F:
    """The record fields a write may set, as options that default to 'not given'."""
    for flag, dest, kind, help_text in reversed(_FIELD_OPTIONS):
        func = click.option(flag, dest, type=kind, default=None, help=help_text)(func)
    return func


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _emit_write(result: Any, as_json: bool) -> None:
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        render.emit_json(render.write_result_json(result))
    else:
        render.write_result(result)
    if not result.ok:
        sys.exit(1)


@cli.command()
@click.argument("content")
@field_options
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable), e.g. project:api.")
@click.option("--force", is_flag=True, help="Bypass the signal gate (never the secret scanner).")
@store_options
@json_option
def remember(
    content: str,
    tags: tuple[str, ...],
    force: bool,
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Store a memory. CONTENT is the text, or - to read it from standard input."""
    text = read_text(content)
    with open_memory(home, profile) as memory:
        result = memory.remember(text, tags=list(tags), force=force, **_given(fields))
    _emit_write(result, as_json)


@cli.command()
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--user", default=None, help="Only this user's memories.")
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--type", "types", multiple=True, help="Only memories of this type (repeatable).")
@click.option(
    "--not-type", "types_exclude", multiple=True, help="Leave out this type (repeatable)."
)
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--explain", is_flag=True, help="Show each hit's score breakdown.")
@as_of_option
@store_options
@json_option
def recall(
    query: str,
    limit: int,
    user: str | None,
    project: str | None,
    types: tuple[str, ...],
    types_exclude: tuple[str, ...],
    tags: tuple[str, ...],
    explain: bool,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Find memories matching QUERY, best first, scored by the profile. - reads stdin."""
    with open_memory(home, profile) as memory:
        hits = memory.search(
            read_text(query),
            limit,
            user=user,
            project=project,
            types=types,
            types_exclude=types_exclude,
            tags=tags,
            as_of=as_of,
        )
    if as_json:
        render.emit_json([render.hit_json(h) for h in hits])
    else:
        render.hit_table(hits, explain=explain)


@cli.command()
@click.argument("memory_id")
@store_options
@json_option
def show(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Show every field of one memory."""
    with open_memory(home, profile) as memory:
        record = memory.get(memory_id)
    if as_json:
        render.emit_json(to_json_dict(record))
    else:
        render.record_detail(record)


@cli.command(name="list")
@click.option("--user", default=None, help="Only this user's memories.")
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--type", "type_", default=None, help="Only memories of this type.")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--session", "session_id", default=None, help="Only this session's memories.")
@click.option("--entity", default=None, help="Only memories mentioning this entity.")
@click.option("--superseded", is_flag=True, help="Include superseded memories.")
@click.option("--forgotten", is_flag=True, help="Include forgotten memories.")
@click.option("--all", "everything", is_flag=True, help="Include superseded and forgotten.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many.")
@store_options
@json_option
def list_(
    user: str | None,
    project: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    session_id: str | None,
    entity: str | None,
    superseded: bool,
    forgotten: bool,
    everything: bool,
    limit: int | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """List memories, newest first (current ones unless asked otherwise)."""
    with open_memory(home, profile) as memory:
        records = memory.list(
            user=user,
            project=project,
            type=type_,
            tags=tags,
            session_id=session_id,
            entity=entity,
            include_superseded=superseded or everything,
            include_forgotten=forgotten or everything,
            limit=limit,
        )
    if as_json:
        render.emit_json([to_json_dict(r) for r in records])
    else:
        render.record_table(records)


@cli.command()
@click.argument("memory_id")
@click.option("--content", default=None, help="New content, or - to read it from stdin.")
@field_options
@click.option("--tag", "tags", multiple=True, help="Replace the tags with these (repeatable).")
@click.option("--add-tag", multiple=True, help="Add a tag (repeatable).")
@click.option("--remove-tag", multiple=True, help="Remove a tag (repeatable).")
@click.option("--disable/--enable", "disabled", default=None, help="Hide from briefings or not.")
@store_options
@json_option
def update(
    memory_id: str,
    content: str | None,
    tags: tuple[str, ...],
    add_tag: tuple[str, ...],
    remove_tag: tuple[str, ...],
    disabled: bool | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Change fields of a memory in place (new content counts a revision)."""
    changes = _given(fields)
    if content is not None:
        changes["content"] = read_text(content)
    if disabled is not None:
        changes["enabled"] = not disabled
    with open_memory(home, profile) as memory:
        if tags or add_tag or remove_tag:
            current = list(tags) if tags else list(memory.get(memory_id).tags)
            current += [t for t in add_tag if t not in current]
            changes["tags"] = [t for t in current if t not in remove_tag]
        if not changes:
            raise click.UsageError("nothing to update: give --content or a field option")
        result = memory.update(memory_id, **changes)
    _emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@click.argument("content")
@field_options
@click.option("--tag", "tags", multiple=True, help="Tags of the new version (default: kept).")
@store_options
@json_option
def supersede(
    memory_id: str,
    content: str,
    tags: tuple[str, ...],
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Replace MEMORY_ID with a new version whose text is CONTENT (- reads stdin)."""
    changes = _given(fields)
    if tags:
        changes["tags"] = list(tags)
    with open_memory(home, profile) as memory:
        result = memory.supersede(memory_id, read_text(content), **changes)
    _emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@click.option("--reason", default="forgotten on request", show_default=True)
@click.option("--purge", is_flag=True, help="Delete for good instead (cannot be undone).")
@store_options
@json_option
def forget(
    memory_id: str, reason: str, purge: bool, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Forget a memory (softly: it stays readable in history), or --purge it."""
    with open_memory(home, profile) as memory:
        result = memory.purge(memory_id) if purge else memory.forget(memory_id, reason)
    _emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@store_options
@json_option
def history(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """The version chain of a memory, newest first."""
    with open_memory(home, profile) as memory:
        chain = memory.history(memory_id)
        now = memory.now()
    if as_json:
        render.emit_json([to_json_dict(r) for r in chain])
        return
    for record in chain:
        click.echo(f"{record.id}  {record.status(now).value:<10}  {record.content}")


@cli.command(name="export")
@click.argument("file", type=click.File("w", encoding="utf-8"), default="-")
@store_options
def export_(file: Any, home: Path | None, profile: str | None) -> None:
    """Write every memory as JSON Lines to FILE (default: standard output)."""
    with open_memory(home, profile) as memory:
        count = memory.export(file)
    if getattr(file, "name", "<stdout>") != "<stdout>":
        click.echo(f"exported {count} memories", err=True)


@cli.command(name="import")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@store_options
@json_option
def import_(file: Any, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Import JSON Lines from FILE (- for stdin). All or nothing: a bad line changes nothing."""
    with open_memory(home, profile) as memory:
        result = memory.import_(file)
    if as_json:
        render.emit_json(
            {"created": result.created, "updated": result.updated, "unchanged": result.unchanged}
        )
    else:
        render.import_result(result)


@cli.command()
@store_options
@json_option
def stats(home: Path | None, profile: str | None, as_json: bool) -> None:
    """Counts of memories by status, type, user and project."""
    with open_memory(home, profile) as memory:
        summary = memory.stats()
    if as_json:
        render.emit_json(
            {
                "path": summary.path,
                "schema": summary.schema,
                "total": summary.total,
                "by_status": summary.by_status,
                "by_type": summary.by_type,
                "by_user": summary.by_user,
                "by_project": summary.by_project,
                "size_bytes": summary.size_bytes,
            }
        )
    else:
        render.stats(summary)


@cli.command()
@click.option("--top", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--user", default=None, help="Only this user's memories.")
@click.option("--project", default=None, help="Only this project's memories.")
@store_options
@json_option
def entities(
    top: int,
    user: str | None,
    project: str | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """The entities current memories name (files, classes, packages, ...), most mentioned first."""
    with open_memory(home, profile) as memory:
        counts = memory.entities(user=user, project=project, top=top)
    if as_json:
        render.emit_json([{"entity": name, "memories": n} for name, n in counts])
        return
    if not counts:
        click.echo("no entities")
    for name, n in counts:
        click.echo(f"{n:>6}  {name}")


@cli.command()
@store_options
def reindex(home: Path | None, profile: str | None) -> None:
    """Embed every memory that has no vector; after an embedder change, re-embed them all."""
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    with open_memory(home, profile) as memory, bar as progress:
        task = progress.add_task("embedding", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        count = memory.reindex(progress=advance)
        embedder = memory.vectors.embedder
    name = embedder.identity if embedder is not None else "none"
    click.echo(f"embedded {count} memories with {name}")


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
    _emit_write(result, as_json)


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
        render.emit_json(
            {
                "dry_run": report.dry_run,
                "decayed": [
                    {"id": c.memory_id, "before": c.before, "after": c.after}
                    for c in report.decayed
                ],
                "forgotten": list(report.forgotten),
                "orphans": report.orphans,
            }
        )
        return
    verb = "would change" if dry_run else "changed"
    if not report.changed:
        click.echo("nothing to do")
        return
    for change in report.decayed:
        click.echo(
            f"decay   {change.memory_id}  importance {change.before:.4f} -> {change.after:.4f}"
        )
    for memory_id in report.forgotten:
        click.echo(f"forget  {memory_id}  (retention)")
    for table, count in report.orphans.items():
        click.echo(f"orphans {table}: {count}")
    click.echo(
        f"{verb}: {len(report.decayed)} decayed, {len(report.forgotten)} forgotten, "
        f"{sum(report.orphans.values())} orphan rows"
    )


@cli.command()
@click.option("--dry-run", is_flag=True, help="Print the plan; change nothing.")
@as_of_option
@store_options
@json_option
def consolidate(
    dry_run: bool, as_of: Any, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Turn groups of 3+ observations that share tags into insights (idempotent)."""
    with open_memory(home, profile) as memory:
        report = memory.consolidate(dry_run=dry_run, as_of=as_of)
    if as_json:
        render.emit_json(
            {
                "dry_run": report.dry_run,
                "candidates": report.candidates,
                "groups": [
                    {
                        "action": g.action,
                        "insight": g.insight_id,
                        "members": list(g.members),
                        "importance": g.importance,
                        "similarity": g.similarity,
                        "content": g.content,
                        "summary": g.summary,
                        "note": g.note,
                    }
                    for g in report.groups
                ],
            }
        )
        return
    if not report.groups:
        click.echo(f"nothing to consolidate ({report.candidates} candidate observations)")
        return
    for g in report.groups:
        target = g.insight_id or "(new)"
        how = f" [{g.summary}]" if g.action == "create" else ""
        click.echo(
            f"{g.action:<6} {target}  {len(g.members)} observations -> importance "
            f"{g.importance:.2f}{how}: {g.content[:60]}"
        )
        if g.note:
            click.echo(f"note: {g.note}", err=True)
    verb = "would consolidate" if dry_run else "consolidated"
    click.echo(f"{verb} {len(report.groups)} groups of {report.candidates} candidates")


@cli.command(name="log")
@click.option("--id", "memory_id", default=None, help="Only this memory's entries.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@store_options
@json_option
def log_(
    memory_id: str | None, limit: int, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """The audit log, newest first: every write, merge, feedback and maintenance change."""
    import json

    with open_memory(home, profile) as memory:
        entries = memory.log(memory_id, limit=limit)
    if as_json:
        render.emit_json(
            [
                {
                    "seq": e.seq,
                    "at": e.at.isoformat(),
                    "id": e.memory_id,
                    "action": e.action,
                    "actor": e.actor,
                    "detail": e.detail,
                }
                for e in entries
            ]
        )
        return
    if not entries:
        click.echo("no entries")
    for e in entries:
        detail = json.dumps(e.detail, ensure_ascii=False, default=str) if e.detail else ""
        click.echo(
            f"{e.at.isoformat(timespec='seconds')}  {e.action:<11} {e.memory_id or '-':<26}  "
            f"{e.actor:<13} {detail}"
        )
