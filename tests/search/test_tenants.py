"""A small tenant's own vector index: the same hits and scores as the store-wide index, kept
current through writes and erasure, on both stores."""

from __future__ import annotations

import pytest

from salience import Memory
from salience.search import tenants
from salience.stores import tenancy
from salience.stores.base import MemoryFilter

SMALL_USER, LARGE_USER = "ana", "bo"
TOPICS = ("crane", "harbour", "invoice", "kettle", "garden", "deploy", "piano", "ferry")


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store of 100 vectors is "large", a tenant of 25 or fewer "small" (the defaults are
    20,000 each: the behaviour is the same, at a size a test can write)."""
    monkeypatch.setattr(tenants, "FROM", 100)
    monkeypatch.setattr(tenancy, "SMALL", 25)


@pytest.fixture
def filled(memory: Memory) -> Memory:
    for i in range(90):
        topic = TOPICS[i % len(TOPICS)]
        memory.remember(f"{topic} note {i} about the {topic} schedule", user=LARGE_USER)
    for i in range(12):
        topic = TOPICS[(3 * i) % len(TOPICS)]
        memory.remember(
            f"{topic} reminder {i}: the {topic} list", user=SMALL_USER, session_id=f"s{i % 3}"
        )
    return memory


def _search(memory: Memory, user: str, query: str, k: int = 8) -> list[tuple[str, float]]:
    vectors = memory.vectors
    flt = MemoryFilter(as_of=memory.now(), user=user)
    (query_vector,) = vectors.embed([query])  # type: ignore[misc]
    return [
        (memory_id, round(score, 6))
        for _, memory_id, score in vectors.search_rows(query_vector, flt, k, neighbour_weight=0.3)
    ]


def _kept(memory: Memory) -> set[tuple[str, ...]]:
    return set(memory.vectors._tenants._copies._kept)


def test_a_small_tenant_gets_the_same_hits_from_its_own_index(
    filled: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    wide = {q: _search(filled, SMALL_USER, q) for q in ("crane list", "garden", "piano ferry")}
    assert not _kept(filled)  # (store-wide: the thresholds are the defaults here)
    monkeypatch.setattr(tenants, "FROM", 100)
    monkeypatch.setattr(tenancy, "SMALL", 25)
    own = {q: _search(filled, SMALL_USER, q) for q in wide}
    assert _kept(filled) == {(SMALL_USER,)}
    assert own == wide
    assert all(hits for hits in own.values())


@pytest.mark.usefixtures("small_thresholds")
def test_a_large_tenant_and_a_small_store_use_the_store_wide_index(filled: Memory) -> None:
    assert _search(filled, LARGE_USER, "crane schedule")
    assert (LARGE_USER,) not in _kept(filled)
    index = filled.vectors._tenants
    assert index.index_for((SMALL_USER,), total=99) is None  # below FROM


@pytest.mark.usefixtures("small_thresholds")
def test_the_tenants_index_follows_writes_and_erasure(filled: Memory) -> None:
    before = _search(filled, SMALL_USER, "violin lesson")
    new = filled.remember("violin lesson on thursday", user=SMALL_USER).id
    after = [memory_id for memory_id, _ in _search(filled, SMALL_USER, "violin lesson")]
    assert after[0] == new
    assert new not in [m for m, _ in before]
    filled.purge(new, user=SMALL_USER)
    assert new not in [m for m, _ in _search(filled, SMALL_USER, "violin lesson")]
    filled.erase_user(SMALL_USER)
    assert _search(filled, SMALL_USER, "crane list") == []


@pytest.mark.usefixtures("small_thresholds")
def test_a_tenant_that_outgrows_the_bound_goes_back_to_the_store_wide_index(
    filled: Memory,
) -> None:
    _search(filled, SMALL_USER, "crane")
    assert (SMALL_USER,) in _kept(filled)
    for i in range(20):
        filled.remember(f"ferry timetable change number {i}", user=SMALL_USER)
    wide = _search(filled, SMALL_USER, "ferry timetable")
    assert (SMALL_USER,) not in _kept(filled)
    assert len(wide) == 8


def test_copies_past_the_budget_are_given_up_oldest_first(
    filled: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tenants, "FROM", 50)
    monkeypatch.setattr(tenancy, "SMALL", 25)
    for user in ("cy", "di"):
        for i in range(3):
            filled.remember(f"{user} keeps the {TOPICS[i]} notes", user=user)
    index = filled.vectors._tenants
    index._copies._budget = 1  # (each copy is more: only the newest stays)
    for user in ("cy", "di", SMALL_USER):
        _search(filled, user, "notes")
        assert _kept(filled) == {(user,)}


def test_a_whole_recall_is_the_same_through_the_tenant_s_index(
    filled: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recall's session spreading and relevance feedback read the tenant's index too (its
    neighbours, its stored vectors): the same hits in the same order, their scores within
    float32 rounding (a product over fewer rows may sum in another order)."""

    def recall(query: str) -> list[tuple[str, float]]:
        hits = filled.search(query, 8, user=SMALL_USER, touch=False)
        return [(h.record.id, h.score) for h in hits]

    queries = ("crane list", "garden reminder", "what is on the piano list")
    wide = [recall(q) for q in queries]
    monkeypatch.setattr(tenants, "FROM", 100)
    monkeypatch.setattr(tenancy, "SMALL", 25)
    own = [recall(q) for q in queries]
    assert _kept(filled) == {(SMALL_USER,)}
    for mine, theirs in zip(own, wide, strict=True):
        assert [i for i, _ in mine] == [i for i, _ in theirs]
        assert [s for _, s in mine] == pytest.approx([s for _, s in theirs], abs=1e-6)
