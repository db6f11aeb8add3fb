"""Ranking on columns gives exactly the order of scoring every record one by one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from salience.briefing.columns import Columns
from salience.briefing.ranking import best_first, ranked_ids
from salience.models import MemoryRecord
from salience.profiles import PROFILES, ProfileSettings
from tests.factory import NOW, record
from tests.profiles.test_columns_agree import SETTINGS, memories, unique_ids


def by_records(
    records: list[MemoryRecord],
    name: str,
    tuned: ProfileSettings,
    project: str | None,
    exclude: tuple[str, ...],
) -> list[str]:
    """What ``rank`` did before columns: filter like the store's listing, score each record."""
    profile = PROFILES[name]
    kept = [
        r
        for r in records
        if r.forget_reason is None
        and (r.valid_until is None or r.valid_until > NOW)
        and r.enabled
        and (project is None or r.project == project)
        and r.type not in exclude
    ]
    scored = [(r.id, profile.context_score(r, NOW, tuned).value) for r in kept]
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return [memory_id for memory_id, _ in scored]


@pytest.mark.parametrize("name", sorted(PROFILES))
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    records=st.lists(memories(), min_size=1, max_size=60).map(unique_ids),
    project=st.sampled_from([None, "p0", "p2", "nowhere"]),
    exclude=st.sampled_from([(), ("summary",), ("decision", "fact")]),
    limit=st.sampled_from([None, 1, 3, 10]),
    which=st.integers(0, len(SETTINGS) - 1),
)
@pytest.mark.slow
def test_ranked_ids_equal_the_record_at_a_time_order(
    name: str,
    records: list[MemoryRecord],
    project: str | None,
    exclude: tuple[str, ...],
    limit: int | None,
    which: int,
) -> None:
    tuned = SETTINGS[which]
    columns = Columns.from_records(records)
    profile = PROFILES[name]
    got = ranked_ids(
        columns,
        lambda c: profile.context_scores(c, NOW, tuned),
        NOW,
        project=project,
        exclude_types=exclude,
        limit=limit,
    )
    expected = by_records(records, name, tuned, project, exclude)
    assert got == (expected if limit is None else expected[:limit])


def test_nothing_to_rank_gives_nothing() -> None:
    superseded = record("old news", valid_until=NOW - timedelta(seconds=1))
    columns = Columns.from_records([superseded])
    scores = PROFILES["salience"].context_scores
    assert ranked_ids(columns, lambda c: scores(c, NOW, ProfileSettings()), NOW) == []


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.0, 0.5, 0.5, 1.0, 2.5, -1.0]), max_size=40),
    limit=st.none() | st.integers(1, 45),
    data=st.data(),
)
def test_best_first_is_lexsort_by_value_then_id(
    values: list[float], limit: int | None, data: st.DataObject
) -> None:
    import numpy as np

    ids = data.draw(
        st.lists(
            st.text("ABC01", min_size=1, max_size=3),
            min_size=len(values),
            max_size=len(values),
            unique=True,
        )
    )
    scores, names = np.array(values, dtype=np.float64), np.array(ids, dtype=np.str_)
    expected = np.lexsort((names, -scores)) if values else np.zeros(0, dtype=np.intp)
    got = best_first(scores, names, limit)
    assert got.tolist() == (expected if limit is None else expected[:limit]).tolist()


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(-3, 3), max_size=40), data=st.data())
def test_by_key_then_id_is_lexsort(keys: list[int], data: st.DataObject) -> None:
    import numpy as np

    from salience.briefing.ranking import by_key_then_id

    ids = data.draw(
        st.lists(st.text("xyz9", min_size=1, max_size=4), min_size=len(keys), max_size=len(keys))
    )
    codes, names = np.array(keys, dtype=np.int64), np.array(ids, dtype=np.str_)
    assert by_key_then_id(codes, names).tolist() == np.lexsort((names, codes)).tolist()


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(-3, 3), max_size=40), data=st.data())
def test_by_key_then_id_reads_ids_where_at_says(keys: list[int], data: st.DataObject) -> None:
    """``at`` names each key's id among a larger array: the order is the one the gathered
    ids give (only the tied keys' ids are read)."""
    import numpy as np

    from salience.briefing.ranking import best_first, by_key_then_id

    pool = data.draw(st.lists(st.text("xyz9", min_size=1, max_size=4), min_size=len(keys) + 3))
    names = np.array(pool, dtype=np.str_)
    at = np.array(data.draw(st.permutations(range(len(pool))))[: len(keys)], dtype=np.intp)
    codes = np.array(keys, dtype=np.int64)
    assert by_key_then_id(codes, names, at).tolist() == np.lexsort((names[at], codes)).tolist()
    limit = data.draw(st.none() | st.integers(0, 5))
    values = codes.astype(np.float64)
    assert (
        best_first(values, names, limit, at).tolist()
        == best_first(values, names[at], limit).tolist()
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_by_key_then_id_is_lexsort_on_thousands_of_ties_and_nans(seed: int) -> None:
    """Beyond numpy's small-array insertion sort (stable by luck), the keys' sort is not
    stable: runs of equal keys, NaN's among them, and repeated ids still come in lexsort's
    order (key, id, position)."""
    import numpy as np

    from salience.briefing.ranking import by_key_then_id

    rng = np.random.default_rng(seed)
    keys = rng.choice(np.array([0.25, -1.0, 3.0, np.nan, 7.5]), size=3000)
    keys = np.where(rng.random(3000) < 0.7, rng.random(3000), keys)  # 30 % in ties
    names = rng.choice(np.array(["a", "b", "zz", "c9"]), size=3000)
    assert by_key_then_id(keys, names).tolist() == np.lexsort((names, keys)).tolist()


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.integers(-3, 3), max_size=12), data=st.data())
def test_in_key_order_says_whether_the_sort_would_leave_the_rows_as_they_are(
    keys: list[int], data: st.DataObject
) -> None:
    import numpy as np

    from salience.briefing.ranking import by_key_then_id, in_key_order

    ids = data.draw(
        st.lists(st.text("xy9", min_size=1, max_size=3), min_size=len(keys), max_size=len(keys))
    )
    keys = sorted(keys) if data.draw(st.booleans()) else keys  # (often in order)
    codes, names = np.array(keys, dtype=np.int64), np.array(ids, dtype=np.str_)
    unmoved = by_key_then_id(codes, names).tolist() == list(range(len(keys)))
    if in_key_order(codes, names):
        assert unmoved
    elif len(set(ids)) == len(ids):  # (an id repeated at one key: said out of order, sorted)
        assert not unmoved
