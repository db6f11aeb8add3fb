"""Recall's time words and session context, end to end on the salience profile."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from salience import Config, Memory
from salience.embeddings.arrays import moved_toward
from salience.engine.core import STALE_TAG
from salience.engine.recall import Recall
from salience.engine.record import QUERY_VECTORS
from salience.models import LOCAL_LAYER, Hit, MemoryRecord, Relevance
from salience.profiles import PROFILES
from salience.search import fusion
from salience.stores.base import MemoryFilter
from salience.text_dates import resolve
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


def test_a_question_in_relative_time_finds_what_was_said_on_that_day(
    memory: Memory, clock: FakeClock
) -> None:
    # T0 is Monday 20 April 2026: "three days ago" asked on T0 is Friday 17 April.
    clock.now -= timedelta(days=5)  # Wednesday
    wednesday = memory.remember("went to the dentist for a filling").id
    clock.now += timedelta(days=2)  # Friday
    friday = memory.remember("went to the dentist for a checkup").id
    clock.now += timedelta(days=3)  # Monday
    hits = memory.search("dentist three days ago", touch=False)
    assert [h.record.id for h in hits][:2] == [friday, wednesday]
    # what a memory says about a day counts too: "yesterday", written on Saturday
    clock.now -= timedelta(days=2)
    saturday = memory.remember("yesterday the plumber fixed the sink").id
    clock.now += timedelta(days=2)
    assert memory.search("sink repaired on 17 April", touch=False)[0].record.id == saturday


def test_reply_lift_recalls_and_explains_the_answer_to_a_matching_question(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = {"session_id": "chat-1"}
    memory.remember("Melanie said her kids love the beach", **session)
    question = memory.remember("What are your dog's names?", **session).id
    answer = memory.remember("Luna and Oliver, both rescues", **session).id
    for i in range(8):
        memory.remember(f"unrelated note {i} about names of streets and dogs", session_id=f"o{i}")

    def relevance_of_answer() -> Relevance:
        hits = {h.record.id: h for h in memory.search("what are the dog's names", touch=False)}
        assert question in hits
        assert answer in hits
        found = hits[answer].relevance
        assert found is not None
        return found

    # the salience profile leaves it off (it cost LongMemEval ranking quality); a plan may
    # turn it on
    assert relevance_of_answer().context == "session neighbour"
    base = PROFILES["salience"]
    lifted = replace(base, recall=replace(base.recall, reply_weight=0.9))
    monkeypatch.setitem(PROFILES, "salience", lifted)
    relevance = relevance_of_answer()
    assert relevance.context == "reply to a question"
    assert relevance.own is not None
    assert relevance.fused is not None
    assert relevance.fused > relevance.own


# -- the column path against the record path it replaced -------------------------------------

TOPICS = ["cache", "deploy", "dentist", "garden", "names", "beach"]


def _record_path(memory: Memory, query: str, name: str, limit: int) -> list[Hit]:
    """Recall as it was done before it scored columns: every candidate a record, fused and
    ranked by salience.search.fusion. The reference the column path must equal."""
    rules = PROFILES[name]
    plan = rules.recall
    now = memory.now()
    flt = MemoryFilter(as_of=now, user=memory._scope(None))
    layers = memory._mounted()
    text = " ".join((query, *resolve(query, now))) if plan.dated else query
    count = plan.lexical_count(limit)
    lexical = memory.store.search(text, flt, count, dated=plan.dated)
    for layer in layers:
        lexical += layer.pairs(layer.store.search(text, flt, count, dated=plan.dated))
    sources = [(None, memory.vectors)]
    sources += [(layer, v) for layer in layers if (v := memory._layer_vectors(layer))]
    vector: list[tuple[MemoryRecord, float]] = []
    if plan.fusion != "lexical" and plan.vector_count(limit):
        embedded = memory.vectors.embed([query])
        assert embedded is not None
        asked = moved = embedded[0]
        by_layer = {LOCAL_LAYER if s is None else s.name: v for s, v in sources}
        if plan.feedback_weight > 0 and plan.feedback_count > 0:
            examples = []
            for r, _ in sorted(lexical, key=lambda pair: -pair[1])[: plan.feedback_count]:
                if r.layer in by_layer:
                    rows, known = by_layer[r.layer].gathered([r.id])
                    examples += [rows[0]] if known[0] else []
            moved = moved_toward(asked, examples, plan.feedback_weight)
        for layer, vectors in sources:
            found = vectors.search(
                moved,
                flt,
                plan.vector_count(limit),
                min_similarity=plan.vector_min,
                neighbour_weight=plan.neighbour_weight,
                floor_query=None if moved is asked else asked,
            )
            pairs = [(h.record, h.similarity) for h in found]
            vector += pairs if layer is None else layer.pairs(pairs)
    candidates = fusion.fuse(plan, lexical, vector)
    if plan.context_weight and vector:
        neighbours: dict[str, tuple[str | None, str | None]] = {}
        for layer, vectors in sources:
            here = LOCAL_LAYER if layer is None else layer.name
            neighbours.update(
                vectors.neighbours([c.record.id for c in candidates if c.record.layer == here])
            )
        candidates = fusion.spread_context(
            candidates, neighbours, plan.context_weight, plan.reply_weight
        )
    hits = fusion.rank_candidates(candidates, rules, now, memory._settings, limit)
    hits = [h for h in hits if STALE_TAG not in h.record.tags] + [
        h for h in hits if STALE_TAG in h.record.tags
    ]
    return memory._newest_first(hits, name, memory.config.user)  # (found updates: newest first)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_recall_scores_columns_and_returns_what_the_record_path_returns(
    memory: Memory,
    clock: FakeClock,
    embedder: WordHashEmbedder,
    tmp_path: Path,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hand-set fusion on both paths (the salience profile's learned re-ranking of its
    results has an oracle of its own: tests/search/test_rerank.py)."""
    rules = PROFILES[name]
    monkeypatch.setitem(PROFILES, name, replace(rules, recall=replace(rules.recall, rerank=False)))
    with Memory.open(
        config=Config(home=tmp_path / "team", signal_gate=False), clock=clock, embedder=embedder
    ) as team:
        for i in range(12):
            team.remember(f"team note {i}: the {TOPICS[i % 6]} policy", session_id=f"t{i % 2}")
    memory.mount(tmp_path / "team", kind="shared")
    kinds = ["observation", "decision", "insight", "preference"]
    for i in range(40):
        clock.advance(hours=7)
        memory.remember(
            f"note {i} about the {TOPICS[i % 6]} and the {TOPICS[(i * 5) % 6]}?"[: 30 + i % 9],
            session_id=f"s{i % 5}",
            type=kinds[i % 4],
            importance=(i % 5) / 4,
            tags=["verified:true"] if i % 7 == 0 else [],
        )
    ids = [h.id for h in memory.list(limit=40)]
    memory.supersede(ids[3], "note about the cache, corrected")
    memory.forget(ids[5], reason="wrong")
    memory.remember("a note of bo's about the cache", user="bo")
    memory.feedback(ids[8], used=True)
    for query in ["cache policy", "the deploy and the garden?", "what did the dentist say"]:
        for limit in (3, 10):
            new = memory.search(query, limit, profile=name, touch=False)
            old = _record_path(memory, query, name, limit)
            assert [(h.record.id, h.record.layer) for h in new] == [
                (h.record.id, h.record.layer) for h in old
            ]
            assert [(h.score, h.rank, h.lexical, h.vector) for h in new] == [
                (h.score, h.rank, h.lexical, h.vector) for h in old
            ]
            assert [(h.relevance, h.explanation) for h in new] == [
                (h.relevance, h.explanation) for h in old
            ]
    assert any(h.record.layer == "shared" for h in memory.search("team policy", touch=False))


def test_a_known_query_vector_finds_the_full_text_hits_on_the_calling_thread(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text in ("the dentist fixed a filling", "a filling at the dentist", "the sink leaks"):
        memory.remember(text)
    asked: list[int] = []
    search_rows = type(memory.store).search_rows

    def spy(self: object, *args: object, **kwargs: object) -> object:
        asked.append(threading.get_ident())
        return search_rows(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(memory.store), "search_rows", spy)
    query = "dentist filling"
    embedded = memory.search(query, touch=False)  # (a worker searches while it embeds)
    assert asked[-1] != threading.get_ident()
    vector = memory.vectors.embed([query])
    assert vector is not None
    token = QUERY_VECTORS.set({query: vector[0]})
    no_feedback = replace(PROFILES["salience"].recall, feedback_weight=0.0)
    try:
        known = memory.search(query, touch=False)
        assert not Recall._waits_for_full_text(query, no_feedback)  # (then no waiting)
    finally:
        QUERY_VECTORS.reset(token)
    assert asked[-1] == threading.get_ident()  # the vector scan waits for them anyway
    assert [(h.record.id, h.score) for h in known] == [(h.record.id, h.score) for h in embedded]


def test_recall_answers_its_filter_from_the_columns_as_the_store_would(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = ["observation", "decision", "preference"]
    for i in range(36):
        clock.advance(hours=5)
        memory.remember(
            f"note {i} about the {TOPICS[i % 6]} and the {TOPICS[(i * 5) % 6]}",
            session_id=f"s{i % 4}",
            type=kinds[i % 3],
            tags=["team"] if i % 4 == 0 else [],
            user="bo" if i % 5 == 0 else None,
        )
    ids = [h.id for h in memory.list(limit=40)]
    memory.supersede(ids[2], "note about the cache and the garden, corrected")
    memory.forget(ids[4], reason="wrong")
    asks: list[tuple[str, dict[str, object]]] = [
        ("cache garden", {}),
        ("the deploy policy", {"type": "decision"}),
        ("garden notes", {"types_exclude": ["preference"]}),
        ("cache", {"user": "bo"}),
        ("cache", {"tags": ["team"]}),  # (tags: the store answers)
    ]
    asked_store: list[int] = []
    matching = type(memory.store).matching

    def counted(self: object, *args: object, **kwargs: object) -> object:
        asked_store.append(1)
        return matching(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(memory.store), "matching", counted)

    def recalled() -> list[list[tuple[str, float, object]]]:
        out = []
        for query, given in asks:
            hits = memory.search(query, 10, touch=False, **given)  # type: ignore[arg-type]
            out.append([(h.record.id, h.score, h.explanation) for h in hits])
        return out

    from salience.briefing.source import BriefingSource

    ahead = BriefingSource.ahead
    answered: list[object] = []

    def told(self: BriefingSource, flt: MemoryFilter) -> object:
        answered.append(ahead(self, flt))
        return answered[-1]

    monkeypatch.setattr(BriefingSource, "ahead", told)
    by_columns = recalled()
    assert len(asked_store) == 2  # the tag filter's vector hits and its 50 best alone
    assert sum(a is not None for a in answered) == 4  # (made on the worker: not for tags)

    monkeypatch.setattr(BriefingSource, "matching", lambda *a: None)
    monkeypatch.setattr(BriefingSource, "passing", lambda *a: None)
    monkeypatch.setattr(BriefingSource, "ahead", lambda *a: None)
    monkeypatch.setattr("salience.engine.reranking.rows_passing", lambda *a: None)
    asked_store.clear()
    by_store = recalled()
    assert len(asked_store) == 2 * len(asks)  # (each: its vector hits and its 50 best)
    assert by_columns == by_store
    assert all(by_columns[:4])
    assert ids[4] not in {h[0] for r in by_columns for h in r}  # (forgotten: never found)


def test_the_best_candidates_still_there_are_told_by_the_pool_s_columns_as_by_the_store(
    memory: Memory, clock: FakeClock
) -> None:
    from salience.profiles.base import RecallPlan
    from salience.search.pool import Found, fuse, with_columns

    for i in range(12):
        clock.advance(hours=1)
        memory.remember(
            f"note {i} on the {TOPICS[i % 6]}",
            type=["observation", "decision"][i % 2],
            user="bo" if i % 3 == 0 else None,
        )
    ids = [h.id for h in memory.list(limit=20)] + [h.id for h in memory.list(limit=20, user="bo")]
    memory.forget(ids[1], reason="wrong")
    memory.supersede(ids[2], "note on the garden, corrected")
    now = memory.now()
    every = MemoryFilter(as_of=now, include_forgotten=True, include_superseded=True)
    found = Found()
    found.add(0, [(seq, i, 1.0) for seq, i in memory.store.matching(ids, every)])
    joined = with_columns(
        fuse(RecallPlan(), found, Found()), lambda _, seqs: memory._briefings.rows(None, seqs)
    )
    assert joined is not None
    pool, columns = joined
    rows = list(range(len(pool)))
    filters = [
        MemoryFilter(as_of=now),
        MemoryFilter(as_of=now, user="default"),
        MemoryFilter(as_of=now, user="bo", type="decision"),
        MemoryFilter(as_of=now, types_exclude=("decision",)),
        MemoryFilter(as_of=now - timedelta(hours=30)),
    ]
    for flt in filters:
        told = memory._pool_present(pool, rows, flt, [], columns)
        assert told == memory._pool_present(pool, rows, flt, [])
        assert any(told)
        assert not all(told)
