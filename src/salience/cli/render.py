"""Output: JSON documents for ``--json``, and human-readable text through rich."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from salience.briefing.policies import Briefing
from salience.clock import format_time
from salience.models import Hit, ImportResult, MemoryRecord, Stats, WriteResult
from salience.write.records import to_json_dict


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
        "notes": list(result.notes),
        "record": to_json_dict(result.record) if result.record else None,
    }


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def emit_write(result: WriteResult, as_json: bool) -> None:
    """Print a write's notes (stderr) and outcome; exit 1 if it was refused."""
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    if as_json:
        emit_json(write_result_json(result))
    else:
        write_result(result)
    if not result.ok:
        sys.exit(1)


def write_result(result: WriteResult) -> None:
    """``created 01H...`` (or the rejection on stderr)."""
    if not result.ok:
        click.echo(f"rejected by the {result.gate} gate: {result.reason}", err=True)
    elif result.outcome.value in ("duplicate", "updated") and result.reason:
        click.echo(f"{result.outcome.value} {result.id} ({result.reason})")
    else:
        click.echo(f"{result.outcome.value} {result.id}")


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


def one_line(text: str, width: int = 90) -> str:
    """Spacing folded, cut to ``width`` characters."""
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
            f"{escape(one_line(r.content))}{tags}"
        )


def hit_json(hit: Hit) -> dict[str, Any]:
    """A hit as JSON: rank, score, breakdown, lexical relevance, then the record's fields."""
    explanation = hit.explanation
    relevance = hit.relevance
    return {
        "rank": hit.rank,
        "score": hit.score,
        "lexical": hit.lexical,
        "vector": hit.vector,
        "relevance": None
        if relevance is None
        else {
            "lexical": relevance.lexical,
            "vector": relevance.vector,
            "fused": relevance.fused,
            "lexical_hit": relevance.lexical_hit,
        },
        "breakdown": explanation.breakdown() if explanation else [],
        "note": explanation.note if explanation else None,
        **to_json_dict(hit.record),
    }


def breakdown_line(score: Any) -> str:
    """``name weight x value`` for each component, and the score's note."""
    parts = [f"{c.name} {c.weight:g}x{c.value:.4f}" for c in score.components]
    note = f"  ({score.note})" if score.note else ""
    return "      " + "  ".join(parts) + note


def hit_table(hits: Sequence[Hit], *, explain: bool = False) -> None:
    """One line per hit: rank, score, id, type, content (and the breakdown with ``explain``)."""
    from rich.markup import escape

    if not hits:
        click.echo("no matches")
        return
    console = _console()
    for h in hits:
        layer = (
            "" if h.record.layer == "local" else f"[yellow]\\[{escape(h.record.layer)}][/yellow] "
        )
        console.print(
            f"{h.rank:>2}. [green]{h.score:.4f}[/green]  [cyan]{h.record.id}[/cyan]  "
            f"[magenta]{escape(h.record.type)}[/magenta]  "
            f"{layer}{escape(one_line(h.record.content))}"
        )
        if explain:
            console.print(f"[dim]{escape(retrieval_line(h))}[/dim]")
        if explain and h.explanation is not None:
            console.print(f"[dim]{escape(breakdown_line(h.explanation))}[/dim]")


def retrieval_line(hit: Hit) -> str:
    """What each retriever said: raw bm25, cosine, and the fused relevance the score used."""
    parts = [f"full-text bm25 {hit.lexical:.3f}" if hit.lexical else "full-text: no match"]
    parts.append(f"vector cosine {hit.vector:.3f}" if hit.vector is not None else "vector: none")
    if hit.relevance is not None and hit.relevance.fused is not None:
        parts.append(f"fused {hit.relevance.fused:.4f}")
    return "      " + "  ".join(parts)


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


def ranked_json(record: MemoryRecord, score: Any) -> dict[str, Any]:
    """A ranked memory: id, score, breakdown (and note), type, content."""
    return {
        "id": record.id,
        "score": score.value,
        "breakdown": score.breakdown(),
        "note": score.note,
        "type": record.type,
        "content": record.content,
    }


def ranked_table(ranked: Sequence[tuple[MemoryRecord, Any]], *, explain: bool) -> None:
    """One line per memory: score, id, type, content (and the breakdown with ``explain``)."""
    from rich.markup import escape

    if not ranked:
        click.echo("no memories")
        return
    console = _console()
    for record, score in ranked:
        console.print(
            f"[green]{score.value:.4f}[/green]  [cyan]{record.id}[/cyan]  "
            f"[magenta]{escape(record.type)}[/magenta]  {escape(one_line(record.content))}"
        )
        if explain:
            console.print(f"[dim]{escape(breakdown_line(score))}[/dim]")


def briefing_json(briefing: Briefing) -> dict[str, Any]:
    """The briefing's text, sections and manifest."""
    return {
        "profile": briefing.profile,
        "as_of": format_time(briefing.as_of),
        "text": briefing.text,
        "tokens": briefing.tokens,
        "overflow": briefing.overflow,
        "sections": [
            {"title": s.title, "lines": list(s.lines), "ids": list(s.ids)}
            for s in briefing.sections
        ],
        "manifest": [
            {
                "id": e.id,
                "type": e.type,
                "kept": e.kept,
                "score": e.score,
                "tokens": e.tokens,
                "section": e.section,
                "reason": e.reason,
            }
            for e in briefing.manifest
        ],
    }


def manifest(briefing: Briefing) -> None:
    """The manifest after the text: every candidate, kept or dropped, and why."""
    kept = sum(e.kept for e in briefing.manifest)
    click.echo(
        f"\n--- manifest: {kept} kept, {len(briefing.manifest) - kept} dropped, "
        f"{briefing.tokens} tokens, profile {briefing.profile} ---"
    )
    for e in briefing.manifest:
        score = "" if e.score is None else f"{e.score:.4f}"
        where = f"kept in {e.section}, {e.tokens} tokens" if e.kept else f"dropped: {e.reason}"
        click.echo(f"{e.id}  {e.type:<12} {score:>7}  {where}")
