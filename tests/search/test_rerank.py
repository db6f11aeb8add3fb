"""The salience profile's learned re-ranking (salience.search.rerank).

The oracle recomputes every signal from the hits the hand-set fusion returns, one memory at
a time in plain Python, applies the shipped weights and ranks with the record path's
``rank_candidates``: recall must return the same memories, scores and explanations.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience import Config, Memory
from salience.briefing.columns import one_line, session_of
from salience.engine.core import STALE_TAG
from salience.errors import EmbedderError
from salience.models import Hit
from salience.profiles import PROFILES
from salience.search import fusion, rerank
from salience.text import label, name_key, named_keys
from salience.text_dates import day_words, resolve
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

TOPICS = ["cache", "deploy", "dentist", "garden", "names", "beach"]
WORDS = ("lexical", "vector", "cosine", "own", "fused", "context", "lexical_hit", "vector_hit")


def _hand(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = PROFILES["salience"]
    monkeypatch.setitem(
        PROFILES, "salience", replace(rules, recall=replace(rules.recall, rerank=False))
    )


def _signals(
    query: str, hits: list[Hit], now_day: date, vectors: dict[tuple[str, str], list[float]]
) -> list[dict[str, float]]:
    """Every signal of each hit, from the hit itself (the hand fusion's order) and the stored
    vectors (by layer and id)."""
    asked = {w for w in rerank.WORD.findall(query.lower()) if w not in rerank.STOP}
    named = " | ".join(resolve(query, now_day))
    lengths = [math.log1p(len(one_line(h.record))) for h in hits]
    pool = statistics.median(lengths) - rerank.POOL_CENTRE
    out = []
    for i, h in enumerate(hits):
        r = h.relevance
        assert r is not None
        assert r.fused is not None
        own = r.own if r.own is not None else r.fused
        others = [
            g.relevance.fused
            for j, g in enumerate(hits)
            if j != i
            and h.record.session_id
            and g.record.session_id == h.record.session_id
            and g.relevance is not None
            and g.relevance.fused is not None
        ]
        written = h.record.created_at.astimezone(UTC).date()
        seeds = [(j, g) for j, g in enumerate(hits[: rerank.SEEDS]) if j != i]

        def hop(seeds: list[tuple[int, Hit]], h: Hit = h) -> float:
            mine = vectors.get((h.record.layer, h.record.id))
            sims = [
                sum(a * b for a, b in zip(mine, vectors[g.record.layer, g.record.id], strict=True))
                for _, g in seeds
                if mine is not None and (g.record.layer, g.record.id) in vectors
            ]
            return max([0.0, *sims])

        elsewhere = [
            (j, g)
            for j, g in seeds
            if not (g.record.session_id and g.record.session_id == h.record.session_id)
        ]
        out.append(
            {
                "lexical": r.lexical,
                "vector": r.vector or 0.0,
                "cosine": h.vector or 0.0,
                "own": own,
                "fused": r.fused,
                "context": max(0.0, (1.4 * r.fused - own) / 0.4),
                "lexical_hit": float(r.lexical_hit),
                "vector_hit": float(r.vector is not None),
                "length": lengths[i],
                "asks": float("?" in h.record.content),
                "query_words": math.log1p(len(asked)),
                "query_date": float(rerank.DATE_CUE.search(query.lower()) is not None),
                "pool": pool,
                "support": max(others, default=0.0),
                "session_hits": math.log1p(len(others)),
                "date_match": float(bool(named) and day_words(written) in named),
                "speaker": float(name_key(label(h.record.content)[0]) in named_keys(query) - {0}),
                "hop": hop(seeds),
                "hop_other": hop(elsewhere),
            }
        )
    return out


def _oracle(
    memory: Memory,
    query: str,
    limit: int,
    monkeypatch: pytest.MonkeyPatch,
    layers: dict[str, Memory] | None = None,
) -> list[tuple[Hit, list[float] | None]]:
    """The hand fusion's best, scored again one memory at a time and ranked by the learned
    score within the hand fusion's order of sessions; (hit, its terms, its session's place)."""
    model = rerank.load()
    depth = max(model.depth, limit)
    with monkeypatch.context() as patch:
        _hand(memory, patch)
        hand = memory.search(query, depth, touch=False)
    hand = [h for h in hand if STALE_TAG not in h.record.tags]
    now = memory.now()
    vectors: dict[tuple[str, str], list[float]] = {}
    for name, engine in {"local": memory, **(layers or {})}.items():
        ids = [h.record.id for h in hand if h.record.layer == name]
        rows, known = engine.vectors.gathered(ids)
        vectors.update(
            ((name, i), rows[n].astype(float).tolist()) for n, i in enumerate(ids) if known[n]
        )
    rows = _signals(query, hand, now.date(), vectors)
    values = [[math.prod(row[name] for name in names) for names in rerank.FEATURES] for row in rows]
    units = [
        [
            math.tanh(u.bias + sum(v * w for v, w in zip(vs, u.weights, strict=True)))
            for u in model.units
        ]
        for vs in values
    ]
    logits = [
        model.bias
        + sum(v * w for v, w in zip(vs, model.weights, strict=True))
        + sum(h * u.out for h, u in zip(hs, model.units, strict=True))
        for vs, hs in zip(values, units, strict=True)
    ]
    low, high = min(logits), max(logits)
    learned = [(x - low) / (high - low) if high - low > 1e-12 else 1.0 for x in logits]
    candidates = [
        fusion.Candidate(h.record, replace(h.relevance, fused=v), h.lexical, h.vector)  # type: ignore[arg-type]
        for h, v in zip(hand, learned, strict=True)
    ]
    rules = PROFILES["salience"]
    scored = fusion.rank_candidates(candidates, rules, now, memory._settings, len(candidates))
    placed = _in_sessions(scored, hand)
    ranked = [replace(h, rank=n) for n, (h, _) in enumerate(placed, 1)]
    ranked = memory._newest_first(ranked[:limit], "salience", memory.config.user)  # (updates)
    terms = {h.record.id: vs + hs for h, vs, hs in zip(hand, values, units, strict=True)}
    places = {h.record.id: place for h, place in placed}
    return [(h, terms[h.record.id], places[h.record.id]) for h in ranked]


def _in_sessions(ranked: list[Hit], hand: list[Hit]) -> list[tuple[Hit, int]]:
    """``ranked`` (the learned order) with the sessions in ``hand``'s order, by a sort key
    rather than the engine's walk: a session opens at the first learned place of its own best
    hit or of any later session's (sessions opened together in the hand order), its best hit
    is placed there, every other hit (and one of no session) at its own learned place.
    With each hit, its session's place in the hand order (0: none)."""
    place: dict[str, int] = {}
    for h in hand:
        session = session_of(h.record)
        if session and session not in place:
            place[session] = len(place) + 1
    best_at: dict[str, int] = {}
    for at, h in enumerate(ranked):
        session = session_of(h.record)
        if session:
            best_at.setdefault(session, at)
    opens = {s: min(best_at[t] for t in place if place[t] >= place[s]) for s in place}

    def key(item: tuple[int, Hit]) -> tuple[int, int, int]:
        at, h = item
        session = session_of(h.record)
        if session and best_at[session] == at:
            return (opens[session], 0, place[session])
        return (at, 1, 0)

    ordered = sorted(enumerate(ranked), key=key)
    return [(h, place.get(session_of(h.record) or "", 0)) for _, h in ordered]


@pytest.fixture
def config(home: Path, store_url: str) -> Config:
    """The learned fusion on (it is off by default), on both stores."""
    return Config(home=home, signal_gate=False, recall_learned=True, store_url=store_url)


@pytest.fixture
def filled(config: Config, clock: FakeClock, embedder: WordHashEmbedder) -> Iterator[Memory]:
    """Sixty notes in seven sessions, and no update found among them: the order under test
    is recall's own (the salience profile puts the newer of a found update first)."""
    with Memory.open(config=replace(config, updates="off"), clock=clock, embedder=embedder) as m:
        yield _filled(m, clock)


def _filled(memory: Memory, clock: FakeClock) -> Memory:
    kinds = ["observation", "decision", "insight", "preference"]
    for i in range(60):
        clock.advance(hours=7)
        memory.remember(
            f"note {i} about the {TOPICS[i % 6]} and the {TOPICS[(i * 5) % 6]}?"[: 30 + i % 17]
            + " and more words" * (i % 4),
            session_id=f"s{i % 7}" if i % 9 else None,
            type=kinds[i % 4],
            importance=(i % 5) / 4,
        )
    return memory


@pytest.mark.parametrize("limit", [3, 10, 60])
@pytest.mark.parametrize(
    "query", ["cache policy", "the deploy and the garden?", "dentist two days ago", "beach"]
)
def test_recall_equals_the_oracle(
    filled: Memory, query: str, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = filled.search(query, limit, touch=False)
    expected = _oracle(filled, query, limit, monkeypatch)
    assert [h.record.id for h in found] == [h.record.id for h, _, _ in expected]
    model = rerank.load()
    units = [f"unit {n}: {u.name}" for n, u in enumerate(model.units, 1)]
    for got, (want, values, place) in zip(found, expected, strict=True):
        assert got.score == pytest.approx(want.score, abs=1e-9)
        assert got.relevance is not None
        learned = got.relevance.learned
        assert learned is not None
        assert learned.session == (place or None)
        assert [name for name, _, _ in learned.terms] == [*rerank.FEATURE_NAMES, *units]
        assert [value for _, value, _ in learned.terms] == pytest.approx(values, abs=1e-9)
        assert [w for _, _, w in learned.terms] == [*model.weights, *(u.out for u in model.units)]
        # the explanation adds up: the terms and the bias are the logit, which, normalised,
        # is the relevance the score used
        assert learned.logit == pytest.approx(
            learned.bias + sum(v * w for _, v, w in learned.terms), abs=1e-9
        )
        assert got.relevance.fused == pytest.approx(
            (learned.logit - learned.low) / (learned.high - learned.low), abs=1e-9
        )


@pytest.mark.parametrize("query", ["the deploy and the garden?", "the garden"])
def test_recall_reaches_the_sessions_of_the_hand_fusion_in_its_order(
    filled: Memory, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    found = filled.search(query, 60, touch=False)
    with monkeypatch.context() as patch:
        _hand(filled, patch)
        hand = filled.search(query, 60, touch=False)

    def sessions(hits: list[Hit]) -> list[str]:
        return list(dict.fromkeys(s for h in hits if (s := session_of(h.record))))

    assert {h.record.id for h in found} == {h.record.id for h in hand}
    assert len(sessions(hand)) >= 5
    assert sessions(found) == sessions(hand)


def test_a_better_scored_hit_of_a_later_session_waits_for_the_sessions_before_its_own(
    filled: Memory,
) -> None:
    """(Shown without update links, which put the newer of a pair first whatever its score:
    before, this test found its one such hit through a link of two notes.)"""
    found = filled.search("the garden", 60, touch=False)
    learned = [h.relevance.learned for h in found if h.relevance is not None]
    places = [x.session or 0 for x in learned if x is not None]
    scores = [h.score for h in found]
    assert len(places) == len(found)
    assert any(
        0 < places[i] < places[j] and scores[i] < scores[j]
        for i in range(len(found))
        for j in range(i + 1, len(found))
    )


def test_a_question_in_relative_time_knows_the_day(memory: Memory, clock: FakeClock) -> None:
    clock.now -= timedelta(days=5)
    memory.remember("went to the dentist for a filling")
    clock.now += timedelta(days=2)
    friday = memory.remember("went to the dentist for a checkup").id
    clock.now += timedelta(days=3)
    hit = memory.search("dentist three days ago", touch=False)[0]
    assert hit.record.id == friday
    assert hit.relevance is not None
    assert hit.relevance.learned is not None
    assert {n: v for n, v, _ in hit.relevance.learned.terms}["date_match"] == 1.0


def test_a_question_that_names_who_said_it_knows_their_lines(memory: Memory) -> None:
    memory.remember("Caroline: I signed up for a pottery class this week")
    memory.remember("Melanie: I signed up for a painting class this week")
    hits = memory.search("Which class did Caroline sign up for?", touch=False)
    terms = {}
    for hit in hits:
        assert hit.relevance is not None
        assert hit.relevance.learned is not None
        terms[hit.record.content.split(":")[0]] = hit.relevance.learned.terms
    assert {n: v for n, v, _ in terms["Caroline"]}["speaker"] == 1.0
    assert {n: v for n, v, _ in terms["Melanie"]}["speaker"] == 0.0
    assert hits[0].record.content.startswith("Caroline:")  # (the rest alike: who said it)


def test_the_learned_fusion_is_the_default_and_the_setting_turns_it_off(
    home: Path, clock: FakeClock, embedder: WordHashEmbedder
) -> None:
    for setting, learned in ((None, True), (False, False)):
        config = Config(home=home, signal_gate=False)
        if setting is not None:
            config = replace(config, recall_learned=setting)
        with Memory.open(config=config, clock=clock, embedder=embedder) as m:
            if setting is None:  # (the first opening writes, the second reads them)
                m.remember("the cache policy is write-through", session_id="a")
                m.remember("the deploy runs on Fridays", session_id="a")
            hits = m.search("cache policy", touch=False)
            assert hits
            for h in hits:
                assert h.relevance is not None
                assert (h.relevance.learned is not None) is learned


def test_full_text_alone_is_ranked_by_the_hand_fusion(home: Path, clock: FakeClock) -> None:
    """The model was fitted on recalls by both retrievers: without an embedder (or when it
    fails) the hand-set fusion ranks, and the recall says it is full text only."""
    with Memory.open(config=Config(home=home, signal_gate=False), clock=clock, embedder=None) as m:
        m.remember("the cache policy is write-through", session_id="a")
        m.remember("the deploy runs on Fridays", session_id="a")
        hits = m.search("cache policy", touch=False)
        assert [n.cause for n in hits.degraded] == ["no_embedder"]
        assert hits
        assert all(h.relevance is None or h.relevance.learned is None for h in hits)


def test_an_embedder_that_fails_leaves_the_hand_fusion(
    memory: Memory, embedder: WordHashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory.remember("the cache policy is write-through", session_id="a")
    memory.remember("the deploy runs on Fridays", session_id="a")

    def broken(texts: list[str]) -> list[list[float]]:
        raise EmbedderError("cannot reach the model server")

    monkeypatch.setattr(embedder, "embed", broken)
    hits = memory.search("cache policy", touch=False)
    assert "embedder_failed" in [n.cause for n in hits.degraded]
    assert hits
    assert all(h.relevance is None or h.relevance.learned is None for h in hits)


def test_other_profiles_are_not_reranked(filled: Memory) -> None:
    for name in sorted(set(PROFILES) - {"salience"}):
        for h in filled.search("cache policy", 5, profile=name, touch=False):
            assert h.relevance is None or h.relevance.learned is None


def test_signals_of_known_candidates() -> None:
    day = 86_400_000_000
    found = rerank.Candidates(
        lexical=np.array([1.0, 0.0, 0.5]),
        lexical_hit=np.array([True, False, True]),
        vector=np.array([np.nan, 1.0, 0.25]),
        cosine=np.array([np.nan, 0.9, 0.4]),
        own=np.array([0.6, 0.4, 0.4]),
        fused=np.array([0.6, 0.6, 0.4]),
        line_length=np.array([10, 100, 1000]),
        session=np.array([3, 3, -1]),
        asks=np.array([False, True, False]),
        created=np.array([0, day, 2 * day]),
        speaker=np.array([name_key("Bo"), name_key("Al"), 0]),
        days=(day_words(date(1970, 1, 2)),),
    )
    raw = rerank.signals("When did Bo go to the beach?", found, 0.4)
    got = {name: raw[:, i].tolist() for i, name in enumerate(rerank.SIGNALS)}
    assert got["vector"] == [0.0, 1.0, 0.25]
    assert got["vector_hit"] == [0.0, 1.0, 1.0]
    assert got["context"] == pytest.approx([0.6, 1.1, 0.4])  # (1.4 * fused - own) / 0.4
    assert got["support"] == [0.6, 0.6, 0.0]  # the other of session 3; none without one
    assert got["session_hits"] == pytest.approx([math.log(2), math.log(2), 0.0])
    assert got["pool"] == pytest.approx([math.log(101) - 4.5] * 3)
    assert got["query_words"] == pytest.approx([math.log1p(3)] * 3)  # bo, go, beach
    assert got["query_date"] == [1.0] * 3
    assert got["date_match"] == [0.0, 1.0, 0.0]
    assert got["speaker"] == [1.0, 0.0, 0.0]  # (Bo is asked about; Al is not; none says)
    assert got["hop"] == [0.0, 0.0, 0.0]  # (no vectors given)
    inputs = rerank.features(raw)
    column = rerank.FEATURE_NAMES.index("length*context")
    assert inputs[:, column] == pytest.approx(np.log1p([10, 100, 1000]) * raw[:, 5])


def test_a_hop_is_the_best_cosine_with_the_first_two_others() -> None:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8], [-1.0, 0.0], [np.nan, np.nan]])
    sessions = np.array([1, 2, 1, -1, 2])
    hop, other = rerank.hops(vectors, sessions)
    # the first two seed the hop, each not with itself; none below 0; no vector: 0
    assert hop.tolist() == pytest.approx([0.0, 0.0, 0.8, 0.0, 0.0])
    # and among other sessions only: the third is in the first seed's session
    assert other.tolist() == pytest.approx([0.0, 0.0, 0.8, 0.0, 0.0])
    hop, other = rerank.hops(vectors[[2, 0, 1]], np.array([1, 1, 2]))
    assert hop.tolist() == pytest.approx([0.6, 0.6, 0.8])
    assert other.tolist() == pytest.approx([0.0, 0.0, 0.8])  # (the seeds share a session)
    assert [v.tolist() for v in rerank.hops(None, np.array([1, 2, 3]))] == [[0.0] * 3] * 2
    assert [v.tolist() for v in rerank.hops(vectors[:1], np.array([1]))] == [[0.0]] * 2


def test_normalised_logits() -> None:
    values, low, high = rerank.normalised(np.array([2.0, -1.0, 0.5]))
    assert values.tolist() == [1.0, 0.0, 0.5]
    assert (low, high) == (-1.0, 2.0)
    assert rerank.normalised(np.array([0.3, 0.3]))[0].tolist() == [1.0, 1.0]


def test_a_model_of_other_features_is_refused(tmp_path: Path) -> None:
    shipped = json.loads(rerank.MODEL.read_text(encoding="utf-8"))
    path = tmp_path / "rerank.json"
    path.write_text(json.dumps(shipped | {"features": shipped["features"][:-1]}), "utf-8")
    with pytest.raises(ValueError, match="refit"):
        rerank.load(path)


def test_the_shipped_model_says_how_it_was_fitted() -> None:
    shipped = json.loads(rerank.MODEL.read_text(encoding="utf-8"))
    assert shipped["fitted"]["by"] == "bench/fusion_fit.py"
    assert len(shipped["weights"]) == len(rerank.FEATURES)
    assert shipped["depth"] == rerank.load().depth
    fitted = shipped["fitted"]  # (the mean of several fits: their units side by side)
    assert len(rerank.load().units) == (fitted["hidden"] or 0) * (fitted["seeds"] or 1)


def test_recall_with_a_mounted_layer_equals_the_oracle(
    filled: Memory,
    clock: FakeClock,
    embedder: WordHashEmbedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    team = Config(home=tmp_path / "team", signal_gate=False)
    with Memory.open(config=team, clock=clock, embedder=embedder) as other:
        for i in range(12):
            other.remember(f"team note {i}: the {TOPICS[i % 6]} policy", session_id=f"s{i % 3}")
    filled.mount(tmp_path / "team", kind="shared")
    with Memory.open(config=team, clock=clock, embedder=embedder) as layer:
        for query, limit in (("team note policy", 10), ("the garden policy", 60)):
            found = filled.search(query, limit, touch=False)
            expected = _oracle(filled, query, limit, monkeypatch, {"shared": layer})
            assert [(h.record.id, h.record.layer) for h in found] == [
                (h.record.id, h.record.layer) for h, _, _ in expected
            ]
            assert any(h.record.layer == "shared" for h in found)
            assert [h.score for h in found] == pytest.approx(
                [h.score for h, _, _ in expected], abs=1e-9
            )


def test_a_memory_gone_since_it_was_found_is_left_out(
    filled: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The learned fusion asks which candidates are still there before it scores them, and
    reads the records of the hits alone: one gone at either step is not returned."""
    query = "the deploy and the garden?"
    before = [h.record.id for h in filled.search(query, 12, touch=False)]
    gone_first, gone_later = before[0], before[1]
    matching, reading = filled._matching, filled._pool_records  # (columns, else the store)

    def still_there(ids: list[str], flt: object, ahead: object = None) -> list[tuple[int, str]]:
        found = matching(ids, flt, ahead)  # type: ignore[arg-type]
        return [(seq, i) for seq, i in found if i != gone_first]

    def read(*args: object) -> list[object]:
        return [r if r is None or r.id != gone_later else None for r in reading(*args)]  # type: ignore[arg-type]

    monkeypatch.setattr(filled, "_matching", still_there)
    monkeypatch.setattr(filled, "_pool_records", read)
    # (the vector side's answers by row, made while the query embeds, come from the same
    # columns: asked by id here, where this test takes one away)
    monkeypatch.setattr(filled.vectors, "rows_ahead", lambda *_: None)
    after = filled.search(query, 12, touch=False)
    ids = [h.record.id for h in after]
    assert gone_first not in ids
    assert gone_later not in ids
    assert [h.rank for h in after] == list(range(1, len(after) + 1))


def test_a_model_with_units_adds_them_to_the_logit_and_explains_them() -> None:
    unit = rerank.Unit("lexical, vector", (0.5,) + (0.0,) * (len(rerank.FEATURES) - 1), 0.1, 2.0)
    model = rerank.Reranker((1.0,) * len(rerank.FEATURES), -0.5, 10, (unit,))
    inputs = np.random.default_rng(3).uniform(size=(4, len(rerank.FEATURES)))
    logits, values = model.scored(inputs)
    expected = inputs.sum(axis=1) - 0.5 + 2.0 * np.tanh(0.5 * inputs[:, 0] + 0.1)
    assert logits == pytest.approx(expected)
    terms = model.terms(inputs[0], values[0])
    assert terms[-1] == (
        "unit 1: lexical, vector",
        pytest.approx(np.tanh(0.5 * inputs[0, 0] + 0.1)),
        2.0,
    )
    assert model.bias + sum(v * w for _, v, w in terms) == pytest.approx(logits[0])


def test_a_unit_missing_a_weight_is_refused(tmp_path: Path) -> None:
    shipped = json.loads(rerank.MODEL.read_text(encoding="utf-8"))
    unit = {"name": "x", "weights": [0.0] * (len(rerank.FEATURES) - 1), "bias": 0.0, "out": 1.0}
    path = tmp_path / "rerank.json"
    path.write_text(json.dumps(shipped | {"units": [unit]}), "utf-8")
    with pytest.raises(ValueError, match="refit"):
        rerank.load.__wrapped__(path)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 20, allow_nan=False, width=64), min_size=1, max_size=60))
def test_the_pool_median_is_numpys_to_the_bit(values: list[float]) -> None:
    assert rerank._median(values) == float(np.median(np.array(values)))


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(0, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_features_are_each_feature_s_signals_multiplied_left_to_right(rows: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    raw = rng.standard_normal((rows, len(rerank.SIGNALS)))
    raw[rng.random(raw.shape) < 0.1] = np.nan
    raw[rng.random(raw.shape) < 0.1] = -0.0
    column = {name: i for i, name in enumerate(rerank.SIGNALS)}
    expected = np.zeros((rows, len(rerank.FEATURES)))
    for at, names in enumerate(rerank.FEATURES):
        value = raw[:, column[names[0]]]
        for name in names[1:]:
            value = value * raw[:, column[name]]
        expected[:, at] = value
    found = rerank.features(raw)
    assert found.tobytes() == expected.tobytes()  # (the same doubles, NaN and -0.0 included)
    assert found.flags.c_contiguous  # (the model's products then take the same path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=64), min_size=1, max_size=200))
def test_the_units_tanh_is_numpys_to_a_few_units_in_the_last_place(values: list[float]) -> None:
    x = np.array(values)
    found = x.copy()
    with np.errstate(all="raise"):  # (no overflow: 2x is cut where tanh is 1 anyway)
        rerank._tanh(found)
    assert np.abs(found - np.tanh(x)).max() <= 4e-16
    assert (found[np.abs(x) >= 20] == np.sign(x[np.abs(x) >= 20])).all()


def test_a_speaker_is_named_by_their_key_alone() -> None:
    joanna, nate = name_key("Joanna"), name_key("Nate")
    speaker = np.array([joanna, nate, 0, joanna])
    assert rerank.spoken_by(speaker, "What did Joanna paint?").tolist() == [1.0, 0.0, 0.0, 1.0]
    # ("what" and "paint" are as long as "Nate" and "Joanna": their keys are no one's)
    assert rerank.spoken_by(speaker, "What will they paint next?").tolist() == [0.0] * 4
    assert rerank.spoken_by(np.array([0, 0]), "What did Nate say?").tolist() == [0.0, 0.0]
