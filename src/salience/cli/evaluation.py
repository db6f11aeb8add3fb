"""``salience eval`` (recall measured on your own store) and ``salience briefing log``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import (
    LIMIT,
    TimeParam,
    chosen_user,
    cli,
    json_option,
    open_memory,
    store_options,
)
from salience.cli.scoring import briefing
from salience.config import EMBEDDER_SETTINGS, EMBEDDERS, RECALL_SETTINGS
from salience.models import Variant
from salience.wire.record import briefing_log_out, eval_out


@cli.command(name="eval")
@click.option("--against-profile", default=None, help="Compare with this profile.")
@click.option(
    "--against-as-of", type=TimeParam(), default=None, help="Compare with recall as of this time."
)
@click.option(
    "--against-recall-prior",
    type=click.FloatRange(0, 1),
    default=None,
    help="Compare with this recall prior (0..1).",
)
@click.option(
    "--against-embedder",
    type=click.Choice(EMBEDDERS),
    default=None,
    help="Compare with another embedder: none (full text alone), or a model, which embeds a "
    "scratch copy of your memories again (as long as a reindex).",
)
@click.option(
    "--against-setting",
    "against_settings",
    multiple=True,
    metavar="NAME=VALUE",
    help=f"Compare with this setting changed (repeatable): {', '.join(RECALL_SETTINGS)}; "
    f"with --against-embedder, also {', '.join(EMBEDDER_SETTINGS)}. Values as in the "
    "environment, e.g. rae_weights=semantic=0.8,recency=0.2.",
)
@click.option(
    "--probes",
    "per_kind",
    type=LIMIT,
    default=50,
    show_default=True,
    help="At most this many probes of each kind.",
)
@click.option(
    "--entities",
    is_flag=True,
    help="Add probes drawn from memories' own entities (named by few) and titles, each asked "
    "with those held out of the memory (on a scratch copy of the store).",
)
@click.option(
    "--save", is_flag=True, help="Keep this run as the baseline a later run compares with."
)
@store_options
@json_option
def evaluate(
    against_profile: str | None,
    against_as_of: Any,
    against_recall_prior: float | None,
    against_embedder: str | None,
    against_settings: tuple[str, ...],
    per_kind: int,
    entities: bool,
    save: bool,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Measure recall on your own memories: probes from recalls that were then used, from
    version chains (the old words must find the new version) and from decisions' topics;
    recall@5/@10, MRR and nDCG@10 for the current configuration and an alternative side by
    side, with the probes that changed rank."""
    settings = tuple(_setting(text) for text in against_settings)
    variants = []
    if (
        against_profile
        or against_as_of
        or against_embedder
        or settings
        or (against_recall_prior is not None)
    ):
        label = " ".join(
            part
            for part in (
                against_profile and f"profile={against_profile}",
                against_as_of and f"as_of={against_as_of.isoformat()}",
                against_recall_prior is not None and f"recall_prior={against_recall_prior:g}",
                against_embedder and f"embedder={against_embedder}",
                *(f"{name}={value}" for name, value in settings),
            )
            if part
        )
        variants.append(
            Variant(
                label,
                against_profile,
                against_as_of,
                against_recall_prior,
                against_embedder,
                settings,
            )
        )
    from salience.evaluation import evaluate as evaluated  # (the probes' machinery: on use)

    with open_memory(home, profile, create=False) as memory:
        report = evaluated(
            memory, variants, user=chosen_user(), per_kind=per_kind, entities=entities, save=save
        )
    data = eval_out(report)
    if as_json:
        render.emit_json(data)
        return
    if not report.probes:
        render.say("no probes yet: recall and give feedback, supersede or decide first", err=True)
        return
    render.say(
        f"{len(report.probes)} probes: " + ", ".join(f"{n} {k}" for k, n in _kinds(report).items())
    )
    render.say(f"{'configuration':<34} {'R@5':>6} {'R@10':>6} {'MRR':>6} {'nDCG@10':>8}")
    for run in data["runs"]:
        m = run["metrics"]
        render.say(
            f"{run['label']:<34} {m['recall_at_5']:>6.3f} {m['recall_at_10']:>6.3f} "
            f"{m['mrr']:>6.3f} {m['ndcg_at_10']:>8.3f}"
        )
    for moved in data["changed"]:
        render.say(f"moved  {_moved(moved)}")
    if report.baseline is not None:
        then = report.baseline["metrics"]
        render.say(
            f"since the baseline of {report.baseline['at']}: R@10 {then['recall_at_10']:.3f} -> "
            f"{report.runs[0].metrics.recall_at_10:.3f}, {len(report.since_baseline)} probes moved"
        )
        for moved in data["since_baseline"]:
            render.say(f"  {_moved(moved)}")
    if save:
        render.say("saved as the baseline")


def _setting(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise click.BadParameter(
            f"expected NAME=VALUE, got {text!r}", param_hint="--against-setting"
        )
    return name.strip(), value.strip()


def _kinds(report: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for probe in report.probes:
        counts[probe.kind] = counts.get(probe.kind, 0) + 1
    return counts


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def _moved(moved: dict[str, Any]) -> str:
    ranks = f"{_rank(moved['before'])} -> {_rank(moved['after'])}"
    return f"{moved['kind']:<12} {ranks:<9} {moved['query'][:60]}"


@briefing.command(name="log")
@click.option(
    "--limit", type=LIMIT, default=20, show_default=True, help="At most this many briefings."
)
@store_options
@json_option
def briefing_log(limit: int, home: Path | None, profile: str | None, as_json: bool) -> None:
    """What each session was given, when, under which profile and budget, and which of those
    memories were then echoed, fizzled or recalled again."""
    with open_memory(home, profile, create=False) as memory:
        log = memory.briefing_log(user=chosen_user(), limit=limit)
    data = briefing_log_out(log)
    if as_json:
        render.emit_json(data)
        return
    if not log.entries:
        render.say("no briefing recorded yet", err=True)
        return
    for entry in data["briefings"]:
        render.say(
            f"{entry['at']}  {entry['profile']}  session {entry['session_id'] or '-'}  "
            f"{entry['tokens']} of {entry['budget'] or 'default'} tokens, "
            f"{len(entry['memories'])} memories"
        )
        for m in entry["memories"]:
            render.say(f"  {m['id']}  {m['section'] or '':<16} {', '.join(m['feedback']) or '-'}")
    render.say("per memory: briefed, helped")
    for m in data["memories"][:20]:
        render.say(f"  {m['id']}  {m['briefed']}  {m['helped']}")
