"""``salience eval``: probes from the user's own store, metrics for the current configuration
and an alternative side by side, a saved baseline (on SQLite and on PostgreSQL)."""

from __future__ import annotations

import math

import pytest

from salience import Config, InvalidInputError, Memory, Variant
from salience.engine.evaluation import score
from tests.conftest import FakeClock


def test_the_metrics_of_one_ranked_list() -> None:
    assert score(["a", "b", "c"], ["a"]) == (1.0, 1.0, 1.0, 1.0)
    r5, r10, rr, ndcg = score(["x", "y", "a", "z", "w", "v", "b"], ["a", "b"])
    assert (r5, r10, rr) == (0.5, 1.0, 1 / 3)
    ideal = 1 + 1 / math.log2(3)
    assert ndcg == pytest.approx((1 / math.log2(4) + 1 / math.log2(8)) / ideal)
    assert score(["x"] * 10 + ["a"], ["a"]) == (0.0, 0.0, 0.0, 0.0)


def _store(memory: Memory) -> dict[str, str]:
    made = {
        "port": memory.remember("the staging API listens on port 8080", user="ana").id or "",
        "deploy": memory.remember("deploys go through ops/deploy.sh", user="ana").id or "",
        "db": memory.remember(
            "we chose Postgres for the billing ledger",
            user="ana",
            type="decision",
            topic_key="billing-database",
        ).id
        or "",
    }
    newer = memory.supersede(made["port"], "the staging API moved to port 9090", user="ana")
    made["port2"] = newer.id or ""
    memory.search("where do deploys go", user="ana")
    memory.feedback(made["deploy"], used=True, user="ana")
    return made


def test_probes_come_from_the_record_the_version_chains_and_the_decisions(
    memory: Memory,
) -> None:
    made = _store(memory)
    probes = {(p.kind, p.query): p.relevant for p in memory.probes(user="ana")}
    assert probes == {
        ("recorded", "where do deploys go"): (made["deploy"],),
        ("supersession", "the staging API listens on port 8080"): (made["port2"],),
        ("decision", "billing database"): (made["db"],),
    }
    assert memory.probes(user="bo") == []


def test_eval_runs_both_configurations_side_by_side_and_records_nothing(memory: Memory) -> None:
    _store(memory)
    before = len(memory.record(user="ana"))
    report = memory.evaluate([Variant("aide", profile="aide")], user="ana")
    assert [r.variant.label for r in report.runs] == ["current", "aide"]
    current = report.runs[0]
    assert current.metrics.probes == 3
    assert current.metrics.recall_at_10 == 1.0
    assert set(current.by_kind) == {"recorded", "supersession", "decision"}
    assert len(memory.record(user="ana")) == before  # probes are not recalls
    moved = {m.probe.key for m in report.changed}
    assert moved == {
        p.key for p in report.probes if current.ranks[p.key] != report.runs[1].ranks[p.key]
    }


def test_a_saved_baseline_says_what_moved_later(memory: Memory) -> None:
    made = _store(memory)
    first = memory.evaluate(user="ana", save=True)
    assert first.baseline is None
    services = "billing search auth mail queue cache ledger report export backup audit media"
    for name in services.split():  # rivals for the deploy probe's query
        memory.remember(f"where do deploys go for {name}? ask the {name} team", user="ana")
    later = memory.evaluate(user="ana")
    assert later.baseline is not None
    assert later.baseline["metrics"]["recall_at_10"] == first.runs[0].metrics.recall_at_10
    assert later.since_baseline
    for moved in later.since_baseline:
        assert moved.before == first.runs[0].ranks[moved.probe.key]
        assert moved.after == later.runs[0].ranks[moved.probe.key]
        assert moved.before != moved.after
    assert made["deploy"] in {m for p in later.probes for m in p.relevant}
    assert memory.evaluate(user="bo").baseline is None  # another user's baseline is not theirs


def test_a_bad_alternative_is_refused(memory: Memory) -> None:
    _store(memory)
    with pytest.raises(InvalidInputError, match="recall_prior"):
        memory.evaluate([Variant("bad", recall_prior=2.0)], user="ana")
    with pytest.raises(InvalidInputError, match="embedder 'none'"):
        memory.evaluate([Variant("bad", embedder="minilm")], user="ana")
    with pytest.raises(InvalidInputError, match="recall_prior"):  # before anything runs
        memory.evaluate([Variant("bad", recall_prior=2.0)], user="ana", save=True)
    assert memory.evaluate(user="ana").baseline is None  # the refused run saved nothing


def test_an_alternative_without_the_embedder_is_full_text_recall(
    memory: Memory, config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(memory)
    memory.remember("the ledger lives in a relational database", user="ana")
    asked: list[int] = []
    real = memory.vectors.embed
    monkeypatch.setattr(memory.vectors, "embed", lambda texts: asked.append(1) or real(texts))
    memory.evaluate(user="ana")
    current = len(asked)
    report = memory.evaluate([Variant("full text", embedder="none")], user="ana")
    assert current > 0
    assert len(asked) == 2 * current  # the alternative embedded no query
    assert report.runs[1].variant.embedder == "none"
    with Memory.open(config=config, clock=clock, embedder=None) as plain:
        alone = plain.evaluate(user="ana")  # the same store, no embedder configured
    assert report.runs[1].ranks == alone.runs[0].ranks
    assert report.runs[1].metrics == alone.runs[0].metrics
    for probe in report.probes:  # the vectors do take part in the current run
        assert memory.search(probe.query, user="ana", touch=False)[0].vector is not None
