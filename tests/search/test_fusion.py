import pytest

from salience.models import Relevance
from salience.profiles import get_profile
from salience.profiles.base import ProfileSettings, RecallPlan
from salience.search.fusion import (
    Candidate,
    candidate_count,
    fuse,
    rank_candidates,
    rank_hits,
    spread_context,
)
from tests.factory import NOW, record

S = ProfileSettings()


def test_relevance_is_normalised_so_the_best_hit_gets_one() -> None:
    a, b = record(), record()
    hits = rank_hits([(a, 8.0), (b, 2.0)], get_profile("ilab"), NOW, S, 10)
    assert [h.record.id for h in hits] == [a.id, b.id]
    relevance = [h.explanation.components[0].value for h in hits if h.explanation]
    assert relevance == [1.0, 0.25]
    assert hits[0].lexical == 8.0


def test_limit_and_ranks() -> None:
    found = [(record(), float(10 - i)) for i in range(5)]
    hits = rank_hits(found, get_profile("aide"), NOW, S, 3)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert candidate_count(3) == 6


def test_eidet_recall_applies_type_budgets_then_fills() -> None:
    insights = [(record(type="insight", importance=1.0), 1.0) for _ in range(5)]
    heuristic = (record(type="heuristic", importance=0.0), 1.0)
    hits = rank_hits([*insights, heuristic], get_profile("eidet"), NOW, S, 3)
    types = [h.record.type for h in hits]
    assert types.count("insight") == 2  # ceil(0.40 * 3)
    assert "heuristic" in types  # pass 1 gives the heuristic its slot despite a lower score


def test_empty_input_gives_no_hits() -> None:
    assert rank_hits([], get_profile("salience"), NOW, S, 5) == []


# -- fusion per profile ------------------------------------------------------------------------


def _plan(name: str) -> RecallPlan:
    return get_profile(name).recall


def test_lexical_profiles_ignore_vectors() -> None:
    a, b = record(), record()
    for name in ("aide", "ilab", "talome"):
        assert _plan(name).vector_count(10) == 0
        fused = fuse(_plan(name), [(a, 4.0)], [(b, 0.9)])
        assert [c.record.id for c in fused] == [a.id]
        assert fused[0].relevance.lexical == 1.0


def test_eidet_merges_by_id_and_marks_vector_only_hits() -> None:
    plan = _plan("eidet")
    assert (plan.lexical_count(5), plan.vector_count(5), plan.vector_min) == (10, 5, 0.70)
    both, text_only, vector_only = record(), record(), record()
    fused = {
        c.record.id: c
        for c in fuse(plan, [(both, 2.0), (text_only, 1.0)], [(both, 0.8), (vector_only, 0.75)])
    }
    assert len(fused) == 3
    assert fused[both.id].relevance.lexical_hit
    assert fused[both.id].similarity == 0.8
    assert fused[text_only.id].relevance.lexical_hit
    assert not fused[vector_only.id].relevance.lexical_hit
    hits = rank_candidates(list(fused.values()), get_profile("eidet"), NOW, S, 3)
    weights = {h.record.id: h.explanation.components[0].weight for h in hits if h.explanation}
    assert weights[vector_only.id] == 0.9
    assert weights[both.id] == weights[text_only.id] == 1.0


def test_rae_uses_the_cosine_as_semantic_and_falls_back_to_text() -> None:
    a, b = record(), record()
    fused = fuse(_plan("rae"), [(a, 3.0)], [(b, 0.9)])
    assert [(c.record.id, c.relevance.vector) for c in fused] == [(b.id, 0.9)]
    hits = rank_candidates(fused, get_profile("rae"), NOW, S, 5)
    semantic = next(c for c in hits[0].explanation.components if c.name == "semantic")  # type: ignore[union-attr]
    assert semantic.value == 0.9
    fallback = fuse(_plan("rae"), [(a, 3.0)], [])
    assert [c.relevance.lexical for c in fallback] == [1.0]


def test_salience_fuses_min_max_normalised_scores_with_its_dense_weight() -> None:
    plan = _plan("salience")
    w = plan.dense_weight
    a, b, c = record(), record(), record()
    fused = {
        x.record.id: x.relevance for x in fuse(plan, [(a, 10.0), (b, 5.0)], [(b, 0.8), (c, 0.4)])
    }
    assert fused[a.id].fused == pytest.approx(1 - w)  # best text, no vector
    assert fused[b.id].fused == pytest.approx(0.0 * (1 - w) + 1.0 * w)  # worst text, best vector
    assert fused[c.id].fused == pytest.approx(0.0)  # worst of the vector list only
    assert fused[c.id].lexical_hit is False


def test_salience_without_vectors_ranks_by_text_alone() -> None:
    a, b = record(), record()
    fused = fuse(_plan("salience"), [(a, 10.0), (b, 5.0)], [])
    assert [x.relevance.fused for x in fused] == [1.0, 0.0]


def test_context_spreading_lifts_a_reply_next_to_a_strong_match() -> None:
    question, reply, stranger = record(), record(), record()
    candidates = [
        Candidate(question, Relevance(fused=1.0)),
        Candidate(reply, Relevance(fused=0.2)),
        Candidate(stranger, Relevance(fused=0.3)),
    ]
    neighbours = {reply.id: (question.id, None), question.id: (None, reply.id)}
    spread = {c.record.id: c.relevance.fused for c in spread_context(candidates, neighbours, 0.5)}
    assert spread[reply.id] == pytest.approx((0.2 + 0.5 * 1.0) / 1.5)
    assert spread[stranger.id] == pytest.approx(0.3 / 1.5)
    assert spread[reply.id] > spread[stranger.id]


def test_a_reply_to_a_matching_question_ranks_just_below_it() -> None:
    question = record("How long have you been married?")
    answer = record("5 years already!")
    statement = record("We got married in a church.")
    after_statement = record("Lovely.")
    stranger = record("I like tea.")
    candidates = [
        Candidate(question, Relevance(fused=1.0)),
        Candidate(answer, Relevance(fused=0.0)),
        Candidate(statement, Relevance(fused=1.0)),
        Candidate(after_statement, Relevance(fused=0.0)),
        Candidate(stranger, Relevance(fused=0.6)),
    ]
    neighbours = {
        question.id: (None, answer.id),
        answer.id: (question.id, None),
        statement.id: (None, after_statement.id),
        after_statement.id: (statement.id, None),
    }
    spread = {c.record.id: c.relevance for c in spread_context(candidates, neighbours, 0.4, 0.9)}
    assert spread[answer.id].fused == pytest.approx(0.9)  # 0.9 x its question
    assert spread[answer.id].own == 0.0
    assert spread[answer.id].context == "reply to a question"
    assert spread[answer.id].lifted() == "own 0.0000, lifted as a reply to a question"
    # after a statement, only the plain neighbour share: (0 + 0.4 * 1) / 1.4
    assert spread[after_statement.id].fused == pytest.approx(0.4 / 1.4)
    assert spread[after_statement.id].context == "session neighbour"
    assert spread[stranger.id].context is None
    assert spread[stranger.id].lifted() is None
    ranked = sorted(spread, key=lambda i: -(spread[i].fused or 0.0))
    assert ranked.index(answer.id) < ranked.index(stranger.id)
    # a reply never loses by it, and without reply_weight nothing changes
    plain = {c.record.id: c.relevance for c in spread_context(candidates, neighbours, 0.4)}
    assert plain[answer.id].fused == pytest.approx(0.4 / 1.4)
    assert plain[answer.id].context == "session neighbour"


def test_a_question_does_not_lift_the_memory_before_it() -> None:
    before, question = record("I moved last year."), record("Where do you live?")
    candidates = [
        Candidate(before, Relevance(fused=0.1)),
        Candidate(question, Relevance(fused=1.0)),
    ]
    neighbours = {before.id: (None, question.id), question.id: (before.id, None)}
    spread = {c.record.id: c.relevance for c in spread_context(candidates, neighbours, 0.4, 0.9)}
    assert spread[before.id].fused == pytest.approx((0.1 + 0.4) / 1.4)
    assert spread[before.id].context == "session neighbour"


def test_a_memory_its_neighbour_lowers_is_not_called_lifted() -> None:
    strong, weak = record("the deploy uses blue-green"), record("ok")
    candidates = [
        Candidate(strong, Relevance(fused=0.8)),
        Candidate(weak, Relevance(fused=0.3)),
    ]
    neighbours = {strong.id: (None, weak.id), weak.id: (strong.id, None)}
    spread = {c.record.id: c.relevance for c in spread_context(candidates, neighbours, 0.4)}
    assert spread[strong.id].fused == pytest.approx((0.8 + 0.4 * 0.3) / 1.4)
    assert spread[strong.id].own == 0.8
    assert spread[strong.id].context is None
    assert spread[strong.id].lifted() is None
    assert spread[weak.id].context == "session neighbour"
