"""salience.models.hits: a learned logit's terms, built when read."""

from __future__ import annotations

from salience.models import Learned, Terms


def test_terms_are_built_once_when_first_read() -> None:
    calls: list[int] = []

    def values() -> list[float]:
        calls.append(1)
        return [0.5, 2.0]

    terms = Terms(("lexical", "unit 1: vector"), values, (1.5, -1.0))
    assert len(terms) == 2
    assert not calls  # (its length needs no values)
    assert terms[1] == ("unit 1: vector", 2.0, -1.0)
    assert list(terms) == [("lexical", 0.5, 1.5), ("unit 1: vector", 2.0, -1.0)]
    assert terms[:1] == (("lexical", 0.5, 1.5),)
    assert len(calls) == 1


def test_terms_equal_the_same_terms_as_a_tuple_and_hash_alike() -> None:
    terms = Terms(("a", "b"), lambda: [1.0, 2.0], (3.0, 4.0))
    plain = (("a", 1.0, 3.0), ("b", 2.0, 4.0))
    assert terms == plain
    assert terms != (("a", 1.0, 3.0),)
    assert terms != "ab"
    lazy = Learned(0.4, 0.0, terms, 11.0, 0.0, 11.0)
    built = Learned(0.4, 0.0, plain, 11.0, 0.0, 11.0)
    assert lazy == built
    assert hash(lazy) == hash(built)
    assert lazy.largest()[0] == ("b", 2.0, 4.0)


def test_terms_pickle_and_copy_as_their_tuple() -> None:
    import copy
    import pickle

    terms = Terms(("a",), lambda: [1.0], (2.0,))
    learned = Learned(0.4, 0.0, terms, 2.0, 0.0, 2.0)
    back = pickle.loads(pickle.dumps(learned))
    assert back == learned
    assert back.terms == (("a", 1.0, 2.0),)
    assert copy.deepcopy(learned) == learned
