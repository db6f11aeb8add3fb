"""``salience recall|show|list|history|export|import|stats|entities|reindex``: reading memories."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from salience.cli import render
from salience.cli.app import (
    LIMIT,
    UserError,
    all_users_option,
    as_of_option,
    chosen_user,
    cli,
    json_option,
    key_option,
    open_memory,
    private_file,
    progress_bar,
    read_text,
    shared_key,
    store_options,
)
from salience.engine.migrating import SYSTEMS

if TYPE_CHECKING:
    from salience.engine.memory import Memory
from salience.wire.values import import_out, migration_out, search_out, stats_of, to_json_dict


@cli.command()
@click.argument("query")
@click.option("--limit", type=LIMIT, default=10, show_default=True)
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--type", "types", multiple=True, help="Only memories of this type (repeatable).")
@click.option(
    "--not-type", "types_exclude", multiple=True, help="Leave out this type (repeatable)."
)
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--explain", is_flag=True, help="Show each hit's score breakdown.")
@click.option(
    "--no-touch", is_flag=True, help="Look without counting an access (implied by --as-of)."
)
@click.option("--space", default=None, help="Only this space's (default: yours and your spaces').")
@click.option("--agent", default=None, help="Only what this agent wrote.")
@as_of_option
@all_users_option
@store_options
@json_option
def recall(
    query: str,
    limit: int,
    project: str | None,
    types: tuple[str, ...],
    types_exclude: tuple[str, ...],
    tags: tuple[str, ...],
    explain: bool,
    no_touch: bool,
    space: str | None,
    agent: str | None,
    as_of: Any,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Find memories matching QUERY, best first, scored by the profile: yours and those of
    every space you read, each hit naming its space. - reads stdin."""
    text = read_text(query)
    with open_memory(home, profile, create=False) as memory:
        hits = memory.search(
            text,
            limit,
            user=chosen_user(),
            touch=False if no_touch else None,
            project=project,
            types=types,
            types_exclude=types_exclude,
            tags=tags,
            as_of=as_of,
            space=space,
            agent=agent,
        )
    render.warn_degraded(hits.degraded)
    if as_json:
        render.emit_json(search_out(hits))
    else:
        render.hit_table(hits, explain=explain)


@cli.command()
@click.argument("memory_id")
@store_options
@json_option
def show(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Show every field of one memory."""
    with open_memory(home, profile, create=False) as memory:
        record = memory.get(memory_id)
    if as_json:
        render.emit_json(to_json_dict(record))
    else:
        render.record_detail(record)


@cli.command(name="list")
@click.option("--project", default=None, help="Only this project's memories.")
@click.option("--type", "type_", default=None, help="Only memories of this type.")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--session", "session_id", default=None, help="Only this session's memories.")
@click.option("--entity", default=None, help="Only memories mentioning this entity.")
@click.option("--superseded", is_flag=True, help="Include superseded memories.")
@click.option("--forgotten", is_flag=True, help="Include forgotten memories.")
@click.option("--all", "everything", is_flag=True, help="Include superseded and forgotten.")
@click.option("--limit", type=LIMIT, default=None, help="At most this many.")
@click.option("--space", default=None, help="This space's memories (you read it).")
@click.option("--agent", default=None, help="Only what this agent wrote.")
@all_users_option
@store_options
@json_option
def list_(
    project: str | None,
    type_: str | None,
    tags: tuple[str, ...],
    session_id: str | None,
    entity: str | None,
    superseded: bool,
    forgotten: bool,
    everything: bool,
    limit: int | None,
    space: str | None,
    agent: str | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """List memories, newest first (current ones unless asked otherwise)."""
    with open_memory(home, profile, create=False) as memory:
        records = memory.list(
            user=chosen_user(),
            project=project,
            type=type_,
            tags=tags,
            session_id=session_id,
            entity=entity,
            include_superseded=superseded or everything,
            include_forgotten=forgotten or everything,
            limit=limit,
            space=space,
            agent=agent,
        )
    if as_json:
        render.emit_json([to_json_dict(r) for r in records])
    else:
        render.record_table(records)


@cli.command()
@click.argument("memory_id")
@store_options
@json_option
def history(memory_id: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """The version chain of a memory, newest first."""
    with open_memory(home, profile, create=False) as memory:
        chain = memory.history(memory_id)
        now = memory.now()
    if as_json:
        render.emit_json([to_json_dict(r) for r in chain])
        return
    for record in chain:
        render.say(f"{record.id}  {record.status(now).value:<10}  {record.content}")


@cli.command(name="export")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@key_option(
    "--sign-with",
    "Sign the export with the shared key in this file (HMAC-SHA256, a last line): imported "
    "with --verify-with, its memories keep their sources.",
)
@click.option("--space", default=None, help="A space's memories (you admin it).")
@all_users_option
@store_options
def export_(
    file: str, key_file: Path | None, space: str | None, home: Path | None, profile: str | None
) -> None:
    """Write every memory as JSON Lines to FILE (default: standard output; a file is made
    readable by its owner only)."""
    key = shared_key(key_file)
    with open_memory(home, profile, create=False) as memory:
        if file == "-":
            memory.export(sys.stdout, user=chosen_user(), key=key, space=space)
            return
        with private_file(file) as out:
            count = memory.export(out, user=chosen_user(), key=key, space=space)
    render.say(f"exported {count} memories", err=True)


@cli.command(name="import")
@click.argument("source", type=click.Path(allow_dash=True, path_type=str))
@click.option(
    "--from",
    "system",
    type=click.Choice(SYSTEMS),
    default=None,
    help="SOURCE is this system's store or export: bring its memories over.",
)
@click.option(
    "--dry-run", is_flag=True, help="With --from: report what would come; change nothing."
)
@key_option(
    "--verify-with",
    "Refuse the file unless it is signed with the shared key in this file; then its "
    "memories keep the sources they claim (else they stand as an import).",
)
@all_users_option
@store_options
@json_option
def import_(
    source: str,
    system: str | None,
    dry_run: bool,
    key_file: Path | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Import JSON Lines from SOURCE (- for stdin), all or nothing: a bad line changes
    nothing. With --from, SOURCE is another memory system's store or export (a file or a
    folder): every memory is mapped, screened for secrets, merged with what you have, and
    imported; running it again adds nothing. With --all-users, each memory becomes its
    source user's (mem0's user_id, RAE's tenant). An import stands as `import` (below your
    own word and an agent's) unless signed with a key you trust (--verify-with)."""
    if key_file is not None and system is not None:
        raise click.UsageError("--verify-with goes with a JSON Lines file, not --from")
    if system is None:
        if dry_run:
            raise click.UsageError("--dry-run goes with --from")
        try:
            lines = click.open_file(source, "rb")
        except OSError as exc:
            raise UserError(f"cannot read {source}: {exc.strerror}") from None
        with lines, open_memory(home, profile) as memory, progress_bar("importing") as advance:
            result = memory.import_(
                lines, user=chosen_user(), progress=advance, key=shared_key(key_file)
            )
        if as_json:
            render.emit_json(import_out(result))
        else:
            render.import_result(result)
        return
    with _importing_into(home, profile, dry_run) as memory, progress_bar("importing") as advance:
        report = memory.import_from(
            system, source, dry_run=dry_run, user=chosen_user(), progress=advance
        )
    if as_json:
        render.emit_json(migration_out(report))
    else:
        render.migration(report)


@contextmanager
def _importing_into(home: Path | None, profile: str | None, dry_run: bool) -> Iterator[Memory]:
    """The store to import into; for a dry run with no store yet, an empty one in a
    temporary folder (a dry run creates nothing where it was pointed)."""
    if not dry_run:
        with open_memory(home, profile) as memory:
            yield memory
        return
    try:
        memory = open_memory(home, profile, create=False)
    except UserError:
        render.say("no store yet: the plan is for an empty one", err=True)
        from salience.config import Config
        from salience.engine.memory import Memory

        with (
            tempfile.TemporaryDirectory() as folder,
            Memory.open(config=Config.for_home(Path(folder)), embedder=None) as empty,
        ):
            yield empty
        return
    with memory:
        yield memory


@cli.command()
@all_users_option
@store_options
@json_option
def stats(home: Path | None, profile: str | None, as_json: bool) -> None:
    """Counts of memories by status, type, user and project."""
    with open_memory(home, profile, create=False) as memory:
        summary = memory.stats(user=chosen_user())
        document = stats_of(memory, user=chosen_user()) if as_json else None
        render.warn_unavailable(memory.unavailable_layers())
    if document is not None:
        render.emit_json(document)
    else:
        render.stats(summary)


@cli.command()
@click.option("--top", type=LIMIT, default=20, show_default=True)
@click.option("--project", default=None, help="Only this project's memories.")
@all_users_option
@store_options
@json_option
def entities(
    top: int,
    project: str | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """The entities current memories name (files, classes, packages, ...), most mentioned first."""
    with open_memory(home, profile, create=False) as memory:
        counts = memory.entities(user=chosen_user(), project=project, top=top)
    if as_json:
        render.emit_json([{"entity": name, "memories": n} for name, n in counts])
        return
    if not counts:
        render.say("no entities")
    for name, n in counts:
        render.say(f"{n:>6}  {name}")


@cli.command()
@store_options
def reindex(home: Path | None, profile: str | None) -> None:
    """Embed every memory that has no vector (after an embedder change, re-embed them all),
    and add to the full-text index any memory it lacks."""
    with open_memory(home, profile) as memory:
        added = memory.repair_text()
        if added:
            render.say(f"added {added} memories the full-text index lacked")
        embedder = memory.vectors.embedder
        if embedder is None:
            raise UserError(
                "no embedder is configured (SALIENCE_EMBEDDER=none): nothing was embedded; "
                "set SALIENCE_EMBEDDER=minilm (bundled, offline) to embed"
            )
        with progress_bar("embedding") as advance:
            count = memory.reindex(progress=advance)
    render.say(f"embedded {count} memories with {embedder.identity}")
