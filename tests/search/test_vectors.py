"""Vectors beside the rows: the in-memory index, identity checks, and vector recall."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from salience import ALL_USERS, Config, Memory
from salience.embeddings.arrays import Matrix, moved_toward, normalise
from salience.errors import EmbedderError
from salience.models import Outcome
from salience.profiles import PROFILES
from salience.search import rows as rows_module
from salience.search import sessions as sessions_module
from salience.search.index import VectorIndex, top_rows
from salience.search.pool import neighbour_slots
from salience.stores.base import MemoryFilter
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


class TableEmbedder:
    """Fixed vectors by keyword: lets a test make two texts similar with no word in common."""

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self._table = table

    name = "table"
    dimensions = 3
    identity = "table:3"

    def embed(self, texts: Sequence[str]) -> Matrix:
        rows = []
        for text in texts:
            row = np.zeros(3, dtype=np.float32)
            for key, vector in self._table.items():
                if key in text.lower():
                    row += np.asarray(vector, dtype=np.float32)
            rows.append(row)
        return normalise(np.array(rows, dtype=np.float32).reshape(len(texts), 3))


def test_top_rows_orders_best_first_and_breaks_ties_by_row() -> None:
    scores = np.array([0.1, 0.9, 0.5, 0.9], dtype=np.float32)
    assert top_rows(scores, 3).tolist() == [1, 3, 2]
    assert top_rows(scores, 10).tolist() == [1, 3, 2, 0]
    assert top_rows(scores, 0).tolist() == []


def test_every_write_path_stores_a_vector(memory: Memory) -> None:
    a = memory.remember("the deploy runs on fridays").id or ""
    memory.update(a, content="the deploy runs on mondays")
    b = memory.supersede(a, "the deploy runs on tuesdays").id or ""
    memory.import_(['{"content": "imported line about kettles"}'])
    memory.session_start("default")
    memory.session_end("we talked about kettles", user="default")
    assert memory.store.count_without_vectors() == 0
    state = memory.store.vector_state()
    assert state[0] == len(memory.list(include_superseded=True))
    assert b


def test_a_vector_only_match_is_found_and_marked(config: Config, clock: FakeClock) -> None:
    table = TableEmbedder({"automobile": (1, 0, 0), "car": (1, 0, 0), "kettle": (0, 1, 0)})
    with Memory.open(config=config, clock=clock, embedder=table) as memory:
        car = memory.remember("I bought a new automobile").id
        memory.remember("the kettle is broken")
        hits = memory.search("car", profile="salience", touch=False)
        assert [h.record.id for h in hits] == [car]
        assert hits[0].lexical == 0.0
        assert hits[0].vector == pytest.approx(1.0)
        eidet = memory.search("car", profile="eidet", touch=False)
        assert eidet[0].relevance is not None
        assert eidet[0].relevance.lexical_hit is False


def test_recall_never_returns_superseded_or_forgotten_memories(memory: Memory) -> None:
    old = memory.remember("coffee machine on floor three").id or ""
    gone = memory.remember("coffee beans in the cupboard").id or ""
    new = memory.supersede(old, "coffee machine on floor four").id
    memory.forget(gone, "moved")
    for name in PROFILES:
        ids = [h.record.id for h in memory.search("coffee machine floor", profile=name)]
        assert old not in ids, name
        assert gone not in ids, name
    assert new in [h.record.id for h in memory.search("coffee machine", profile="salience")]


def test_changing_content_re_embeds(memory: Memory) -> None:
    memory_id = memory.remember("zebra crossing near the office").id or ""
    memory.update(memory_id, content="pelican crossing near the office")
    for name in PROFILES:
        assert memory.search("zebra", profile=name) == [], name
    assert [h.record.id for h in memory.search("pelican")] == [memory_id]


def test_purged_memories_leave_the_index(memory: Memory) -> None:
    keep = memory.remember("apples are red").id
    drop = memory.remember("apples are green").id or ""
    assert len(memory.search("apples", touch=False)) == 2
    memory.purge(drop)
    assert [h.record.id for h in memory.search("apples", touch=False)] == [keep]
    assert memory.store.vector_state()[0] == 1


def test_another_embedder_is_refused_until_reindex(config: Config, clock: FakeClock) -> None:
    first = WordHashEmbedder(tag="v1")
    with Memory.open(config=config, clock=clock, embedder=first) as memory:
        memory.remember("the printer needs toner")
        memory.remember("the scanner needs a driver")
    second = WordHashEmbedder(tag="v2")
    with Memory.open(config=config, clock=clock, embedder=second) as memory:
        found = memory.search("printer")  # (by full text, and said)
        assert [h.record.content for h in found] == ["the printer needs toner"]
        assert [(d.cause, d.fix) for d in found.degraded] == [
            ("embedder_failed", "salience reindex")
        ]
        assert "wordhash:v1:256" in found.degraded[0].detail
        with pytest.raises(EmbedderError, match="salience reindex"):
            memory.remember("the stapler is empty")
        assert len(memory.list()) == 2  # the refused write changed nothing
        seen: list[tuple[int, int]] = []
        assert memory.reindex(progress=lambda done, total: seen.append((done, total))) == 2
        assert seen[-1] == (2, 2)
        assert memory.vectors.stored_identity() == "wordhash:v2:256"
        assert [h.record.content for h in memory.search("printer")] == ["the printer needs toner"]
        assert memory.reindex() == 0  # nothing left to embed


def test_no_embedder_falls_back_to_full_text(config: Config, clock: FakeClock) -> None:
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        memory.remember("the printer needs toner")
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        hits = memory.search("printer", touch=False)
        assert [h.vector for h in hits] == [None]
        result = memory.remember("the scanner needs a driver")
        assert result.outcome is Outcome.CREATED
        assert memory.store.count_without_vectors() == 1
        with pytest.raises(EmbedderError, match="no embedder"):
            memory.reindex()
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        assert memory.reindex() == 1  # fills only the missing one


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "NEAR(a b", "col:value", "a* OR ^b", "AND OR NOT", "(((", "🙂", "-- ;"],
)
def test_queries_full_of_search_syntax_are_plain_text(
    memory: Memory, profile: str, query: str
) -> None:
    memory.remember("a b value col unbalanced near")
    memory.search(query, profile=profile)  # must not raise


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_an_empty_store_recalls_nothing(memory: Memory, profile: str) -> None:
    assert memory.search("anything at all", profile=profile) == []


def test_the_index_sees_writes_from_another_connection(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder
) -> None:
    with (
        Memory.open(config=config, clock=clock, embedder=embedder) as reader,
        Memory.open(config=config, clock=clock, embedder=embedder) as writer,
    ):
        writer.remember("violets are blue")
        assert len(reader.search("violets", touch=False)) == 1
        writer.remember("violets smell sweet")
        assert len(reader.search("violets", touch=False)) == 2
        index = VectorIndex(reader.store)
        assert len(index) == 2


def test_recall_while_another_connection_writes(
    config: Config, clock: FakeClock, embedder: WordHashEmbedder
) -> None:
    errors: list[BaseException] = []
    done = threading.Event()

    def write() -> None:
        try:
            with Memory.open(config=config, clock=clock, embedder=embedder) as writer:
                for i in range(60):
                    writer.remember(f"harbour note number {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    with Memory.open(config=config, clock=clock, embedder=embedder) as reader:
        thread = threading.Thread(target=write)
        thread.start()
        while not done.is_set():
            for hit in reader.search("harbour note", limit=5, touch=False):
                assert hit.record.content.startswith("harbour note")
        thread.join()
        assert errors == []
        assert len(reader.search("harbour note", limit=100, touch=False)) == 60


def test_rae_refuses_a_semantic_duplicate_and_names_it(memory: Memory) -> None:
    first = memory.remember("the build uses python three", profile="rae")
    again = memory.remember("python three the build uses", profile="rae")  # same words
    assert again.outcome is Outcome.DUPLICATE
    assert again.id == first.id
    assert again.reason is not None
    assert "0.95" in again.reason
    other = memory.remember("the build uses rust", profile="rae")
    assert other.outcome is Outcome.CREATED
    assert memory.remember("python three the build uses").outcome is Outcome.CREATED  # salience


def test_rae_dedup_threshold_is_configurable(home: Path, clock: FakeClock) -> None:
    config = Config(home=home, signal_gate=False, rae_dedup_threshold=0.5)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        memory.remember("alpha beta gamma delta", profile="rae")
        near = memory.remember("alpha beta gamma epsilon", profile="rae")  # cosine 0.75
        assert near.outcome is Outcome.DUPLICATE


def test_rae_without_an_embedder_says_semantic_dedup_was_skipped(
    config: Config, clock: FakeClock
) -> None:
    with Memory.open(config=config, clock=clock, embedder=None) as memory:
        memory.remember("alpha beta", profile="rae")
        result = memory.remember("alpha beta", profile="rae")
        assert result.outcome is Outcome.CREATED
        assert any("semantic dedup skipped" in note for note in result.notes)


def test_vector_search_honours_filters(memory: Memory) -> None:
    memory.remember("garden tools in the shed", user="ann")
    bob = memory.remember("garden tools in the garage", user="bob").id
    flt = MemoryFilter(as_of=memory.now(), user="bob")
    query = memory.vectors.query_vector("garden tools")
    assert query is not None
    hits = memory.vectors.search(query, flt, 5)
    assert [h.record.id for h in hits] == [bob]


def test_recall_inside_a_transaction_does_not_wait_on_itself(
    config: Config, clock: FakeClock
) -> None:
    table = TableEmbedder({"boat": (1, 0, 0), "ferry": (1, 0, 0)})
    with Memory.open(config=config, clock=clock, embedder=table) as memory:
        memory.remember("the ferry leaves at noon")
        outside = memory.search("boat", touch=False)
        with memory.store.transaction():
            assert memory.store.in_transaction()
            inside = memory.search("boat", touch=False)  # found by its vector only
        assert not memory.store.in_transaction()
        assert [h.record.id for h in inside] == [h.record.id for h in outside]
        assert len(inside) == 1


@pytest.mark.parametrize("page", [rows_module.LOAD_PAGE, 1])
def test_a_reindex_by_another_process_is_noticed(
    config: Config, clock: FakeClock, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rows_module, "LOAD_PAGE", page)
    old = WordHashEmbedder(dimensions=256, tag="v1")
    new = WordHashEmbedder(dimensions=64, tag="v2")
    with (
        Memory.open(config=config, clock=clock, embedder=old) as first,
        Memory.open(config=config, clock=clock, embedder=new) as second,
    ):
        first.remember("the printer needs toner")
        first.remember("the scanner is on the second floor")
        assert len(first.search("printer", touch=False)) == 1
        second.reindex()  # the store now holds 64-d vectors of another model
        with pytest.raises(EmbedderError, match="salience reindex"):
            first.remember("the scanner needs a driver")  # never mixes two models
        assert [h.vector is not None for h in second.search("printer", touch=False)] == [True]
        index = VectorIndex(second.store)
        assert len(index) == 2


def test_held_vectors_look_at_the_store_once(
    memory: Memory, config: Config, clock: FakeClock
) -> None:
    memory.remember("the harbour opens at dawn")
    store = memory.store
    looks: list[int] = []
    original = store.change_marker

    def counting() -> tuple[int, int]:
        looks.append(1)
        return original()

    store.change_marker = counting  # type: ignore[method-assign]
    vectors = memory.vectors
    flt = MemoryFilter(as_of=clock())
    with vectors.held():
        entered = len(looks)
        query = vectors.embed(["harbour"])
        assert query is not None
        for _ in range(3):
            assert vectors.count() == 1
            assert vectors.search(query[0], flt, 5)
        assert len(looks) == entered  # nothing more while held
        with Memory.open(config=config, clock=clock, embedder=memory.vectors.embedder) as other:
            other.remember("the harbour closes at dusk")
        assert vectors.count() == 1  # the held view, as promised
    assert vectors.count() == 2  # released: the other process's write is seen
    assert len(looks) > entered


def _counting_similarities(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = VectorIndex.similarities

    def counting(self: VectorIndex, query: np.ndarray, neighbour_weight: float = 0.0) -> Matrix:
        calls.append(1)
        return original(self, query, neighbour_weight)

    monkeypatch.setattr(VectorIndex, "similarities", counting)
    return calls


def test_a_similarity_floor_never_makes_search_score_every_row_again(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(30):
        memory.remember(f"note {i} about the lighthouse keeper and his logbook")
    memory.remember("a recipe for plum cake with cinnamon")
    query = memory.vectors.query_vector("plum cake")
    assert query is not None
    calls = _counting_similarities(monkeypatch)
    flt = MemoryFilter(as_of=memory.now())
    hits = memory.vectors.search(query, flt, 5, min_similarity=0.5)
    # The floor cut the hits below k: looking deeper cannot find more above it.
    assert [h.record.content for h in hits] == ["a recipe for plum cake with cinnamon"]
    assert calls == [1]


def test_filtered_vector_search_looks_deeper_without_scoring_again(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(40):
        memory.remember(f"garden note {i}: the tomatoes need water", user="ann")
    bob = memory.remember("garden note: the roses need pruning", user="bob").id
    query = memory.vectors.query_vector("garden tomatoes water")
    assert query is not None
    calls = _counting_similarities(monkeypatch)
    hits = memory.vectors.search(query, MemoryFilter(as_of=memory.now(), user="bob"), 3)
    assert [h.record.id for h in hits] == [bob]  # past 40 better rows of another user
    assert calls == [1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_filtered_search_is_the_best_k_of_the_matching_rows(memory: Memory, seed: int) -> None:
    """However many of the best rows the filter removes, and however deep the search looks
    for more, the answer is the exact top k among the rows that pass (ties: store order)."""
    rng = np.random.default_rng(seed)
    words = "garden tomato water rose ferry harbour pier gull noon dawn".split()
    for i in range(120):
        text = " ".join(rng.choice(words, size=4)) + f" note {i}"
        memory.remember(text, user=str(rng.choice(["ann", "bob", "cy"], p=[0.8, 0.15, 0.05])))
    query = memory.vectors.query_vector("garden tomato water")
    assert query is not None
    ids = VectorIndex(memory.store).ids()
    stored = memory.vectors.stored(ids)
    owner = {r.id: r.user for r in memory.list(user=ALL_USERS, limit=None)}
    for user in ("bob", "cy"):
        mine = [i for i in ids if owner[i] == user]
        scores = {i: float(np.dot(stored[i], query)) for i in mine}
        for k in (1, 5, 12, 40):
            hits = memory.vectors.search_rows(query, MemoryFilter(as_of=memory.now(), user=user), k)
            best = sorted((s for s in scores.values() if s > 0), reverse=True)[:k]
            assert len({h[1] for h in hits}) == len(hits)  # (ties may go either way)
            assert all(owner[h[1]] == user for h in hits)
            assert [h[2] for h in hits] == pytest.approx(best, abs=1e-6)
            assert [scores[h[1]] for h in hits] == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("block", [2, 4096])
def test_session_mixing_matches_the_formula(
    memory: Memory, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """normalise(e_i + w * (e_before + e_after)) . q, within each session, for every row
    (mixed norms computed two rows at a time, or all at once)."""
    monkeypatch.setattr(sessions_module, "_NORM_BLOCK", block)
    texts = ["the ferry leaves at noon", "the harbour opens at dawn", "gulls over the pier"]
    for session in ("s1", "s2"):
        for text in texts:
            memory.remember(f"{text} ({session})", session_id=session)
    memory.remember("a memory outside any session about the pier")
    index = VectorIndex(memory.store)
    ids = index.ids()
    vectors = memory.vectors.stored(ids)
    records = {r.id: r for r in memory.list()}
    query = memory.vectors.query_vector("ferry at the pier")
    assert query is not None
    for weight in (0.0, 0.5, 1.0):
        expected = []
        for i, memory_id in enumerate(ids):
            session = records[memory_id].session_id
            mixed = vectors[memory_id].astype(np.float64)
            for j in (i - 1, i + 1):
                same = 0 <= j < len(ids) and session is not None
                if same and records[ids[j]].session_id == session:
                    mixed = mixed + weight * vectors[ids[j]]
            expected.append(float(mixed @ query) / float(np.linalg.norm(mixed)))
        got = index.similarities(query, weight)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("dense", [16, 0])
def test_neighbour_slots_place_the_neighbours_among_the_ids_given(
    memory: Memory, dense: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As positions, what ``neighbours`` names: any subset, in any order, ids without a
    vector among them, neighbours left out of it; by an array over every row (a small store)
    and by binary searches (``dense`` 0: a large one)."""
    monkeypatch.setattr("salience.search.index.DENSE_SLOTS", dense)
    for session in ("s1", "s2"):
        for i in range(4):
            memory.remember(f"turn {i} of {session} about the pier", session_id=session)
    memory.remember("a memory outside any session about the pier")
    index = VectorIndex(memory.store)
    ids = index.ids()
    rng = random.Random(3)
    for _ in range(40):
        given = rng.sample(ids, rng.randint(0, len(ids))) + ["01NOVECTOR"] * rng.randint(0, 1)
        rng.shuffle(given)
        want = neighbour_slots(given, index.neighbours(given))
        for got in (index.neighbour_slots(given), memory.vectors.neighbour_slots(given)):
            assert got is not None
            assert [side.tolist() for side in got] == [side.tolist() for side in want]
    before, after = index.neighbour_slots(ids)
    assert (before < len(ids)).sum() == (after < len(ids)).sum() == 6  # 3 pairs a session


@pytest.mark.parametrize("each", [False, True])
def test_mixed_scores_follow_writes_as_a_fresh_index_would(memory: Memory, each: bool) -> None:
    """New turns, a new session, a re-embedded memory and an older memory imported into a
    session: the index kept up to date piece by piece scores as one built from scratch.
    ``each``: the index also catches up after every write (as a write looking for its
    updates does), which leaves the neighbours to settle later, several appends at once."""
    for i in range(6):
        memory.remember(f"turn {i} about ferries and the harbour", session_id="a")
    memory.remember("a stray memory about gulls")
    index = VectorIndex(memory.store)
    query = memory.vectors.query_vector("ferries harbour gulls")
    assert query is not None
    index.similarities(query, 0.5)  # neighbours and mixed norms exist before the writes

    remember, update, import_ = memory.remember, memory.update, memory.import_

    def caught_up(write: Any) -> Any:
        def written(*args: Any, **kwargs: Any) -> Any:
            result = write(*args, **kwargs)
            if each:
                assert len(index) > 0  # (a catch-up: neighbours not read)
                assert index._unsettled
            return result

        return written

    memory.remember, memory.update = caught_up(remember), caught_up(update)  # type: ignore[method-assign]
    memory.import_ = caught_up(import_)  # type: ignore[method-assign]

    def check() -> None:
        fresh = VectorIndex(memory.store)  # rows may be in another order: compare by id
        got = dict(zip(index.ids(), index.similarities(query, 0.5).tolist(), strict=True))
        want = dict(zip(fresh.ids(), fresh.similarities(query, 0.5).tolist(), strict=True))
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[i] for i in want], list(want.values()), atol=1e-6)

    memory.remember("turn 6 about the harbour pilot", session_id="a")
    check()
    memory.remember("first turn of another session about gulls", session_id="b")
    memory.remember("second turn of it about ferries", session_id="b")
    check()
    memory.remember("turn 7 about the harbour at night", session_id="a")
    memory.remember("a third session's first turn about ferries", session_id="c")
    check()
    third = index.ids()[2]
    memory.update(third, content="turn 2 rewritten about gulls only")
    check()
    old = memory.now().replace(year=2020).isoformat()
    line = {"content": "an old turn about ferries", "session_id": "a", "created_at": old}
    memory.import_([json.dumps(line)])  # older than the session's last turn
    check()


def test_a_store_loaded_page_by_page_is_the_store_loaded_at_once(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(7):
        memory.remember(f"turn {i} about ferries and harbour {i}", session_id="a" if i % 3 else "b")
    second = memory.store.vector_rows(0)[1][1]
    memory.update(second, content="turn 1 rewritten about gulls")  # re-embedded: vseq moves on
    query = memory.vectors.query_vector("ferries gulls")
    assert query is not None
    whole = VectorIndex(memory.store)
    assert whole.ids()  # loaded in one page
    asked: list[int | None] = []
    store_rows = memory.store.vector_rows

    def paged(after: int, limit: int | None = None) -> list[tuple[int, str, str | None, bytes]]:
        asked.append(limit)
        return store_rows(after, limit)

    monkeypatch.setattr(rows_module, "LOAD_PAGE", 3)
    monkeypatch.setattr(memory.store, "vector_rows", paged)
    paged_index = VectorIndex(memory.store)
    assert paged_index.ids() == whole.ids()
    assert asked == [3, 3, 3]  # 7 vectors: 3 + 3 + 1
    assert np.array_equal(paged_index.similarities(query, 0.5), whole.similarities(query, 0.5))
    memory.remember("turn 7 about the harbour pilot", session_id="a")  # follows later writes
    assert paged_index.ids() == VectorIndex(memory.store).ids()


@pytest.mark.parametrize("meanwhile", ["write", "purge"])
def test_what_another_connection_does_during_a_paged_load(
    config: Config,
    clock: FakeClock,
    embedder: WordHashEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    meanwhile: str,
) -> None:
    """A write while the pages are read comes with them (no second load from the start); a
    purge of a memory already read makes the load start again, without it."""
    with (
        Memory.open(config=config, clock=clock, embedder=embedder) as reader,
        Memory.open(config=config, clock=clock, embedder=embedder) as writer,
    ):
        ids = [writer.remember(f"note {i} about the harbour").id or "" for i in range(7)]
        monkeypatch.setattr(rows_module, "LOAD_PAGE", 3)
        asked: list[int] = []
        store_rows = reader.store.vector_rows

        def paged(after: int, limit: int | None = None) -> list[tuple[int, str, str | None, bytes]]:
            asked.append(after)
            if len(asked) == 2:  # after the first page
                if meanwhile == "write":
                    ids.append(writer.remember("a note written during the load").id or "")
                else:
                    writer.purge(ids.pop(1))  # read in the first page
            return store_rows(after, limit)

        monkeypatch.setattr(reader.store, "vector_rows", paged)
        index = VectorIndex(reader.store)
        assert sorted(index.ids()) == sorted(ids)
        restarts = [after for after in asked[1:] if after == 0]
        assert len(restarts) == (0 if meanwhile == "write" else 1)


def test_a_memory_twice_in_one_load_keeps_its_later_vector(memory: Memory) -> None:
    index = VectorIndex(memory.store)
    first, second, other = (
        normalise(np.array([v], np.float32))[0] for v in ([1, 2, 0], [0, 1, 1], [3, 0, 1])
    )
    rows = [
        (1, "m1", "s", first.tobytes()),
        (2, "m2", "s", other.tobytes()),
        (3, "m1", "s", second.tobytes()),
    ]
    touched = index._append(rows)
    assert touched.tolist() == [0, 1, 0]
    assert list(index.loaded_ids()) == ["m1", "m2"]
    assert index._size == 2
    assert index._last_vseq == 3
    assert np.array_equal(index._matrix[0], second)
    assert np.array_equal(index._matrix[1], other)


def test_moved_toward_is_rocchio_feedback() -> None:
    query = np.array([1, 0, 0], dtype=np.float32)
    examples = [np.array([0, 1, 0], np.float32), np.array([0, 0, 1], np.float32)]
    moved = moved_toward(query, examples, 0.5)
    want = np.array([1, 0.25, 0.25]) / np.linalg.norm([1, 0.25, 0.25])
    np.testing.assert_allclose(moved, want, rtol=1e-6)
    assert moved.dtype == np.float32
    assert moved_toward(query, [], 0.5) is query
    assert moved_toward(query, examples, 0.0) is query
    assert moved_toward(query, [-2 * query], 0.5) is query  # the sum is zero: left as asked
    rng = np.random.default_rng(5)  # (its length as np.linalg.norm has it, to the bit)
    for _ in range(50):
        asked = normalise(rng.standard_normal((1, 384)))[0]
        near = list(normalise(rng.standard_normal((3, 384))))
        sum_ = asked + np.float32(0.4) * np.mean(np.stack(near), axis=0, dtype=np.float32)
        want = (sum_ / float(np.linalg.norm(sum_))).astype(np.float32)
        assert moved_toward(asked, near, 0.4).tobytes() == want.tobytes()


def test_recall_feedback_moves_the_query_but_never_admits_the_unrelated(
    config: Config, clock: FakeClock
) -> None:
    """The salience profile moves the query vector toward its best full-text hits; a memory
    then needs similarity to the query as asked too (the 0.2 floor), so one that resembles
    the full-text hit but not the question stays out."""
    table = TableEmbedder(
        {"ferry": (1, 0, 0), "boat": (1, 0, 0), "schedule": (0, 1, 0), "timetable": (0, 1, 0)}
    )
    with Memory.open(config=config, clock=clock, embedder=table) as memory:
        posted = memory.remember("ferry schedule posted").id
        boat = memory.remember("a boat at the quay").id
        timetable = memory.remember("the timetable changed").id  # cosine 0 to "ferry"
        hits = {h.record.id: h for h in memory.search("ferry", profile="salience", touch=False)}
        assert timetable not in hits
        assert set(hits) == {posted, boat}
        asked = np.array([1, 0, 0])
        moved = asked + 0.5 * np.array([1, 1, 0]) / 2**0.5
        assert hits[boat].vector == pytest.approx(moved[0] / np.linalg.norm(moved), rel=1e-5)
        # A profile without feedback scores the query as asked.
        rae = {h.record.id: h for h in memory.search("ferry", profile="rae", touch=False)}
        assert rae[boat].vector == pytest.approx(1.0)


def test_stored_vectors_are_gathered_in_the_order_asked(memory: Memory) -> None:
    ids = [memory.remember(f"note {i} about the {word}").id or "" for i, word in enumerate("abc")]
    asked = [ids[2], "01NOSUCHMEMORY0000000000000", ids[0]]
    found, known = memory.vectors.gathered(asked)
    assert known.tolist() == [True, False, True]
    one, _ = memory.vectors.gathered([ids[2]])
    other, _ = memory.vectors.gathered([ids[0]])
    assert found[0].tobytes() == one[0].tobytes()
    assert found[2].tobytes() == other[0].tobytes()
    assert one[0].tobytes() == memory.vectors.embed(["note 2 about the c"])[0].tobytes()  # type: ignore[index]
    assert not found[1].any()
    nothing, none_known = memory.vectors.gathered(["01NOSUCHMEMORY0000000000000"])
    assert not none_known.any()
    assert not nothing.any()
