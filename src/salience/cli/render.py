"""Output: JSON documents for ``--json``, and human-readable text through rich.

Stored text can hold anything, terminal escape sequences included: every line a person reads
goes through :func:`safe` (control characters shown as ``\\x1b``-style escapes, so a memory
cannot set the window title, clear the screen or plant a hyperlink), and JSON escapes them
(:func:`emit_json`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from salience.models import Degraded, Hit, ImportResult, Learned, MemoryRecord, Stats, WriteResult
from salience.text import CONTROL, shown

if TYPE_CHECKING:
    from salience.models import MigrationReport
from salience.models import Briefing
from salience.wire.values import briefing_out, ranked_out, to_json_dict, write_out

safe = shown
"""``text`` as a terminal may show it (:func:`salience.text.shown`)."""


def say(text: str, *, err: bool = False) -> None:
    """One line for a person, made :func:`safe`."""
    click.echo(safe(text), err=err)


def emit_json(document: Any) -> None:
    """One JSON document on stdout; control characters (C1 too) as JSON escapes."""
    text = json.dumps(document, ensure_ascii=False, indent=2)
    click.echo(CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def write_result_json(result: WriteResult) -> dict[str, Any]:
    """A write result as JSON: the wire's shape (:func:`salience.wire.values.write_out`)."""
    return write_out(result)


class _SafeConsole:
    """A rich console whose every printed line is made :func:`safe` first."""

    def __init__(self, **options: Any) -> None:
        from rich.console import Console

        self._console = Console(highlight=False, soft_wrap=True, **options)

    def print(self, renderable: Any) -> None:
        self._console.print(safe(renderable) if isinstance(renderable, str) else renderable)


def _console() -> _SafeConsole:
    return _SafeConsole()


def warn_unavailable(problems: dict[str, str]) -> None:
    """One warning line on stderr per mounted layer that was left out."""
    for name, why in problems.items():
        say(f"warning: layer {name!r} is unavailable and was left out: {why}", err=True)


def warn_degraded(notes: Sequence[Degraded]) -> None:
    """One line on stderr per way a recall ran short, with its fix."""
    for note in notes:
        say(f"warning: {note.line()}", err=True)


def emit_write(result: WriteResult, as_json: bool) -> None:
    """Print a write's notes (stderr) and outcome; exit 1 if it was refused."""
    for note in result.notes:
        say(f"note: {note}", err=True)
    if as_json:
        emit_json(write_result_json(result))
    else:
        write_result(result)
    if not result.ok:
        sys.exit(1)


def write_result(result: WriteResult) -> None:
    """``created 01H...`` (or the rejection on stderr), and a line for each older memory it
    was found to update (``salience updates`` decides them)."""
    if not result.ok:
        say(f"rejected by the {result.gate} gate: {result.reason}", err=True)
    elif result.outcome.value in ("duplicate", "updated") and result.reason:
        say(f"{result.outcome.value} {result.id} ({result.reason})")
    else:
        say(f"{result.outcome.value} {result.id}")
    for link in result.updates:
        say(f"  updates {link.old_id} [{link.state}, {link.confidence:.2f}]: {link.why}")


def record_detail(record: MemoryRecord) -> None:
    """Every field of one record, one per line."""
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for name, value in to_json_dict(record).items():
        if isinstance(value, list):
            value = ", ".join(value)
        table.add_row(name, "" if value is None else safe(str(value)))
    _console().print(table)


def one_line(text: str, width: int = 90) -> str:
    """Spacing folded, cut to ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def record_table(records: Sequence[MemoryRecord]) -> None:
    """One line per record: id, type, creation time, content, tags."""
    from rich.markup import escape

    if not records:
        say("no memories")
        return
    console = _console()
    for r in records:
        created = r.created_at.strftime("%Y-%m-%d %H:%M")
        tags = f"  [dim]\\[{escape(', '.join(r.tags))}][/dim]" if r.tags else ""
        console.print(
            f"[cyan]{r.id}[/cyan]  [magenta]{escape(r.type)}[/magenta]  {created}  "
            f"{shared_marks(r)}{escape(one_line(r.content))}{tags}"
        )


def shared_marks(record: MemoryRecord) -> str:
    """A space's memory's marks (rich markup): its space, and the agent that wrote it."""
    from rich.markup import escape

    marks = f"[yellow]\\[{escape(record.space)}][/yellow] " if record.space is not None else ""
    if record.agent is not None:
        marks += f"[dim]\\[agent {escape(record.agent)}][/dim] "
    return marks


def breakdown_line(score: Any) -> str:
    """``name weight x value`` for each component, and the score's note."""
    parts = [f"{c.name} {c.weight:g}x{c.value:.4f}" for c in score.components]
    note = f"  ({score.note})" if score.note else ""
    return "      " + "  ".join(parts) + note


def hit_table(hits: Sequence[Hit], *, explain: bool = False) -> None:
    """One line per hit: rank, score, id, type, content (and the breakdown with ``explain``)."""
    from rich.markup import escape

    if not hits:
        say("no matches")
        return
    console = _console()
    for h in hits:
        layer = (
            "" if h.record.layer == "local" else f"[yellow]\\[{escape(h.record.layer)}][/yellow] "
        )
        layer += shared_marks(h.record)
        console.print(
            f"{h.rank:>2}. [green]{h.score:.4f}[/green]  [cyan]{h.record.id}[/cyan]  "
            f"[magenta]{escape(h.record.type)}[/magenta]  "
            f"{layer}{escape(one_line(h.record.content))}"
        )
        if explain:
            console.print(f"[dim]{escape(retrieval_line(h))}[/dim]")
            learned = h.relevance.learned if h.relevance is not None else None
            if learned is not None:
                console.print(f"[dim]{escape(learned_line(learned))}[/dim]")
        if explain and h.explanation is not None:
            console.print(f"[dim]{escape(breakdown_line(h.explanation))}[/dim]")


def retrieval_line(hit: Hit) -> str:
    """What each retriever said: raw bm25, cosine, and the fused relevance the score used."""
    parts = [f"full-text bm25 {hit.lexical:.3f}" if hit.lexical else "full-text: no match"]
    parts.append(f"vector cosine {hit.vector:.3f}" if hit.vector is not None else "vector: none")
    relevance = hit.relevance
    if relevance is not None and relevance.fused is not None:
        if relevance.learned is not None:
            parts.append(f"learned {relevance.fused:.4f} (fused {relevance.learned.before:.4f})")
        else:
            parts.append(f"fused {relevance.fused:.4f}")
        lifted = relevance.lifted()
        if lifted is not None:
            parts.append(f"({lifted})")
    return "      " + "  ".join(parts)


SHOWN_TERMS = 12
"""How many of the learned sum's terms ``--explain`` prints (the largest; ``--json`` has all)."""


def learned_line(learned: Learned) -> str:
    """The learned fusion's sum, largest terms first: ``logit 1.234 = bias 0.000 + context
    0.812*5.221 (+4.240) + ...`` and how it was normalised (terms of 0 left out; past the
    :data:`SHOWN_TERMS` largest, the rest as one sum: ``+ 95 smaller terms (+0.131)``), and
    the place of its session among the hand-set fusion's (``session 2 in the fusion's order``: it
    follows the memories of the session placed first)."""
    terms = [t for t in learned.largest() if t[1] * t[2] != 0.0]
    parts = [
        f"{name} {value:.3f}*{weight:.3f} ({value * weight:+.3f})"
        for name, value, weight in terms[:SHOWN_TERMS]
    ]
    rest = terms[SHOWN_TERMS:]
    if rest:
        parts.append(f"{len(rest)} smaller terms ({sum(v * w for _, v, w in rest):+.3f})")
    shown = " + ".join(parts)
    if learned.high - learned.low <= 1e-12:
        scaled = "relevance 1 (every candidate's logit the same)"
    else:
        scaled = f"relevance (logit - {learned.low:.3f}) / ({learned.high:.3f} - {learned.low:.3f})"
    sum_ = f"logit {learned.logit:.3f} = bias {learned.bias:.3f} + {shown or 'nothing'}"
    session = (
        "" if learned.session is None else f"; session {learned.session} in the fusion's order"
    )
    return f"      {sum_}; {scaled}{session}"


def import_result(result: ImportResult) -> None:
    """``imported N: c created, u updated, n unchanged`` (and ``, r under ids of your own``)."""
    renamed = f", {result.renamed} under ids of your own" if result.renamed else ""
    say(
        f"imported {result.total}: {result.created} created, "
        f"{result.updated} updated, {result.unchanged} unchanged{renamed}"
    )


def migration(report: MigrationReport) -> None:
    """What an import from another system found and did, and what it left behind."""
    from rich.markup import escape

    kinds = ", ".join(f"{n} {t}" for t, n in report.by_type.items()) or "nothing"
    if report.dry_run:
        say(f"{report.system}: {report.found} found; would import {kinds} (dry run: no change)")
    else:
        say(
            f"{report.system}: {report.found} found; {report.created} created, "
            f"{report.updated} updated, {report.unchanged} unchanged ({kinds})"
        )
    for source, into in report.merged:
        say(f"  merged    {escape(source)} (the same text as {into})")
    for source, reason in report.refused:
        say(f"  refused   {escape(source)}: {escape(reason)}")
    for what, reason in report.skipped:
        say(f"  skipped   {escape(what)}: {escape(reason)}")
    for name, count in report.unmappable.items():
        records = f"{count} record{'s' if count != 1 else ''}"
        say(f"  not kept  {escape(name)} ({records}): no place in salience")


def stats(s: Stats) -> None:
    """The store summary."""
    lines = [f"{'store':<9} {s.path} ({s.size_bytes / 1024:.0f} KiB, schema {s.schema})"]
    status = "  ".join(f"{k} {v}" for k, v in s.by_status.items())
    lines.append(f"{'total':<9} {s.total}  {status}")
    for label, counts in (("types", s.by_type), ("users", s.by_user), ("projects", s.by_project)):
        if counts:
            lines.append(f"{label:<9} " + "  ".join(f"{k} {v}" for k, v in counts.items()))
    if s.erasure_pending:
        lines.append(
            f"{'erasure':<9} pending since {s.erasure_pending}: a reader holds an old view of "
            "the file; the text goes when it closes (salience forget --purge --wait)"
        )
    say("\n".join(lines))


def ranked_json(record: MemoryRecord, score: Any) -> dict[str, Any]:
    """A ranked memory as JSON: the wire's shape (:func:`salience.wire.values.ranked_out`)."""
    return ranked_out(record, score)


def ranked_table(ranked: Sequence[tuple[MemoryRecord, Any]], *, explain: bool) -> None:
    """One line per memory: score, id, type, content (and the breakdown with ``explain``)."""
    from rich.markup import escape

    if not ranked:
        say("no memories")
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
    """The briefing as JSON: the wire's shape (:func:`salience.wire.values.briefing_out`)."""
    return briefing_out(briefing)


def empty_briefing_hint(briefing: Briefing, project: str | None) -> str:
    """Why a briefing printed nothing, for stderr (stdout stays exactly the injected text)."""
    considered = len(briefing.manifest)
    if not considered:
        return "the briefing is empty: this user has no current memories"
    hint = "" if project else "; some profiles (aide) brief on a project: try --project"
    return (
        f"the briefing is empty: {considered} memories considered, none kept "
        f"(--explain shows why){hint}"
    )


def manifest(briefing: Briefing) -> None:
    """The manifest after the text: every candidate, kept or dropped, and why."""
    kept = sum(e.kept for e in briefing.manifest)
    say(
        f"\n--- manifest: {kept} kept, {len(briefing.manifest) - kept} dropped, "
        f"{briefing.tokens} tokens, profile {briefing.profile} ---"
    )
    for e in briefing.manifest:
        score = "" if e.score is None else f"{e.score:.4f}"
        where = f"kept in {e.section}, {e.tokens} tokens" if e.kept else f"dropped: {e.reason}"
        say(f"{e.id}  {e.type:<12} {score:>7}  {where}")
