"""``salience migrate --from URL --to URL``: copy a store to another, SQLite or PostgreSQL."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import click

from salience.cli import render
from salience.cli.app import UserError, cli, json_option, progress_bar

PAGE = 1000  # rows read at a time from each store by the check


def _same(source: Any, target: Any) -> list[str]:
    """What differs between two stores after a copy (nothing, when it went well). Each is
    read a page at a time, side by side: memory stays bounded at any size."""
    from salience.models import ALL_USERS

    problems = []
    lines = itertools.zip_longest(
        source.export_lines(user=ALL_USERS), target.export_lines(user=ALL_USERS)
    )
    if any(a != b for a, b in lines):
        problems.append("the exports of the two stores differ")
    if _pages(source.store.vector_rows, _vector) != _pages(target.store.vector_rows, _vector):
        problems.append("the vectors differ")
    if _pages(source.store.audit_page, _audit) != _pages(target.store.audit_page, _audit):
        problems.append("the audit logs differ")
    return problems


def _vector(row: Any) -> tuple[int, bytes]:
    return row[0], row[1].encode() + b"\0" + row[3]  # (vseq: where the next page starts)


def _audit(entry: Any) -> tuple[int, bytes]:
    kept = (entry.at, entry.memory_id, entry.action, entry.actor, entry.detail, entry.user)
    return entry.seq, repr(kept).encode()


def _pages(
    read: Callable[[int, int], Sequence[Any]], key: Callable[[Any], tuple[int, bytes]]
) -> tuple[int, str]:
    """Every row ``read(after, limit)`` gives, page by page, as (count, digest of their
    keys in order): a copy that kept the order gives the same digest."""
    import hashlib

    digest = hashlib.sha256()
    count, after = 0, 0
    while page := read(after, PAGE):
        for row in page:
            after, kept = key(row)
            digest.update(len(kept).to_bytes(8, "little") + kept)
        count += len(page)
    return count, digest.hexdigest()


@cli.command()
@click.option("--from", "source_url", required=True, help="The store to copy (path or URL).")
@click.option("--to", "target_url", required=True, help="The empty store to copy into.")
@json_option
def migrate(source_url: str, target_url: str, as_json: bool) -> None:
    """Copy every memory, version, vector, audit entry, session, key and layer of one store
    into an empty one (SQLite to PostgreSQL and back), then check the copy: the two stores'
    exports, vectors and audit logs must be identical."""
    from salience.engine.memory import Memory

    if source_url == target_url:
        raise UserError("--from and --to name the same store")
    with (
        Memory.open(source_url, embedder=None, llm=None, create=False) as source,
        Memory.open(target_url, embedder=None, llm=None) as target,
    ):
        with progress_bar("copying") as advance:
            report = source.copy_into(target, advance)
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
        "spaces": report.spaces,
    }
    if as_json:
        render.emit_json({"from": where[0], "to": where[1], "verified": True, **counts})
        return
    listed = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in counts.items())
    render.say(f"copied {listed}")
    render.say(f"from {where[0]}\nto   {where[1]}\nverified: exports, vectors and audit logs match")
