"""``salience eval``: probes from the user's own store, metrics for the current configuration
and an alternative side by side, a saved baseline (on SQLite and on PostgreSQL)."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from salience import ALL_USERS, Config, InvalidInputError, Memory, Variant
from salience.config import RECALL_SETTINGS
from salience.evaluation import evaluate
from salience.evaluation import probes as drawn
from salience.evaluation import twin as twin_module
from salience.evaluation.runs import score
from salience.stores.copy import copy_store
from salience.stores.grant import granted
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


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
    probes = {(p.kind, p.query): p.relevant for p in drawn(memory, user="ana")}
    assert probes == {
        ("recorded", "where do deploys go"): (made["deploy"],),
        ("supersession", "the staging API listens on port 8080"): (made["port2"],),
        ("decision", "billing database"): (made["db"],),
    }
    assert drawn(memory, user="bo") == []


def test_eval_runs_both_configurations_side_by_side_and_records_nothing(memory: Memory) -> None:
    _store(memory)
    before = len(memory.record(user="ana"))
    report = evaluate(memory, [Variant("aide", profile="aide")], user="ana")
    assert [r.variant.label for r in report.runs] == ["current", "aide"]
    current = report.runs[0]
    assert current.metrics.probes == 3
    assert current.metrics.recall_at_10 == 1.0
    assert set(current.by_kind) == {"recorded", "supersession", "decision"}
    assert len(memory.record(user="ana")) == before  # probes are not recalls
    for run in report.runs:  # each rank is the one a search alone gives (vectors made at once)
        for probe in report.probes:
            hits = memory.search(probe.query, user="ana", profile=run.variant.profile, touch=False)
            found = [i for i, h in enumerate(hits, 1) if h.record.id in probe.relevant]
            assert run.ranks[probe.key] == (found[0] if found else None)
    moved = {m.probe.key for m in report.changed}
    assert moved == {
        p.key for p in report.probes if current.ranks[p.key] != report.runs[1].ranks[p.key]
    }


def test_a_saved_baseline_says_what_moved_later(memory: Memory) -> None:
    made = _store(memory)
    first = evaluate(memory, user="ana", save=True)
    assert first.baseline is None
    services = "billing search auth mail queue cache ledger report export backup audit media"
    for name in services.split():  # rivals for the deploy probe's query
        memory.remember(f"where do deploys go for {name}? ask the {name} team", user="ana")
    later = evaluate(memory, user="ana")
    assert later.baseline is not None
    assert later.baseline["metrics"]["recall_at_10"] == first.runs[0].metrics.recall_at_10
    assert later.since_baseline
    for moved in later.since_baseline:
        assert moved.before == first.runs[0].ranks[moved.probe.key]
        assert moved.after == later.runs[0].ranks[moved.probe.key]
        assert moved.before != moved.after
    assert made["deploy"] in {m for p in later.probes for m in p.relevant}
    assert evaluate(memory, user="bo").baseline is None  # another user's baseline is not theirs


def test_a_bad_alternative_is_refused(memory: Memory) -> None:
    _store(memory)
    with pytest.raises(InvalidInputError, match="recall_prior"):
        evaluate(memory, [Variant("bad", recall_prior=2.0)], user="ana")
    with pytest.raises(InvalidInputError, match="unknown embedder 'word2vec'"):
        evaluate(memory, [Variant("bad", embedder="word2vec")], user="ana")
    with pytest.raises(InvalidInputError, match="needs embedder_model"):
        evaluate(memory, [Variant("bad", embedder="ollama")], user="ana")
    with pytest.raises(InvalidInputError, match="'briefing_budget' cannot be changed"):
        evaluate(memory, [Variant("bad", settings=(("briefing_budget", "9"),))], user="ana")
    with pytest.raises(InvalidInputError, match="'embedder_url' cannot be changed"):
        evaluate(memory, [Variant("bad", settings=(("embedder_url", "http://x"),))], user="ana")
    with pytest.raises(InvalidInputError, match="unknown signal 'speed'"):
        evaluate(memory, [Variant("bad", settings=(("rae_weights", "speed=1"),))], user="ana")
    with pytest.raises(InvalidInputError, match="rae_half_life_hours must be positive"):
        evaluate(memory, [Variant("bad", settings=(("rae_half_life_hours", "0"),))], user="ana")
    twice = (("recall_prior", "0"), ("recall_prior", "1"))
    with pytest.raises(InvalidInputError, match="given twice"):
        evaluate(memory, [Variant("bad", settings=twice)], user="ana")
    with pytest.raises(InvalidInputError, match="recall_prior"):  # before anything runs
        evaluate(memory, [Variant("bad", recall_prior=2.0)], user="ana", save=True)
    assert evaluate(memory, user="ana").baseline is None  # the refused run saved nothing


def test_an_alternative_without_the_embedder_is_full_text_recall(
    memory: Memory, config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(memory)
    memory.remember("the ledger lives in a relational database", user="ana")
    asked: list[int] = []
    real = memory.vectors.embed
    monkeypatch.setattr(memory.vectors, "embed", lambda texts: asked.append(1) or real(texts))
    evaluate(memory, user="ana")
    current = len(asked)
    report = evaluate(memory, [Variant("full text", embedder="none")], user="ana")
    assert current > 0
    assert len(asked) == 2 * current  # the alternative embedded no query
    assert report.runs[1].variant.embedder == "none"
    with Memory.open(config=config, clock=clock, embedder=None) as plain:
        alone = evaluate(plain, user="ana")  # the same store, no embedder configured
    assert report.runs[1].ranks == alone.runs[0].ranks
    assert report.runs[1].metrics == alone.runs[0].metrics
    for probe in report.probes:  # the vectors do take part in the current run
        assert memory.search(probe.query, user="ana", touch=False)[0].vector is not None


def _rivals(memory: Memory) -> None:
    """Memories whose rank depends on the weights: old and important, or new and plain."""
    for i, name in enumerate("billing search auth mail queue cache ledger".split()):
        memory.remember(
            f"deploys of {name} go through the {name} pipeline",
            user="ana",
            importance=0.9 if i % 2 else 0.1,
        )


@pytest.mark.parametrize(
    ("profile", "settings"),
    [
        ("rae", (("rae_weights", "semantic=0.1,recency=0.1,importance=0.8,usage=0"),)),
        ("rae", (("rae_half_life_hours", "0.5"),)),
        ("salience", (("recall_prior", "0.9"),)),
    ],
)
def test_an_alternative_with_other_settings_ranks_as_a_store_configured_so(
    memory: Memory,
    config: Config,
    clock: FakeClock,
    embedder: WordHashEmbedder,
    profile: str,
    settings: tuple[tuple[str, str], ...],
) -> None:
    _store(memory)
    _rivals(memory)
    clock.advance(hours=30)
    report = evaluate(
        memory, [Variant("other", profile=profile, settings=settings)], user="ana", entities=True
    )
    changed = replace(config, **config.changed(dict(settings), RECALL_SETTINGS))
    with Memory.open(config=changed, clock=clock, embedder=embedder) as other:
        configured = evaluate(other, [Variant("p", profile=profile)], user="ana", entities=True)
    assert report.runs[1].ranks == configured.runs[1].ranks
    assert report.runs[1].metrics == configured.runs[1].metrics
    with Memory.open(config=changed, clock=clock, embedder=embedder) as other:
        theirs = other.search("deploys pipeline", user="ana", profile=profile, touch=False)
    ours = memory.search("deploys pipeline", user="ana", profile=profile, touch=False)
    assert [h.score for h in ours] != [h.score for h in theirs]  # the settings take hold


def test_an_alternative_embedder_runs_on_a_scratch_copy_embedded_again(
    memory: Memory,
    config: Config,
    clock: FakeClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _store(memory)
    _rivals(memory)
    memory.remember("bo's own note about deploys", user="bo")
    memory.remember("the vault code word is quillfeather", user="ana")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    identity, count = memory.vectors.stored_identity(), memory.vectors.count()
    seen = []
    real = twin_module.twin

    @contextmanager
    def spy(*args: Any) -> Iterator[Memory]:
        with real(*args) as other:
            copied = len(other.list(user=ALL_USERS, limit=None, include_superseded=True))
            seen.append((other.vectors.stored_identity(), other.vectors.count(), copied))
            yield other

    monkeypatch.setattr(twin_module, "twin", spy)  # (the verb imports it when it runs)
    left: list[bytes] = []
    rmtree = tempfile._shutil.rmtree  # type: ignore[attr-defined]

    def read_then_remove(path: str, *args: Any, **kwargs: Any) -> None:
        left.extend(p.read_bytes() for p in Path(path).rglob("*") if p.is_file())
        rmtree(path, *args, **kwargs)

    monkeypatch.setattr(tempfile._shutil, "rmtree", read_then_remove)  # type: ignore[attr-defined]
    report = evaluate(memory, [Variant("minilm", embedder="minilm")], user="ana")
    assert left  # the copy's files, as they were when deleted: zeros, no text
    assert not any(b"quillfeather" in data or data.strip(b"\0") for data in left)
    monkeypatch.setattr(tempfile._shutil, "rmtree", rmtree)  # type: ignore[attr-defined]
    assert list(scratch.iterdir()) == []  # the copy is gone
    assert (memory.vectors.stored_identity(), memory.vectors.count()) == (identity, count)
    # The oracle: the whole store copied as migrate copies it, embedded again by MiniLM.
    target = Config(home=tmp_path / "oracle", signal_gate=False, embedder="minilm")
    with Memory.open(config=target, clock=clock) as oracle:
        with granted("copy"):
            copy_store(memory._store, oracle._store)
        oracle.reindex()
        oracle_identity = oracle.vectors.stored_identity()
        ana_versions = len(oracle.list(user="ana", limit=None, include_superseded=True))
        expected = {}
        for probe in report.probes:
            found = [h.record.id for h in oracle.search(probe.query, 10, user="ana", touch=False)]
            ranks = [i for i, m in enumerate(found, 1) if m in probe.relevant]
            expected[probe.key] = ranks[0] if ranks else None
    assert report.runs[1].ranks == expected
    everyone = len(memory.list(user=ALL_USERS, limit=None, include_superseded=True))
    assert seen == [(oracle_identity, ana_versions, everyone)]  # all copied, ana's embedded
    assert report.runs[1].variant.label == "minilm"
    assert made["deploy"] in {m for p in report.probes for m in p.relevant}
    # The model in use is not copied again: its run is the current one.
    same = evaluate(
        memory, [Variant("same", embedder="minilm")], user="ana"
    )  # (this engine's model is the test embedder, so MiniLM is another one)
    assert same.runs[1].ranks == report.runs[1].ranks


def test_entity_and_title_probes_are_asked_with_those_held_out(memory: Memory) -> None:
    def made(content: str, **fields: Any) -> str:
        return memory.remember(content, user="ana", **fields).id or ""

    hidden = made("we meet in Lisbon in March", title="quarterly offsite plans")
    plain = made("the invoice ledger keeps every payment", title="invoice ledger")
    tagged = made("the nightly job rotates the signing keys", entities=["Kestrel"])
    for i in range(5):
        made(f"unrelated note number {i} about the garden")
    report = evaluate(memory, user="ana", entities=True)
    run = report.runs[0]
    probes = {(p.kind, p.query): p for p in report.probes}
    title = probes[("title", "quarterly offsite plans")]
    assert title.relevant == (hidden,)
    # Held out, its title is no longer a way in: nothing else in it matches.
    assert run.ranks[title.key] is None
    found = memory.search("quarterly offsite plans", user="ana", touch=False)
    assert found[0].record.id == hidden  # (the store itself still finds it by its title)
    assert run.ranks[probes[("title", "invoice ledger")].key] == 1  # its text holds the words
    kestrel = probes[("entity", "Kestrel")]
    assert kestrel.relevant == (tagged,)
    assert run.ranks[kestrel.key] is None
    assert plain in {m for p in report.probes for m in p.relevant}
    assert set(run.by_kind) >= {"entity", "title"}
    record = memory.get(hidden, user="ana")
    assert record is not None
    assert record.title == "quarterly offsite plans"  # the store is as it was
    tagged_record = memory.get(tagged, user="ana")
    assert tagged_record is not None
    assert tagged_record.entities == ("Kestrel",)
    # Every configuration asks them held out, another profile and another model alike.
    other = evaluate(
        memory,
        [Variant("aide", profile="aide"), Variant("minilm", embedder="minilm")],
        user="ana",
        entities=True,
    )
    for each in other.runs:
        assert each.ranks[title.key] is None or each.variant.label == "minilm"
        assert "title" in each.by_kind


def test_fields_are_held_out_of_a_scratch_copy_only(memory: Memory) -> None:
    made = _store(memory)
    with pytest.raises(InvalidInputError, match="scratch copy only"):
        memory.hold_out([made["deploy"]])
    assert memory.get(made["deploy"], user="ana").entities  # (untouched)
