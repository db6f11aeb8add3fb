"""The record faces' JSON: the briefing log and an evaluation (CLI ``--json``, HTTP, MCP)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.models import (
    BriefedMemory,
    BriefingLog,
    BriefingLogEntry,
    EvalReport,
    Metrics,
    Moved,
    Probe,
    Run,
    Variant,
)


def briefing_log_out(log: BriefingLog) -> dict[str, Any]:
    """What each session was given, and per memory how often it was briefed and helped."""
    return {
        "briefings": [
            {
                "id": e.trace_id,
                "at": format_time(e.at),
                "profile": e.profile,
                "session_id": e.session_id,
                "tokens": e.tokens,
                "budget": e.budget,
                "memories": [
                    {"id": m.memory_id, "section": m.section, "feedback": list(m.feedback)}
                    for m in e.memories
                ],
            }
            for e in log.entries
        ],
        "memories": [
            {"id": memory_id, "briefed": n, "helped": log.helped.get(memory_id, 0)}
            for memory_id, n in sorted(log.briefed.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
    }


def metrics_out(metrics: Metrics) -> dict[str, Any]:
    """Averages over probes."""
    return {
        "probes": metrics.probes,
        "recall_at_5": metrics.recall_at_5,
        "recall_at_10": metrics.recall_at_10,
        "mrr": metrics.mrr,
        "ndcg_at_10": metrics.ndcg_at_10,
    }


def _moved(moved: Moved) -> dict[str, Any]:
    p = moved.probe
    return {
        "probe": p.key,
        "kind": p.kind,
        "query": p.query,
        "before": moved.before,
        "after": moved.after,
    }


def probe_out(probe: Probe) -> dict[str, Any]:
    """A probe: its kind, its query and the memories it should find."""
    return {"kind": probe.kind, "query": probe.query, "relevant": list(probe.relevant)}


def probe_of(data: dict[str, Any]) -> Probe:
    """A probe from its JSON (:func:`probe_out`)."""
    return Probe(data["kind"], data["query"], tuple(data["relevant"]))


def eval_out(report: EvalReport) -> dict[str, Any]:
    """An evaluation: its probes, each configuration's metrics, and what moved."""
    return {
        "probes": [
            {"key": p.key, "kind": p.kind, "query": p.query, "relevant": list(p.relevant)}
            for p in report.probes
        ],
        "runs": [
            {
                "label": r.variant.label,
                "profile": r.variant.profile,
                "as_of": None if r.variant.as_of is None else format_time(r.variant.as_of),
                "recall_prior": r.variant.recall_prior,
                "embedder": r.variant.embedder,
                "settings": dict(r.variant.settings),
                "metrics": metrics_out(r.metrics),
                "by_kind": {kind: metrics_out(m) for kind, m in r.by_kind.items()},
                "ranks": r.ranks,
            }
            for r in report.runs
        ],
        "changed": [_moved(m) for m in report.changed],
        "baseline": report.baseline
        and {
            "at": report.baseline["at"],
            "metrics": report.baseline["metrics"],
        },
        "since_baseline": [_moved(m) for m in report.since_baseline],
    }


def briefing_log_of(data: dict[str, Any]) -> BriefingLog:
    """:func:`briefing_log_out` read back (``salience.Client``)."""
    entries = tuple(
        BriefingLogEntry(
            e["id"],
            datetime.fromisoformat(e["at"]),
            e["profile"],
            e["session_id"],
            e["tokens"],
            e["budget"],
            tuple(
                BriefedMemory(m["id"], m["section"], tuple(m["feedback"])) for m in e["memories"]
            ),
        )
        for e in data["briefings"]
    )
    briefed = {m["id"]: m["briefed"] for m in data["memories"]}
    helped = {m["id"]: m["helped"] for m in data["memories"]}
    return BriefingLog(entries, briefed, helped)


def _metrics_of(data: dict[str, Any]) -> Metrics:
    return Metrics(
        data["probes"], data["recall_at_5"], data["recall_at_10"], data["mrr"], data["ndcg_at_10"]
    )


def eval_of(data: dict[str, Any]) -> EvalReport:
    """:func:`eval_out` read back (``salience.Client``): the baseline as the wire shows it,
    its time and metrics."""
    probes = tuple(probe_of(p) for p in data["probes"])
    by_key = {p.key: p for p in probes}
    runs = tuple(
        Run(
            Variant(
                r["label"],
                r["profile"],
                None if r["as_of"] is None else datetime.fromisoformat(r["as_of"]),
                r["recall_prior"],
                r["embedder"],
                tuple(r["settings"].items()),
            ),
            _metrics_of(r["metrics"]),
            {kind: _metrics_of(m) for kind, m in r["by_kind"].items()},
            dict(r["ranks"]),
        )
        for r in data["runs"]
    )

    def moved(items: list[dict[str, Any]]) -> tuple[Moved, ...]:
        return tuple(Moved(by_key[m["probe"]], m["before"], m["after"]) for m in items)

    baseline = data["baseline"] or None
    return EvalReport(probes, runs, moved(data["changed"]), baseline, moved(data["since_baseline"]))
