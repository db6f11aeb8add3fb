"""The record faces' JSON: the briefing log and an evaluation (CLI ``--json``, HTTP, MCP)."""

from __future__ import annotations

from typing import Any

from salience.clock import format_time
from salience.engine.evaluation import EvalReport, Metrics, Moved
from salience.engine.record import BriefingLog


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
                "metrics": metrics_out(r.metrics),
                "by_kind": {kind: metrics_out(m) for kind, m in r.by_kind.items()},
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
