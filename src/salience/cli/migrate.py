"""``salience migrate --from URL --to URL``: copy a store to another, SQLite or PostgreSQL."""

from __future__ import annotations

from typing import Any

import click

from salience.cli import render
from salience.cli.app import UserError, cli, json_option, progress_bar


def _same(source: Any, target: Any) -> list[str]:
    """What differs between two stores after a copy (nothing, when it went well)."""
    from salience.models import ALL_USERS

    problems = []
    if list(source.export_lines(user=ALL_USERS)) != list(target.export_lines(user=ALL_USERS)):
        problems.append("the exports of the two stores differ")
    vectors = {row[1]: row[3] for row in source.store.vector_rows(0)}
    if vectors != {row[1]: row[3] for row in target.store.vector_rows(0)}:
        problems.append("the vectors differ")

    def audit(store: Any) -> list[tuple[Any, ...]]:
        return [
            (e.at, e.memory_id, e.action, e.actor, e.detail, e.user)
            for e in store.audit_entries(None, None)
        ]

    if audit(source.store) != audit(target.store):
        problems.append("the audit logs differ")
    return problems


@cli.command()
@click.option("--from", "source_url", required=True, help="The store to copy (path or URL).")
@click.option("--to", "target_url", required=True, help="The empty store to copy into.")
@json_option
def migrate(source_url: str, target_url: str, as_json: bool) -> None:
    """Copy every memory, version, vector, audit entry, session, key and layer of one store
    into an empty one (SQLite to PostgreSQL and back), then check the copy: the two stores'
    exports, vectors and audit logs must be identical."""
    from salience.engine.catalog import copy as copy_store
    from salience.engine.memory import Memory

    if source_url == target_url:
        raise UserError("--from and --to name the same store")
    with (
        Memory.open(source_url, embedder=None, llm=None, create=False) as source,
        Memory.open(target_url, embedder=None, llm=None) as target,
    ):
        with progress_bar("copying") as advance:
            report = copy_store(source.store, target.store, advance)
        problems = _same(source, target)
        where = (source.store.location, target.store.location)
    if problems:
        raise UserError(f"the copy in {where[1]} is not faithful: {'; '.join(problems)}")
    counts = {
        "memories": report.memories,
        "vectors": report.vectors,
        "audit_entries": report.audit_entries,
        "sessions": report.sessions,
        "api_keys": report.api_keys,
        "layers": report.layers,
    }
    if as_json:
        render.emit_json({"from": where[0], "to": where[1], "verified": True, **counts})
        return
    listed = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in counts.items())
    render.say(f"copied {listed}")
    render.say(f"from {where[0]}\nto   {where[1]}\nverified: exports, vectors and audit logs match")
