from salience.profiles import get_profile
from salience.profiles.base import ProfileSettings
from salience.recall import candidate_count, rank_hits
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
