"""Row ids and row lookup over saved rows (fixed-width, binary search) and rows added since."""

from __future__ import annotations

import numpy as np

from salience.search.rowids import RowIds, RowLookup, SavedIds, extended, take


def _saved(ids: list[str]) -> SavedIds:
    fixed = np.array([i.encode() for i in ids], dtype=f"S{max(len(i) for i in ids)}")
    return SavedIds(fixed, np.argsort(fixed, kind="stable"))


def test_saved_rows_then_added_ones_read_as_one_sequence() -> None:
    ids = RowIds(_saved(["c", "a", "bb"]))
    ids.append("zz")
    ids.extend(["é", "q"])
    assert len(ids) == 6
    assert list(ids) == ["c", "a", "bb", "zz", "é", "q"]
    assert [ids[0], ids[2], ids[3], ids[-1]] == ["c", "bb", "zz", "q"]
    assert ids[1:4] == ["a", "bb", "zz"]


def test_joined_reads_more_ids_after_the_last_row_and_leaves_the_rows_as_they_are() -> None:
    for saved in (None, _saved(["c", "a"])):
        ids = RowIds(saved)
        ids.extend(["zz", "q"])
        first = len(ids)
        view = ids.joined(["p1", "p2"])
        assert len(view) == first + 2
        assert list(view) == [*ids, "p1", "p2"]
        assert view[first] == "p1"
        assert view[-1] == "p2"
        assert view[first - 1] == "q"
        assert take(view, [first + 1, 0, first]) == ["p2", ids[0], "p1"]
        assert len(ids) == first  # (a view: the rows' own ids unchanged)
        assert take(ids, [0, first - 1]) == [ids[0], "q"]


def test_lookup_finds_saved_and_added_rows_and_nothing_else() -> None:
    ids = RowIds(_saved(["c", "a", "bb", "a2"]))
    lookup = RowLookup(ids)
    ids.append("longer-than-the-width")
    lookup["longer-than-the-width"] = 4
    lookup.update([("x", 5)])
    wanted = ["a", "bb", "b", "", "a2", "longer-than-the-width", "x", "c", "bbb", "a\0"]
    assert lookup.find(wanted) == [1, 2, None, None, 3, 4, 5, 0, None, None]
    assert lookup.get("c") == 0
    assert lookup.rows(["zz", "x", "a"]) == [5, 1]
    assert lookup.isdisjoint(["zz", "q"])
    assert not lookup.isdisjoint(["zz", "a"])


def test_rows_of_is_find_as_an_array_with_minus_one_for_none() -> None:
    for saved in (None, _saved(["c", "a", "bb", "a2"])):
        ids = RowIds(saved)
        lookup = RowLookup(ids)
        wanted = ["a", "bb", "b", "", "a2", "x", "c", "bbb", "a\0", "longer-than-the-width"]
        for added in ({}, {"x": 5, "longer-than-the-width": 4}):
            lookup.update(added.items())
            rows = lookup.rows_of(wanted)
            assert rows.dtype == np.intp
            assert rows.tolist() == [-1 if r is None else r for r in lookup.find(wanted)]
            assert lookup.rows(wanted) == [r for r in rows.tolist() if r >= 0]
        assert lookup.rows_of([]).tolist() == []
    assert lookup.rows_of(["a", "x", "zz"]).tolist() == [1, 5, -1]


def test_without_saved_rows_the_lookup_is_a_dict() -> None:
    ids = RowIds()
    lookup = RowLookup(ids)
    ids.extend(["m1", "m2"])
    lookup.update([("m1", 0), ("m2", 1)])
    assert lookup.find(["m2", "m3"]) == [1, None]
    assert lookup.isdisjoint(["m3"])
    assert not lookup.isdisjoint(["m3", "m1"])


def test_fixed_width_bytes_cover_saved_and_added_ids() -> None:
    ids = RowIds(_saved(["ab", "cd"]))
    ids.extend(["efgh", "i"])
    fixed = ids.fixed(3)
    assert fixed.dtype == np.dtype("S4")
    assert fixed.tolist() == [b"ab", b"cd", b"efgh"]
    assert RowIds().fixed(0).tolist() == []


def test_taking_rows_reads_the_ids_of_saved_and_added_rows_alike() -> None:
    added = RowIds()
    added.extend(["m0", "m1", "m2", "m3"])
    assert added.take([3, 0, 0, 2]) == ["m3", "m0", "m0", "m2"]
    assert added.take([1]) == ["m1"]
    assert added.take([]) == []
    mixed = RowIds(_saved(["c", "a"]))
    mixed.extend(["zz", "é"])
    assert mixed.take([3, 0, 2, 1]) == ["é", "c", "zz", "a"]
    assert take(["x", "y"], [1, 0]) == ["y", "x"]
    assert take(mixed, [1]) == ["a"]


def test_extended_grows_in_place_and_keeps_what_it_held() -> None:
    start = np.arange(5, dtype=np.intp)
    grown = extended(start, 7, -1)
    assert grown.tolist() == [0, 1, 2, 3, 4, -1, -1]
    assert start.tolist() == [0, 1, 2, 3, 4]  # (a new buffer: the given array is untouched)
    again = extended(grown, 9, -1)
    assert again.tolist() == [0, 1, 2, 3, 4, -1, -1, -1, -1]
    assert np.shares_memory(again, grown)  # (room to spare: no copy)
    big = extended(again, 1000, 7)
    assert big.tolist() == [*again.tolist(), *[7] * 991]
    assert not np.shares_memory(big, again)
    norms = extended(np.ones(3, dtype=np.float32), 4, 0.5)
    assert norms.dtype == np.float32
    assert norms.tolist() == [1, 1, 1, 0.5]
    offset = np.arange(10, dtype=np.intp)[2:]  # a view not at the start of its buffer
    assert extended(offset, 9, 0).tolist() == [2, 3, 4, 5, 6, 7, 8, 9, 0]
    assert offset.base is not None
    assert offset.base.tolist() == list(range(10))  # (never written past its view's end)
