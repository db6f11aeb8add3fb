from datetime import timedelta

from salience.briefing import (
    BriefingSection,
    ManifestBuilder,
    estimate_tokens,
    listed_section,
    one_line,
    render,
    split_live,
)
from tests.factory import NOW, record


def test_estimate_tokens_is_ceil_of_a_quarter() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 100, 120)] == [0, 1, 1, 2, 25, 30]


def test_one_line_prefers_the_title_and_folds_spacing() -> None:
    assert one_line(record(content="a\n  b\tc")) == "a b c"
    assert one_line(record(content="long text", title="Short title")) == "Short title"


def test_the_first_decision_about_a_candidate_wins() -> None:
    r = record()
    manifest = ManifestBuilder()
    manifest.drop(r, "limit")
    manifest.keep(r, 0.5, 3, "S")
    (entry,) = manifest.build()
    assert (entry.kept, entry.reason) == (False, "limit")


def test_manifest_lists_kept_before_dropped() -> None:
    a, b = record(), record()
    manifest = ManifestBuilder()
    manifest.drop(a, "limit")
    manifest.keep(b, 0.9, 2, "S")
    assert [e.id for e in manifest.build()] == [b.id, a.id]


def test_split_live_reports_superseded_and_disabled() -> None:
    live, old, off = record(), record(valid_until=NOW - timedelta(days=1)), record(enabled=False)
    manifest = ManifestBuilder()
    assert split_live([live, old, off], NOW, manifest) == [live]
    assert {e.id: e.reason for e in manifest.build()} == {old.id: "superseded", off.id: "disabled"}


def test_render_skips_empty_sections() -> None:
    sections = [BriefingSection("A", ("- x",), ("1",)), BriefingSection("B", (), ())]
    assert render(sections, "[head]") == "[head]\n\n## A\n- x"


def test_listed_section_keeps_the_first_n() -> None:
    records = [record() for _ in range(3)]
    manifest = ManifestBuilder()
    scores = {r.id: 1.0 for r in records}
    section = listed_section("T", records, 2, scores, manifest, lambda r: f"- {r.content}")
    assert section.ids == (records[0].id, records[1].id)
    assert [e.reason for e in manifest.build() if not e.kept] == ["limit"]
