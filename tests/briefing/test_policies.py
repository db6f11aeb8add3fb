from datetime import timedelta

import numpy as np

from salience.briefing.policies import (
    BY_SCORE,
    NEWEST,
    Candidates,
    ManifestBuilder,
    best,
    listed_section,
    one_line,
    render,
    split_live,
)
from salience.models import BriefingSection, MemoryRecord, estimate_tokens
from tests.factory import NOW, record


def _builder(records: list[MemoryRecord], scores: list[float] | None = None) -> ManifestBuilder:
    values = np.array(scores if scores is not None else [0.5] * len(records))
    return ManifestBuilder(Candidates.of(records), values)


def test_estimate_tokens_is_ceil_of_a_quarter() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 100, 120)] == [0, 1, 1, 2, 25, 30]


def test_one_line_leads_with_the_title_and_folds_spacing() -> None:
    assert one_line(record(content="a\n  b\tc")) == "a b c"
    assert one_line(record(content="long  text", title="Short title")) == "Short title: long text"
    assert one_line(record(content="Short title says it", title="short TITLE")) == (
        "Short title says it"
    )


def test_the_first_decision_about_a_candidate_wins() -> None:
    r = record()
    manifest = _builder([r])
    manifest.drop([0], "limit")
    manifest.keep(0, r, 3, "S")
    manifest.drop([0], "token budget")
    (entry,) = manifest.build()
    assert (entry.kept, entry.reason) == (False, "limit")


def test_manifest_lists_kept_before_dropped() -> None:
    a, b = record(), record()
    manifest = _builder([a, b], [0.1, 0.9])
    manifest.drop([0], "limit")
    manifest.keep(1, b, 2, "S")
    built = manifest.build()
    assert [e.id for e in built] == [b.id, a.id]
    assert built[0].score == 0.9
    assert built[1].score == 0.1
    assert built.reasons() == {"limit": 1}
    assert [e.id for e in built.kept] == [b.id]


def test_dropped_groups_are_ordered_when_read() -> None:
    records = [record(age=age) for age in (3, 1, 2, 0)]
    manifest = _builder(records, [0.2, 0.9, 0.5, 0.9])
    manifest.drop([0, 1, 2, 3], "limit", order=BY_SCORE)
    ties_by_id = sorted([records[1].id, records[3].id])
    assert [e.id for e in manifest.build()] == [*ties_by_id, records[2].id, records[0].id]
    newest = _builder(records)
    newest.drop(np.array([2, 0, 3]), "limit", order=NEWEST)
    assert [e.id for e in newest.build()] == [records[3].id, records[2].id, records[0].id]


def test_split_live_reports_superseded_and_disabled() -> None:
    live, old, off = record(), record(valid_until=NOW - timedelta(days=1)), record(enabled=False)
    candidates = Candidates.of([live, old, off])
    manifest = ManifestBuilder(candidates, np.zeros(3))
    assert split_live(candidates, NOW, manifest).tolist() == [True, False, False]
    built = manifest.build()
    assert {e.id: e.reason for e in built} == {old.id: "superseded", off.id: "disabled"}
    assert all(e.score is None for e in built)


def test_best_takes_every_tie_into_account() -> None:
    records = [record() for _ in range(5)]
    candidates = Candidates.of(records)
    scores = np.array([0.5, 0.9, 0.5, 0.5, 0.1])
    chosen, rest = best(candidates, np.arange(5), scores, 2)
    first_tie = min((records[i].id, i) for i in (0, 2, 3))[1]
    assert chosen.tolist() == [1, first_tie]
    assert sorted(rest.tolist()) == sorted({0, 2, 3, 4} - {first_tie})


def test_render_skips_empty_sections() -> None:
    sections = [BriefingSection("A", ("- x",), ("1",)), BriefingSection("B", (), ())]
    assert render(sections, "[head]") == "[head]\n\n## A\n- x"


def test_listed_section_keeps_the_chosen_and_drops_the_rest() -> None:
    records = [record() for _ in range(3)]
    candidates = Candidates.of(records)
    manifest = ManifestBuilder(candidates, np.ones(3))
    section = listed_section(
        "T", candidates, np.array([0, 1]), np.array([2]), manifest, lambda r: f"- {r.content}"
    )
    assert section.ids == (records[0].id, records[1].id)
    assert [e.reason for e in manifest.build() if not e.kept] == ["limit"]


def test_candidates_fetch_each_record_once() -> None:
    records = [record() for _ in range(4)]
    asked: list[list[int]] = []

    def fetch(rows: list[int]) -> list[MemoryRecord]:
        asked.append(rows)
        return [records[i] for i in rows]

    candidates = Candidates(Candidates.of(records).columns, fetch)
    assert candidates.records([2, 0]) == [records[2], records[0]]
    assert candidates.records([0, 3, 2]) == [records[0], records[3], records[2]]
    assert asked == [[0, 2], [3]]
