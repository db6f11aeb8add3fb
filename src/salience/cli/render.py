"""Output: JSON documents for ``--json``, and human-readable text through rich."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from salience.models import Hit, ImportResult, MemoryRecord, Stats, WriteResult
from salience.records import to_json_dict


def emit_json(document: Any) -> None:
    """One JSON document on stdout."""
    click.echo(json.dumps(document, ensure_ascii=False, indent=2))


def write_result_json(result: WriteResult) -> dict[str, Any]:
    """A write result as JSON: outcome, id, reason, gate, and the record when there is one."""
    return {
        "outcome": result.outcome.value,
        "id": result.id,
        "reason": result.reason,
        "gate": result.gate,
        "record": to_json_dict(result.record) if result.record else None,
    }


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def write_result(result: WriteResult) -> None:
    """``created 01H...`` (or the rejection on stderr)."""
    if result.ok:
        click.echo(f"{result.outcome.value} {result.id}")
    else:
        click.echo(f"rejected by {result.gate}: {result.reason}", err=True)


def record_detail(record: MemoryRecord) -> None:
    """Every field of one record, one per line."""
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for name, value in to_json_dict(record).items():
        if isinstance(value, list):
            value = ", ".join(value)
        table.add_row(name, "" if value is None else str(value))
    _console().print(table)


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def record_table(records: Sequence[MemoryRecord]) -> None:
    """One line per record: id, type, creation time, content, tags."""
    from rich.markup import escape

    if not records:
        click.echo("no memories")
        return
    console = _console()
    for r in records:
        created = r.created_at.strftime("%Y-%m-%d %H:%M")
        tags = f"  [dim]\\[{escape(', '.join(r.tags))}][/dim]" if r.tags else ""
        console.print(
            f"[cyan]{r.id}[/cyan]  [magenta]{escape(r.type)}[/magenta]  {created}  "
            f"{escape(_one_line(r.content))}{tags}"
        )


def hit_table(hits: Sequence[Hit]) -> None:
    """One line per hit: rank, relevance, id, type, content."""
    from rich.markup import escape

    if not hits:
        click.echo("no matches")
        return
    console = _console()
    for h in hits:
        console.print(
            f"{h.rank:>2}. [green]{h.score:9.4g}[/green]  [cyan]{h.record.id}[/cyan]  "
            f"[magenta]{escape(h.record.type)}[/magenta]  {escape(_one_line(h.record.content))}"
        )


def import_result(result: ImportResult) -> None:
    """``imported N: c created, u updated, n unchanged``."""
    click.echo(
        f"imported {result.total}: {result.created} created, "
        f"{result.updated} updated, {result.unchanged} unchanged"
    )


def stats(s: Stats) -> None:
    """The store summary."""
    lines = [f"store   {s.path} ({s.size_bytes / 1024:.0f} KiB, schema {s.schema})"]
    lines.append(f"total   {s.total}  " + "  ".join(f"{k} {v}" for k, v in s.by_status.items()))
    for label, counts in (("types", s.by_type), ("users", s.by_user), ("projects", s.by_project)):
        if counts:
            lines.append(f"{label:<8}" + "  ".join(f"{k} {v}" for k, v in counts.items()))
    click.echo("\n".join(lines))
