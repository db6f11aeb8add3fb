"""The sign pass (search/signs.py): differing signs counted exactly, following writes, and the
cheaper look it gives a write for its update candidates (VectorIndex.nearby)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience import Config, Memory
from salience.search import coarse, signs
from salience.search.index import VectorIndex
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder
from tests.search.spies import rescoring

DIMS = 384


def _unit_rows(count: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, DIMS)).astype(np.float32)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _popcount(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """The differing signs, counted the slow way."""
    return ((values > 0) != (query > 0)).sum(axis=1)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 64 rows, and the signs counted 48 rows a step: several steps, and rows past
    the int8 copy's last full block."""
    monkeypatch.setattr(coarse, "BLOCK_ROWS", 64)
    monkeypatch.setattr(signs, "CHUNK", 48)


@pytest.fixture(params=["numpy", "numkong"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both ways of counting: NumPy's words alone, and numkong's packed blocks beside them
    (used where numkong packs a row compactly: its AVX2 kernels; here, allowed any size)."""
    monkeypatch.setattr(signs, "COMPACT", 10**6 if request.param == "numkong" else 0)
    signs._compact.cache_clear()
    yield request.param
    signs._compact.cache_clear()


def test_the_pass_needs_numpy_to_count_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    assert signs.available()
    monkeypatch.delattr(np, "bitwise_count")
    assert not signs.available()  # (NumPy 1: recall's exact search instead)


def test_numkong_counts_only_where_it_packs_compactly(monkeypatch: pytest.MonkeyPatch) -> None:
    import numkong

    width = signs._width(numkong)
    assert width >= 48  # (384 signs: 48 bytes at the least)
    try:
        monkeypatch.setattr(signs, "COMPACT", width)
        signs._compact.cache_clear()
        assert signs._compact() is numkong
        monkeypatch.setattr(signs, "COMPACT", width - 1)
        signs._compact.cache_clear()
        assert signs._compact() is None
        monkeypatch.setattr(signs, "COMPACT", width)
        for kernel in ("hammings_packed", "cdist"):
            with monkeypatch.context() as patched:
                counted = getattr(numkong, kernel)
                patched.setattr(
                    numkong, kernel, lambda *a, f=counted, **k: np.asarray(f(*a, **k)) + 1
                )
                signs._compact.cache_clear()
                assert signs._compact() is None  # (a kernel that miscounts is never used)
    finally:
        signs._compact.cache_clear()


@settings(max_examples=60, deadline=None)
@given(
    dimensions=st.integers(1, 400),
    size=st.integers(0, 130),
    chunk=st.sampled_from([1, 7, 64, 65536]),
    seed=st.integers(0, 2**16),
)
def test_counted_is_the_number_of_differing_bits(
    dimensions: int, size: int, chunk: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(-2, 3, (size + 3, dimensions)).astype(np.int8)  # (zeros: not positive)
    query = rng.standard_normal(dimensions).astype(np.float32)
    original = signs.CHUNK
    signs.CHUNK = chunk
    try:
        found = signs.counted(signs.words(signs.bits(query)), signs.words(signs.bits(values)), size)
    finally:
        signs.CHUNK = original
    assert found.dtype == np.uint16
    assert np.array_equal(found, _popcount(values[:size], query))


@pytest.mark.parametrize("count", [40, 64, 1000])
@pytest.mark.usefixtures("small_blocks", "kernel")
def test_differing_counts_every_row_exactly(count: int) -> None:
    rows = _unit_rows(count, seed=3)
    int8 = coarse.Int8Rows(DIMS)
    int8.update(rows, np.arange(count))
    query = _unit_rows(1, seed=4)[0]
    found = int8.differing(signs.bits(query), count)
    assert found.shape == (count,)
    values, _, _ = coarse.quantise(rows)
    assert np.array_equal(found, _popcount(values, query))
    assert int8.differing(signs.bits(values[5].astype(np.float32)), count)[5] == 0


@pytest.mark.usefixtures("small_blocks", "kernel")
def test_signs_follow_rewritten_and_added_rows() -> None:
    rows = np.zeros((400, DIMS), dtype=np.float32)
    rows[:300] = _unit_rows(300, seed=5)
    int8 = coarse.Int8Rows(DIMS)
    int8.update(rows, np.arange(300))
    query = _unit_rows(1, seed=6)[0]
    int8.differing(signs.bits(query), 300)  # the signs made
    rows[[3, 70, 299]] = -rows[[3, 70, 299]]  # rows of three steps
    rows[300:] = _unit_rows(100, seed=7)
    int8.update(rows, np.array([3, 70, 299, *range(300, 400)]))
    values, _, _ = coarse.quantise(rows)
    assert np.array_equal(int8.differing(signs.bits(query), 400), _popcount(values, query))


def _closest_by_histogram(distances: np.ndarray, count: int) -> list[int]:
    """:func:`signs.closest` the plain way: the cut from every row's distance."""
    if count >= len(distances):
        return list(range(len(distances)))
    cut = int(np.searchsorted(np.cumsum(np.bincount(distances)), count))
    return np.flatnonzero(distances <= cut).tolist()


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(1, 20_000),
    count=st.integers(1, 400),
    shape=st.sampled_from(["uniform", "bell", "few near, unsampled", "ties"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_closest_from_a_sampled_cut_keeps_the_same_rows(
    size: int, count: int, shape: str, seed: int
) -> None:
    """The cut guessed from a sample of the distances never changes which rows are kept:
    not when the sample misses every near row, nor when it guesses too low."""
    rng = np.random.default_rng(seed)
    if shape == "uniform":
        distances = rng.integers(0, 385, size)
    elif shape == "bell":
        distances = np.clip(rng.normal(190, 20, size), 0, 384).astype(int)
    elif shape == "ties":
        distances = rng.integers(0, 3, size)
    else:  # the nearest rows all where the sample does not look (rows 1, 2, ... of 16)
        distances = np.full(size, 300)
        near = np.arange(size)[np.arange(size) % signs.SAMPLED != 0][:count]
        distances[near] = rng.integers(0, 40, len(near))
    distances = distances.astype(np.uint32)
    assert signs.closest(distances, count).tolist() == _closest_by_histogram(distances, count)


def test_closest_keeps_the_fewest_differing_and_their_ties() -> None:
    distances = np.array([9, 3, 7, 3, 1, 8, 3, 12, 0], dtype=np.uint32)
    assert signs.closest(distances, 1).tolist() == [8]
    assert signs.closest(distances, 3).tolist() == [1, 3, 4, 6, 8]  # three tied at 3
    assert signs.closest(distances, 5).tolist() == [1, 3, 4, 6, 8]
    assert signs.closest(distances, 6).tolist() == [1, 2, 3, 4, 6, 8]
    assert signs.closest(distances, 50).tolist() == list(range(9))
    assert signs.wanted(1000, 8) == signs.FEWEST
    assert signs.wanted(10**7, 8) == 10**7 // signs.SHARE
    assert signs.wanted(1000, 100) == 100 * signs.PER_WANTED


@pytest.fixture
def clustered(tmp_path: object, clock: FakeClock) -> Iterator[Memory]:
    """1,000 memories whose vectors lie in 40 tight clusters."""
    config = Config(home=tmp_path, embedder="none", signal_gate=False)  # type: ignore[arg-type]
    with Memory.open(config=config, clock=clock) as memory:
        memory.import_([json.dumps({"content": f"memory {i}"}) for i in range(1000)])
        rng = np.random.default_rng(9)
        centres = rng.standard_normal((40, DIMS)).astype(np.float32)
        ids = sorted(r.id for r in memory.list(limit=None))
        vectors = centres[np.arange(len(ids)) % 40]
        vectors += 0.3 * rng.standard_normal(vectors.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        with memory.store.transaction():
            for memory_id, vector in zip(ids, vectors, strict=True):
                memory.store.set_vector(memory_id, vector.astype(np.float32).tobytes())
        yield memory


@pytest.mark.usefixtures("small_blocks", "kernel")
def test_nearby_finds_the_nearest_and_scores_them_in_float32(clustered: Memory) -> None:
    exact = VectorIndex(clustered.store)
    exact.coarse_from = 10**9
    near = VectorIndex(clustered.store)
    near.coarse_from = 0
    exact.refresh()
    rng = np.random.default_rng(10)
    for seed in range(5):
        query = exact._matrix[seed * 7] + 0.1 * rng.standard_normal(DIMS).astype(np.float32)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        rows, scores = near.nearby(query)(8)
        assert near._int8 is not None  # (the sign pass ran)
        want_rows, want_scores = exact.ranked(query)(8)
        assert rows.tolist() == want_rows.tolist()  # (clusters of 25: all among the 256 kept)
        assert np.array_equal(scores, np.einsum("ij,j->i", near._matrix[rows], query))
        np.testing.assert_allclose(scores, want_scores, atol=1e-6)


@pytest.mark.usefixtures("small_blocks")
def test_nearby_may_miss_only_what_it_did_not_keep(clustered: Memory) -> None:
    """With room for a single row, nearby returns the row of fewest differing signs: what
    the sign pass did not keep is never scored (and so may be missed)."""
    near = VectorIndex(clustered.store)
    near.coarse_from = 0
    query = _unit_rows(1, seed=11)[0]
    near.nearby(query)(1)
    int8 = near._int8
    assert int8 is not None
    distances = int8.differing(signs.bits(query), len(near.ids()))
    kept = signs.closest(distances, signs.wanted(len(near.ids()), 1))
    rows, _ = near.nearby(query)(1)
    scores = np.einsum("ij,j->i", near._matrix[kept], query)
    assert rows.tolist() == [int(kept[np.argmax(scores)])]


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize("floor", [-np.inf, 0.0, 0.3, 0.6, 0.95])
def test_nearby_is_the_float32_top_k_of_the_rows_it_kept(clustered: Memory, floor: float) -> None:
    """The kept rows are scored in float32, each once: the answer is the float32 top k of
    every kept row (ties by row), less the rows under the floor (which the search drops)."""
    near = VectorIndex(clustered.store)
    near.coarse_from = 0
    rng = np.random.default_rng(13)
    near.refresh()
    for trial in range(12):  # near a stored row, or anywhere
        query = near._matrix[trial * 13] if trial % 2 else _unit_rows(1, trial)[0]
        query = (query + 0.2 * rng.standard_normal(DIMS)).astype(np.float32)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        for k in (1, 8, 40):
            with rescoring(near) as scored:
                rows, scores = near.nearby(query, floor)(k)
            int8 = near._int8
            assert int8 is not None
            size = len(near.ids())
            kept = signs.closest(int8.differing(signs.bits(query), size), signs.wanted(size, k))
            every = np.einsum("ij,j->i", near._matrix[kept], query)
            order = np.lexsort((kept, -every))[:k]
            best = zip(kept[order].tolist(), every[order].tolist(), strict=True)
            want = [(r, x) for r, x in best if x >= floor]
            got = [
                (r, x) for r, x in zip(rows.tolist(), scores.tolist(), strict=True) if x >= floor
            ]
            assert got == want
            assert sum(scored) == len(kept)  # (one gather and one product)


@pytest.mark.usefixtures("small_blocks")
def test_a_deeper_round_scores_only_the_rows_it_adds_and_answers_as_a_first(
    clustered: Memory,
) -> None:
    """A look that goes deeper (a filter or a skip left too few) keeps the rows the round
    before scored, scores only the rows it adds, and answers exactly what a first round of
    that depth answers."""
    near = VectorIndex(clustered.store)
    near.coarse_from = 0
    near.refresh()
    for trial in range(6):
        query = _unit_rows(1, seed=20 + trial)[0]
        best = near.nearby(query)
        best(8)  # (the int8 copy and the signs made)
        int8 = near._int8
        assert int8 is not None
        distances = int8.differing(signs.bits(query), len(near.ids()))
        for shallow, deep in ((8, 40), (40, 100)):
            before = signs.closest(distances, signs.wanted(len(distances), shallow))
            after = signs.closest(distances, signs.wanted(len(distances), deep))
            assert len(after) > len(before)  # (the deeper round adds rows)
            with rescoring(near) as scored:
                rows, scores = best(deep)
            assert scored == [len(after) - len(np.intersect1d(before, after))]
            fresh_rows, fresh_scores = near.nearby(query)(deep)
            assert rows.tolist() == fresh_rows.tolist()
            assert np.array_equal(scores, fresh_scores)


@given(
    st.lists(st.integers(0, 300), max_size=60, unique=True),
    st.lists(st.integers(0, 300), max_size=60, unique=True),
)
@settings(max_examples=200, deadline=None)
def test_rescored_takes_what_was_scored_and_scores_the_rest(
    earlier: list[int], rows: list[int]
) -> None:
    values = np.random.default_rng(len(earlier)).standard_normal((301, 8)).astype(np.float32)
    query = values[0]
    asked: list[list[int]] = []

    def score(r: np.ndarray, q: np.ndarray, weight: float) -> np.ndarray:
        asked.append(r.tolist())
        return np.einsum("ij,j->i", values[r], q)

    kept = np.array(sorted(earlier), dtype=np.intp)
    wanted = np.array(sorted(rows), dtype=np.intp)
    before = (kept, np.einsum("ij,j->i", values[kept], query))
    got = signs.rescored(wanted, before, score, query)
    assert np.array_equal(got, np.einsum("ij,j->i", values[wanted], query))
    assert asked == [sorted(set(rows) - set(earlier))]
    asked.clear()
    assert np.array_equal(signs.rescored(wanted, None, score, query), got)
    assert asked == [sorted(rows)]


def test_below_the_first_pass_nearby_is_exact(clustered: Memory) -> None:
    index = VectorIndex(clustered.store)
    query = _unit_rows(1, seed=12)[0]
    rows, scores = index.nearby(query)(20)
    want_rows, want_scores = index.ranked(query)(20)
    assert index._int8 is None
    assert rows.tolist() == want_rows.tolist()
    assert np.array_equal(scores, want_scores)


def test_a_write_finds_its_update_through_the_sign_pass(
    config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(VectorIndex, "coarse_from", 0)
    monkeypatch.setattr(VectorIndex, "int8_background_from", 10**9)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        for i in range(50):
            memory.remember(f"Unrelated note {i} about the garden and the weather.", force=True)
        old = memory.remember("The staging API listens on port 8080.", source="user")
        clock.advance(days=1)
        new = memory.remember("The staging API listens on port 9090 now.", source="user")
        assert [x.old_id for x in new.updates] == [old.id]
        assert memory.vectors._local._int8 is not None  # (searched by the sign pass)


@pytest.fixture
def looking(config: Config, clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> Iterator[Memory]:
    """A store searched by the sign pass from its first row (its int8 copy made at once),
    with fifty memories written and their vectors in memory."""
    monkeypatch.setattr(VectorIndex, "coarse_from", 0)
    monkeypatch.setattr(VectorIndex, "int8_background_from", 10**9)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        for i in range(50):
            memory.remember(f"Unrelated note {i} about the garden and the weather.", force=True)
        memory.search("garden", touch=False)  # (the rows brought up to date)
        yield memory


def _rows_held(memory: Memory) -> int:
    return memory.vectors._local._size


def test_a_write_s_look_scores_new_vectors_beside_the_rows_and_appends_none(
    looking: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each write's look scores the vectors written since the rows were brought up to date
    beside them (it finds the one written just before it), reading each once, and appends
    none of them; a recall appends them all."""
    held = _rows_held(looking)
    read: list[int] = []
    vector_rows = looking.store.vector_rows
    monkeypatch.setattr(
        looking.store, "vector_rows", lambda *a: read.append(len(found := vector_rows(*a))) or found
    )
    old = looking.remember("The staging API listens on port 8080.", source="user")
    looking.remember("Lunch is at noon on Fridays in the atrium.", source="user")
    new = looking.remember("The staging API listens on port 9090 now.", source="user")
    assert [x.old_id for x in new.updates] == [old.id]
    assert _rows_held(looking) == held  # (nothing appended by the looks)
    assert sum(read) == 2  # (the second look read the first write's vector, the third the second's)
    assert looking.vectors._local._pending is None  # (let go when the look ended)
    looking.search("staging API", touch=False)
    assert _rows_held(looking) == held + 3


def test_the_look_finds_what_a_look_at_rows_brought_up_to_date_finds(looking: Memory) -> None:
    from salience.stores.base import MemoryFilter

    for text in (
        "Deploys run from ops/deploy.sh on the build server",
        "The garden hose by the shed leaks at the tap",
        "Deploys of the billing service need a second review",
    ):
        assert looking.remember(text, source="user").outcome.value == "created"
    vectors = looking.vectors
    flt = MemoryFilter(as_of=looking.now(), user="default")
    for query_text in ("deploys run review", "garden weather note", "hose leaks"):
        query = WordHashEmbedder().embed([query_text])[0]
        with vectors.held(64):
            pending = vectors._local._pending
            beside = vectors.nearby_texts(query, flt, 8, 0.0, lambda text: False)
        assert pending is not None
        assert len(pending[0]) == (3 if query_text[0] == "d" else 1)
        with vectors.held():
            current = vectors.nearby_texts(query, flt, 8, 0.0, lambda text: False)
        assert [(t, i) for t, i, _ in beside] == [(t, i) for t, i, _ in current]
        np.testing.assert_allclose([x for *_, x in beside], [x for *_, x in current], atol=1e-6)
        again = looking.remember(f"The team wrote another long note on {query_text} today")
        assert again.outcome.value == "created"  # (appended by the look above: one pending)


def test_a_look_past_skipped_texts_fetches_each_text_once(
    looking: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write's look past what it skips (documents) goes deeper round by round, and each
    round fetches only the texts no round before it did; it finds what a look at every text
    finds."""
    from salience.stores.base import MemoryFilter

    facts = [
        "The garden shed key hangs by the back door",
        "The staging API listens on port 8080",
        "Weather alerts go to the ops channel",
    ]
    for text in facts:
        assert looking.remember(text, source="user").outcome.value == "created"
    asked: list[str] = []
    texts = looking.store.texts
    monkeypatch.setattr(looking.store, "texts", lambda ids, f: asked.extend(ids) or texts(ids, f))
    query = WordHashEmbedder().embed(["garden weather note about the key"])[0]
    flt = MemoryFilter(as_of=looking.now(), user="default")
    with looking.vectors.held(64):
        found = looking.vectors.nearby_texts(query, flt, 3, 0.0, lambda t: t.startswith("Unr"))
    assert len(asked) > 3  # (the nearest were skipped: it looked deeper)
    assert len(asked) == len(set(asked))
    every = WordHashEmbedder().embed(facts) @ query
    want = [facts[i] for i in np.argsort(-every) if every[i] > 0][:3]
    assert [text for text, _, _ in found] == want


def test_past_so_many_new_vectors_or_after_a_purge_the_look_brings_the_rows_up_to_date(
    looking: Memory,
) -> None:
    held = _rows_held(looking)
    index = looking.vectors._local
    for i in range(3):
        made = looking.remember(f"Fact number {i}: the build server {i} runs the nightly jobs")
        assert made.outcome.value == "created"
    with index.guard:
        assert index.hold_pending(2, index) is False  # (three: more than two)
        assert index.hold_pending(3, index) is True
        assert index._pending is not None
        assert len(index._pending[0]) == 3
        index.release_pending()
    assert _rows_held(looking) == held
    gone = looking.remember("A note about the old staging database, to purge", source="user")
    assert gone.outcome.value == "created"
    assert gone.id is not None
    looking.purge(gone.id)
    with index.guard:
        assert index.pending(64) is None  # (a vector deleted: the rows are read again)
    assert looking.remember("The build server reboots on Sundays").outcome.value == "created"
    assert _rows_held(looking) == held + 3  # (the look read them again: three; not its own)


def test_a_look_past_skipped_texts_asks_for_more_rows_as_looks_skip_more(
    looking: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write's look, which skips texts (documents: about half of chat turns), asks in its
    first round for as many more rows as recent looks skipped (twice what it wants at most),
    so that one round mostly does; what it finds is what it would round by round."""
    from salience.stores.base import MemoryFilter

    rounds: list[int] = []
    texts = looking.store.texts
    monkeypatch.setattr(
        looking.store, "texts", lambda ids, f: rounds.append(len(ids)) or texts(ids, f)
    )
    query = WordHashEmbedder().embed(["a note about the garden and the weather"])[0]
    flt = MemoryFilter(as_of=looking.now(), user="default")
    odd = {f"Unrelated note {i} about the garden and the weather." for i in range(1, 50, 2)}
    with looking.vectors.held(64):
        every = looking.vectors.nearby_texts(query, flt, 50, 0.0, lambda t: False)
        firsts = []
        for _ in range(30):
            rounds.clear()
            found = looking.vectors.nearby_texts(query, flt, 5, 0.0, odd.__contains__)
            firsts.append(rounds[0])
            assert [t for t, _, _ in found] == [t for t, _, _ in every if t not in odd][:5]
        for _ in range(60):
            looking.vectors.nearby_texts(query, flt, 5, 0.0, lambda t: False)
        rounds.clear()
        looking.vectors.nearby_texts(query, flt, 5, 0.0, lambda t: False)
    assert firsts[0] == 5  # (the first look: as if nothing were skipped)
    assert 5 < firsts[-1] <= 10  # (more, as they skip ...)
    assert firsts == sorted(firsts)  # (... never fewer)
    assert rounds == [5]  # (looks that skip nothing: back to what it wants)
